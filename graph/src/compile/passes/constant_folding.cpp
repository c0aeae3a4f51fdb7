// The constant_folding pass: nodes whose data inputs are all constants
// evaluated once and made constants.

#include <algorithm>
#include <memory>

#include "actorflow/core/device_name.hpp"
#include "actorflow/devices/cpu_device.hpp"
#include "actorflow/graph/graph_passes.hpp"
#include "actorflow/ops/kernel_context.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/resource_manager.hpp"
#include "compile/passes/pass_util.hpp"

namespace actorflow::graph::passes {

namespace {

/// The most bytes a folded value may have (TensorFlow's limit too): a
/// larger one would be copied into every run's plan.
constexpr size_t max_folded_bytes = size_t{10} << 20;

/// Runs nodes' kernels on a CPU device of its own, made on first use.
class evaluator {
public:
  explicit evaluator(const pass_context& ctx) : ctx_(ctx) {
    // nop
  }

  /// Computes the single output of `node` from `inputs`; false if the
  /// node cannot be folded (no CPU kernel, an async one, an error, a
  /// value too large): the run will then compute or report it itself.
  bool evaluate(const core::node_def& node,
                const std::vector<core::tensor>& inputs, core::tensor* out) {
    const auto* def = ctx_.ops.find(node.op);
    std::vector<ops::arg_type> in, out_types;
    auto attrs = node.attrs;
    if (def == nullptr || !def->check_attrs(attrs).is_ok()
        || !def->resolve_types(attrs, &in, &out_types).is_ok()
        || out_types.size() != 1 || in.size() != inputs.size()
        || !ctx_.kernels.supports(node.op, "cpu"))
      return false;
    if (!device_) {
      core::device_name name;
      name.type = "cpu";
      name.id = 0;
      device_ = std::make_unique<devices::cpu_device>(name, 1);
    }
    core::node_def checked{node.name, node.op, node.inputs, "", attrs};
    ops::kernel_construction construction{checked,    *def, *device_,
                                          resources_, in,   out_types};
    std::unique_ptr<ops::kernel> kernel;
    if (!ctx_.kernels.create(construction, &kernel).is_ok()
        || kernel->is_async())
      return false;
    ops::kernel_context run{*device_, out_types, 1};
    for (const auto& t : inputs)
      run.inputs().push_back(ops::entry{t, nullptr});
    run.outputs().assign(1, ops::entry{});
    try {
      kernel->compute(run);
    } catch (const std::exception&) {
      return false;
    }
    const auto& value = run.outputs()[0].value;
    if (!run.status().is_ok() || !value.valid()
        || value.bytes() > max_folded_bytes)
      return false;
    *out = value;
    return true;
  }

private:
  const pass_context& ctx_;
  std::unique_ptr<devices::cpu_device> device_;
  ops::resource_manager resources_;
};

} // namespace

core::status constant_folding(graph& g, const pass_context& ctx,
                              std::vector<std::string>* log) {
  evaluator eval{ctx};
  const auto& nodes = g.nodes();
  for (auto i : detail::topological_order(g)) {
    const auto& node = nodes[i];
    if (node.op == "Const" || !detail::is_pure(g, ctx.ops, node))
      continue;
    auto args = detail::data_inputs(node);
    if (args.empty())
      continue;
    std::vector<core::tensor> values;
    std::vector<std::string> controls = detail::control_inputs(node);
    size_t bytes = 0;
    for (const auto& a : args) {
      const auto* producer = g.find(a.node);
      // A Const that asks for another device stays where it asked to be.
      if (producer == nullptr || producer->op != "Const" || a.port != 0
          || producer->device != node.device)
        break;
      values.push_back(std::get<core::tensor>(producer->attrs.at("value")));
      bytes += values.back().bytes();
      // The Const's own control inputs (a loop's pivot) come along, so
      // the folded value stays in the frame its inputs were in.
      for (auto& c : detail::control_inputs(*producer))
        controls.push_back(std::move(c));
    }
    core::tensor value;
    if (values.size() != args.size() || bytes > max_folded_bytes
        || !eval.evaluate(node, values, &value))
      continue;
    if (log != nullptr)
      log->push_back(node.name + " (" + node.op + ") is a constant of shape "
                     + value.shape().to_string());
    auto& folded = g.mutable_nodes()[i];
    folded.op = "Const";
    folded.inputs.clear();
    for (auto& c : controls) {
      auto text = "^" + c;
      if (std::find(folded.inputs.begin(), folded.inputs.end(), text)
          == folded.inputs.end())
        folded.inputs.push_back(std::move(text));
    }
    auto type = value.dtype();
    folded.attrs = {{"value", std::move(value)}, {"dtype", type}};
  }
  return core::status::ok();
}

} // namespace actorflow::graph::passes
