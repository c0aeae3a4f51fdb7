// The restore of a SavedModel's variables that only its object graph
// names (Keras 3 layers tracked by a tf.Module).
#include "tensorflow/saved_object_restore.hpp"

#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "saved_model.pb.h"
#include "tensorflow/tf_proto.hpp"

namespace actorflow::interop::tensorflow::detail {

namespace {

/// A name in a checkpoint key, escaped as TensorFlow escapes it.
std::string escape(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '.')
      out += "..";
    else if (c == '/')
      out += ".S";
    else
      out += c;
  }
  return out;
}

/// The node of an input (`node:1`, `^node` -> `node`).
std::string input_node(const std::string& input) {
  auto name = input.substr(core::is_control_input(input) ? 1 : 0);
  return name.substr(0, name.find(':'));
}

/// Each saved variable's key in the bundle by its name, from the paths of
/// the object graph (breadth first from the root: the shortest path, as
/// TensorFlow's checkpoint names it). Names two variables share are left
/// out: which handle is which cannot be told.
std::map<std::string, std::pair<std::string, core::dtype>>
variable_keys(const tfproto::SavedObjectGraph& objects) {
  std::map<std::string, std::pair<std::string, core::dtype>> out;
  std::set<std::string> shared;
  const auto& nodes = objects.nodes();
  auto count = static_cast<size_t>(nodes.size());
  std::vector<std::string> path(count);
  std::vector<bool> seen(count, false);
  std::deque<size_t> queue;
  if (!nodes.empty()) {
    seen[0] = true;
    queue.push_back(0);
  }
  while (!queue.empty()) {
    auto id = queue.front();
    queue.pop_front();
    const auto& node = nodes[static_cast<int>(id)];
    if (node.has_variable()) {
      auto type = from_proto(node.variable().dtype());
      const auto& name = node.variable().name();
      if (!out.emplace(name, std::make_pair(path[id], type)).second)
        shared.insert(name);
    }
    for (const auto& child : node.children()) {
      if (child.node_id() < 0)
        continue;
      auto c = static_cast<size_t>(child.node_id());
      if (c >= seen.size() || seen[c])
        continue;
      seen[c] = true;
      path[c]
        = (path[id].empty() ? "" : path[id] + "/") + escape(child.local_name());
      queue.push_back(c);
    }
  }
  for (const auto& name : shared)
    out.erase(name);
  for (auto& [name, key] : out)
    key.first += "/.ATTRIBUTES/VARIABLE_VALUE";
  return out;
}

} // namespace

core::status add_object_graph_restores(const tfproto::MetaGraphDef& mg,
                                       saved_model* m) {
  if (m->restore_op.empty() || mg.object_graph_def().nodes().empty())
    return core::status::ok();
  // The handles the restore function assigns: the inputs of its call.
  std::set<std::string> restored;
  for (const auto& n : mg.graph_def().node())
    if (n.name() == m->restore_op)
      for (const auto& in : n.input())
        restored.insert(input_node(in));
  auto keys = variable_keys(mg.object_graph_def());
  std::vector<std::string> names;
  std::vector<std::string> handles;
  std::vector<core::dtype> types;
  for (const auto& n : m->graph.nodes()) {
    if (n.op != "VarHandleOp" || restored.count(n.name) != 0)
      continue;
    auto shared = n.attrs.find("shared_name");
    auto name = n.name;
    if (shared != n.attrs.end()) {
      const auto* s = std::get_if<std::string>(&shared->second);
      if (s != nullptr && !s->empty())
        name = *s;
    }
    auto key = keys.find(name);
    if (key == keys.end() || key->second.second == core::dtype::invalid)
      continue;
    names.push_back(key->second.first);
    handles.push_back(n.name);
    types.push_back(key->second.second);
  }
  if (names.empty())
    return core::status::ok();
  const std::string scope = "actorflow_object_restore";
  auto strings = [&](const std::string& name, std::vector<std::string> xs) {
    core::node_def c;
    c.name = scope + "/" + name;
    c.op = "Const";
    auto n = static_cast<int64_t>(xs.size());
    c.attrs["dtype"] = core::dtype::string;
    c.attrs["value"] = core::tensor::from_vector(core::shape{n}, xs);
    return c;
  };
  std::vector<core::node_def> added;
  added.push_back(strings("tensor_names", names));
  added.push_back(
    strings("shape_and_slices", std::vector<std::string>(names.size())));
  core::node_def read;
  read.name = scope + "/RestoreV2";
  read.op = "RestoreV2";
  read.inputs = {m->restore_filename, added[0].name, added[1].name};
  read.attrs["dtypes"] = types;
  added.push_back(read);
  core::node_def all;
  all.name = scope + "/restore_all";
  all.op = "NoOp";
  all.inputs.push_back("^" + m->restore_op);
  for (size_t i = 0; i < handles.size(); ++i) {
    core::node_def assign;
    assign.name = scope + "/Assign_" + std::to_string(i);
    assign.op = "AssignVariableOp";
    assign.inputs = {handles[i], read.name + ":" + std::to_string(i)};
    assign.attrs["dtype"] = types[i];
    all.inputs.push_back("^" + assign.name);
    added.push_back(std::move(assign));
  }
  added.push_back(all);
  for (auto& n : added) {
    auto name = n.name;
    auto op = n.op;
    auto st = m->graph.add(std::move(n));
    if (!st.is_ok())
      return st.with_context(name, op);
  }
  m->restore_op = scope + "/restore_all";
  return core::status::ok();
}

} // namespace actorflow::interop::tensorflow::detail
