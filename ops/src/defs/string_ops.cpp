// The string ops a SavedModel's save function uses to name its files.

#include "array_shape_fns.hpp"
#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

core::status register_string_ops(op_registry& r) {
  // The inputs joined element by element with `separator` (scalars
  // broadcast to the others' shape).
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("StringJoin")
                                    .input("inputs: N * string")
                                    .output("output: string")
                                    .attr("N: int")
                                    .attr("separator: string = ''")));
  // Whether each string matches `pattern` whole.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("StaticRegexFullMatch")
                                    .input("input: string")
                                    .output("output: bool")
                                    .attr("pattern: string")
                                    .shape_fn([](shape_context& ctx) {
                                      ctx.set_output(0, ctx.input(0));
                                      return core::status::ok();
                                    })));
  // `basename-SSSSS-of-NNNNN`.
  return r.add(op_def_builder("ShardedFilename")
                 .input("basename: string")
                 .input("shard: int32")
                 .input("num_shards: int32")
                 .output("filename: string")
                 .shape_fn(scalar_shape));
}

} // namespace actorflow::ops::defs
