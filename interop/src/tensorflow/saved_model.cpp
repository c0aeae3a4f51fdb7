#include "actorflow/interop/tensorflow/saved_model.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include <google/protobuf/io/coded_stream.h>

#include "actorflow/core/file.hpp"
#include "imported_graph.hpp"
#include "saved_model.pb.h"
#include "tensorflow/graph_def_import.hpp"
#include "tensorflow/saved_object_restore.hpp"
#include "tensorflow/tf_proto.hpp"

namespace actorflow::interop::tensorflow {

namespace {

/// The node of a tensor name (`node:0` -> `node`).
std::string node_of(const std::string& tensor) {
  return tensor.substr(0, tensor.find(':'));
}

/// `node:0` as the engine writes it: `node`.
std::string engine_tensor(const std::string& tensor) {
  auto colon = tensor.find(':');
  if (colon != std::string::npos && tensor.substr(colon) == ":0")
    return tensor.substr(0, colon);
  return tensor;
}

std::string join(const std::vector<std::string>& xs) {
  std::string text;
  for (const auto& x : xs)
    text += (text.empty() ? "" : ",") + x;
  return text;
}

/// Reads `dir/saved_model.pb` and picks the meta graph tagged `tags`.
core::status read_meta_graph(const std::string& dir,
                             const std::vector<std::string>& tags,
                             tfproto::SavedModel* model,
                             const tfproto::MetaGraphDef** out) {
  auto path = (std::filesystem::path{dir} / "saved_model.pb").string();
  std::string data;
  auto read = core::read_file(path, &data, "SavedModel file");
  if (read.code() == core::errc::not_found)
    return core::not_found_error(
      "cannot open '", path,
      "': not a SavedModel directory (TensorFlow 2's tf.saved_model.save "
      "writes one)");
  ACTORFLOW_RETURN_IF_ERROR(read);
  google::protobuf::io::CodedInputStream stream{
    reinterpret_cast<const uint8_t*>(data.data()),
    static_cast<int>(std::min<size_t>(data.size(), INT32_MAX))};
  stream.SetRecursionLimit(1000);
  if (data.size() > INT32_MAX || !model->ParseFromCodedStream(&stream)
      || !stream.ConsumedEntireMessage())
    return core::data_loss_error("'", path, "' is not a SavedModel");
  std::set<std::string> want(tags.begin(), tags.end());
  std::vector<std::string> there;
  for (const auto& mg : model->meta_graphs()) {
    const auto& t = mg.meta_info_def().tags();
    if (std::set<std::string>(t.begin(), t.end()) == want) {
      *out = &mg;
      return core::status::ok();
    }
    there.push_back("{" + join({t.begin(), t.end()}) + "}");
  }
  return core::not_found_error("SavedModel '", dir,
                               "' has no meta graph tagged {", join(tags),
                               "}; it has ", join(there));
}

/// The signatures of `mg` but TensorFlow's init op.
core::status read_signatures(const tfproto::MetaGraphDef& mg,
                             std::map<std::string, signature>* out) {
  auto convert = [](const auto& map, std::vector<signature_tensor>* tensors) {
    std::map<std::string, const tfproto::TensorInfo*> sorted;
    for (const auto& [key, info] : map)
      sorted.emplace(key, &info);
    for (const auto& [key, info] : sorted) {
      signature_tensor t;
      t.key = key;
      t.tensor = engine_tensor(info->name());
      t.type = detail::from_proto(info->dtype());
      if (info->has_tensor_shape())
        ACTORFLOW_RETURN_IF_ERROR(
          detail::from_proto(info->tensor_shape(), &t.shape));
      if (info->name().empty())
        return core::unimplemented_error(
          "signature tensor '", key,
          "' is sparse or composite; actorflow reads dense ones");
      tensors->push_back(std::move(t));
    }
    return core::status::ok();
  };
  for (const auto& [key, def] : mg.signature_def()) {
    if (key == "__saved_model_init_op")
      continue;
    signature s;
    s.key = key;
    s.method = def.method_name();
    auto st = convert(def.inputs(), &s.inputs);
    if (st.is_ok())
      st = convert(def.outputs(), &s.outputs);
    if (!st.is_ok())
      return st.prefixed("signature '" + key + "'");
    out->emplace(key, std::move(s));
  }
  return core::status::ok();
}

/// The nodes a run of the model may need: the signatures', the restore's
/// and the save's.
std::vector<std::string> roots_of(const std::map<std::string, signature>& sigs,
                                  const saved_model& m) {
  std::vector<std::string> roots;
  for (const auto& [key, s] : sigs) {
    for (const auto& t : s.inputs)
      roots.push_back(node_of(t.tensor));
    for (const auto& t : s.outputs)
      roots.push_back(node_of(t.tensor));
  }
  for (const auto* name :
       {&m.restore_op, &m.restore_filename, &m.init_op, &m.save_tensor})
    if (!name->empty())
      roots.push_back(node_of(*name));
  return roots;
}

core::status read_model(const std::string& dir,
                        const std::vector<std::string>& tags,
                        tfproto::SavedModel* proto,
                        const tfproto::MetaGraphDef** mg, saved_model* out) {
  ACTORFLOW_RETURN_IF_ERROR(read_meta_graph(dir, tags, proto, mg));
  out->dir = dir;
  ACTORFLOW_RETURN_IF_ERROR(read_signatures(**mg, &out->signatures));
  auto prefix = std::filesystem::path{dir} / "variables" / "variables";
  const auto& saver = (*mg)->saver_def();
  if (!saver.restore_op_name().empty()
      && std::filesystem::exists(prefix.string() + ".index")) {
    out->restore_filename = engine_tensor(saver.filename_tensor_name());
    out->restore_op = saver.restore_op_name();
    out->restore_prefix = prefix.string();
    if (!saver.save_tensor_name().empty())
      out->save_tensor = engine_tensor(saver.save_tensor_name());
  }
  auto init = (*mg)->signature_def().find("__saved_model_init_op");
  if (init != (*mg)->signature_def().end()) {
    for (const auto& [key, info] : init->second.outputs())
      out->init_op = node_of(info.name());
  }
  return core::status::ok();
}

} // namespace

core::status load_saved_model(const std::string& dir,
                              const std::vector<std::string>& tags,
                              const ops::op_registry& ops, saved_model* out) {
  tfproto::SavedModel proto;
  const tfproto::MetaGraphDef* mg = nullptr;
  saved_model m;
  ACTORFLOW_RETURN_IF_ERROR(read_model(dir, tags, &proto, &mg, &m));
  std::vector<core::node_def> nodes;
  detail::graph_def_importer importer{mg->graph_def(), ops,
                                      &mg->meta_info_def().stripped_op_list()};
  // A save function the engine cannot run leaves the model runnable, not
  // exportable.
  if (!m.save_tensor.empty()) {
    auto lacking = importer.missing_ops({node_of(m.save_tensor)});
    for (const auto& op : lacking)
      m.save_refused += (m.save_refused.empty() ? "" : ", ") + op.op;
    if (!lacking.empty())
      m.save_tensor.clear();
  }
  auto st = importer.import(roots_of(m.signatures, m), &nodes);
  if (!st.is_ok())
    return st.prefixed("SavedModel '" + dir + "'");
  st = interop::detail::add_imported_nodes(std::move(nodes), &m.graph);
  if (st.is_ok())
    st = detail::add_object_graph_restores(*mg, &m);
  if (!st.is_ok())
    return st.prefixed("SavedModel '" + dir + "'");
  *out = std::move(m);
  return core::status::ok();
}

core::status describe_saved_model(const std::string& dir,
                                  const std::vector<std::string>& tags,
                                  const ops::op_registry& ops,
                                  std::map<std::string, signature>* signatures,
                                  std::vector<missing_op>* missing) {
  tfproto::SavedModel proto;
  const tfproto::MetaGraphDef* mg = nullptr;
  saved_model m;
  ACTORFLOW_RETURN_IF_ERROR(read_model(dir, tags, &proto, &mg, &m));
  detail::graph_def_importer importer{mg->graph_def(), ops};
  *missing = importer.missing_ops(roots_of(m.signatures, m));
  *signatures = std::move(m.signatures);
  return core::status::ok();
}

} // namespace actorflow::interop::tensorflow
