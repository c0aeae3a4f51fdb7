// `actorflow run`: one step of a graph, here or on a cluster, fed and
// fetched through .npy files.

#include "cli/run.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/interop/npy.hpp"
#include "cli/saved_model.hpp"
#include "common/flags.hpp"

namespace actorflow::apps {

namespace {

/// Splits `name=value`; `value` stays empty without '='.
std::pair<std::string, std::string> split_assignment(const std::string& s) {
  auto eq = s.find('=');
  if (eq == std::string::npos)
    return {s, {}};
  return {s.substr(0, eq), s.substr(eq + 1)};
}

int fail(const core::status& st) {
  std::fprintf(stderr, "actorflow run: %s\n", st.to_string().c_str());
  return EXIT_FAILURE;
}

} // namespace

core::status run_step(const run_options& o, const actors::run_options& ro,
                      run_outcome* out) {
  actors::feed_list feeds;
  for (const auto& f : o.feeds) {
    auto [name, path] = split_assignment(f);
    if (name.empty() || path.empty())
      return core::invalid_argument_error("--feed '", f,
                                          "' is not name=file.npy");
    core::tensor t;
    auto st = interop::load_npy(path, &t);
    if (!st.is_ok())
      return st.prefixed("feed " + name);
    feeds.emplace_back(name, std::move(t));
  }
  for (const auto& f : o.fetches) {
    auto [name, path] = split_assignment(f);
    if (name.empty() || (f.find('=') != std::string::npos && path.empty()))
      return core::invalid_argument_error("--fetch '", f,
                                          "' is not name or name=file.npy");
    out->fetch_names.push_back(name);
    out->fetch_files.push_back(path);
  }
  // A client: of TF_CONFIG's cluster, its task is not ours to serve.
  actors::cluster_spec spec;
  bool cluster = o.cluster.given();
  if (cluster) {
    std::string task;
    ACTORFLOW_RETURN_IF_ERROR(o.cluster.load(&spec, &task));
  }
  auto options
    = cluster ? actors::client_options(spec) : actors::engine_options{};
  options.num_cpu_devices = o.cpus;
  actors::engine e{with_threads(options, o.threads)};
  ACTORFLOW_RETURN_IF_ERROR(e.init_status());
  if (cluster)
    ACTORFLOW_RETURN_IF_ERROR(actors::connect_cluster(e, spec));
  actors::session_options so;
  so.pass_selection = o.passes;
  actors::session sess{e, so};
  ACTORFLOW_RETURN_IF_ERROR(sess.extend(o.graph));
  return sess.run(ro, feeds, out->fetch_names, o.targets, &out->outputs,
                  &out->metadata);
}

int run_graph(const run_options& o) {
  actors::run_options ro;
  if (!o.trace.empty())
    ro.trace = actors::trace_level::full;
  run_outcome r;
  auto st = run_step(o, ro, &r);
  if (!st.is_ok())
    return fail(st);
  if (!o.trace.empty()) {
    actors::chrome_trace trace;
    trace.add(std::move(r.metadata.stats));
    if (st = trace.write(o.trace); !st.is_ok())
      return fail(st);
    std::fprintf(stderr, "trace written to %s\n", o.trace.c_str());
  }
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    std::printf("%s = %s\n", r.fetch_names[i].c_str(),
                r.outputs[i].debug_string().c_str());
    if (r.fetch_files[i].empty())
      continue;
    st = interop::save_npy(r.outputs[i], r.fetch_files[i]);
    if (!st.is_ok())
      return fail(st.prefixed("fetch " + r.fetch_names[i]));
  }
  return EXIT_SUCCESS;
}

void add_step_options(CLI::App* cmd, run_options* run) {
  auto* config
    = cmd
        ->add_option("--config", run->cluster.file,
                     "A cluster file (YAML): run on its workers, whose "
                     "devices the graph names (/job:J/task:T/device:cpu:N)")
        ->check(CLI::ExistingFile);
  // A client: TF_CONFIG's task is not ours to serve; a Slurm step's tasks
  // serve, they do not run graphs.
  add_cluster_source_options(cmd, &run->cluster, config, nullptr, false);
  cmd->add_option("--feed", run->feeds,
                  "name=file.npy: feed the tensor in the file to the "
                  "placeholder (or tensor) name; repeatable");
  cmd->add_option("--fetch", run->fetches,
                  "name or name=file.npy: print the tensor name (node or "
                  "node:output) and write it to the file; repeatable");
  cmd->add_option("--target", run->targets,
                  "A node to run for its effects; repeatable");
  cmd->add_option("--cpus", run->cpus, "CPU devices of this process")
    ->capture_default_str()
    ->check(int_range(1, 1024));
  add_threads_option(cmd, &run->threads);
  add_graph_passes_option(cmd, &run->passes);
}

void add_run_command(CLI::App& app, command_list* out) {
  auto run = std::make_shared<run_options>();
  auto saved = std::make_shared<saved_model_options>();
  auto* cmd = app.add_subcommand(
    "run", "Run one step of a graph -- a TensorFlow GraphDef (.pb, .pbtxt) "
           "or a graph file of actorflow's (net::save_graph) -- in this "
           "process or on a cluster: feeds from .npy files, fetched tensors "
           "printed and written as .npy");
  add_graph_or_saved_model_options(
    cmd, &run->graph, &saved->dir,
    "A TensorFlow 2 SavedModel directory: run its signature (--signature), "
    "fed and fetched by input and output key, from its saved variables",
    &saved->signature);
  cmd
    ->add_option("--tags", saved->tags,
                 "With --saved-model: the meta graph's tags")
    ->delimiter(',')
    ->capture_default_str();
  cmd
    ->add_option("--runs", saved->runs,
                 "With --saved-model: run the signature this many times (a "
                 "training step's updates carry over); the last run's "
                 "outputs are printed")
    ->capture_default_str()
    ->check(int_range(1, 1'000'000'000));
  cmd
    ->add_option("--export", saved->export_dir,
                 "With --saved-model: then write the model, its "
                 "variables as the runs left them, as a SavedModel in "
                 "this directory (TensorFlow loads it)")
    ->needs(cmd->get_option("--saved-model"));
  add_step_options(cmd, run.get());
  cmd->add_option("--trace", run->trace,
                  "Write a Chrome trace of the step to this file (open it "
                  "in ui.perfetto.dev or chrome://tracing)");
  out->push_back({cmd, [run, saved] {
                    if (saved->dir.empty() && run->graph.empty()) {
                      std::fprintf(stderr, "actorflow run: give --graph or "
                                           "--saved-model\n");
                      return EXIT_FAILURE;
                    }
                    if (saved->dir.empty())
                      return run_graph(*run);
                    saved->feeds = run->feeds;
                    saved->fetches = run->fetches;
                    saved->threads = run->threads;
                    return run_saved_model(*saved);
                  }});
}

} // namespace actorflow::apps
