#include <set>
#include <tuple>

#include "actorflow/graph/control_flow_info.hpp"
#include "actorflow/graph/passes.hpp"
#include "actorflow/ops/registration.hpp"

namespace actorflow::graph {

namespace {

/// Builds the transfer pairs of one partitioning run.
class partitioner {
public:
  partitioner(const graph& g, const graph_types& types,
              std::map<std::string, graph>& parts)
    : g_(g), types_(types), parts_(parts) {
    // nop
  }

  core::status run() {
    for (const auto& node : g_.nodes())
      parts_[node.device];
    for (const auto& node : g_.nodes()) {
      core::node_def copy = node;
      copy.inputs.clear();
      for (const auto& text : node.inputs) {
        core::input_ref r;
        core::input_ref::parse(text, &r);
        const auto& src = *g_.find(r.node);
        if (src.device == node.device) {
          copy.inputs.push_back(text);
          continue;
        }
        std::string recv;
        ACTORFLOW_RETURN_IF_ERROR(transfer(src, r, node.device, &recv));
        copy.inputs.push_back(r.control ? "^" + recv : recv);
      }
      ACTORFLOW_RETURN_IF_ERROR(parts_[node.device].add(std::move(copy)));
    }
    for (auto& [dev, part] : parts_)
      ACTORFLOW_RETURN_IF_ERROR(add_sink(part));
    return core::status::ok();
  }

private:
  /// Returns the Recv on `dst_device` for `r` (one per tensor and device),
  /// adding it and its Send on first use.
  core::status transfer(const core::node_def& src, const core::input_ref& r,
                        const std::string& dst_device, std::string* recv) {
    auto port = r.control ? -1 : r.port;
    auto key = std::make_tuple(src.name, port, dst_device);
    auto i = recvs_.find(key);
    if (i != recvs_.end()) {
      *recv = i->second;
      return core::status::ok();
    }
    auto& src_part = parts_[src.device];
    auto& dst_part = parts_[dst_device];
    auto id = std::to_string(recvs_.size());
    auto tensor_name = "edge_" + id + "_" + src.name
                       + (r.control ? "_ctrl" : "_" + std::to_string(port));
    core::dtype type = core::dtype::float32;
    std::string sent = src.name + (port > 0 ? ":" + std::to_string(port) : "");
    if (r.control) {
      // A control edge travels as an empty float tensor.
      core::node_def dummy;
      dummy.name = "_ctrl_" + id;
      dummy.op = "Const";
      dummy.device = src.device;
      dummy.inputs = {"^" + src.name};
      dummy.attrs = {{"value", core::tensor{core::dtype::float32, {0}}},
                     {"dtype", core::dtype::float32}};
      sent = dummy.name;
      ACTORFLOW_RETURN_IF_ERROR(src_part.add(std::move(dummy)));
    } else {
      type = types_
               .outputs[static_cast<size_t>(g_.index_of(src.name))]
                       [static_cast<size_t>(port)]
               .type;
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
    send.attrs = attrs;
    ACTORFLOW_RETURN_IF_ERROR(src_part.add(std::move(send)));
    core::node_def rv;
    rv.name = "_recv_" + id;
    rv.op = ops::runtime_op::recv;
    rv.device = dst_device;
    rv.attrs = std::move(attrs);
    *recv = rv.name;
    recvs_.emplace(key, rv.name);
    return dst_part.add(std::move(rv));
  }

  /// The sink waits for the root frame's nodes without consumers; work in
  /// loop frames reaches the root frame through Exits.
  static core::status add_sink(graph& part) {
    control_flow_info info;
    ACTORFLOW_RETURN_IF_ERROR(build_control_flow_info(part, &info));
    std::set<std::string> has_consumer;
    for (const auto& node : part.nodes())
      for (const auto& text : node.inputs) {
        core::input_ref r;
        core::input_ref::parse(text, &r);
        has_consumer.insert(r.node);
      }
    core::node_def sink;
    sink.name = sink_node_name;
    sink.op = ops::runtime_op::sink;
    for (size_t i = 0; i < part.size(); ++i) {
      const auto& node = part.nodes()[i];
      sink.device = node.device;
      if (has_consumer.count(node.name) == 0 && info.node_frame[i] == 0)
        sink.inputs.push_back("^" + node.name);
    }
    return part.add(std::move(sink));
  }

  const graph& g_;
  const graph_types& types_;
  std::map<std::string, graph>& parts_;
  std::map<std::tuple<std::string, int, std::string>, std::string> recvs_;
};

} // namespace

core::status partition(const graph& placed, const graph_types& types,
                       std::map<std::string, graph>* parts) {
  parts->clear();
  return partitioner{placed, types, *parts}.run();
}

} // namespace actorflow::graph
