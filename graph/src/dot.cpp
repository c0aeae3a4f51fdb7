#include "actorflow/graph/dot.hpp"

#include <map>
#include <sstream>

#include "compile/control_flow_info.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::graph {

namespace {

/// A dot string literal of `x`.
std::string quoted(const std::string& x) {
  std::string out = "\"";
  for (char c : x) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + '"';
}

/// Fill colours, one per device in the order they appear (ColorBrewer's
/// Pastel1 and Set3, light enough for black text).
const char* palette(size_t i) {
  static const char* colours[]
    = {"#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc",
       "#e5d8bd", "#fddaec", "#8dd3c7", "#bebada", "#80b1d3", "#fdb462"};
  return colours[i % (sizeof(colours) / sizeof(colours[0]))];
}

/// Writes graphs as dot: nodes with their device's colour, frames as
/// clusters, edges; `prefix` keeps the ids of several graphs apart.
class dot_writer {
public:
  /// Writes the nodes and edges of `g`, its frames as clusters; ids start
  /// with `prefix`.
  core::status add(const graph& g, const std::string& prefix) {
    for (const auto& node : g.nodes())
      for (const auto& text : node.inputs) {
        core::input_ref in;
        if (!core::input_ref::parse(text, &in) || !g.contains(in.node))
          return core::invalid_argument_error("input '", text,
                                              "' names no node of the graph")
            .with_context(node.name, node.op);
      }
    control_flow_info info;
    if (!build_control_flow_info(g, &info).is_ok()) {
      // Drawn without frames: the picture is what shows what is wrong.
      info.frames.assign(1, {"", -1, 1});
      info.node_frame.assign(g.size(), 0);
    }
    // Children of each frame, to nest the clusters.
    std::vector<std::vector<size_t>> children(info.frames.size());
    for (size_t f = 1; f < info.frames.size(); ++f)
      children[static_cast<size_t>(info.frames[f].parent)].push_back(f);
    std::vector<std::vector<size_t>> members(info.frames.size());
    for (size_t i = 0; i < g.size(); ++i) {
      auto f = info.node_frame[i];
      members[f < 0 ? 0 : static_cast<size_t>(f)].push_back(i);
    }
    write_frame(g, info, children, members, prefix, 0, 1);
    auto edges = g.edges();
    const auto& index = *edges;
    for (size_t i = 0; i < g.size(); ++i)
      for (const auto& e : index.inputs(i)) {
        edges_ << "  "
               << quoted(prefix + g.nodes()[static_cast<size_t>(e.src)].name)
               << " -> " << quoted(prefix + g.nodes()[i].name);
        if (e.control())
          edges_ << " [style=dashed]";
        else if (e.port != 0)
          edges_ << " [label=" << e.port << "]";
        edges_ << ";\n";
      }
    return core::status::ok();
  }

  /// Adds a dotted edge between two nodes written by `add`.
  void join(const std::string& from, const std::string& to,
            const std::string& label) {
    edges_ << "  " << quoted(from) << " -> " << quoted(to)
           << " [style=dotted, color=\"#555555\", label=" << quoted(label)
           << "];\n";
  }

  /// Opens and closes a cluster around what `add` writes in between.
  void open_cluster(const std::string& id, const std::string& label) {
    nodes_ << "  subgraph " << quoted("cluster_" + id) << " {\n"
           << "    label=" << quoted(label) << "; style=bold;\n";
  }

  void close_cluster() {
    nodes_ << "  }\n";
  }

  std::string finish() {
    std::ostringstream out;
    out << "digraph actorflow {\n"
        << "  rankdir=TB;\n"
        << "  node [shape=box, style=\"rounded,filled\", fontname=Helvetica, "
           "fontsize=10];\n"
        << "  edge [fontname=Helvetica, fontsize=8];\n"
        << nodes_.str() << edges_.str();
    if (!colours_.empty()) {
      out << "  subgraph cluster_legend {\n    label=\"devices\";\n";
      size_t k = 0;
      for (const auto& [device, colour] : colours_)
        out << "    " << quoted("legend " + std::to_string(k++))
            << " [label=" << quoted(device.empty() ? "(any device)" : device)
            << ", fillcolor=" << quoted(colour) << "];\n";
      out << "  }\n";
    }
    out << "}\n";
    return out.str();
  }

private:
  const std::string& colour_of(const std::string& device) {
    auto [it, fresh] = colours_.try_emplace(device, "");
    if (fresh)
      it->second = palette(colours_.size() - 1);
    return it->second;
  }

  void write_frame(const graph& g, const control_flow_info& info,
                   const std::vector<std::vector<size_t>>& children,
                   const std::vector<std::vector<size_t>>& members,
                   const std::string& prefix, size_t frame, int depth) {
    std::string indent(static_cast<size_t>(2 * depth), ' ');
    if (frame != 0)
      nodes_ << indent << "subgraph "
             << quoted("cluster_" + prefix + "frame " + std::to_string(frame))
             << " {\n"
             << indent
             << "  label=" << quoted("loop " + info.frames[frame].name)
             << "; style=dashed;\n";
    for (auto i : members[frame]) {
      const auto& node = g.nodes()[i];
      nodes_ << indent << "  " << quoted(prefix + node.name)
             << " [label=" << quoted(node.name + "\n" + node.op)
             << ", fillcolor=" << quoted(colour_of(node.device)) << "];\n";
    }
    for (auto child : children[frame])
      write_frame(g, info, children, members, prefix, child, depth + 1);
    if (frame != 0)
      nodes_ << indent << "}\n";
  }

  std::ostringstream nodes_;
  std::ostringstream edges_;
  std::map<std::string, std::string> colours_;
};

} // namespace

core::status to_dot(const graph& g, std::string* out) {
  dot_writer w;
  ACTORFLOW_RETURN_IF_ERROR(w.add(g, ""));
  *out = w.finish();
  return core::status::ok();
}

core::status partitions_to_dot(const std::vector<graph>& partitions,
                               std::string* out) {
  dot_writer w;
  // Sends and Recvs by tensor name: (id, partition).
  std::map<std::string, std::string> sends, recvs;
  for (size_t p = 0; p < partitions.size(); ++p) {
    const auto& g = partitions[p];
    auto prefix = "p" + std::to_string(p) + "/";
    std::string device = g.size() > 0 ? g.nodes()[0].device : "";
    w.open_cluster(prefix, device);
    ACTORFLOW_RETURN_IF_ERROR(w.add(g, prefix));
    w.close_cluster();
    for (const auto& node : g.nodes()) {
      auto name = node.attrs.find("tensor_name");
      if (name == node.attrs.end())
        continue;
      const auto* key = std::get_if<std::string>(&name->second);
      if (key == nullptr)
        continue;
      if (node.op == "_Send")
        sends[*key] = prefix + node.name;
      else if (node.op == "_Recv")
        recvs[*key] = prefix + node.name;
    }
  }
  for (const auto& [key, recv] : recvs) {
    auto send = sends.find(key);
    if (send != sends.end())
      w.join(send->second, recv, key);
  }
  *out = w.finish();
  return core::status::ok();
}

} // namespace actorflow::graph
