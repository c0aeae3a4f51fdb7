// Finding the loop frame of every node from its Enters and Exits.

#include "compile/control_flow_info.hpp"

#include <deque>
#include <map>

namespace actorflow::graph {

core::status build_control_flow_info(const graph& g, control_flow_info* info) {
  return build_control_flow_info(g, *g.edges(), info);
}

core::status build_control_flow_info(const graph& g, const graph_index& index,
                                     control_flow_info* info) {
  const auto& nodes = g.nodes();
  auto n = nodes.size();
  control_flow_info result;
  result.frames.push_back({"", -1, 1});
  result.node_frame.assign(n, -1);
  std::deque<int> ready;
  for (size_t i = 0; i < n; ++i)
    if (nodes[i].inputs.empty()) {
      result.node_frame[i] = 0;
      ready.push_back(static_cast<int>(i));
    }
  std::map<std::pair<int, std::string>, int> children;
  auto error = [](const core::node_def& node, auto&&... xs) {
    return core::invalid_argument_error(xs...).with_context(node.name, node.op);
  };
  while (!ready.empty()) {
    auto i = static_cast<size_t>(ready.front());
    ready.pop_front();
    const auto& node = nodes[i];
    auto frame = result.node_frame[i];
    auto out_frame = frame;
    auto role = index.role(i);
    if (role == flow_role::enter) {
      auto name = std::get<std::string>(node.attrs.at("frame_name"));
      auto p = static_cast<int>(
        std::get<int64_t>(node.attrs.at("parallel_iterations")));
      auto [it, fresh] = children.try_emplace({frame, name}, 0);
      if (fresh) {
        it->second = static_cast<int>(result.frames.size());
        result.frames.push_back({name, frame, p});
      } else if (result.frames[static_cast<size_t>(it->second)]
                   .parallel_iterations
                 != p) {
        return error(
          node, "the Enters of frame '", name,
          "' disagree on parallel_iterations (",
          result.frames[static_cast<size_t>(it->second)].parallel_iterations,
          " and ", p, ")");
      }
      out_frame = it->second;
    } else if (role == flow_role::exit || role == flow_role::next_iteration) {
      if (frame == 0)
        return error(node, node.op, " node '", node.name,
                     "' is outside any loop frame (no Enter leads to it)");
      if (role == flow_role::exit)
        out_frame = result.frames[static_cast<size_t>(frame)].parent;
    }
    for (const auto& e : index.consumers(i)) {
      auto c = e.dst;
      auto& cf = result.node_frame[static_cast<size_t>(c)];
      if (cf == -1) {
        cf = out_frame;
        ready.push_back(c);
      } else if (cf != out_frame) {
        // A frame with the frames around it: a value of a loop entered
        // into the same loop again makes a frame inside one of its name.
        const auto& name = [&](int f) -> std::string {
          if (f == 0)
            return "the root frame";
          std::string text;
          for (; f > 0; f = result.frames[static_cast<size_t>(f)].parent)
            text += (text.empty() ? "frame '" : " inside '")
                    + result.frames[static_cast<size_t>(f)].name + "'";
          return text;
        };
        return error(nodes[static_cast<size_t>(c)], "node '",
                     nodes[static_cast<size_t>(c)].name, "' is reached from ",
                     name(cf), " and from ", name(out_frame), " (through '",
                     node.name, "')");
      }
    }
  }
  *info = std::move(result);
  return core::status::ok();
}

} // namespace actorflow::graph
