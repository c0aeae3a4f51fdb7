#pragma once

// Builds and runs one CPU kernel directly, without actors or a graph: what
// the op tests need to check kernels and shape functions against golden
// data.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/devices/device_set.hpp"
#include "actorflow/ops/kernel_context.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/registration.hpp"
#include "actorflow/ops/resource_manager.hpp"
#include "actorflow/ops/shape_context.hpp"

namespace actorflow::test {

/// The registries and one CPU device, as an engine would hold them.
class kernel_runner {
public:
  kernel_runner() : devs_(devices::device_set::make_local(1, 2)) {
    auto st = ops::register_ops(op_reg_);
    if (!st.is_ok())
      throw std::logic_error(st.to_string());
    ops::register_cpu_kernels(kernel_reg_);
  }

  const ops::op_registry& op_registry() const noexcept {
    return op_reg_;
  }

  /// Builds the kernel of `op` (attrs checked and defaulted like a graph
  /// node's) and runs it `steps` times on `inputs`; returns the last
  /// step's status and outputs.
  core::status run(const std::string& op, core::attr_map attrs,
                   const std::vector<core::tensor>& inputs,
                   std::vector<core::tensor>* outputs, int steps = 1) {
    core::node_def node{"n", op, {}, "", std::move(attrs)};
    const auto* def = op_reg_.find(op);
    if (def == nullptr)
      return core::not_found_error("unknown op ", op);
    ACTORFLOW_RETURN_IF_ERROR(def->check_attrs(node.attrs));
    std::vector<ops::arg_type> in, out;
    ACTORFLOW_RETURN_IF_ERROR(def->resolve_types(node.attrs, &in, &out));
    if (in.size() != inputs.size())
      return core::invalid_argument_error(op, " takes ", in.size(),
                                          " inputs, got ", inputs.size());
    auto& dev = *devs_.all()[0];
    ops::kernel_construction ctx{node, *def, dev, resources_, in, out};
    std::unique_ptr<ops::kernel> k;
    ACTORFLOW_RETURN_IF_ERROR(kernel_reg_.create(ctx, &k));
    ops::kernel_context kctx{dev, out, 1};
    for (int step = 0; step < steps; ++step) {
      kctx.reset(static_cast<uint64_t>(step + 1));
      kctx.inputs().clear();
      for (const auto& t : inputs)
        kctx.inputs().push_back(ops::entry{t, nullptr});
      kctx.outputs().assign(out.size(), ops::entry{});
      k->compute(kctx);
    }
    outputs->clear();
    for (const auto& e : kctx.outputs())
      outputs->push_back(e.value);
    return kctx.status();
  }

  /// Runs the shape function of `op` on `shapes`, with the values of
  /// `constants` (by input index) known; returns its status and outputs.
  core::status infer(const std::string& op, core::attr_map attrs,
                     const std::vector<core::shape>& shapes,
                     const std::map<size_t, core::tensor>& constants,
                     std::vector<core::shape>* outputs) const {
    core::node_def node{"n", op, {}, "", std::move(attrs)};
    const auto* def = op_reg_.find(op);
    if (def == nullptr)
      return core::not_found_error("unknown op ", op);
    ACTORFLOW_RETURN_IF_ERROR(def->check_attrs(node.attrs));
    std::vector<ops::arg_type> in, out;
    ACTORFLOW_RETURN_IF_ERROR(def->resolve_types(node.attrs, &in, &out));
    ops::shape_context ctx{node, shapes, out.size()};
    for (const auto& [i, t] : constants)
      ctx.set_input_tensor(i, t);
    if (def->shape_function)
      ACTORFLOW_RETURN_IF_ERROR(def->shape_function(ctx));
    *outputs = ctx.outputs();
    return core::status::ok();
  }

private:
  ops::op_registry op_reg_;
  ops::kernel_registry kernel_reg_;
  devices::device_set devs_;
  ops::resource_manager resources_;
};

} // namespace actorflow::test
