// Gradient functions of the neural-network ops, after TensorFlow's
// nn_grad.py.

#include "../builder_util.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "grad_util.hpp"

namespace actorflow::graph::detail {

namespace {

using core::status;

/// A gradient function that sets input 0 from output 0's gradient.
template <class F>
gradient_fn first_input(F f) {
  return [f](const scope& s, const gradient_op& op,
             const std::vector<output>& g, std::vector<output>* in) {
    (*in)[0] = f(s, op, g[0]);
    return status::ok();
  };
}

/// The gradient of a softmax cross entropy's logits: each row's loss
/// gradient times the backprop output.
output logits_grad(const scope& s, const gradient_op& op, const output& g) {
  return mul(s, expand_dims(s, g, -1), op.outputs[1]);
}

} // namespace

void register_nn_gradients(gradient_registry& r) {
  r.add("Relu",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          return typed(s, "ReluGrad", {g, op.outputs[0]});
        }));
  r.add("Relu6",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          return typed(s, "Relu6Grad", {g, op.inputs[0]});
        }));
  r.add("Elu",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          // y > 0: g; else g * (y + 1) (= g * exp(x)).
          const auto& y = op.outputs[0];
          auto one = constant(s, 1.0, y.dtype());
          return select(s, greater(s, y, zeros_like(s, y)), g,
                        mul(s, g, add(s, y, one)));
        }));
  r.add("Selu",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          // TensorFlow's constants; y <= 0: g * (y + scale * alpha).
          constexpr double scale = 1.0507009873554804934193349852946;
          constexpr double alpha = 1.6732632423543772848170429916717;
          const auto& y = op.outputs[0];
          auto t = y.dtype();
          return select(s, greater(s, y, zeros_like(s, y)),
                        mul(s, g, constant(s, scale, t)),
                        mul(s, g, add(s, y, constant(s, scale * alpha, t))));
        }));
  r.add("Softsign",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          return typed(s, "SoftsignGrad", {g, op.inputs[0]});
        }));
  r.add("LeakyRelu",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          return first(s.add_node("LeakyReluGrad", "LeakyReluGrad",
                                  {g, op.inputs[0]}, op.node.attrs));
        }));
  r.add("Softplus",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          return mul(s, g, sigmoid(s, op.inputs[0]));
        }));
  r.add("Softmax",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          const auto& y = op.outputs[0];
          auto dot = reduce_sum(s, mul(s, g, y), {-1}, true);
          return mul(s, sub(s, g, dot), y);
        }));
  r.add("LogSoftmax",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          auto total = reduce_sum(s, g, {-1}, true);
          return sub(s, g, mul(s, exp(s, op.outputs[0]), total));
        }));
  r.add("L2Loss",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          return mul(s, op.inputs[0], g);
        }));
  r.add("Dropout",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          return mul(s, g, op.outputs[1]);
        }));
  r.add("BiasAdd", [](const scope& s, const gradient_op&,
                      const std::vector<output>& g, std::vector<output>* in) {
    (*in)[0] = g[0];
    (*in)[1] = typed(s, "BiasAddGrad", {g[0]});
    return status::ok();
  });
  for (std::string op : {"Conv2D", "DepthwiseConv2dNative"})
    r.add(op, [op](const scope& s, const gradient_op& node,
                   const std::vector<output>& g, std::vector<output>* in) {
      const auto& x = node.inputs[0];
      const auto& filter = node.inputs[1];
      const auto& attrs = node.node.attrs;
      auto input = op + "BackpropInput", wrt_filter = op + "BackpropFilter";
      (*in)[0] = first(
        s.add_node(input, input, {shape_of(s, x), filter, g[0]}, attrs));
      (*in)[1] = first(s.add_node(wrt_filter, wrt_filter,
                                  {x, shape_of(s, filter), g[0]}, attrs));
      return status::ok();
    });
  // Each the other's inverse: the block shape and edges get none.
  for (bool to_batch : {true, false})
    r.add(to_batch ? "SpaceToBatchND" : "BatchToSpaceND",
          first_input(
            [to_batch](const scope& s, const gradient_op& op, const output& g) {
              auto back = to_batch ? "BatchToSpaceND" : "SpaceToBatchND";
              const auto& edges = op.inputs[2];
              core::attr_map attrs{
                {"T", g.dtype()},
                {"Tblock_shape", op.inputs[1].dtype()},
                {to_batch ? "Tcrops" : "Tpaddings", edges.dtype()}};
              return first(s.add_node(back, back, {g, op.inputs[1], edges},
                                      std::move(attrs)));
            }));
  // The resizes: back onto the input's pixels; the size gets none.
  r.add("ResizeBilinear",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          auto attrs = op.node.attrs;
          attrs["T"] = op.inputs[0].dtype();
          return first(s.add_node("ResizeBilinearGrad", "ResizeBilinearGrad",
                                  {g, op.inputs[0]}, std::move(attrs)));
        }));
  r.add("ResizeNearestNeighbor",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          auto size = slice(s, shape_of(s, op.inputs[0]), {1}, {2});
          return first(s.add_node("ResizeNearestNeighborGrad",
                                  "ResizeNearestNeighborGrad", {g, size},
                                  op.node.attrs));
        }));
  // The volume ops' gradients (TensorFlow's V2 backprops for Conv3D).
  r.add("Conv3D", [](const scope& s, const gradient_op& op,
                     const std::vector<output>& g, std::vector<output>* in) {
    const auto& x = op.inputs[0];
    const auto& filter = op.inputs[1];
    const auto& attrs = op.node.attrs;
    (*in)[0]
      = first(s.add_node("Conv3DBackpropInputV2", "Conv3DBackpropInputV2",
                         {shape_of(s, x), filter, g[0]}, attrs));
    (*in)[1]
      = first(s.add_node("Conv3DBackpropFilterV2", "Conv3DBackpropFilterV2",
                         {x, shape_of(s, filter), g[0]}, attrs));
    return status::ok();
  });
  r.add("MaxPool3D",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          auto attrs = op.node.attrs;
          attrs["TInput"] = op.inputs[0].dtype();
          return first(s.add_node("MaxPool3DGrad", "MaxPool3DGrad",
                                  {op.inputs[0], op.outputs[0], g},
                                  std::move(attrs)));
        }));
  r.add("AvgPool3D",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          return first(s.add_node("AvgPool3DGrad", "AvgPool3DGrad",
                                  {shape_of(s, op.inputs[0]), g},
                                  op.node.attrs));
        }));
  r.add("MaxPool",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          return first(s.add_node("MaxPoolGrad", "MaxPoolGrad",
                                  {op.inputs[0], op.outputs[0], g},
                                  op.node.attrs));
        }));
  r.add("AvgPool",
        first_input([](const scope& s, const gradient_op& op, const output& g) {
          return first(s.add_node("AvgPoolGrad", "AvgPoolGrad",
                                  {shape_of(s, op.inputs[0]), g},
                                  op.node.attrs));
        }));
  for (bool v3 : {false, true})
    r.add(v3 ? "FusedBatchNormV3" : "FusedBatchNorm",
          [v3](const scope& s, const gradient_op& op,
               const std::vector<output>& g, std::vector<output>* in) {
            // From the mean and variance the forward pass used (reserve
            // spaces); the gradients of batch_mean and batch_variance are
            // not followed.
            core::attr_map attrs{
              {"T", op.inputs[0].dtype()},
              {"epsilon", op.attr_or("epsilon", 1e-4)},
              {"data_format", op.attr_or("data_format", std::string{"NHWC"})},
              {"is_training", op.attr_or("is_training", true)}};
            std::vector<output> inputs{g[0], op.inputs[0], op.inputs[1],
                                       op.outputs[3], op.outputs[4]};
            if (v3) {
              attrs.emplace("U", op.inputs[1].dtype());
              inputs.push_back(op.outputs[5]);
            }
            auto name = v3 ? "FusedBatchNormGradV3" : "FusedBatchNormGrad";
            auto outs = s.add_node(name, name, inputs, std::move(attrs));
            if (outs.size() == 5)
              for (size_t i = 0; i < 3; ++i)
                (*in)[i] = outs[i];
            return status::ok();
          });
  r.add("SoftmaxCrossEntropyWithLogits",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          (*in)[0] = logits_grad(s, op, g[0]);
          (*in)[1] = mul(s, expand_dims(s, g[0], -1),
                         neg(s, log_softmax(s, op.inputs[0])));
          return status::ok();
        });
  auto top_k_grad = [](const scope& s, const gradient_op& op,
                       const std::vector<output>& g, std::vector<output>* in) {
    // Each value's gradient back to where it was: one_hot(indices) summed
    // over the k picks.
    const auto& x = op.inputs[0];
    auto n = x.shape().known_rank() ? x.shape().dim(x.shape().rank() - 1) : -1;
    if (n < 0)
      return core::unimplemented_error(
        "the gradient of TopK needs the input's last dimension");
    auto t = x.dtype();
    auto hot
      = one_hot(s, op.outputs[1], n, constant(s, 1.0, t), constant(s, 0.0, t));
    (*in)[0] = reduce_sum(s, mul(s, expand_dims(s, g[0], -1), hot), {-2});
    return status::ok();
  };
  r.add("TopK", top_k_grad);
  r.add("TopKV2", top_k_grad);
  r.add("SparseSoftmaxCrossEntropyWithLogits",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          (*in)[0] = logits_grad(s, op, g[0]);
          return status::ok();
        });
}

} // namespace actorflow::graph::detail
