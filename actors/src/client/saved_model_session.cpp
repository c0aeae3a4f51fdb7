#include "actorflow/actors/saved_model_session.hpp"

#include <filesystem>

namespace actorflow::actors {

core::status
saved_model_session::open(engine& e, const std::string& dir,
                          const std::vector<std::string>& tags,
                          std::unique_ptr<saved_model_session>* out) {
  std::unique_ptr<saved_model_session> m{new saved_model_session{e}};
  ACTORFLOW_RETURN_IF_ERROR(interop::tensorflow::load_saved_model(
    dir, tags, e.context().ops(), &m->model_));
  ACTORFLOW_RETURN_IF_ERROR(m->session_.extend(m->model_.graph));
  const auto& model = m->model_;
  std::vector<core::tensor> none;
  if (!model.restore_op.empty()) {
    auto st = m->session_.run(
      {{model.restore_filename, core::tensor::scalar(model.restore_prefix)}},
      {}, {model.restore_op}, &none);
    if (!st.is_ok())
      return st.prefixed("restoring the variables of SavedModel '" + dir + "'");
  }
  if (!model.init_op.empty())
    ACTORFLOW_RETURN_IF_ERROR(m->session_.run({}, {}, {model.init_op}, &none));
  *out = std::move(m);
  return core::status::ok();
}

core::status saved_model_session::save(const std::string& dir) {
  if (!model_.save_refused.empty())
    return core::unimplemented_error(
      "cannot save the variables of SavedModel '", model_.dir,
      "': its save function uses ops actorflow lacks (", model_.save_refused,
      ")");
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path from{model_.dir}, to{dir};
  if (fs::exists(to, ec) && fs::equivalent(from, to, ec))
    return core::invalid_argument_error(
      "cannot export SavedModel '", model_.dir,
      "' over itself: give another directory");
  fs::create_directories(to / "variables", ec);
  if (!ec)
    fs::copy_file(from / "saved_model.pb", to / "saved_model.pb",
                  fs::copy_options::overwrite_existing, ec);
  if (!ec && fs::exists(from / "assets"))
    fs::copy(from / "assets", to / "assets",
             fs::copy_options::recursive | fs::copy_options::overwrite_existing,
             ec);
  if (ec)
    return core::internal_error("exporting SavedModel '", model_.dir, "' to '",
                                dir, "': ", ec.message());
  if (model_.save_tensor.empty())
    return core::status::ok(); // no variables
  auto prefix = (to / "variables" / "variables").string();
  std::vector<core::tensor> none;
  auto st
    = session_.run({{model_.restore_filename, core::tensor::scalar(prefix)}},
                   {model_.save_tensor}, {}, &none);
  return st.is_ok() ? st
                    : st.prefixed("saving the variables of SavedModel '"
                                  + model_.dir + "' to '" + dir + "'");
}

core::status saved_model_session::find_signature(
  const std::string& key, const interop::tensorflow::signature** out) const {
  auto i = model_.signatures.find(key);
  if (i != model_.signatures.end()) {
    *out = &i->second;
    return core::status::ok();
  }
  std::string keys;
  for (const auto& [k, s] : model_.signatures)
    keys += (keys.empty() ? "'" : ", '") + k + "'";
  return core::not_found_error("SavedModel '", model_.dir,
                               "' has no signature '", key, "'; it has ",
                               keys.empty() ? "none" : keys);
}

core::status
saved_model_session::run(const std::string& key,
                         const std::map<std::string, core::tensor>& inputs,
                         std::map<std::string, core::tensor>* outputs) {
  return run(run_options{}, key, inputs, outputs, nullptr);
}

core::status
saved_model_session::run(const run_options& options, const std::string& key,
                         const std::map<std::string, core::tensor>& inputs,
                         std::map<std::string, core::tensor>* outputs,
                         run_metadata* metadata) {
  const interop::tensorflow::signature* sig = nullptr;
  ACTORFLOW_RETURN_IF_ERROR(find_signature(key, &sig));
  auto fail = [&](auto&&... xs) {
    return core::invalid_argument_error("signature '", key, "': ", xs...);
  };
  std::string keys;
  for (const auto& in : sig->inputs)
    keys += (keys.empty() ? "'" : ", '") + in.key + "'";
  for (const auto& [name, t] : inputs) {
    bool known = false;
    for (const auto& in : sig->inputs)
      known = known || in.key == name;
    if (!known)
      return fail("'", name, "' is not an input; the inputs are ",
                  keys.empty() ? "none" : keys);
  }
  feed_list feeds;
  for (const auto& in : sig->inputs) {
    auto t = inputs.find(in.key);
    if (t == inputs.end())
      return fail("input '", in.key, "' is missing");
    if (t->second.dtype() != in.type)
      return fail("input '", in.key, "' takes ", core::to_string(in.type),
                  ", not ", core::to_string(t->second.dtype()));
    if (!in.shape.compatible_with(t->second.shape()))
      return fail("input '", in.key, "' takes shape ", in.shape.to_string(),
                  ", not ", t->second.shape().to_string());
    feeds.emplace_back(in.tensor, t->second);
  }
  std::vector<std::string> fetches;
  for (const auto& o : sig->outputs)
    fetches.push_back(o.tensor);
  std::vector<core::tensor> values;
  auto st = session_.run(options, feeds, fetches, {}, &values, metadata);
  if (!st.is_ok())
    return st.prefixed("signature '" + key + "'");
  outputs->clear();
  for (size_t i = 0; i < values.size(); ++i)
    outputs->emplace(sig->outputs[i].key, std::move(values[i]));
  return core::status::ok();
}

} // namespace actorflow::actors
