// Gradient functions of the dispatch, segment, coordinate and broadcasting
// ops, after TensorFlow's data_flow_grad.py, math_grad.py and
// array_grad.py.

#include "../builder_util.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/dispatch_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "grad_util.hpp"

namespace actorflow::graph::detail {

namespace {

using core::status;

/// The rows of `g` at each segment id in `ids`, zeros where an id is
/// negative (a dropped row), and the mask of the kept rows, broadcastable
/// to data's shape (TensorFlow's _GatherDropNegatives).
struct gathered_rows {
  output rows;
  output kept;
};

status gather_drop_negatives(const scope& s, const gradient_op& op,
                             const output& g, gathered_rows* out) {
  const auto& data = op.inputs[0];
  const auto& ids = op.inputs[1];
  if (!data.shape().known_rank() || !ids.shape().known_rank())
    return needs_constant(op, "data and segment ids of known rank");
  auto zero = constant(s, 0.0, ids.dtype());
  out->kept = greater_equal(s, ids, zero);
  for (auto d = ids.shape().rank(); d < data.shape().rank(); ++d)
    out->kept = expand_dims(s, out->kept, -1);
  out->rows = gather(s, g, maximum(s, ids, zero));
  return status::ok();
}

/// `g` (a segment reduction's) read back by each row of its segment.
status segment_sum_grad(const scope& s, const gradient_op& op,
                        const std::vector<output>& g, std::vector<output>* in) {
  gathered_rows r;
  ACTORFLOW_RETURN_IF_ERROR(gather_drop_negatives(s, op, g[0], &r));
  (*in)[0] = mul(s, r.rows, cast(s, r.kept, g[0].dtype()));
  return status::ok();
}

/// Max and min: the gradient shared by the rows that reached the
/// segment's result.
status segment_min_max_grad(const scope& s, const gradient_op& op,
                            const std::vector<output>& g,
                            std::vector<output>* in) {
  const auto& data = op.inputs[0];
  gathered_rows result;
  ACTORFLOW_RETURN_IF_ERROR(
    gather_drop_negatives(s, op, op.outputs[0], &result));
  auto selected = logical_and(s, equal(s, data, result.rows), result.kept);
  auto count = unsorted_segment_sum(s, cast(s, selected, data.dtype()),
                                    op.inputs[1], op.inputs[2]);
  gathered_rows share;
  ACTORFLOW_RETURN_IF_ERROR(
    gather_drop_negatives(s, op, div(s, g[0], count), &share));
  (*in)[0] = select(s, selected, share.rows, zeros_like(s, data));
  return status::ok();
}

/// Prod: the product of the segment's other rows -- the result over the
/// row where it is not zero, the product of the non-zero rows for the one
/// zero of a segment, 0 where a segment has two zeros.
status segment_prod_grad(const scope& s, const gradient_op& op,
                         const std::vector<output>& g,
                         std::vector<output>* in) {
  const auto& data = op.inputs[0];
  const auto& ids = op.inputs[1];
  const auto& n = op.inputs[2];
  auto zero = zeros_like(s, data);
  auto is_zero = equal(s, data, zero);
  auto zeros = unsorted_segment_sum(s, cast(s, is_zero, data.dtype()), ids, n);
  auto one = constant(s, 1.0, data.dtype());
  auto grad = select(s, greater(s, zeros, one), zeros_like(s, g[0]), g[0]);
  auto non_zero = select(s, is_zero, ones_like(s, data), data);
  auto non_zero_prod = unsorted_segment_prod(s, non_zero, ids, n);
  gathered_rows prod;
  gathered_rows others;
  gathered_rows share;
  ACTORFLOW_RETURN_IF_ERROR(gather_drop_negatives(s, op, op.outputs[0], &prod));
  ACTORFLOW_RETURN_IF_ERROR(
    gather_drop_negatives(s, op, non_zero_prod, &others));
  ACTORFLOW_RETURN_IF_ERROR(gather_drop_negatives(s, op, grad, &share));
  auto partial = select(s, is_zero, others.rows, div(s, prod.rows, non_zero));
  (*in)[0]
    = mul(s, mul(s, partial, share.rows), cast(s, share.kept, data.dtype()));
  return status::ok();
}

/// The segment ids' counts as a [segments, 1, ...] tensor of data's rank.
status segment_counts(const scope& s, const gradient_op& op, output* out) {
  const auto& data = op.inputs[0];
  if (!data.shape().known_rank())
    return needs_constant(op, "data of known rank");
  const auto& ids = op.inputs[1];
  *out = segment_sum(s, cast(s, ones_like(s, ids), data.dtype()), ids);
  for (auto d = 1; d < data.shape().rank(); ++d)
    *out = expand_dims(s, *out, -1);
  return status::ok();
}

/// A node of `op` (Cumsum or Cumprod) on `x` along the forward node's axis,
/// with its attrs and `reverse` turned.
output scan_like(const scope& s, const gradient_op& op, const char* name,
                 const output& x, bool flip) {
  return first(s.add_node(name, name, {x, op.inputs[1]},
                          {{"T", x.dtype()},
                           {"Tidx", op.inputs[1].dtype()},
                           {"exclusive", op.attr_or("exclusive", false)},
                           {"reverse", op.attr_or("reverse", false) != flip}}));
}

} // namespace

void register_dispatch_gradients(gradient_registry& r) {
  r.add_not_differentiable("Where");
  // The rows each partition got, stitched back into data's order.
  r.add("DynamicPartition",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          const auto& data = op.inputs[0];
          const auto& partitions = op.inputs[1];
          auto positions
            = reshape(s,
                      range(s, constant(s, int32_t{0}), size(s, partitions),
                            constant(s, int32_t{1})),
                      shape_of(s, partitions));
          auto parts = dynamic_partition(s, positions, partitions,
                                         static_cast<int64_t>(g.size()));
          (*in)[0] = reshape(s, dynamic_stitch(s, parts, g), shape_of(s, data));
          return status::ok();
        });
  // Each data input's rows, read back where they went (TensorFlow's rule:
  // a row another one overwrote gets the gradient too).
  auto stitch_grad = [](const scope& s, const gradient_op& op,
                        const std::vector<output>& g, std::vector<output>* in) {
    auto n = op.inputs.size() / 2;
    for (size_t k = 0; k < n; ++k)
      (*in)[n + k] = gather(s, g[0], op.inputs[k]);
    return status::ok();
  };
  r.add("DynamicStitch", stitch_grad);
  r.add("ParallelDynamicStitch", stitch_grad);
  r.add("UnsortedSegmentSum", segment_sum_grad);
  r.add("UnsortedSegmentMax", segment_min_max_grad);
  r.add("UnsortedSegmentMin", segment_min_max_grad);
  r.add("UnsortedSegmentProd", segment_prod_grad);
  r.add("SegmentSum",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          (*in)[0] = gather(s, g[0], op.inputs[1]);
          return status::ok();
        });
  r.add("SegmentMean",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          output counts;
          ACTORFLOW_RETURN_IF_ERROR(segment_counts(s, op, &counts));
          (*in)[0] = gather(s, div(s, g[0], counts), op.inputs[1]);
          return status::ok();
        });
  r.add("GatherNd", [](const scope& s, const gradient_op& op,
                       const std::vector<output>& g, std::vector<output>* in) {
    const auto& indices = op.inputs[1];
    (*in)[0] = scatter_nd(s, indices, g[0],
                          shape_of(s, op.inputs[0], indices.dtype()));
    return status::ok();
  });
  r.add("ScatterNd", [](const scope& s, const gradient_op& op,
                        const std::vector<output>& g, std::vector<output>* in) {
    (*in)[1] = gather_nd(s, g[0], op.inputs[0]);
    return status::ok();
  });
  r.add("TensorScatterUpdate", [](const scope& s, const gradient_op& op,
                                  const std::vector<output>& g,
                                  std::vector<output>* in) {
    const auto& indices = op.inputs[1];
    (*in)[0]
      = tensor_scatter_update(s, g[0], indices, zeros_like(s, op.inputs[2]));
    (*in)[2] = gather_nd(s, g[0], indices);
    return status::ok();
  });
  r.add("TensorScatterAdd",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          (*in)[0] = g[0];
          (*in)[2] = gather_nd(s, g[0], op.inputs[1]);
          return status::ok();
        });
  r.add("BroadcastTo",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          (*in)[0] = sum_to(s, g[0], op.inputs[0]);
          return status::ok();
        });
  r.add("SelectV2", [](const scope& s, const gradient_op& op,
                       const std::vector<output>& g, std::vector<output>* in) {
    const auto& c = op.inputs[0];
    auto zero = zeros_like(s, g[0]);
    (*in)[1] = sum_to(s, select_v2(s, c, g[0], zero), op.inputs[1]);
    (*in)[2] = sum_to(s, select_v2(s, c, zero, g[0]), op.inputs[2]);
    return status::ok();
  });
  r.add("Cumsum", [](const scope& s, const gradient_op& op,
                     const std::vector<output>& g, std::vector<output>* in) {
    (*in)[0] = scan_like(s, op, "Cumsum", g[0], true);
    return status::ok();
  });
  // TensorFlow's rule, which assumes no element of x is zero.
  r.add("Cumprod", [](const scope& s, const gradient_op& op,
                      const std::vector<output>& g, std::vector<output>* in) {
    auto summed = scan_like(s, op, "Cumsum", mul(s, op.outputs[0], g[0]), true);
    (*in)[0] = div(s, summed, op.inputs[0]);
    return status::ok();
  });
}

} // namespace actorflow::graph::detail
