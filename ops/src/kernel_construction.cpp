#include "actorflow/ops/kernel_construction.hpp"

namespace actorflow::ops {

kernel_construction::kernel_construction(const core::node_def& node,
                                         const op_def& op, devices::device& dev,
                                         resource_manager& resources,
                                         std::vector<arg_type> inputs,
                                         std::vector<arg_type> outputs)
  : attr_reader(node.attrs), node_(node), op_(op), device_(dev),
    resources_(resources), inputs_(std::move(inputs)),
    outputs_(std::move(outputs)) {
  // nop
}

} // namespace actorflow::ops
