#pragma once

#include <vector>

#include "actorflow/core/node_def.hpp"
#include "actorflow/ops/attr_reader.hpp"
#include "actorflow/ops/op_def.hpp"

namespace actorflow::devices {
class device;
} // namespace actorflow::devices

namespace actorflow::ops {

class resource_manager;

/// What a kernel sees while it is built: the node, its op, the device and
/// the resolved input and output dtypes.
class kernel_construction : public attr_reader {
public:
  kernel_construction(const core::node_def& node, const op_def& op,
                      devices::device& dev, resource_manager& resources,
                      std::vector<arg_type> inputs,
                      std::vector<arg_type> outputs);

  const core::node_def& node() const noexcept {
    return node_;
  }

  const op_def& op() const noexcept {
    return op_;
  }

  devices::device& device() const noexcept {
    return device_;
  }

  resource_manager& resources() const noexcept {
    return resources_;
  }

  const std::vector<arg_type>& input_types() const noexcept {
    return inputs_;
  }

  const std::vector<arg_type>& output_types() const noexcept {
    return outputs_;
  }

private:
  const core::node_def& node_;
  const op_def& op_;
  devices::device& device_;
  resource_manager& resources_;
  std::vector<arg_type> inputs_;
  std::vector<arg_type> outputs_;
};

} // namespace actorflow::ops
