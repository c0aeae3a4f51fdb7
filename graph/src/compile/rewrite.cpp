// A run signature's feeds and fetches made nodes, and the graph pruned to
// what they need.

#include "compile/rewrite.hpp"

#include <set>

#include "actorflow/ops/registration.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::graph {

namespace {

/// Parses a tensor name and checks that it exists; returns it normalised.
core::status resolve_tensor(const graph& g, const graph_types& types,
                            const std::string& text, const char* what,
                            core::input_ref* out) {
  if (!core::input_ref::parse(text, out) || out->control)
    return core::invalid_argument_error("malformed ", what, " '", text,
                                        "': expected node:port")
      .with_context(text, "");
  auto i = g.index_of(out->node);
  if (i < 0)
    return core::not_found_error(what, " '", text, "' names no node")
      .with_context(out->node, "");
  const auto& node = g.nodes()[static_cast<size_t>(i)];
  if (out->port
      >= static_cast<int>(types.outputs[static_cast<size_t>(i)].size()))
    return core::invalid_argument_error(
             what, " '", text, "': node '", out->node, "' has only ",
             types.outputs[static_cast<size_t>(i)].size(), " outputs")
      .with_context(node.name, node.op);
  return core::status::ok();
}

/// Makes the `_Feed` or `_Fetch` node for tensor `t`: on its producer's
/// device, with its dtype and its position in the signature.
core::node_def endpoint(const graph& in, const graph_types& types,
                        const core::input_ref& t, const char* op,
                        const std::string& name, size_t index) {
  auto producer = static_cast<size_t>(in.index_of(t.node));
  core::node_def node;
  node.name = name;
  node.op = op;
  node.device = in.nodes()[producer].device;
  node.attrs
    = {{"T", types.outputs[producer][static_cast<size_t>(t.port)].type},
       {"index", static_cast<int64_t>(index)}};
  return node;
}

} // namespace

core::status rewrite_for_run(const graph& in, const graph_types& types,
                             const run_signature& sig, graph* out) {
  graph g = in;
  // Feeds: fed tensor name -> feed node name.
  std::map<std::string, std::string> fed;
  std::vector<std::string> roots;
  for (size_t i = 0; i < sig.feeds.size(); ++i) {
    core::input_ref t;
    ACTORFLOW_RETURN_IF_ERROR(
      resolve_tensor(in, types, sig.feeds[i], "feed", &t));
    auto key = t.to_string();
    if (fed.count(key) != 0)
      return core::invalid_argument_error("tensor '", key, "' is fed twice");
    auto feed = endpoint(in, types, t, ops::runtime_op::feed,
                         "_feed_" + std::to_string(i), i);
    fed.emplace(key, feed.name);
    ACTORFLOW_RETURN_IF_ERROR(g.add(std::move(feed)));
  }
  if (!fed.empty())
    for (auto& node : g.mutable_nodes())
      for (auto& text : node.inputs) {
        core::input_ref r;
        if (core::input_ref::parse(text, &r) && !r.control) {
          auto i = fed.find(r.to_string());
          if (i != fed.end())
            text = i->second;
        }
      }
  for (size_t i = 0; i < sig.fetches.size(); ++i) {
    core::input_ref t;
    ACTORFLOW_RETURN_IF_ERROR(
      resolve_tensor(in, types, sig.fetches[i], "fetch", &t));
    auto key = t.to_string();
    if (fed.count(key) != 0)
      return core::invalid_argument_error("tensor '", key,
                                          "' is both fed and fetched");
    auto fetch = endpoint(in, types, t, ops::runtime_op::fetch,
                          "_fetch_" + std::to_string(i), i);
    fetch.inputs = {key};
    roots.push_back(fetch.name);
    ACTORFLOW_RETURN_IF_ERROR(g.add(std::move(fetch)));
  }
  for (const auto& target : sig.targets) {
    auto name = core::is_control_input(target) ? target.substr(1) : target;
    if (!in.contains(name))
      return core::not_found_error("target '", target, "' names no node")
        .with_context(name, "");
    roots.push_back(name);
  }
  if (roots.empty())
    return core::invalid_argument_error("run needs at least one fetch or "
                                        "target");
  // Prune to what the roots reach backwards.
  std::vector<bool> keep(g.size(), false);
  std::vector<int> stack;
  for (const auto& r : roots) {
    auto i = g.index_of(r);
    if (!keep[static_cast<size_t>(i)]) {
      keep[static_cast<size_t>(i)] = true;
      stack.push_back(i);
    }
  }
  auto edges = g.edges();
  const auto& index = *edges;
  while (!stack.empty()) {
    auto i = static_cast<size_t>(stack.back());
    stack.pop_back();
    for (const auto& e : index.inputs(i))
      if (!keep[static_cast<size_t>(e.src)]) {
        keep[static_cast<size_t>(e.src)] = true;
        stack.push_back(e.src);
      }
  }
  graph result;
  for (size_t i = 0; i < g.size(); ++i)
    if (keep[i])
      ACTORFLOW_RETURN_IF_ERROR(result.add(g.nodes()[i]));
  *out = std::move(result);
  return core::status::ok();
}

} // namespace actorflow::graph
