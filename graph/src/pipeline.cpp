#include "actorflow/graph/pipeline.hpp"

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/tensor_array.hpp"
#include "builder_util.hpp"
#include "sequence_loop.hpp"

namespace actorflow::graph {

namespace {

/// `x` [m * n, d...] as [m, n, d...] (`lead` = {m, -1}), or [m, n, d...]
/// as [m * n, d...] (`lead` = {-1}, `from` = 2): the dimensions after the
/// leading ones kept, known or not.
output regroup(const scope& s, const output& x, std::vector<int64_t> lead,
               int64_t from) {
  const auto& sh = x.shape();
  if (sh.known_rank()) {
    bool known = true;
    for (int64_t d = from; d < sh.rank(); ++d)
      known = known && sh.dim(d) >= 0;
    if (known) {
      for (int64_t d = from; d < sh.rank(); ++d)
        lead.push_back(sh.dim(d));
      return reshape(s, x, lead);
    }
  }
  auto head = detail::int_constant(s, "lead", lead, false, core::dtype::int32);
  auto rest = slice(s, shape_of(s, x), {from}, {-1});
  return reshape(s, x, concat(s, {head, rest}, 0));
}

} // namespace

std::vector<output> pipeline(const scope& s,
                             const std::vector<pipeline_stage>& stages,
                             const std::vector<output>& inputs,
                             const pipeline_options& o) {
  auto at = s.sub("pipeline");
  if (stages.empty() || inputs.empty() || o.micro_batches < 1
      || o.parallel_iterations < 0) {
    at.record_error(core::invalid_argument_error(
      "a pipeline needs a stage, an input, micro_batches >= 1 and "
      "parallel_iterations >= 0 (got ",
      stages.size(), " stages, ", inputs.size(), " inputs, ", o.micro_batches,
      ", ", o.parallel_iterations, ")"));
    return {};
  }
  auto m = o.micro_batches;
  for (const auto& x : inputs) {
    const auto& sh = x.shape();
    if (sh.known_rank()
        && (sh.rank() == 0 || (sh.dim(0) >= 0 && sh.dim(0) % m != 0))) {
      at.record_error(core::invalid_argument_error(
        "pipeline input ", x.name(), " of shape ", sh.to_string(),
        " does not split into ", m, " micro-batches"));
      return {};
    }
  }
  // The inputs' rows wait in arrays on the first stage's device; the loop's
  // counter, condition and results live on the last stage's, which so
  // paces every stage before it.
  auto first = at.with_device(stages.front().device);
  auto last = at.with_device(stages.back().device);
  std::vector<tensor_array> rows;
  for (const auto& x : inputs) {
    tensor_array::options ao{x.dtype()};
    auto grouped = regroup(first, x, {m, -1}, 1);
    ao.element_shape = detail::row_shape(grouped.shape());
    auto ta = tensor_array::make(first.sub("micro_batches"), m, ao);
    rows.push_back(ta.unstack(first, grouped));
  }
  auto types = o.dtypes;
  if (types.empty())
    types.push_back(inputs.front().dtype());
  auto in_flight = o.parallel_iterations > 0
                     ? o.parallel_iterations
                     : static_cast<int64_t>(stages.size());
  auto n = detail::int32_scalar(last, "micro_batches", m);
  auto loop = detail::index_loop(
    last, n, 0, false, {}, types, in_flight,
    [&](const scope& b, const output& i, const std::vector<output>&) {
      std::vector<output> v;
      for (const auto& ta : rows)
        v.push_back(ta.read(b.with_device(stages.front().device), i));
      for (size_t k = 0; k < stages.size() && b.ok(); ++k)
        v = stages[k].build(
          b.sub("stage_" + std::to_string(k)).with_device(stages[k].device), v);
      if (b.ok() && o.dtypes.empty() && v.size() > 1)
        b.record_error(core::invalid_argument_error(
          "the last stage of a pipeline returns ", v.size(),
          " values: name their dtypes in pipeline_options::dtypes"));
      return v;
    });
  if (!at.ok() || loop.results.size() != types.size())
    return {};
  std::vector<output> out;
  for (const auto& ta : loop.results)
    out.push_back(regroup(last, ta.stack(last), {-1}, 2));
  return out;
}

} // namespace actorflow::graph
