#include "sequence_loop.hpp"

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "builder_util.hpp"

namespace actorflow::graph::detail {

output int32_scalar(const scope& s, const char* hint, int64_t v) {
  return int_constant(s, hint, {v}, true, core::dtype::int32);
}

output dim_of(const scope& s, const output& x, int d) {
  if (x.shape().known_rank() && x.shape().rank() > d && x.shape().dim(d) >= 0)
    return int32_scalar(s, "dim", x.shape().dim(d));
  return reshape(s, slice(s, shape_of(s, x), {d}, {1}), std::vector<int64_t>{});
}

core::shape row_shape(const core::shape& s) {
  if (!s.known_rank() || s.rank() == 0)
    return core::shape::unknown();
  return core::shape{
    std::vector<int64_t>(s.dims().begin() + 1, s.dims().end())};
}

index_loop_out index_loop(const scope& s, const output& n, int64_t start,
                          bool reverse, const std::vector<output>& carried,
                          const std::vector<core::dtype>& result_types,
                          int64_t parallel_iterations,
                          const index_step_fn& step) {
  index_loop_out out;
  for (auto t : result_types)
    out.results.push_back(tensor_array::make(s.sub("results"), n, {t}));
  std::vector<output> vars{int32_scalar(s, "i", start)};
  vars.insert(vars.end(), carried.begin(), carried.end());
  for (const auto& ta : out.results)
    vars.push_back(ta.flow());
  auto nc = static_cast<long>(carried.size());
  auto cond = [&](const scope& c, const std::vector<output>& v) {
    return less(c, v[0], n);
  };
  auto body = [&](const scope& b, const std::vector<output>& v) {
    auto index
      = reverse ? sub(b, sub(b, n, int32_scalar(b, "one", 1)), v[0]) : v[0];
    auto made = step(b, index, {v.begin() + 1, v.begin() + 1 + nc});
    std::vector<output> next{add(b, v[0], int32_scalar(b, "one", 1))};
    if (made.size() != carried.size() + out.results.size()) {
      b.record_error(core::invalid_argument_error(
        "the function gave ", made.size(), " tensors, the loop needs ",
        carried.size() + out.results.size()));
      return next;
    }
    next.insert(next.end(), made.begin(), made.begin() + nc);
    for (size_t k = 0; k < out.results.size(); ++k) {
      auto ta = out.results[k].with_flow(v[1 + carried.size() + k]);
      next.push_back(ta.write(b, index, made[carried.size() + k]).flow());
    }
    return next;
  };
  while_options wo;
  wo.parallel_iterations = parallel_iterations;
  auto outs = while_loop(s, cond, body, vars, wo);
  if (outs.size() != vars.size())
    return out;
  out.carried.assign(outs.begin() + 1, outs.begin() + 1 + nc);
  for (size_t k = 0; k < out.results.size(); ++k)
    out.results[k] = out.results[k].with_flow(outs[1 + carried.size() + k]);
  return out;
}

} // namespace actorflow::graph::detail
