#pragma once

/// The master's state, what it asks of it, and the queries on it.
///
/// The master's parts, one file each, call down, never around:
/// master.cpp (the session's behaviour, runs, cancellation and deadlines)
/// calls recovery.cpp (lost workers and reconnecting to them), which calls
/// registration.cpp (registering plans with workers), which calls
/// steps.cpp (a step's launch, reports and result, the feeds checked),
/// which calls compile.cpp (compiling run signatures); every part reads
/// and changes this state (state.cpp).

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actorflow/graph/compile_run.hpp"
#include "master/master.hpp"

namespace actorflow::actors::detail {

/// A run waiting for its signature's partitions to be registered, with
/// the master's number for it (for its deadline).
struct waiting_run {
  run_request req;
  caf::typed_response_promise<run_result> promise;
  uint64_t ticket = 0;
};

/// Everything compiled for one run signature: the partitions of each
/// participating worker and how they are registered there.
struct compiled_plan {
  struct worker_part {
    size_t worker = 0;          ///< Index in the session's workers.
    uint64_t handle = 0;        ///< The registration, once it is known.
    std::vector<int32_t> feeds; ///< The feeds its partitions read.
    partition_set set;          ///< Sent once, when registering.
    /// The tensor names of its Sends, and whether it runs collectives:
    /// what it needs to know of the others, read before `set` goes.
    std::vector<std::string> sends;
    bool collectives = false;
  };
  std::vector<worker_part> parts;
  /// What the graph expects of each feed.
  std::vector<graph::compiled_feed> feeds;
  std::vector<std::string> fetch_names;
  /// Each node's device and the partitions, for run_metadata.
  std::map<std::string, std::string> placement;
  std::vector<graph::graph> partition_graphs;
  /// Registration: replies still to come, the Recvs of every worker (and
  /// the part that registered each), the first error, and the runs that
  /// wait until the plan is ready.
  size_t replies_left = 0;
  recv_table recvs;
  std::vector<size_t> recv_parts;
  core::status error;
  bool ready = false;
  std::vector<waiting_run> waiting;
};

using plan_ptr = std::shared_ptr<compiled_plan>;

/// One step in flight, with its run's number and the client's name for
/// it.
struct step_state {
  uint64_t ticket = 0;
  uint64_t run_id = 0;
  caf::typed_response_promise<run_result> promise;
  plan_ptr plan;
  std::vector<core::tensor> fetched;
  std::vector<value_state> fetch_states;
  bool want_metadata = false;
  bool want_partition_graphs = false;
  /// What the workers recorded, when the step is traced (the run asked
  /// for it, `want_stats`, or the session has an observer).
  bool traced = false;
  bool want_stats = false;
  step_stats stats;
  size_t reports_left = 0;
  core::status error;
  bool aborted = false; ///< The other workers were told to abort.
};

/// What a session's master keeps: the graph, its workers, the compiled
/// plans by run signature, the steps in flight and the runs waiting.
struct master_state {
  std::shared_ptr<runtime_context> rt;
  std::vector<worker_ref> workers;
  /// Per worker: why it is gone (its process died or its connection
  /// broke); ok while it serves.
  std::vector<core::status> gone;
  session_options options;
  graph::graph g;
  graph::graph_types types;
  /// The devices of g's stateful nodes, kept by every run; placed when a
  /// run first needs them after the graph grew.
  graph::pinned_devices pinned;
  bool pinned_current = false;
  std::map<std::string, plan_ptr> plans;
  std::unordered_map<uint64_t, step_state> steps;
  uint64_t next_step; ///< Random at first (see master.cpp).
  /// The master's number of the last run that arrived.
  uint64_t last_ticket = 0;
  /// Runs cancelled before they arrived (a cancellation and its run come
  /// from different senders), the last `max_early_cancels`.
  std::deque<uint64_t> early_cancels;
  static constexpr size_t max_early_cancels = 256;
  bool closed = false;

  uint64_t new_step_id() {
    auto id = next_step++;
    return id == 0 ? next_step++ : id;
  }

  /// Runs that wait for gone worker `worker` to be connected again, and
  /// per worker whether that is under way.
  struct parked_run {
    waiting_run run;
    size_t worker;
  };
  std::vector<parked_run> parked;
  std::vector<bool> reconnecting;

  /// Drops `plan`'s registrations, on every worker but `skip` (one that
  /// restarted: its registrations died with it).
  void deregister(const compiled_plan& plan, size_t skip = SIZE_MAX);

  /// Fails every run and step with `cancelled` and drops the plans.
  void shutdown();

  master_state();
  ~master_state();

  static inline const char* name = "actorflow.master";
};

using self_ptr = master_actor::stateful_pointer<master_state>;

/// Why a worker `plan` needs is gone; ok if every one serves.
core::status gone_worker(const master_state& st, const compiled_plan& plan);

/// The first worker `plan` needs that is gone but may be connected again
/// (it has an address), or SIZE_MAX.
size_t reconnectable_worker(const master_state& st, const compiled_plan& plan);

} // namespace actorflow::actors::detail
