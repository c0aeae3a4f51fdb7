// Cutting a placed graph into one graph per device, joined by Send/Recv
// pairs and per-device control loops.

#include "compile/partition.hpp"

#include <algorithm>
#include <tuple>

#include "actorflow/ops/registration.hpp"
#include "compile/control_flow_info.hpp"
#include "compile/graph_index.hpp"
#include "compile/recv_schedule.hpp"

namespace actorflow::graph {

namespace {

/// Builds the transfer pairs of one partitioning run.
class partitioner {
public:
  partitioner(const graph& g, const graph_index& index,
              const graph_types& types, const control_flow_info& info,
              std::map<std::string, graph>& parts, core::dtype wire,
              std::map<detail::transfer_key, std::string> triggers)
    : g_(g), index_(index), types_(types), info_(info), parts_(parts),
      wire_(wire), triggers_(std::move(triggers)) {
    // nop
  }

  core::status run() {
    for (const auto& node : g_.nodes())
      parts_[node.device];
    for (size_t i = 0; i < g_.size(); ++i) {
      const auto& node = g_.nodes()[i];
      core::node_def copy = node;
      copy.inputs.clear();
      // The edges follow the inputs one to one: the graph is valid.
      const auto& edges = index_.inputs(i);
      for (size_t k = 0; k < edges.size(); ++k) {
        const auto& e = edges[k];
        const auto& src = g_.nodes()[static_cast<size_t>(e.src)];
        if (src.device == node.device) {
          copy.inputs.push_back(node.inputs[k]);
          continue;
        }
        auto frame = info_.node_frame[i];
        if (e.control() && frame != 0 && is_body_pivot(src, frame)) {
          // "This iteration runs": the consumer's own device knows that
          // from its control loop, without a value per iteration.
          std::string local;
          ACTORFLOW_RETURN_IF_ERROR(local_pivot(frame, node.device, &local));
          copy.inputs.push_back("^" + local);
          continue;
        }
        std::string recv;
        core::input_ref r{src.name, e.control() ? 0 : e.port, e.control()};
        // The value lives in the consumer's frame: an Enter's output is
        // inside the loop the Enter itself is outside of.
        ACTORFLOW_RETURN_IF_ERROR(transfer(src, r, node.device, frame, &recv));
        copy.inputs.push_back(r.control ? "^" + recv : recv);
      }
      auto frame = info_.node_frame[i];
      if (frame != 0 && reads_only_loop_constants(edges)) {
        // TensorFlow's executor hands a loop constant to every iteration
        // it starts, and so runs a node that reads nothing else in each:
        // a Merge of the loop says when one starts.
        std::string merge;
        ACTORFLOW_RETURN_IF_ERROR(loop_merge(frame, node.device, &merge));
        copy.inputs.push_back("^" + merge);
      }
      ACTORFLOW_RETURN_IF_ERROR(parts_[node.device].add(std::move(copy)));
    }
    return core::status::ok();
  }

private:
  /// Returns the Recv on `dst_device` for `r` (one per tensor and device),
  /// adding it and its Send on first use.
  core::status transfer(const core::node_def& src, const core::input_ref& r,
                        const std::string& dst_device, int frame,
                        std::string* recv) {
    auto port = r.control ? -1 : r.port;
    detail::transfer_key key{src.name, port, dst_device};
    auto i = recvs_.find(key);
    if (i != recvs_.end()) {
      *recv = i->second;
      return core::status::ok();
    }
    // A value entered into a loop as a constant is sent once per iteration:
    // the control loop of its frame on its device triggers the Send (as
    // every node in a loop must be reached from the loop).
    std::string trigger;
    if (frame != 0 && flow_role_of(src.op) == flow_role::enter) {
      auto c = src.attrs.find("is_constant");
      if (c != src.attrs.end() && std::get<bool>(c->second))
        ACTORFLOW_RETURN_IF_ERROR(control_loop(frame, src.device, &trigger));
    }
    auto& src_part = parts_[src.device];
    auto& dst_part = parts_[dst_device];
    auto id = std::to_string(next_id_++);
    auto tensor_name = "edge_" + id + "_" + src.name
                       + (r.control ? "_ctrl" : "_" + std::to_string(port));
    core::dtype type = core::dtype::float32;
    std::string sent = src.name + (port > 0 ? ":" + std::to_string(port) : "");
    bool narrowed = false; // cast to wire_ for the trip
    if (r.control) {
      // A control edge travels as an empty float tensor.
      core::node_def dummy;
      dummy.name = "_ctrl_" + id;
      dummy.op = "Const";
      dummy.device = src.device;
      dummy.inputs = {"^" + src.name};
      if (!trigger.empty())
        dummy.inputs.push_back("^" + trigger);
      dummy.attrs = {{"value", core::tensor{core::dtype::float32, {0}}},
                     {"dtype", core::dtype::float32}};
      sent = dummy.name;
      ACTORFLOW_RETURN_IF_ERROR(src_part.add(std::move(dummy)));
    } else {
      const auto& out
        = types_.outputs[static_cast<size_t>(g_.index_of(src.name))]
                        [static_cast<size_t>(port)];
      type = out.type;
      if (type == core::dtype::float32 && !out.is_ref
          && wire_ != core::dtype::invalid
          && !detail::same_task(src.device, dst_device)) {
        // Half the bytes on the wire: cast down before the Send (once per
        // iteration, as the Send, when a trigger paces it) ...
        core::node_def down;
        down.name = "_wire_" + id;
        down.op = "Cast";
        down.device = src.device;
        down.inputs = {sent};
        if (!trigger.empty())
          down.inputs.push_back("^" + trigger);
        down.attrs = {{"SrcT", type}, {"DstT", wire_}, {"Truncate", false}};
        sent = down.name;
        type = wire_;
        narrowed = true;
        ACTORFLOW_RETURN_IF_ERROR(src_part.add(std::move(down)));
      }
    }
    core::attr_map attrs{{"T", type},
                         {"tensor_name", tensor_name},
                         {"send_device", src.device},
                         {"recv_device", dst_device}};
    core::node_def send;
    send.name = "_send_" + id;
    send.op = ops::runtime_op::send;
    send.device = src.device;
    send.inputs = {sent};
    if (!trigger.empty())
      send.inputs.push_back("^" + trigger);
    if (auto t = triggers_.find(key); t != triggers_.end()) {
      // Scheduled: the receiving device asks for the value when it reaches
      // the trigger (a control edge back to this device).
      const auto& at = g_.nodes()[static_cast<size_t>(g_.index_of(t->second))];
      std::string asked;
      ACTORFLOW_RETURN_IF_ERROR(
        transfer(at, core::input_ref{at.name, 0, true}, src.device, 0, &asked));
      send.inputs.push_back("^" + asked);
    }
    send.attrs = attrs;
    ACTORFLOW_RETURN_IF_ERROR(src_part.add(std::move(send)));
    core::node_def rv;
    rv.name = "_recv_" + id;
    rv.op = ops::runtime_op::recv;
    rv.device = dst_device;
    rv.attrs = std::move(attrs);
    // Inside a loop a Recv runs once per iteration: the control loop of its
    // frame on its device activates it with the iteration's tag.
    if (frame != 0) {
      std::string merge;
      ACTORFLOW_RETURN_IF_ERROR(control_loop(frame, dst_device, &merge));
      rv.inputs.push_back("^" + merge);
    }
    *recv = rv.name;
    if (narrowed) {
      // ... and back after the Recv.
      core::node_def up;
      up.name = "_unwire_" + id;
      up.op = "Cast";
      up.device = dst_device;
      up.inputs = {rv.name};
      up.attrs = {
        {"SrcT", wire_}, {"DstT", core::dtype::float32}, {"Truncate", false}};
      *recv = up.name;
      ACTORFLOW_RETURN_IF_ERROR(dst_part.add(std::move(up)));
    }
    recvs_.emplace(key, *recv);
    return dst_part.add(std::move(rv));
  }

