// `actorflow run --saved-model` and `actorflow show`: a TensorFlow 2
// SavedModel's signatures run and described.

#include "cli/saved_model.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "actorflow/actors/saved_model_session.hpp"
#include "actorflow/interop/npy.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/registration.hpp"
#include "common/flags.hpp"

namespace actorflow::apps {

namespace {

int fail(const char* what, const core::status& st) {
  std::fprintf(stderr, "actorflow %s: %s\n", what, st.to_string().c_str());
  return EXIT_FAILURE;
}

/// Splits `key=value`; `value` stays empty without '='.
std::pair<std::string, std::string> split_assignment(const std::string& s) {
  auto eq = s.find('=');
  if (eq == std::string::npos)
    return {s, {}};
  return {s.substr(0, eq), s.substr(eq + 1)};
}

void print_tensors(
  const char* what,
  const std::vector<interop::tensorflow::signature_tensor>& tensors) {
  for (const auto& t : tensors)
    std::printf("    %s %s: %s %s (%s)\n", what, t.key.c_str(),
                std::string{core::to_string(t.type)}.c_str(),
                t.shape.to_string().c_str(), t.tensor.c_str());
}

} // namespace

int run_saved_model(const saved_model_options& o) {
  std::map<std::string, core::tensor> inputs;
  for (const auto& f : o.feeds) {
    auto [key, path] = split_assignment(f);
    if (key.empty() || path.empty())
      return fail("run", core::invalid_argument_error("--feed '", f,
                                                      "' is not key=file.npy"));
    core::tensor t;
    auto st = interop::load_npy(path, &t);
    if (!st.is_ok())
      return fail("run", st.prefixed("feed " + key));
    inputs[key] = std::move(t);
  }
  actors::engine e{with_threads({}, o.threads)};
  if (!e.init_status().is_ok())
    return fail("run", e.init_status());
  std::unique_ptr<actors::saved_model_session> m;
  auto st = actors::saved_model_session::open(e, o.dir, o.tags, &m);
  std::map<std::string, core::tensor> outputs;
  for (int i = 0; st.is_ok() && i < o.runs; ++i)
    st = m->run(o.signature, inputs, &outputs);
  if (!st.is_ok())
    return fail("run", st);
  std::vector<std::pair<std::string, std::string>> wanted;
  for (const auto& f : o.fetches)
    wanted.push_back(split_assignment(f));
  if (wanted.empty())
    for (const auto& [key, t] : outputs)
      wanted.emplace_back(key, "");
  for (const auto& [key, path] : wanted) {
    auto t = outputs.find(key);
    if (t == outputs.end())
      return fail(
        "run", core::invalid_argument_error("--fetch '", key,
                                            "' is not an output of signature '",
                                            o.signature, "'"));
    std::printf("%s = %s\n", key.c_str(), t->second.debug_string().c_str());
    if (path.empty())
      continue;
    st = interop::save_npy(t->second, path);
    if (!st.is_ok())
      return fail("run", st.prefixed("fetch " + key));
  }
  if (!o.export_dir.empty()) {
    if (st = m->save(o.export_dir); !st.is_ok())
      return fail("run", st);
    std::printf("exported to %s\n", o.export_dir.c_str());
  }
  return EXIT_SUCCESS;
}

int show_saved_model(const saved_model_options& o) {
  ops::op_registry registry;
  auto st = ops::register_ops(registry);
  std::map<std::string, interop::tensorflow::signature> signatures;
  std::vector<interop::tensorflow::missing_op> missing;
  if (st.is_ok())
    st = interop::tensorflow::describe_saved_model(o.dir, o.tags, registry,
                                                   &signatures, &missing);
  if (!st.is_ok())
    return fail("show", st);
  for (const auto& [key, s] : signatures) {
    std::printf("signature '%s' (%s)\n", key.c_str(), s.method.c_str());
    print_tensors("input ", s.inputs);
    print_tensors("output", s.outputs);
  }
  if (missing.empty())
    std::printf("every op it uses is there\n");
  else
    std::printf("ops actorflow lacks: %s\n",
                interop::tensorflow::describe_missing_ops(missing).c_str());
  return missing.empty() ? EXIT_SUCCESS : EXIT_FAILURE;
}

void add_show_command(CLI::App& app, command_list* out) {
  auto saved = std::make_shared<saved_model_options>();
  auto* cmd = app.add_subcommand(
    "show", "Print a TensorFlow 2 SavedModel's signatures (inputs and outputs "
            "by key, dtype, shape) and the ops it uses that actorflow lacks, "
            "all of them");
  cmd->add_option("--saved-model", saved->dir, "The SavedModel directory")
    ->required()
    ->check(CLI::ExistingDirectory);
  cmd->add_option("--tags", saved->tags, "The meta graph's tags")
    ->delimiter(',')
    ->capture_default_str();
  out->push_back({cmd, [saved] { return show_saved_model(*saved); }});
}

} // namespace actorflow::apps
