// Sessions from Python: an engine and a session of its own, steps run with
// the GIL released and cancelled by Ctrl-C.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "actorflow/actors/cancellation.hpp"
#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/session.hpp"
#include "bindings.hpp"
#include "engine_config.hpp"
#include "errors.hpp"
#include "tensor_conversion.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace actorflow::python {

namespace {

/// An engine and one session on it, as `actorflow.Session` holds them.
class session_handle {
public:
  /// A session on an engine of `eopts`: in this process, or -- given
  /// `cluster` -- a client of the cluster's workers.
  session_handle(actors::engine_options eopts, actors::session_options sopts,
                 const actors::cluster_spec* cluster)
    : engine_(std::make_unique<actors::engine>(std::move(eopts))) {
    throw_if_error(engine_->init_status());
    if (cluster != nullptr) {
      core::status st;
      {
        nb::gil_scoped_release release;
        st = actors::connect_cluster(*engine_, *cluster);
      }
      throw_if_error(st);
    }
    session_ = std::make_unique<actors::session>(*engine_, std::move(sopts));
  }

  session_handle(const session_handle&) = delete;
  session_handle& operator=(const session_handle&) = delete;

  ~session_handle() {
    {
      nb::gil_scoped_release release;
      session_.reset();
      engine_.reset();
    }
    releases_->drain();
  }

  void extend(const graph::graph& g) {
    check_open();
    core::status st;
    {
      nb::gil_scoped_release release;
      st = session_->extend(g);
    }
    throw_if_error(st);
  }

  /// Runs one step; returns the fetched arrays and, when asked for, the
  /// run's metadata as a dict.
  nb::tuple run(const std::vector<std::pair<std::string, nb::object>>& fed,
                const std::vector<std::string>& fetches,
                const std::vector<std::string>& targets, int64_t timeout_ms,
                bool trace, bool partition_graphs, bool metadata) {
    check_open();
    actors::feed_list feeds;
    for (const auto& [name, value] : fed)
      feeds.emplace_back(name, to_feed(value, releases_));
    actors::run_options options;
    options.timeout = std::chrono::milliseconds{timeout_ms};
    options.trace
      = trace ? actors::trace_level::full : actors::trace_level::none;
    options.output_partition_graphs = partition_graphs;
    // Only the main thread sees Ctrl-C (Python's rule): it wakes every
    // 100 ms to look, and cancels the step when it has come.
    std::optional<actors::cancellation> cancel;
    std::optional<nb::python_error> interrupt;
    if (PyThread_get_thread_ident() == main_thread_) {
      cancel.emplace();
      options.cancel = &*cancel;
      options.on_wait = [&] {
        nb::gil_scoped_acquire gil;
        if (!interrupt && PyErr_CheckSignals() != 0) {
          interrupt.emplace();
          cancel->cancel();
        }
      };
    }
    std::vector<core::tensor> outputs;
    actors::run_metadata md;
    core::status st;
    {
      nb::gil_scoped_release release;
      st = session_->run(options, feeds, fetches, targets, &outputs,
                         metadata || trace || partition_graphs ? &md : nullptr);
    }
    releases_->drain();
    if (interrupt)
      throw std::move(*interrupt);
    throw_if_error(st);
    nb::list arrays;
    for (auto& t : outputs)
      arrays.append(to_numpy(std::move(t)));
    nb::object meta = nb::none();
    if (metadata || trace || partition_graphs) {
      nb::dict d;
      d["placement"] = md.placement;
      if (trace) {
        actors::chrome_trace ct;
        ct.add(std::move(md.stats));
        d["trace_json"] = ct.to_json();
      }
      nb::list parts;
      for (auto& g : md.partition_graphs)
        parts.append(std::move(g));
      d["partition_graphs"] = parts;
      meta = std::move(d);
    }
    return nb::make_tuple(arrays, meta);
  }

  void close() {
    if (!session_)
      return;
    core::status st;
    {
      nb::gil_scoped_release release;
      st = session_->close();
    }
    throw_if_error(st);
  }

  static void set_main_thread(unsigned long id) {
    main_thread_ = id;
  }

private:
  void check_open() const {
    if (!session_)
      throw status_error{
        core::failed_precondition_error("the session is closed")};
  }

  /// The thread Python delivers signals to (`threading.main_thread()`).
  static inline unsigned long main_thread_ = 0;

  std::unique_ptr<actors::engine> engine_;
  std::unique_ptr<actors::session> session_;
  /// Fed arrays the engine let go of, for the calling thread to drop.
  std::shared_ptr<release_queue> releases_ = std::make_shared<release_queue>();
};

std::unique_ptr<session_handle>
make_session(nb::dict config, nb::object cluster, bool tf_config) {
  auto spec = cluster_of(cluster, tf_config);
  auto eopts = spec ? actors::client_options(*spec) : actors::engine_options{};
  actors::session_options sopts;
  apply_config(config, &eopts, &sopts);
  return std::make_unique<session_handle>(std::move(eopts), std::move(sopts),
                                          spec ? &*spec : nullptr);
}

} // namespace

void bind_session(nb::module_& m) {
  session_handle::set_main_thread(nb::cast<unsigned long>(
    nb::module_::import_("threading").attr("main_thread")().attr("ident")));
  nb::class_<session_handle>(m, "Session",
                             "An engine of its own and a session on it.")
    .def(nb::new_(&make_session), "config"_a = nb::dict(),
         "cluster"_a = nb::none(), "tf_config"_a = false,
         "A session in this process, or a client of `cluster` (a cluster "
         "file, a dict of jobs) or of TF_CONFIG's cluster.")
    .def("extend", &session_handle::extend, "graph"_a,
         "Adds the nodes of `graph` to the session's graph.")
    .def("run", &session_handle::run, "feeds"_a, "fetches"_a, "targets"_a,
         "timeout_ms"_a = 0, "trace"_a = false, "partition_graphs"_a = false,
         "metadata"_a = false,
         "Runs one step; returns (fetched arrays, metadata or None).")
    .def("close", &session_handle::close, "Closes the session.");
}

} // namespace actorflow::python
