#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/actors/runtime_context.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/validate.hpp"
#include "actorflow/ops/kernel.hpp"
#include "runtime_messages.hpp"
#include "worker/step_tracker.hpp"

namespace actorflow::actors {

class bulk_transport;

/// How the runtime treats a node.
enum class node_kind : uint8_t {
  kernel, ///< Runs its op's kernel.
  feed,   ///< Emits the tensor the client fed.
  fetch,  ///< Hands its input to the master.
  send,   ///< Forwards its input to a Recv on another device.
  recv,   ///< Emits what its Send forwarded (the rendezvous).
  enter,  ///< Forwards into iteration 0 of a child frame (or to all, constant).
  exit,   ///< Forwards the last iteration's value to the parent frame.
  next_iteration, ///< Forwards into the next iteration; swallows dead.
};

/// One node of a partition, as its actor needs it: kernel, input counts and
/// where its outputs go. Built once when the partition is instantiated.
struct node_item {
  struct edge {
    int dst;
    int32_t slot;
  };

  /// An input bound at instantiation to the value of a Const producer in
  /// the same partition: it arrives with no message.
  struct bound_input {
    int32_t slot;
    core::tensor value;
  };

  core::node_def def;
  node_kind kind = node_kind::kernel;
  std::unique_ptr<ops::kernel> kernel;
  /// Which of the kernel's inputs and outputs are in host memory.
  ops::memory_spec memory;
  std::vector<ops::arg_type> in_types;
  std::vector<ops::arg_type> out_types;
  /// Messages to wait for per tag: data and control inputs not bound to a
  /// constant, plus one activation for roots and for Recvs.
  int num_messages = 0;
  std::vector<bound_input> constants;
  /// Data slots the inputs fill.
  int num_slots = 0;
  int32_t index_attr = 0; ///< Feed or fetch position.
  /// Merge: fires on its first live data input (once its control inputs
  /// are in) and is dead only when every data input is.
  bool is_merge = false;
  /// ControlTrigger: runs when its inputs arrive, dead or alive, and its
  /// output is live (TensorFlow's rule, for syncing on maybe-dead nodes).
  bool is_control_trigger = false;
  /// Switch: an output its kernel leaves unset is dead, not an error.
  bool unset_outputs_dead = false;
  int num_control = 0; ///< Control inputs that send messages.
  /// Enter: the hash of its frame name, and whether it enters a loop
  /// constant (sent once per frame instance, held for every iteration).
  uint64_t frame_hash = 0;
  bool is_constant_enter = false;
  /// Input slots fed by constant Enters: filled per frame instance.
  std::vector<int32_t> invariant_slots;
  /// Never sent anything: the node only forwarded a value (its consumers
  /// read the value's producer) or nothing reads it.
  bool skipped = false;
  std::vector<std::vector<edge>> out; ///< Per output port.
  std::vector<int> control_out;
  /// For Sends: the Recv's actor and its index in its partition, and
  /// whether it lives on another worker (its value then carries no token).
  node_actor send_target;
  int32_t send_target_node = 0;
  bool send_remote = false;
  /// For Sends to another worker with a bulk path: its address and the
  /// Recv's key there (see `bulk_transport`).
  std::string bulk_address;
  uint64_t bulk_key = 0;
  /// For Sends to another worker: what is counted of the traffic to it.
  metrics::peer_counters* peer = nullptr;
};

/// Nodes that share an actor: one root-frame node, or the nodes of one loop
/// frame on a partition.
struct node_group {
  std::vector<int> nodes;
  /// The loop frame (index in `graph::control_flow_info::frames`; 0 for
  /// the root frame).
  int frame = 0;
  /// The loop frame's name ("" for the root frame), for traces.
  std::string frame_name;
  /// Whether the group frees each instance of its frame when the
  /// instance's work is done (see `frame_instance`): the frame and every
  /// frame nested in it lie on this partition alone (no Send or Recv). A
  /// group that does not keeps its instances until the step ends, and
  /// tells the enclosing frame's group when an instance has no work left
  /// here (a Recv waiting for a value is work it cannot see).
  bool retires = false;
  /// Messages the frame's Enters send into the group per frame instance.
  int64_t entries = 0;
  /// The frame's `parallel_iterations`.
  int64_t parallel_iterations = 1;
  /// The group of the enclosing loop frame on this partition, told when an
  /// instance retires; -1 when the enclosing frame is the root.
  int parent = -1;
};

/// A partition instantiated on one device: its node items and their actors.
///
/// Nodes are grouped, one actor per group: each node of the root frame is
/// a group of its own, and the nodes of one loop frame form one group. An
/// actor runs the nodes it hosts as a small dataflow executor: a value
/// from one of its nodes to another goes through a queue in the actor
/// rather than a mailbox, so the plumbing of a loop (Enter, Merge, Switch,
/// Identity, NextIteration, Exit) and its small kernels cost a function
/// call per firing, not a message.
///
/// Immutable once `route_sends` has run and before the first step starts, so
/// node actors read it without locks.
struct partition_plan {
  /// Keeps the devices, registries and variables alive as long as a node
  /// actor holds the plan: a node may still finish a message of a step
  /// after its session ended.
  std::shared_ptr<runtime_context> context;
  /// The worker's step trackers, where node actors find a step's count.
  std::shared_ptr<step_trackers> trackers;
  std::string device_name;
  devices::device* device = nullptr;
  std::vector<node_item> nodes;
  /// Per node: its group, its index in the group, and the group's actor.
  std::vector<int> group_of;
  std::vector<int> index_in_group;
  std::vector<node_actor> actors;
  std::vector<node_group> groups;
  /// Nodes that need an activation per step: no inputs here, only inputs
  /// bound to constants, or Recvs. Consts whose every consumer was bound
  /// are not roots: nothing waits for them.
  std::vector<int> roots;
  /// The actors of loop frames, which keep state per step beyond a tag
  /// (frame instances, loop constants): told when a step is done.
  std::vector<node_actor> step_state_actors;
  /// The worker, told of fetched values, errors and the step's end.
  worker_sink_actor sink;
  /// The worker's bulk path for large tensors, if it has one; and the keys
  /// of this partition's Recvs there.
  std::shared_ptr<bulk_transport> bulk;
  std::vector<uint64_t> bulk_keys;

  /// Builds the items of validated partition `part` (`types` are its
  /// dtypes; kernels are made here), groups them and spawns one actor per
  /// group through `spawn` (given the group's index).
  static core::status
  build(const graph::graph& part, const graph::graph_types& types,
        runtime_context& rt, worker_sink_actor sink,
        const std::function<node_actor(std::shared_ptr<partition_plan>, int)>&
          spawn,
        std::shared_ptr<partition_plan>* out);

  /// Adds this partition's Recvs to `out` (and to the bulk path's
  /// routes).
  void list_recvs(recv_table* out);

  /// Points every Send at the Recv with the same `tensor_name` in `recvs`
  /// (the Recvs of every worker); `here` is this worker's node.
  core::status route_sends(const recv_table& recvs, const caf::node_id& here);

  /// Tells every node actor that `step` was aborted (`step_abort_msg`).
  void abort_step(uint64_t step) const;

  /// Stops every node actor and forgets the bulk path's routes.
  void shutdown();
};

} // namespace actorflow::actors
