#include "actorflow/graph/gradients.hpp"

#include <algorithm>
#include <deque>
#include <map>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/gradient_registry.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "builder_state.hpp"
#include "compile/graph_index.hpp"
#include "gradients/grad_util.hpp"
#include "gradients/while_grad.hpp"
#include "loop_context.hpp"

namespace actorflow::graph {

namespace {

using port_key = std::pair<int, int>; // (node index, output port)

/// The loop primitives, which only a loop's gradient as a whole handles;
/// a cond's Switch and Merge have gradient functions.
bool is_loop_op(flow_role role) {
  return role == flow_role::enter || role == flow_role::next_iteration
         || role == flow_role::loop_cond;
}

/// Marks the nodes reachable from the nodes of `starts`: `step(i, mark)`
/// calls `mark(j)` for each node j that node i leads to.
template <class Step>
std::vector<bool> reachable(const graph& g, const std::vector<output>& starts,
                            Step step) {
  std::vector<bool> seen(g.size(), false);
  std::deque<int> todo;
  auto mark = [&](int i) {
    if (!seen[static_cast<size_t>(i)]) {
      seen[static_cast<size_t>(i)] = true;
      todo.push_back(i);
    }
  };
  for (const auto& o : starts)
    mark(g.index_of(o.node_name()));
  while (!todo.empty()) {
    auto i = todo.front();
    todo.pop_front();
    step(i, mark);
  }
  return seen;
}

/// Sums the gradients of one tensor (AddN for several).
output sum_of(const scope& s, const std::vector<output>& gs) {
  return gs.size() == 1 ? gs.front() : add_n(s, gs);
}

} // namespace

std::vector<std::optional<output>>
gradients(const scope& s, const std::vector<output>& ys,
          const std::vector<output>& xs, const std::vector<output>& grad_ys) {
  return detail::gradients_between(s, ys, xs, grad_ys, false);
}

std::vector<std::optional<output>>
detail::gradients_between(const scope& s, const std::vector<output>& ys,
                          const std::vector<output>& xs,
                          const std::vector<output>& grad_ys, bool stop_at_xs) {
  std::vector<std::optional<output>> result(xs.size());
  if (!s.ok())
    return result;
  if (!grad_ys.empty() && grad_ys.size() != ys.size()) {
    s.record_error(core::invalid_argument_error(
      "gradients: ", ys.size(), " ys but ", grad_ys.size(), " grad_ys"));
    return result;
  }
  for (const auto* list : {&ys, &xs, &grad_ys})
    for (const auto& o : *list)
      if (!o.valid() || &o.state()->g != &s.graph_def()) {
        s.record_error(core::invalid_argument_error(
          "gradients: a y, x or grad_y is invalid or from another graph"));
        return result;
      }
  const auto& g = s.graph_def();
  auto edges = g.edges();
  const auto& index = *edges;
  auto n = g.size();
  auto differentiable = [&](int node, int port) {
    return detail::carries_gradient(
      s.output_of(g.nodes()[static_cast<size_t>(node)].name, port).dtype());
  };
  // The nodes on a differentiable path from some x and on a path to some y.
  auto from_x = reachable(g, xs, [&](int i, const auto& mark) {
    for (const auto& c : index.consumers(static_cast<size_t>(i)))
      if (!c.control() && differentiable(i, c.port))
        mark(c.dst);
  });
  std::vector<bool> is_x(n, false);
  for (const auto& x : xs)
    is_x[static_cast<size_t>(g.index_of(x.node_name()))] = stop_at_xs;
  auto to_y = reachable(g, ys, [&](int i, const auto& mark) {
    if (!is_x[static_cast<size_t>(i)])
      for (const auto& in : index.inputs(static_cast<size_t>(i)))
        if (!in.control())
          mark(in.src);
  });
  auto between = [&](int i) {
    return from_x[static_cast<size_t>(i)] && to_y[static_cast<size_t>(i)];
  };
  auto root = s.sub("gradients");
  std::map<port_key, std::vector<output>> pending;
  for (size_t k = 0; k < ys.size(); ++k) {
    const auto& y = ys[k];
    auto i = g.index_of(y.node_name());
    // A list's gradient is a list: a y that is one needs its grad_y.
    if (!between(i) || !detail::carries_gradient(y.dtype())
        || (grad_ys.empty() && !core::is_floating(y.dtype())))
      continue;
    auto seed = grad_ys.empty() ? ones_like(root, y) : grad_ys[k];
    if (seed.valid() && seed.dtype() != y.dtype()) {
      s.record_error(core::invalid_argument_error(
        "gradients: grad_y ", seed.name(), " is ",
        core::to_string(seed.dtype()), " but y ", y.name(), " is ",
        core::to_string(y.dtype())));
      return result;
    }
    pending[{i, y.port()}].push_back(seed);
  }
  // Builder graphs list every node after its inputs (a loop's back edge
  // aside), so going backwards meets each node after all its consumers.
  // A while loop is differentiated as a whole where the walk meets the
  // last node while_loop built for it: everything that consumes its Exits
  // comes later in the graph, and what enters it (captures happen while
  // its body is built, after its Exits) earlier. Not the last node of its
  // frame: an earlier gradients() added its counter and stack pushes to
  // the loop after the Exits' consumers.
  std::vector<std::shared_ptr<detail::loop_record>> loops;
  for (size_t i = 0; i < n; ++i) {
    const auto& node = g.nodes()[i];
    if (node.op != "Exit" || !between(static_cast<int>(i)))
      continue;
    const auto& built = xs.front().state()->loops;
    auto it = built.find(node.name);
    if (it == built.end()) {
      s.record_error(
        core::unimplemented_error("an Exit not built by graph::while_loop")
          .with_context(node.name, node.op));
      return result;
    }
    if (std::find(loops.begin(), loops.end(), it->second) == loops.end())
      loops.push_back(it->second);
  }
  // A loop inside another is differentiated inside the other's backward
  // loop, not here.
  std::map<int, std::shared_ptr<detail::loop_record>> loop_at;
  for (const auto& loop : loops) {
    bool nested = false;
    for (const auto& other : loops)
      nested = nested || (other != loop && other->contains(loop->exits[0]));
    if (nested)
      continue;
    loop_at[g.index_of(loop->last)] = loop;
  }
  auto summed = [&](int i, int port) {
    auto it = pending.find({i, port});
    return it == pending.end() ? output{} : sum_of(root, it->second);
  };
  for (auto i = static_cast<int>(n) - 1; i >= 0 && s.ok(); --i) {
    if (auto at = loop_at.find(i); at != loop_at.end()) {
      const auto& loop = *at->second;
      std::vector<output> exit_grads;
      for (const auto& exit : loop.exits)
        exit_grads.push_back(summed(g.index_of(exit), 0));
      std::vector<std::pair<output, output>> sources;
      auto wanted
        = [&](const output& x) { return between(g.index_of(x.node_name())); };
      auto st = detail::loop_gradient(root, loop, exit_grads, wanted, &sources);
      if (!st.is_ok()) {
        s.record_error(st.with_context(loop.exits.front(), "Exit"));
        return result;
      }
      for (const auto& [src, grad] : sources) {
        auto j = g.index_of(src.node_name());
        if (grad.valid() && between(j))
          pending[{j, src.port()}].push_back(grad);
      }
    }
    if (!between(i))
      continue;
    // A copy: gradient functions add nodes, which may move the graph's.
    const auto node = g.nodes()[static_cast<size_t>(i)];
    bool in_loop = false;
    for (const auto& [last, loop] : loop_at)
      in_loop = in_loop || loop->contains(node.name);
    if (in_loop)
      continue;
    auto num_out = s.num_outputs(node.name);
    bool any = false;
    for (int p = 0; p < num_out; ++p)
      any = any || pending.count({i, p}) != 0;
    bool feeds_x = false;
    for (const auto& in : index.inputs(static_cast<size_t>(i)))
      feeds_x = feeds_x || (!in.control() && between(in.src));
    if (!any || !feeds_x)
      continue;
    if (is_loop_op(index.role(static_cast<size_t>(i)))) {
      s.record_error(
        core::unimplemented_error("a loop's node met outside its loop's "
                                  "gradient")
          .with_context(node.name, node.op));
      return result;
    }
    const auto* fn = s.gradients().find(node.op);
    if (fn == nullptr) {
      s.record_error(core::not_found_error(
                       "no gradient function is registered for op '", node.op,
                       "' (register one with scope::gradients().add, "
                       "or cut the path with StopGradient)")
                       .with_context(node.name, node.op));
      return result;
    }
    auto gs = root.sub(node.name + "_grad");
    if (!node.device.empty())
      gs = gs.with_device(node.device);
    gradient_op op{node, {}, {}};
    for (const auto& in : index.inputs(static_cast<size_t>(i)))
      if (!in.control())
        op.inputs.push_back(
          s.output_of(g.nodes()[static_cast<size_t>(in.src)].name, in.port));
    std::vector<output> grads;
    for (int p = 0; p < num_out; ++p) {
      op.outputs.push_back(s.output_of(node.name, p));
      auto it = pending.find({i, p});
      if (it != pending.end())
        grads.push_back(sum_of(gs, it->second));
      else if (detail::carries_gradient(op.outputs.back().dtype()))
        grads.push_back(zeros_like(gs, op.outputs.back()));
      else
        grads.emplace_back();
    }
    std::vector<output> input_grads(op.inputs.size());
    auto st = (*fn)(gs, op, grads, &input_grads);
    if (!st.is_ok() || input_grads.size() != op.inputs.size()) {
      s.record_error((st.is_ok() ? core::internal_error(
                        "the gradient function returned ", input_grads.size(),
                        " gradients for ", op.inputs.size(), " inputs")
                                 : st)
                       .with_context(node.name, node.op));
      return result;
    }
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      // Data inputs come first.
      const auto& in = index.inputs(static_cast<size_t>(i))[k];
      if (input_grads[k].valid() && between(in.src)
          && differentiable(in.src, in.port))
        pending[{in.src, in.port}].push_back(input_grads[k]);
    }
  }
  if (!s.ok())
    return result;
  for (size_t k = 0; k < xs.size(); ++k) {
    auto it = pending.find({g.index_of(xs[k].node_name()), xs[k].port()});
    if (it != pending.end())
      result[k] = sum_of(root, it->second);
  }
  if (!s.ok())
    return std::vector<std::optional<output>>(xs.size());
  return result;
}

} // namespace actorflow::graph
