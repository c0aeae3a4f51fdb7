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
  explicit kernel_runner(int threads = 2)
    : devs_(devices::device_set::make_local(1, threads)) {
    auto st = ops::register_ops(op_reg_);
    if (!st.is_ok())
      throw std::logic_error(st.to_string());
    ops::register_cpu_kernels(kernel_reg_);
  }

  const ops::op_registry& op_registry() const noexcept {
    return op_reg_;
  }

  /// A kernel built once for a node, run as often as needed.
  class prepared {
  public:
    prepared(devices::device& dev, std::vector<ops::arg_type> out)
      : out_(std::move(out)), ctx_(dev, out_, 1) {
      // nop
    }

    /// Runs one step on `inputs`; returns its status and outputs.
    core::status run(const std::vector<core::tensor>& inputs,
                     std::vector<core::tensor>* outputs) {
      ctx_.reset(++step_);
      ctx_.inputs().clear();
      for (const auto& t : inputs)
        ctx_.inputs().push_back(ops::entry{t, nullptr});
      ctx_.outputs().assign(out_.size(), ops::entry{});
      kernel_->compute(ctx_);
      outputs->clear();
      for (const auto& e : ctx_.outputs())
        outputs->push_back(e.value);
      return ctx_.status();
    }

  private:
    friend class kernel_runner;
    core::node_def node_;
    std::vector<ops::arg_type> out_;
    ops::kernel_context ctx_;
    std::unique_ptr<ops::kernel> kernel_;
    uint64_t step_ = 0;
  };

  /// Builds the kernel of `op` with `num_inputs` inputs, its attrs checked
  /// and defaulted like a graph node's.
  core::status prepare(const std::string& op, core::attr_map attrs,
                       size_t num_inputs, std::unique_ptr<prepared>* out) {
    core::node_def node{"n", op, {}, "", std::move(attrs)};
    const auto* def = op_reg_.find(op);
    if (def == nullptr)
      return core::not_found_error("unknown op ", op);
    ACTORFLOW_RETURN_IF_ERROR(def->check_attrs(node.attrs));
    std::vector<ops::arg_type> in, out_types;
    ACTORFLOW_RETURN_IF_ERROR(def->resolve_types(node.attrs, &in, &out_types));
    if (in.size() != num_inputs)
      return core::invalid_argument_error(op, " takes ", in.size(),
                                          " inputs, got ", num_inputs);
    auto& dev = *devs_.all()[0];
    auto p = std::make_unique<prepared>(dev, out_types);
    p->node_ = std::move(node);
    ops::kernel_construction ctx{p->node_,   *def, dev,
                                 resources_, in,   out_types};
    ACTORFLOW_RETURN_IF_ERROR(kernel_reg_.create(ctx, &p->kernel_));
    *out = std::move(p);
    return core::status::ok();
  }

  /// Builds the kernel of `op` and runs it `steps` times on `inputs`;
  /// returns the last step's status and outputs.
  core::status run(const std::string& op, core::attr_map attrs,
                   const std::vector<core::tensor>& inputs,
                   std::vector<core::tensor>* outputs, int steps = 1) {
    std::unique_ptr<prepared> k;
    ACTORFLOW_RETURN_IF_ERROR(prepare(op, std::move(attrs), inputs.size(), &k));
    core::status st;
    for (int step = 0; step < steps; ++step)
      st = k->run(inputs, outputs);
    return st;
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
