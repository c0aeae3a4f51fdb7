// Sessions from Python: an engine and a session of its own, steps run with
// the GIL released and cancelled by Ctrl-C.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "actorflow/actors/cancellation.hpp"
#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/saved_model_session.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/actors/tf_config.hpp"
#include "actorflow/net/summary_writer.hpp"
#include "attr_conversion.hpp"
#include "bindings.hpp"
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

/// The cluster a session is a client of: a cluster file's path, a dict
/// of jobs (`{"worker": ["host:port", ...]}`, as tf.train.ClusterSpec
/// takes), or TensorFlow's TF_CONFIG from the environment.
std::optional<actors::cluster_spec> cluster_of(nb::handle cluster,
                                               bool tf_config) {
  actors::cluster_spec spec;
  if (tf_config) {
    std::string task;
    throw_if_error(actors::tf_config_from_environment(&spec, &task));
    return spec;
  }
  if (cluster.is_none())
    return std::nullopt;
  if (nb::isinstance<nb::dict>(cluster)) {
    std::vector<std::pair<std::string, std::vector<std::string>>> jobs;
    for (auto [job, tasks] : nb::borrow<nb::dict>(cluster))
      jobs.emplace_back(nb::cast<std::string>(job),
                        nb::cast<std::vector<std::string>>(tasks));
    throw_if_error(actors::cluster_spec::from_jobs(jobs, &spec));
    return spec;
  }
  throw_if_error(
    actors::cluster_spec::load(nb::cast<std::string>(nb::str(cluster)), &spec));
  return spec;
}

/// Sets what a session's `config` dict says in `eo` and `so` (so may be
/// null where there is no session of one's own to set).
void apply_config(nb::dict config, actors::engine_options* eo,
                  actors::session_options* so) {
  // No GPU unless asked for: a Python process may not own the device.
  eo->num_gpu_devices = 0;
  for (auto [key, value] : config) {
    auto k = nb::cast<std::string>(key);
    if (k == "num_cpu_devices")
      eo->num_cpu_devices = nb::cast<int>(value);
    else if (k == "intra_op_parallelism_threads")
      eo->threads_per_device = nb::cast<int>(value);
    else if (k == "inter_op_parallelism_threads")
      eo->scheduler_threads = nb::cast<int>(value);
    else if (k == "default_device")
      eo->default_device = nb::cast<std::string>(value);
    else if (k == "num_gpu_devices")
      eo->num_gpu_devices = nb::cast<int>(value);
    else if (k == "log_device_placement" && so != nullptr)
      so->log_device_placement = nb::cast<bool>(value);
    else
      throw status_error{core::invalid_argument_error(
        "unknown session config key '", k,
        "'; known: num_cpu_devices, num_gpu_devices, "
        "intra_op_parallelism_threads, inter_op_parallelism_threads, "
        "default_device",
        so != nullptr ? ", log_device_placement" : "")};
  }
}

std::unique_ptr<session_handle>
make_session(nb::dict config, nb::object cluster, bool tf_config) {
  auto spec = cluster_of(cluster, tf_config);
  auto eopts = spec ? actors::client_options(*spec) : actors::engine_options{};
  actors::session_options sopts;
  apply_config(config, &eopts, &sopts);
  return std::make_unique<session_handle>(std::move(eopts), std::move(sopts),
                                          spec ? &*spec : nullptr);
}

/// A TensorFlow 2 SavedModel on an engine of its own, its variables
/// restored: signatures run by key.
class saved_model_handle {
public:
  saved_model_handle(const std::string& dir,
                     const std::vector<std::string>& tags, nb::dict config)
    : engine_(make_engine(config)) {
    core::status st;
    {
      nb::gil_scoped_release release;
      st = actors::saved_model_session::open(*engine_, dir, tags, &model_);
    }
    throw_if_error(st);
  }

  saved_model_handle(const saved_model_handle&) = delete;
  saved_model_handle& operator=(const saved_model_handle&) = delete;

  ~saved_model_handle() {
    {
      nb::gil_scoped_release release;
      model_.reset();
      engine_.reset();
    }
    releases_->drain();
  }

