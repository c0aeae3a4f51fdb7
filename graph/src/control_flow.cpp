#include "actorflow/graph/control_flow.hpp"

#include <unordered_map>

#include "actorflow/graph/builder_ops.hpp"
#include "builder_state.hpp"
#include "builder_util.hpp"
#include "flow_context.hpp"

namespace actorflow::graph {

namespace {

/// A branch of a cond: outside tensors come in through Switch(x, pred),
/// on the branch's port.
class cond_context : public detail::flow_context {
public:
  cond_context(const scope& outer, std::shared_ptr<flow_context> outer_ctx,
               output pred, int branch, std::string pivot)
    : flow_context(std::move(outer_ctx)), outer_(outer), pred_(std::move(pred)),
      branch_(branch), pivot_(std::move(pivot)) {
    // nop
  }

  output capture(const output& x) override {
    auto key = x.name();
    if (auto i = captured_.find(key); i != captured_.end())
      return i->second;
    auto outs = outer_.add_node(x.is_ref() ? "RefSwitch" : "Switch", "Switch",
                                {x, pred_}, {{"T", x.dtype()}});
    if (outs.size() != 2)
      return {};
    add_entry(outs[0].node_name());
    return captured_[key] = outs[static_cast<size_t>(branch_)];
  }

  const std::string& pivot() const override {
    return pivot_;
  }

private:
  scope outer_;
  output pred_;
  int branch_;
  std::string pivot_;
  std::unordered_map<std::string, output> captured_;
};

} // namespace

std::vector<output> cond(const scope& s, const output& pred,
                         const branch_fn& then_fn, const branch_fn& else_fn) {
  auto c = s.sub("cond");
  // The pivots: the predicate switched on itself, one Identity per branch;
  // they are dead in the untaken branch, and so is everything after them.
  auto sw = c.add_node("Switch", "pivot_switch", {pred, pred},
                       {{"T", core::dtype::bool_}});
  if (sw.size() != 2)
    return {};
  std::vector<output> results[2];
  const branch_fn* fns[2] = {&else_fn, &then_fn};
  const char* names[2] = {"false", "true"};
  for (int branch : {1, 0}) {
    auto pivot = identity(c.sub(std::string{"pivot_"} + names[branch]),
                          sw[static_cast<size_t>(branch)]);
    if (!pivot.valid())
      return {};
    auto ctx = std::make_shared<cond_context>(c, s.flow_context(), pred, branch,
                                              pivot.node_name());
    ctx->add_member(pivot.node_name());
    auto inside = c.sub(names[branch]).with_flow_context(ctx);
    auto outs = (*fns[branch])(inside);
    // A branch may return a tensor from outside: it too comes through the
    // branch's Switch.
    for (auto& o : outs)
      if (o.valid() && !ctx->contains(o.node_name()))
        o = ctx->capture(o);
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
  for (size_t i = 0; i < results[0].size(); ++i)
    merged.push_back(detail::first(
      c.add_node("Merge", "Merge", {results[0][i], results[1][i]},
                 {{"T", results[1][i].dtype()}, {"N", int64_t{2}}})));
  return merged;
}

} // namespace actorflow::graph
