#include "actorflow/graph/control_flow.hpp"

#include <unordered_map>

#include "actorflow/graph/builder_ops.hpp"
#include "builder_state.hpp"
#include "builder_util.hpp"
#include "flow_context.hpp"
#include "loop_context.hpp"

namespace actorflow::graph {

namespace {

/// A branch of a cond: outside tensors come in through Switch(x, pred),
/// on the branch's port.
class cond_context : public detail::flow_context {
public:
  cond_context(const scope& outer, std::shared_ptr<flow_context> outer_ctx,
               output pred, int branch, std::string pivot)
    : flow_context(std::move(outer_ctx)), outer_scope_(outer),
      pred_(std::move(pred)), branch_(branch), pivot_(std::move(pivot)) {
    // nop
  }

  output capture(const output& x, const std::string&) override {
    auto key = x.name();
    if (auto i = captured_.find(key); i != captured_.end())
      return i->second.get();
    auto outs = outer_scope_.get().add_node(x.is_ref() ? "RefSwitch" : "Switch",
                                            "Switch", {x, pred_.get()},
                                            {{"T", x.dtype()}});
    if (outs.size() != 2)
      return {};
    add_entry(outs[0].node_name());
    auto& y = outs[static_cast<size_t>(branch_)];
    captured_[key] = y;
    return y;
  }

  const std::string& pivot() const override {
    return pivot_;
  }

private:
  detail::held<scope> outer_scope_; ///< Where the Switches are built.
  detail::held<output> pred_;
  int branch_;
  std::string pivot_;
  std::unordered_map<std::string, detail::held<output>> captured_;
};

/// `x` with shape `s`, for loop variables whose shape the body changes.
output with_shape(const output& x, const core::shape& s) {
  return output{x.state(), x.node_name(), x.port(), x.dtype(), s, x.is_ref()};
}

} // namespace

std::vector<output> cond(const scope& s, const output& pred,
                         const branch_fn& then_fn, const branch_fn& else_fn) {
  // The region the cond is built in, and the scope its own nodes (pivots,
  // the Switches of captures, Merges) build in: pinned there.
  auto outer_ctx = s.flow_context();
  auto c = s.sub("cond").with_flow_context(outer_ctx);
  // The pivots: the predicate switched on itself, one Identity per branch;
  // they are dead in the untaken branch, and so is everything after them.
  auto sw = c.add_node("Switch", "pivot_switch", {pred, pred},
                       {{"T", core::dtype::bool_}});
  if (sw.size() != 2)
    return {};
  auto record = std::make_shared<detail::cond_record>();
  record->pred = pred;
  record->pivot_switch = sw[0].node_name();
  pred.state()->conds.push_back(record);
  std::vector<output> results[2];
  const branch_fn* fns[2] = {&else_fn, &then_fn};
  const char* names[2] = {"false", "true"};
  for (int branch : {1, 0}) {
    auto pivot = identity(c.sub(std::string{"pivot_"} + names[branch]),
                          sw[static_cast<size_t>(branch)]);
    if (!pivot.valid())
      return {};
    auto ctx = std::make_shared<cond_context>(c, outer_ctx, pred, branch,
                                              pivot.node_name());
    ctx->add_member(pivot.node_name());
    record->branches[branch] = ctx;
    auto inside = s.sub("cond").sub(names[branch]).in_current_region();
    std::vector<output> outs;
    {
      detail::build_guard in_branch{*s.state(), ctx, &inside};
      outs = (*fns[branch])(inside);
    }
    // A branch may return a tensor from outside: it too comes through the
    // branch's Switch.
    for (auto& o : outs)
      if (o.valid() && !ctx->contains(o.node_name()))
        o = ctx->capture(o, {});
    results[branch] = std::move(outs);
  }
  if (!s.ok())
    return {};
  if (results[0].size() != results[1].size()) {
    s.record_error(core::invalid_argument_error(
                     "the branches of a cond return ", results[1].size(),
                     " (then) and ", results[0].size(), " (else) results")
                     .with_context(c.unique_name("Merge"), "Merge"));
    return {};
  }
  std::vector<output> merged;
  for (size_t i = 0; i < results[0].size(); ++i) {
    merged.push_back(detail::first(
      c.add_node("Merge", "Merge", {results[0][i], results[1][i]},
                 {{"T", results[1][i].dtype()}, {"N", int64_t{2}}})));
    if (merged.back().valid())
      pred.state()->cond_preds[merged.back().node_name()]
        = {pred.node_name(), pred.port()};
  }
  return merged;
}

} // namespace actorflow::graph