  /// Returns the Merge of the control loop of `frame` on `device` (§3.2 of
  /// the runtime notes): Enter (fed by the parent frame's control loop, or
  /// a dummy constant at the root) -> Merge -> Switch on the frame's
  /// LoopCond (received from the device that owns it) -> NextIteration ->
  /// Merge. It runs once per iteration on `device`, so Recvs there can be
  /// activated per iteration; it has no Exit and ends when the predicate
  /// is false.
  core::status control_loop(int frame, const std::string& device,
                            std::string* merge) {
    auto key = std::make_pair(frame, device);
    if (auto i = control_loops_.find(key); i != control_loops_.end()) {
      *merge = i->second;
      return core::status::ok();
    }
    const auto& f = info_.frames[static_cast<size_t>(frame)];
    auto pivot = pivot_of(frame);
    if (pivot < 0)
      return core::invalid_argument_error(
        "loop frame '", f.name,
        "' spans devices but has no LoopCond (a cross-device loop needs a "
        "pivot predicate)");
    // The enclosing frame's control loop first: the name counts loops made.
    std::string source;
    if (f.parent != 0)
      ACTORFLOW_RETURN_IF_ERROR(control_loop(f.parent, device, &source));
    auto& part = parts_[device];
    auto prefix = "_cloop_" + std::to_string(control_loops_.size()) + "_";
    if (f.parent == 0) {
      core::node_def dummy;
      dummy.name = prefix + "const";
      dummy.op = "Const";
      dummy.device = device;
      dummy.attrs = {{"value", core::tensor{core::dtype::float32, {0}}},
                     {"dtype", core::dtype::float32}};
      source = dummy.name;
      ACTORFLOW_RETURN_IF_ERROR(part.add(std::move(dummy)));
    }
    core::attr_map f32{{"T", core::dtype::float32}};
    auto node = [&](const std::string& suffix, const std::string& op,
                    std::vector<std::string> inputs, core::attr_map attrs) {
      core::node_def n;
      n.name = prefix + suffix;
      n.op = op;
      n.device = device;
      n.inputs = std::move(inputs);
      n.attrs = std::move(attrs);
      return part.add(std::move(n));
    };
    ACTORFLOW_RETURN_IF_ERROR(
      node("enter", "Enter", {source},
           {{"T", core::dtype::float32},
            {"frame_name", f.name},
            {"is_constant", false},
            {"parallel_iterations", int64_t{f.parallel_iterations}}}));
    *merge = prefix + "merge";
    control_loops_.emplace(key, *merge);
    ACTORFLOW_RETURN_IF_ERROR(
      node("merge", "Merge", {prefix + "enter", prefix + "next"},
           {{"T", core::dtype::float32}, {"N", int64_t{2}}}));
    // The predicate comes from the pivot's device like any other tensor.
    const auto& pivot_node = g_.nodes()[static_cast<size_t>(pivot)];
    std::string pred = pivot_node.name;
    if (pivot_node.device != device) {
      core::input_ref r;
      core::input_ref::parse(pivot_node.name, &r);
      ACTORFLOW_RETURN_IF_ERROR(transfer(pivot_node, r, device, frame, &pred));
    }
    ACTORFLOW_RETURN_IF_ERROR(node("switch", "Switch", {*merge, pred}, f32));
    return node("next", "NextIteration", {prefix + "switch:1"}, f32);
  }