  /// Every signature: key -> {method, inputs, outputs}, each input and
  /// output a (key, dtype, shape) tuple.
  nb::dict signatures() const {
    nb::dict out;
    for (const auto& [key, sig] : model_->model().signatures) {
      auto tensors = [](const std::vector<net::signature_tensor>& ts) {
        nb::list l;
        for (const auto& t : ts)
          l.append(
            nb::make_tuple(t.key, dtype_name(t.type), from_shape(t.shape)));
        return l;
      };
      nb::dict d;
      d["method"] = sig.method;
      d["inputs"] = tensors(sig.inputs);
      d["outputs"] = tensors(sig.outputs);
      out[key.c_str()] = d;
    }
    return out;
  }

  nb::dict run(const std::string& key,
               const std::map<std::string, nb::object>& fed) {
    std::map<std::string, core::tensor> inputs, outputs;
    for (const auto& [name, value] : fed)
      inputs.emplace(name, to_feed(value, releases_));
    core::status st;
    {
      nb::gil_scoped_release release;
      st = model_->run(key, inputs, &outputs);
    }
    releases_->drain();
    throw_if_error(st);
    nb::dict out;
    for (auto& [k, t] : outputs)
      out[k.c_str()] = to_numpy(std::move(t));
    return out;
  }

  void save(const std::string& dir) {
    core::status st;
    {
      nb::gil_scoped_release release;
      st = model_->save(dir);
    }
    throw_if_error(st);
  }

private:
  static std::unique_ptr<actors::engine> make_engine(nb::dict config) {
    actors::engine_options eo;
    apply_config(config, &eo, nullptr);
    auto e = std::make_unique<actors::engine>(std::move(eo));
    throw_if_error(e->init_status());
    return e;
  }

  std::unique_ptr<actors::engine> engine_;
  std::unique_ptr<actors::saved_model_session> model_;
  std::shared_ptr<release_queue> releases_ = std::make_shared<release_queue>();
};

/// TensorBoard's event file in a log directory, as tf.summary.FileWriter
/// writes it.
class event_writer {
public:
  explicit event_writer(const std::string& logdir) {
    throw_if_error(net::summary_writer::open(logdir, &writer_));
  }

  void add_summary(nb::bytes summary, int64_t step) {
    throw_if_error(
      writer_->add_summary(std::string{summary.c_str(), summary.size()}, step));
  }

  void add_scalar(const std::string& tag, double value, int64_t step) {
    throw_if_error(writer_->add_scalar(tag, value, step));
  }

  void add_graph(const graph::graph& g) {
    throw_if_error(writer_->add_graph(g));
  }

  void flush() {
    throw_if_error(writer_->flush());
  }

  const std::string& path() const {
    return writer_->path();
  }

private:
  std::unique_ptr<net::summary_writer> writer_;
};

} // namespace

void bind_session(nb::module_& m) {
  nb::class_<saved_model_handle>(m, "SavedModel",
                                 "A TensorFlow 2 SavedModel, loaded.")
    .def(
      nb::init<const std::string&, const std::vector<std::string>&, nb::dict>(),
      "dir"_a, "tags"_a, "config"_a = nb::dict())
    .def_prop_ro("signatures", &saved_model_handle::signatures)
    .def("run", &saved_model_handle::run, "key"_a, "inputs"_a,
         "Runs signature `key`; returns its outputs by key.")
    .def("save", &saved_model_handle::save, "dir"_a,
         "Writes the model, its variables as they are now, to `dir`.");
  nb::class_<event_writer>(m, "EventWriter",
                           "TensorBoard's event file in a log directory.")
    .def(nb::init<const std::string&>(), "logdir"_a)
    .def("add_summary", &event_writer::add_summary, "summary"_a, "step"_a,
         "A serialized Summary (a summary op's value) at `step`.")
    .def("add_scalar", &event_writer::add_scalar, "tag"_a, "value"_a, "step"_a)
    .def("add_graph", &event_writer::add_graph, "graph"_a)
    .def("flush", &event_writer::flush)
    .def_prop_ro("path", &event_writer::path);
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
