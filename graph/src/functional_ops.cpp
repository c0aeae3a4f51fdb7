#include "actorflow/graph/functional_ops.hpp"

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/tensor_array.hpp"
#include "builder_util.hpp"

namespace actorflow::graph {

namespace {

output int32_scalar(const scope& s, const char* hint, int64_t v) {
  return detail::int_constant(s, hint, {v}, true, core::dtype::int32);
}

/// The rows of each sequence in an array read once each, and n, the
/// first dimension of the first (an int32 scalar).
struct sequences {
  std::vector<tensor_array> arrays;
  output n;
};

sequences unstack_all(const scope& s, const std::vector<output>& elems,
                      bool clear_after_read = true) {
  sequences out;
  if (elems.empty()) {
    s.record_error(core::invalid_argument_error(
      "map_fn/scan need at least one sequence in elems"));
    return out;
  }
  const auto& x = elems.front();
  out.n
    = x.shape().known_rank() && x.shape().rank() > 0 && x.shape().dim(0) >= 0
        ? int32_scalar(s, "n", x.shape().dim(0))
        : reshape(s, slice(s, shape_of(s, x), {0}, {1}),
                  std::vector<int64_t>{});
  for (const auto& e : elems) {
    auto rows = core::shape::unknown();
    if (e.shape().known_rank() && e.shape().rank() > 0)
      rows = core::shape{std::vector<int64_t>(e.shape().dims().begin() + 1,
                                              e.shape().dims().end())};
    tensor_array::options o{e.dtype()};
    o.element_shape = rows;
    o.clear_after_read = clear_after_read;
    auto ta = tensor_array::make(s.sub("elems"), out.n, o);
    out.arrays.push_back(ta.unstack(s, e));
  }
  return out;
}

/// The rows at `i` inside a loop body.
std::vector<output> rows_at(const scope& b, const sequences& seq,
                            const output& i) {
  std::vector<output> rows;
  for (const auto& ta : seq.arrays)
    rows.push_back(ta.read(b, i));
  return rows;
}

/// Loops i over [start, n) (or backwards from n - 1 - start with
/// `reverse`), carrying `carried` values and one result array per entry
/// of `result_types`. `step` gets the body scope, the row index and the
/// carried values, and returns the new carried values followed by the
/// results to write at that index. Returns the final carried values and
/// the result arrays.
struct loop_out {
  std::vector<output> carried;
  std::vector<tensor_array> results;
};

using step_fn = std::function<std::vector<output>(
  const scope&, const output& index, const std::vector<output>& carried)>;

loop_out index_loop(const scope& s, const output& n, int64_t start,
                    bool reverse, const std::vector<output>& carried,
                    const std::vector<core::dtype>& result_types,
                    int64_t parallel_iterations, const step_fn& step) {
  loop_out out;
  for (auto t : result_types)
    out.results.push_back(tensor_array::make(s.sub("results"), n, {t}));
  std::vector<output> vars{int32_scalar(s, "i", start)};
  vars.insert(vars.end(), carried.begin(), carried.end());
  for (const auto& ta : out.results)
    vars.push_back(ta.flow());
  auto nc = carried.size();
  auto cond = [&](const scope& c, const std::vector<output>& v) {
    return less(c, v[0], n);
  };
  auto body = [&](const scope& b, const std::vector<output>& v) {
    auto index
      = reverse ? sub(b, sub(b, n, int32_scalar(b, "one", 1)), v[0]) : v[0];
    std::vector<output> now(v.begin() + 1,
                            v.begin() + 1 + static_cast<long>(nc));
    auto made = step(b, index, now);
    std::vector<output> next{add(b, v[0], int32_scalar(b, "one", 1))};
    if (made.size() != nc + out.results.size()) {
      b.record_error(core::invalid_argument_error(
        "the function gave ", made.size(), " tensors, the loop needs ",
        nc + out.results.size()));
      return next;
    }
    next.insert(next.end(), made.begin(), made.begin() + static_cast<long>(nc));
    for (size_t k = 0; k < out.results.size(); ++k) {
      auto ta = out.results[k].with_flow(v[1 + nc + k]);
      next.push_back(ta.write(b, index, made[nc + k]).flow());
    }
    return next;
  };
  while_options wo;
  wo.parallel_iterations = parallel_iterations;
  auto outs = while_loop(s, cond, body, vars, wo);
  if (outs.size() != vars.size())
    return out;
  out.carried.assign(outs.begin() + 1,
                     outs.begin() + 1 + static_cast<long>(nc));
  for (size_t k = 0; k < out.results.size(); ++k)
    out.results[k] = out.results[k].with_flow(outs[1 + nc + k]);
  return out;
}

/// scan/foldl/foldr: the accumulators over the rows; `collect` stacks
/// every accumulator (scan) rather than keeping only the last.
loop_out accumulate(const scope& s, const scan_body_fn& fn,
                    const std::vector<output>& elems,
                    const std::vector<output>& initializer, bool reverse,
                    bool collect, int64_t parallel_iterations) {
  // Without an initializer (as TensorFlow's scan), row 0 (the last one
  // when reversed) is the first accumulator: it is read twice.
  auto seq = unstack_all(s, elems, !initializer.empty());
  if (!s.ok())
    return {};
  std::vector<output> init = initializer;
  int64_t start = 0;
  output first_index;
  if (init.empty()) {
    first_index = reverse ? sub(s, seq.n, int32_scalar(s, "one", 1))
                          : int32_scalar(s, "zero", 0);
    init = rows_at(s, seq, first_index);
    start = 1;
  }
  std::vector<core::dtype> types;
  if (collect)
    for (const auto& a : init)
      types.push_back(a.dtype());
  auto out = index_loop(
    s, seq.n, start, reverse, init, types, parallel_iterations,
    [&](const scope& b, const output& index, const std::vector<output>& acc) {
      auto next = fn(b, acc, rows_at(b, seq, index));
      auto made = next;
      if (collect)
        made.insert(made.end(), next.begin(), next.end());
      return made;
    });
  if (collect && start == 1) {
    // The first accumulator is a result too.
    for (size_t k = 0; k < out.results.size(); ++k)
      out.results[k] = out.results[k].write(s, first_index, init[k]);
  }
  return out;
}

std::vector<output> stack_all(const scope& s,
                              const std::vector<tensor_array>& arrays) {
  std::vector<output> out;
  for (const auto& ta : arrays)
    out.push_back(ta.stack(s));
  return out;
}

} // namespace

std::vector<output> map_fn(const scope& s, const map_body_fn& fn,
                           const std::vector<output>& elems,
                           const functional_options& o) {
  auto at = s.sub("map");
  auto seq = unstack_all(at, elems);
  if (!at.ok())
    return {};
  std::vector<core::dtype> types = o.dtypes;
  if (types.empty())
    for (const auto& e : elems)
      types.push_back(e.dtype());
  auto out = index_loop(
    at, seq.n, 0, false, {}, types, o.parallel_iterations,
    [&](const scope& b, const output& index, const std::vector<output>&) {
      return fn(b, rows_at(b, seq, index));
    });
  return stack_all(at, out.results);
}

std::vector<output> scan(const scope& s, const scan_body_fn& fn,
                         const std::vector<output>& elems,
                         const std::vector<output>& initializer,
                         const functional_options& o) {
  auto at = s.sub("scan");
  auto out = accumulate(at, fn, elems, initializer, o.reverse, true,
                        o.parallel_iterations);
  return stack_all(at, out.results);
}

std::vector<output> foldl(const scope& s, const scan_body_fn& fn,
                          const std::vector<output>& elems,
                          const std::vector<output>& initializer,
                          int64_t parallel_iterations) {
  return accumulate(s.sub("foldl"), fn, elems, initializer, false, false,
                    parallel_iterations)
    .carried;
}

std::vector<output> foldr(const scope& s, const scan_body_fn& fn,
                          const std::vector<output>& elems,
                          const std::vector<output>& initializer,
                          int64_t parallel_iterations) {
  return accumulate(s.sub("foldr"), fn, elems, initializer, true, false,
                    parallel_iterations)
    .carried;
}

} // namespace actorflow::graph
