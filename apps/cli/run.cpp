#include "cli/run.hpp"

#include <cstdio>
#include <cstdlib>

#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/net/npy.hpp"

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
    auto st = net::load_npy(path, &t);
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
  if (o.threads > 0) {
    options.threads_per_device = o.threads;
    options.scheduler_threads = o.threads;
  }
  actors::engine e{options};
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
    st = net::save_npy(r.outputs[i], r.fetch_files[i]);
    if (!st.is_ok())
      return fail(st.prefixed("fetch " + r.fetch_names[i]));
  }
  return EXIT_SUCCESS;
}

} // namespace actorflow::apps
