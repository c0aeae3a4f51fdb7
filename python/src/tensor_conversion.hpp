// Converts between the engine's tensors and Python arrays (numpy's buffer
// protocol, DLPack) without copying where the layout allows.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "actorflow/core/tensor.hpp"

namespace actorflow::python {

/// An array as nanobind hands it over: any dtype and shape, host memory.
using host_array = nanobind::ndarray<nanobind::ro, nanobind::device::cpu>;

/// Returns the name Python knows `t` by: numpy's (`float32`, not the
/// engine's `float`), `bfloat16`, `string`, `variant`.
std::string dtype_name(core::dtype t);

/// Returns the dtype of DLPack's `t`, or invalid when the engine has none.
core::dtype dtype_of(nanobind::dlpack::dtype t);

/// Python arrays whose last engine reference went on a thread without the
/// GIL (an actor's, after a step), kept until a thread with the GIL drops
/// them: actor threads never wait for the GIL, so a step never waits for
/// Python. A session drains its queue after each run and at its end.
class release_queue {
public:
  /// Keeps `a` until `drain`. Thread-safe.
  void push(host_array a);

  /// Drops what was pushed; call with the GIL held.
  void drain();

private:
  std::mutex mtx_;
  std::vector<host_array> pending_;
};

/// Makes a tensor of `a`. Borrows its memory when it is C-contiguous and
/// aligned to 16 bytes: the array stays alive as long as the tensor does and
/// no kernel writes into it. Copies it otherwise, and says so in `*copied`.
/// `as` (not invalid) reads the elements as that dtype of the same size:
/// bfloat16 arrives from numpy as a uint16 view. A borrowed array
/// released where there is no GIL goes to `releases` (when given).
core::tensor to_tensor(const host_array& a, core::dtype as, bool* copied,
                       std::shared_ptr<release_queue> releases = nullptr);

/// A fed value: a tensor already made (`_core.Tensor`), or an array made
/// into one as `to_tensor` does.
core::tensor to_feed(nanobind::handle value,
                     const std::shared_ptr<release_queue>& releases);

/// A string tensor of `shape` holding `values` (row-major).
core::tensor to_string_tensor(std::vector<std::string> values,
                              const std::vector<int64_t>& shape);

/// Returns `t` as a numpy array: the tensor's own buffer when nobody else
/// holds it (the array then owns it), a copy otherwise -- a variable's
/// value, or a feed coming back. Strings become an array of `bytes`
/// objects; bfloat16 an `ml_dtypes.bfloat16` array when ml_dtypes is
/// installed, float32 otherwise.
nanobind::object to_numpy(core::tensor t);

/// Registers the conversions with `m` (`_core.Tensor` and its makers).
void bind_tensors(nanobind::module_& m);

} // namespace actorflow::python