  /// Whether every edge of `edges` (at least one) comes from an Enter of a
  /// loop constant.
  bool reads_only_loop_constants(const std::vector<graph_edge>& edges) const {
    return !edges.empty()
           && std::all_of(edges.begin(), edges.end(), [&](const auto& e) {
                const auto& src = g_.nodes()[static_cast<size_t>(e.src)];
                auto c = src.attrs.find("is_constant");
                return flow_role_of(src.op) == flow_role::enter
                       && c != src.attrs.end() && std::get<bool>(c->second);
              });
  }

  /// Returns a Merge of loop `frame` on `device` that runs, live, in every
  /// iteration: one of the loop's own (an Enter and a NextIteration feed
  /// it), or else the frame's control loop there.
  core::status loop_merge(int frame, const std::string& device,
                          std::string* merge) {
    auto key = std::make_pair(frame, device);
    if (auto i = loop_merges_.find(key); i != loop_merges_.end()) {
      *merge = i->second;
      return core::status::ok();
    }
    ACTORFLOW_RETURN_IF_ERROR(find_loop_merge(frame, device, merge));
    loop_merges_.emplace(key, *merge);
    return core::status::ok();
  }

  /// `loop_merge` without its memo.
  core::status find_loop_merge(int frame, const std::string& device,
                               std::string* merge) {
    for (size_t i = 0; i < g_.size(); ++i) {
      const auto& n = g_.nodes()[i];
      if (info_.node_frame[i] != frame || n.device != device
          || flow_role_of(n.op) != flow_role::merge)
        continue;
      for (const auto& in : n.inputs) {
        core::input_ref r;
        auto src = core::input_ref::parse(in, &r) ? g_.index_of(r.node) : -1;
        if (src >= 0
            && flow_role_of(g_.nodes()[static_cast<size_t>(src)].op)
                 == flow_role::next_iteration) {
          *merge = n.name;
          return core::status::ok();
        }
      }
    }
    return control_loop(frame, device, merge);
  }

