// Collectives (TensorFlow's collective_ops): a member's part in a
// reduction over the devices of a group, run by the engine's collective
// executor.

#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

core::status register_collective_ops(op_registry& r) {
  // TensorFlow's CollectiveReduceV2 takes the group as inputs and is
  // matched with its peers by a group leader; here the members are the
  // node's attr, in ring order, and the k-th run of an instance on one
  // member meets the k-th on the others.
  return r.add(op_def_builder("CollectiveAllReduce")
                 .input("input: T")
                 .output("data: T")
                 .attr("T: {float, double, int32, int64}")
                 .attr("members: list(string)")
                 .attr("instance_key: int")
                 .attr("reduction: string = 'sum'")
                 .shape_fn(unchanged_shape)
                 .stateful());
}

} // namespace actorflow::ops::defs
