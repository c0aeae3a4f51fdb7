#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::ops {

/// One member's part in a collective: who takes part, which of them this
/// is, and which collective of the group.
struct collective_spec {
  /// The members' devices (full names, `/job:J/task:T/device:cpu:N`), in
  /// ring order; every member names them alike.
  std::vector<std::string> members;
  /// This member's index in `members`.
  int rank = 0;
  /// Tells the group's collectives apart: the k-th run of an instance on
  /// one member meets the k-th run of the same instance on the others.
  int64_t instance_key = 0;
  /// Divides the sum by the number of members.
  bool mean = false;
};

/// Runs collectives among the members of a group, as TensorFlow's
/// CollectiveExecutor: each member contributes a tensor in its own step,
/// possibly in another process, and gets the result when all have.
///
/// Every call completes through its callback, on another thread and
/// later; a member that is gone or a step that is cancelled fails it on
/// every member. The runtime implements it (a collective actor per
/// process); kernels only see this interface.
class collective_executor {
public:
  using done_fn = std::function<void(core::status, core::tensor)>;

  virtual ~collective_executor();

  /// Sums `input` (a numeric tensor of the same dtype and shape on every
  /// member) over the members of `spec`, for step `step`; `done` gets the
  /// sum (or mean) or why there is none.
  virtual void all_reduce(const collective_spec& spec, core::tensor input,
                          uint64_t step, done_fn done)
    = 0;

  /// Fails the collectives of step `step` that wait, here and on the
  /// other members (the step failed here).
  virtual void cancel_step(uint64_t step) = 0;
};

/// Whether a collective can sum tensors of `x`: float32, float64, int32
/// and int64 (CollectiveAllReduce's types).
bool reducible(core::dtype x) noexcept;

/// Adds `src` into `dst`'s elements from index `at` on: a member's part
/// of a ring all-reduce. Both of one reducible dtype, `src` within `dst`.
core::status add_chunk(core::tensor& dst, int64_t at, const core::tensor& src);

/// Divides every element of `t` by `n`: the mean of `n` members' sum.
core::status divide_elements(core::tensor& t, int64_t n);

} // namespace actorflow::ops
