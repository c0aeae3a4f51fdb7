#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

core::status register_nn_ops(op_registry& r) {
  return r.add(op_def_builder("Relu")
                 .input("features: T")
                 .output("activations: T")
                 .attr("T: {float, double, int32, int64}")
                 .shape_fn(unchanged_shape));
}

} // namespace actorflow::ops::defs
