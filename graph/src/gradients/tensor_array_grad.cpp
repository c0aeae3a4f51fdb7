// Gradient functions of the TensorArray ops, after TensorFlow's
// tensor_array_grad.py. What flows back into an array's elements is kept in
// a gradient array (TensorArrayGradV3, one per array and gradient
// computation): a read's gradient writes into it, a write's gradient reads
// from it, and the flows order both as they ordered the forward ops.

#include "actorflow/graph/tensor_array.hpp"
#include "grad_util.hpp"

namespace actorflow::graph::detail {

namespace {

using core::status;

/// The gradient computation `g` belongs to: the leading name components
/// up to the first that starts with "gradients" (TensorFlow's
/// _GetGradSource), so that two computations keep two gradient arrays.
std::string grad_source(const output& g) {
  const auto& name = g.node_name();
  size_t at = 0;
  while (at <= name.size()) {
    auto end = name.find('/', at);
    if (end == std::string::npos)
      end = name.size();
    if (name.compare(at, 9, "gradients") == 0)
      return name.substr(0, end);
    at = end + 1;
  }
  return "gradients";
}

/// The forward array an op works on, at flow `flow`, and its gradient
/// array ordered after `grad_flow`.
tensor_array grad_array(const scope& s, const gradient_op& op,
                        const char* type_attr, const output& flow,
                        const output& grad_flow, const output& g) {
  auto type = op.attr_or(type_attr, core::dtype::invalid);
  auto forward
    = tensor_array::wrap(op.inputs[0], flow, type, core::shape::unknown());
  return forward.grad(s, grad_source(g), grad_flow);
}

} // namespace

void register_tensor_array_gradients(gradient_registry& r) {
  for (const char* op :
       {"TensorArrayV3", "TensorArrayGradV3", "TensorArrayGradWithShape",
        "TensorArraySizeV3", "TensorArrayCloseV3"})
    r.add_not_differentiable(op);

  // value = read(handle, index, flow): write the value's gradient at index.
  r.add("TensorArrayReadV3", [](const scope& s, const gradient_op& op,
                                const std::vector<output>& g,
                                std::vector<output>* in) {
    auto ga = grad_array(s, op, "dtype", op.inputs[2], op.inputs[2], g[0]);
    (*in)[2] = ga.write(s, op.inputs[1], g[0]).flow();
    return status::ok();
  });
  // flow_out = write(handle, index, value, flow_in): the value's gradient
  // is what the gradient array holds at index once the later ops wrote it.
  r.add("TensorArrayWriteV3",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          auto ga = grad_array(s, op, "T", op.inputs[3], g[0], g[0]);
          (*in)[2] = ga.read(s, op.inputs[1]);
          (*in)[3] = g[0];
          return status::ok();
        });
  r.add("TensorArrayGatherV3", [](const scope& s, const gradient_op& op,
                                  const std::vector<output>& g,
                                  std::vector<output>* in) {
    auto ga = grad_array(s, op, "dtype", op.inputs[2], op.inputs[2], g[0]);
    (*in)[2] = ga.scatter(s, op.inputs[1], g[0]).flow();
    return status::ok();
  });
  r.add("TensorArrayScatterV3",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          auto ga = grad_array(s, op, "T", op.inputs[3], g[0], g[0]);
          (*in)[2] = ga.gather(s, op.inputs[1]);
          (*in)[3] = g[0];
          return status::ok();
        });
  r.add("TensorArrayConcatV3", [](const scope& s, const gradient_op& op,
                                  const std::vector<output>& g,
                                  std::vector<output>* in) {
    auto ga = grad_array(s, op, "dtype", op.inputs[1], op.inputs[1], g[0]);
    (*in)[1] = ga.split(s, g[0], op.outputs[1]).flow();
    return status::ok();
  });
  r.add("TensorArraySplitV3",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          auto ga = grad_array(s, op, "T", op.inputs[3], g[0], g[0]);
          (*in)[1] = ga.concat(s);
          (*in)[3] = g[0];
          return status::ok();
        });
}

} // namespace actorflow::graph::detail