namespace actorflow::graph {

std::vector<output> while_loop(const scope& s, const loop_cond_fn& cond_fn,
                               const loop_body_fn& body_fn,
                               const std::vector<output>& given_vars,
                               const while_options& options) {
  return detail::build_while_loop(s, cond_fn, body_fn, given_vars, options,
                                  nullptr);
}

std::vector<output> detail::build_while_loop(
  const scope& s, const loop_cond_fn& cond_fn, const loop_body_fn& body_fn,
  const std::vector<output>& given_vars, const while_options& options,
  std::function<output(const output&, const std::string&, bool*)> source) {
  using detail::loop_context;
  if (!s.ok())
    return {};
  // The loop's own nodes (Enter, Merge, Switch, Exit, NextIteration) go
  // into the region the loop is built in.
  auto outer_ctx = s.flow_context();
  auto w = s.sub("while").with_flow_context(outer_ctx);
  auto frame = s.unique_frame_name("while");
  auto vars = given_vars;
  // maximum_iterations: a counter that joins the condition.
  bool counted = options.maximum_iterations.has_value();
  if (counted)
    vars.insert(vars.begin(),
                constant(w.sub("iteration"), 0.0, core::dtype::int64));
  auto n = vars.size();
  if (!options.shape_invariants.empty()
      && options.shape_invariants.size() != given_vars.size()) {
    s.record_error(core::invalid_argument_error(
      "while_loop got ", options.shape_invariants.size(),
      " shape invariants for ", given_vars.size(), " loop variables"));
    return {};
  }
  auto loop = std::make_shared<loop_context::shared>(loop_context::shared{
    w, frame, options.parallel_iterations, {}, {}, {}, std::move(source)});
  auto record = std::make_shared<detail::loop_record>();
  record->loop = loop;
  record->counted = counted;
  std::vector<output> merges, switches_false, body_in;
  std::vector<std::string> merge_names;
  for (size_t i = 0; i < n; ++i) {
    auto enter = detail::first(
      w.add_node("Enter", "Enter", {vars[i]},
                 {{"T", vars[i].dtype()},
                  {"frame_name", frame},
                  {"is_constant", false},
                  {"parallel_iterations", options.parallel_iterations}}));
    if (!enter.valid())
      return {};
    loop->entries.push_back(enter.node_name());
    record->enters.push_back(enter.node_name());
    auto shape = enter.shape();
    if (!options.shape_invariants.empty() && (i > 0 || !counted)) {
      const auto& inv = options.shape_invariants[i - (counted ? 1 : 0)];
      if (!inv.compatible_with(shape)) {
        s.record_error(core::invalid_argument_error(
                         "loop variable ", i, " has shape ", shape.to_string(),
                         ", which does not fit its invariant ", inv.to_string())
                         .with_context(enter.node_name(), "Enter"));
        return {};
      }
      shape = inv;
    }
    // The second input becomes the NextIteration once the body exists.
    auto merge
      = detail::first(w.add_node("Merge", "Merge", {enter, enter},
                                 {{"T", enter.dtype()}, {"N", int64_t{2}}}));
    if (!merge.valid())
      return {};
    loop->entries.push_back(merge.node_name());
    merge_names.push_back(merge.node_name());
    merges.push_back(with_shape(merge, shape));
  }
  // The condition, anchored to the first Merge.
  auto cond_ctx
    = std::make_shared<loop_context>(loop, outer_ctx, merge_names[0]);
  auto cs = s.sub("while").sub("cond").in_current_region();
  std::vector<output> user_merges(merges.begin() + (counted ? 1 : 0),
                                  merges.end());
  output pivot;
  {
    detail::build_guard in_cond{*s.state(), cond_ctx, &cs};
    auto pred = cond_fn(cs, user_merges);
    if (counted && pred.valid())
      pred = detail::first(cs.add_node(
        "LogicalAnd", "LogicalAnd",
        {pred, detail::first(cs.add_node(
                 "Less", "Less",
                 {merges[0], constant(cs.sub("maximum_iterations"),
                                      double(*options.maximum_iterations),
                                      core::dtype::int64)},
                 {{"T", core::dtype::int64}}))},
        {}));
    if (!pred.valid() || !s.ok())
      return {};
    pivot = detail::first(cs.add_node("LoopCond", "LoopCond", {pred}, {}));
    if (!pivot.valid())
      return {};
  }
  loop->entries.push_back(pivot.node_name());
  record->pivot = pivot.node_name();
  record->cond = cond_ctx;
  record->merges = merge_names;
  std::vector<output> exits;
  for (size_t i = 0; i < n; ++i) {
    auto sw = w.add_node("Switch", "Switch", {merges[i], pivot},
                         {{"T", merges[i].dtype()}});
    if (sw.size() != 2)
      return {};
    loop->entries.push_back(sw[0].node_name());
    auto exit = detail::first(
      w.add_node("Exit", "Exit", {sw[0]}, {{"T", merges[i].dtype()}}));
    auto ident = identity(w.sub("body_in"), sw[1]);
    if (!exit.valid() || !ident.valid())
      return {};
    loop->entries.push_back(ident.node_name());
    record->switches.push_back(sw[0].node_name());
    record->exits.push_back(exit.node_name());
    record->body_in.push_back(ident.node_name());
    exits.push_back(with_shape(exit, merges[i].shape()));
    body_in.push_back(with_shape(ident, merges[i].shape()));
  }
  // The body, anchored to the first body Identity.
  auto body_ctx
    = std::make_shared<loop_context>(loop, outer_ctx, body_in[0].node_name());
  record->body = body_ctx;
  auto bs = s.sub("while").sub("body").in_current_region();
  std::vector<output> user_in(body_in.begin() + (counted ? 1 : 0),
                              body_in.end());
  std::vector<output> next;
  {
    detail::build_guard in_body{*s.state(), body_ctx, &bs};
    next = body_fn(bs, user_in);
    if (!s.ok())
      return {};
    if (counted)
      next.insert(
        next.begin(),
        detail::first(bs.add_node(
          "Add", "Add",
          {body_in[0], constant(bs.sub("one"), 1.0, core::dtype::int64)},
          {{"T", core::dtype::int64}})));
  }
  if (next.size() != n) {
    s.record_error(core::invalid_argument_error(
      "the body of a while_loop returns ", next.size() - (counted ? 1 : 0),
      " values for ", given_vars.size(), " loop variables"));
    return {};
  }
  for (size_t i = 0; i < n; ++i) {
    auto& v = next[i];
    if (v.valid() && !body_ctx->contains(v.node_name()))
      v = body_ctx->capture(v, {}); // the body returned an outside tensor
    if (!v.valid())
      return {};
    if (!merges[i].shape().compatible_with(v.shape())) {
      s.record_error(
        core::invalid_argument_error(
          "the body changes loop variable ", i - (counted ? 1 : 0),
          " from shape ", merges[i].shape().to_string(), " to ",
          v.shape().to_string(),
          "; give while_options::shape_invariants for the shapes it takes")
          .with_context(merge_names[i], "Merge"));
      return {};
    }
    auto ni = detail::first(
      w.add_node("NextIteration", "NextIteration", {v}, {{"T", v.dtype()}}));
    if (!ni.valid())
      return {};
    // Close the loop: the Merge's second input is the NextIteration.
    merges[i].state()->g.mutable_find(merge_names[i])->inputs[1]
      = ni.node_name();
    record->next.push_back(v);
    record->last = ni.node_name();
  }
  for (const auto& exit : record->exits)
    pivot.state()->loops[exit] = record;
  exits.erase(exits.begin(), exits.begin() + (counted ? 1 : 0));
  return exits;
}

} // namespace actorflow::graph
