#pragma once

#include <functional>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// A function of the elements of one row of each sequence (`map_fn`), or
/// of the accumulators and those elements (`scan`, `foldl`, `foldr`),
/// built once into a while loop's body.
using map_body_fn = std::function<std::vector<output>(
  const scope&, const std::vector<output>& elems)>;
using scan_body_fn = std::function<std::vector<output>(
  const scope&, const std::vector<output>& acc,
  const std::vector<output>& elems)>;

/// How `map_fn` and `scan` build their loop.
struct functional_options {
  /// Iterations that may run at once.
  int64_t parallel_iterations = 10;
  /// `map_fn`: the dtype of each result, where it differs from the
  /// elements' (by default result k has the dtype of sequence k).
  std::vector<core::dtype> dtypes;
  /// `scan`: from the last row to the first.
  bool reverse = false;
};

/// Applies `fn` to row i of every sequence in `elems` (all with the same
/// first dimension n) and stacks the results: result k is [n, ...] (as
/// TensorFlow's tf.map_fn), through TensorArrays in one while loop.
std::vector<output> map_fn(const scope& s, const map_body_fn& fn,
                           const std::vector<output>& elems,
                           const functional_options& o = {});

/// acc = fn(acc, row i) over the rows of `elems`, starting from
/// `initializer` (or, when it is empty, from row 0), and stacks every acc:
/// result k is [n, ...] (TensorFlow's tf.scan).
std::vector<output> scan(const scope& s, const scan_body_fn& fn,
                         const std::vector<output>& elems,
                         const std::vector<output>& initializer,
                         const functional_options& o = {});

/// The last acc of `scan` (TensorFlow's tf.foldl).
std::vector<output> foldl(const scope& s, const scan_body_fn& fn,
                          const std::vector<output>& elems,
                          const std::vector<output>& initializer,
                          int64_t parallel_iterations = 10);

/// `foldl` from the last row to the first (TensorFlow's tf.foldr).
std::vector<output> foldr(const scope& s, const scan_body_fn& fn,
                          const std::vector<output>& elems,
                          const std::vector<output>& initializer,
                          int64_t parallel_iterations = 10);

} // namespace actorflow::graph