  /// Whether `n` is the pivot of loop `frame`'s body: an Identity of the
  /// true output of a Switch on the frame's LoopCond, which while_loop
  /// gives every node of the body without inputs there (its constants) as
  /// a control input. Live exactly in the iterations that run, dead in the
  /// one that exits.
  bool is_body_pivot(const core::node_def& n, int frame) const {
    if (n.op != "Identity" || n.inputs.size() != 1)
      return false;
    core::input_ref in;
    if (!core::input_ref::parse(n.inputs[0], &in) || in.control || in.port != 1)
      return false;
    auto sw = g_.index_of(in.node);
    auto cond = pivot_of(frame);
    if (sw < 0 || cond < 0)
      return false;
    const auto& s = g_.nodes()[static_cast<size_t>(sw)];
    core::input_ref pred;
    return s.op == "Switch" && s.inputs.size() == 2
           && core::input_ref::parse(s.inputs[1], &pred) && !pred.control
           && pred.node == g_.nodes()[static_cast<size_t>(cond)].name;
  }

  /// Returns the pivot of the control loop of `frame` on `device`: an
  /// Identity of its Switch's true output, the body pivot's twin there.
  core::status local_pivot(int frame, const std::string& device,
                           std::string* pivot) {
    auto key = std::make_pair(frame, device);
    if (auto i = local_pivots_.find(key); i != local_pivots_.end()) {
      *pivot = i->second;
      return core::status::ok();
    }
    std::string merge;
    ACTORFLOW_RETURN_IF_ERROR(control_loop(frame, device, &merge));
    auto prefix = merge.substr(0, merge.size() - std::string{"merge"}.size());
    core::node_def n;
    n.name = prefix + "pivot";
    n.op = "Identity";
    n.device = device;
    n.inputs = {prefix + "switch:1"};
    n.attrs = {{"T", core::dtype::float32}};
    *pivot = n.name;
    local_pivots_.emplace(key, *pivot);
    return parts_[device].add(std::move(n));
  }

  /// The LoopCond of `frame`, or -1.
  int pivot_of(int frame) const {
    for (size_t i = 0; i < g_.size(); ++i)
      if (g_.nodes()[i].op == "LoopCond" && info_.node_frame[i] == frame)
        return static_cast<int>(i);
    return -1;
  }

  const graph& g_;
  const graph_index& index_;
  const graph_types& types_;
  const control_flow_info& info_;
  std::map<std::string, graph>& parts_;
  core::dtype wire_;
  /// The node on the receiving device that each scheduled value waits for.
  std::map<detail::transfer_key, std::string> triggers_;
  std::map<detail::transfer_key, std::string> recvs_; ///< Recv by transfer
  std::map<std::pair<int, std::string>, std::string> control_loops_;
  std::map<std::pair<int, std::string>, std::string> local_pivots_;
  /// The Merge `loop_merge` found, by frame and device.
  std::map<std::pair<int, std::string>, std::string> loop_merges_;
  size_t next_id_ = 0; ///< Numbers the transfers.
};

/// Moves control-flow plumbing next to the data it handles, so that fewer
/// edges of a loop cross devices (as TensorFlow's partitioner does): a
/// Switch and an Exit to their data input's device, an Enter (not of a
/// reference) and a NextIteration to their first data consumer's.
void colocate_control_flow(graph& g, const graph_index& index) {
  const auto& nodes = g.nodes();
  std::map<std::string, std::string> first_consumer;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& e : index.inputs(i))
      if (!e.control())
        first_consumer.emplace(nodes[static_cast<size_t>(e.src)].name,
                               nodes[i].device);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    if (node.op == "Switch" || node.op == "Exit") {
      g.set_device(i,
                   nodes[static_cast<size_t>(index.inputs(i)[0].src)].device);
    } else if (node.op == "Enter" || node.op == "NextIteration") {
      if (auto c = first_consumer.find(node.name); c != first_consumer.end())
        g.set_device(i, c->second);
    }
  }
}

} // namespace

core::status partition(const graph& placed, const graph_types& types,
                       std::map<std::string, graph>* parts,
                       const partition_options& options) {
  parts->clear();
  // Moving control flow changes devices, not edges: one index serves the
  // placed graph and its copy.
  auto edges = placed.edges();
  const auto& index = *edges;
  control_flow_info own_info;
  const auto* info = options.info;
  if (info == nullptr) {
    ACTORFLOW_RETURN_IF_ERROR(
      build_control_flow_info(placed, index, &own_info));
    info = &own_info;
  }
  graph g = placed;
  colocate_control_flow(g, index);
  std::map<detail::transfer_key, std::string> triggers;
  if (options.schedule_recvs != nullptr)
    triggers
      = detail::recv_triggers(g, index, types, *info, *options.schedule_recvs);
  return partitioner{
    g, index, types, *info, *parts, options.wire, std::move(triggers)}
    .run();
}

} // namespace actorflow::graph
