#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/actors/cancellation.hpp"
#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/protocol.hpp"

namespace actorflow::actors {

namespace detail {
class caller_pool;
} // namespace detail

/// Options of one run, like TensorFlow's RunOptions.
struct run_options {
  /// How long the run may take; zero: no limit. Past it `run` returns
  /// `deadline_exceeded` and the step is aborted on every worker (loops
  /// stop, waiting queue operations are cancelled).
  std::chrono::milliseconds timeout{0};
  /// Cancels the run from another thread (see `cancellation`); nullptr:
  /// none.
  cancellation* cancel = nullptr;
  /// What the run records of itself into `run_metadata::stats`: with
  /// `trace_level::full` every node firing on every device and worker,
  /// the step's transfers and its devices' memory.
  trace_level trace = trace_level::none;
  /// Whether `run_metadata::partition_graphs` gets the graphs the step ran
  /// (TensorFlow's `output_partition_graphs`).
  bool output_partition_graphs = false;
  /// Which graph passes run over the run's graph (CSE, constant folding,
  /// fusion, dead nodes; see `graph::pass_selection`); none given: the
  /// session's `session_options::pass_selection`. Each choice compiles
  /// its own plan.
  std::optional<graph::pass_selection> passes;
  /// Called on the calling thread every `poll_interval` while the run is
  /// in flight, e.g. to look for an interrupt and cancel the run through
  /// `cancel` (the Python package checks for Ctrl-C this way); none: the
  /// caller just waits.
  std::function<void()> on_wait;
  std::chrono::milliseconds poll_interval{100};
};

/// A blocking client of one session actor, for plain C++ code.
///
/// ~~~
/// actors::engine e;
/// actors::session sess{e};
/// ACTORFLOW_RETURN_IF_ERROR(sess.extend(s.graph_def()));
/// std::vector<core::tensor> out;
/// ACTORFLOW_RETURN_IF_ERROR(sess.run({{"x", x}}, {"relu"}, {}, &out));
/// ~~~
///
/// `run` may be called from several threads at once; each call is one step.
class session {
public:
  explicit session(engine& e, session_options options = {});

  /// Closes the session.
  ~session();

  session(const session&) = delete;
  session& operator=(const session&) = delete;

  /// Adds the nodes of `g` to the session's graph; the graph is validated
  /// as a whole and nothing changes on error.
  core::status extend(const graph::graph& g);

  /// Runs one step: feeds tensors by name, returns the fetched tensors in
  /// `outputs` and runs `targets` for their effects; fills `metadata`
  /// (where each node ran) when given.
  core::status run(const feed_list& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<core::tensor>* outputs,
                   run_metadata* metadata = nullptr);

  /// Runs one step with `options`: a deadline, a cancellation, a trace
  /// (in `metadata`, which a trace needs).
  core::status run(const run_options& options, const feed_list& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<core::tensor>* outputs,
                   run_metadata* metadata = nullptr);

  /// Adds the nodes of the graph in file `path` to the session's graph:
  /// a TensorFlow GraphDef (`.pb`, `.pbtxt`;
  /// `interop::tensorflow::load_graph_def`) or a graph file of the engine's own
  /// (`net::save_graph`).
  core::status extend(const std::string& path);

  /// Releases the session's actors; later calls fail.
  core::status close();

  /// The underlying session actor.
  const session_actor& handle() const noexcept {
    return handle_;
  }

private:
  engine& engine_;
  session_actor handle_;
  std::unique_ptr<detail::caller_pool> callers_;
  bool closed_ = false;
  /// The id of the next run given a cancellation.
  std::atomic<uint64_t> next_run_id_{1};
};

} // namespace actorflow::actors
