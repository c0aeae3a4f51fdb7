#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

/// Output 0 has the shape given by the values of input 0 when constant.
core::status shape_from_values(shape_context& ctx) {
  std::vector<int64_t> dims;
  const auto& in = ctx.input(0);
  if (ctx.input_ints(0, &dims))
    ctx.set_output(0, core::shape{std::move(dims)});
  else if (in.known_rank() && in.rank() == 1 && in.dim(0) >= 0)
    ctx.set_output(
      0, core::shape{std::vector<int64_t>(static_cast<size_t>(in.dim(0)), -1)});
  return core::status::ok();
}

core::status multinomial_shape(shape_context& ctx) {
  const auto& logits = ctx.input(0);
  if (logits.known_rank() && logits.rank() != 2)
    return core::invalid_argument_error("logits must be [batch, classes], got ",
                                        logits.to_string());
  std::vector<int64_t> n;
  ctx.set_output(
    0, core::shape{logits.known_rank() ? logits.dim(0) : -1,
                   ctx.input_ints(1, &n) && n.size() == 1 ? n[0] : -1});
  return core::status::ok();
}

} // namespace

// Every random op draws from a Mersenne Twister (std::mt19937, whose output
// the C++ standard fixes) seeded from (seed, seed2): the same seeds give
// the same values on every run and machine; both 0 means a random seed.
core::status register_random_ops(op_registry& r) {
  std::vector<op_def_builder> ops;
  for (const char* name :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"})
    ops.push_back(op_def_builder(name)
                    .input("shape: T")
                    .output("output: dtype")
                    .attr("T: {int32, int64}")
                    .attr("dtype: {float16, bfloat16, float, double}")
                    .attr("seed: int = 0")
                    .attr("seed2: int = 0")
                    .shape_fn(shape_from_values)
                    .stateful());
  ops.push_back(op_def_builder("RandomUniformInt")
                  .input("shape: T")
                  .input("minval: Tout")
                  .input("maxval: Tout")
                  .output("output: Tout")
                  .attr("T: {int32, int64}")
                  .attr("Tout: {int32, int64}")
                  .attr("seed: int = 0")
                  .attr("seed2: int = 0")
                  .shape_fn(shape_from_values)
                  .stateful());
  ops.push_back(op_def_builder("Multinomial")
                  .input("logits: T")
                  .input("num_samples: int32")
                  .output("output: output_dtype")
                  .attr("T: {float, double}")
                  .attr("output_dtype: {int32, int64} = int64")
                  .attr("seed: int = 0")
                  .attr("seed2: int = 0")
                  .shape_fn(multinomial_shape)
                  .stateful());
  ops.push_back(op_def_builder("RandomShuffle")
                  .input("value: T")
                  .output("output: T")
                  .attr("T: type")
                  .attr("seed: int = 0")
                  .attr("seed2: int = 0")
                  .shape_fn(unchanged_shape)
                  .stateful());
  for (const auto& b : ops)
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
