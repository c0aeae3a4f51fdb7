#include "actorflow/graph/functional_ops.hpp"

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/tensor_array.hpp"
#include "builder_util.hpp"
#include "sequence_loop.hpp"

namespace actorflow::graph {

namespace {

using detail::int32_scalar;

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
  out.n = detail::dim_of(s, elems.front(), 0);
  for (const auto& e : elems) {
    tensor_array::options o{e.dtype()};
    o.element_shape = detail::row_shape(e.shape());
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

/// scan/foldl/foldr: the accumulators over the rows; `collect` stacks
/// every accumulator (scan) rather than keeping only the last.
detail::index_loop_out accumulate(const scope& s, const scan_body_fn& fn,
                                  const std::vector<output>& elems,
                                  const std::vector<output>& initializer,
                                  bool reverse, bool collect,
                                  int64_t parallel_iterations) {
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
  auto out = detail::index_loop(
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
  auto out = detail::index_loop(
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
