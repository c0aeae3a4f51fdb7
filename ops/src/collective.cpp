// The interface collectives' kernels see, and the arithmetic of a
// member's part: summing a chunk, dividing by the members.

#include "actorflow/ops/collective.hpp"

#include <type_traits>

namespace actorflow::ops {

namespace {

/// Calls `f(T{})` for the C++ type of a reducible dtype `x`; false if `x`
/// is not one.
template <class F>
bool visit_reducible(core::dtype x, F&& f) {
  if (!reducible(x))
    return false;
  return core::visit_dtype(x, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (
      std::is_same_v<
        T,
        float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>)
      f(zero);
  });
}

} // namespace

collective_executor::~collective_executor() = default;

bool reducible(core::dtype x) noexcept {
  return x == core::dtype::float32 || x == core::dtype::float64
         || x == core::dtype::int32 || x == core::dtype::int64;
}

core::status add_chunk(core::tensor& dst, int64_t at, const core::tensor& src) {
  if (src.dtype() != dst.dtype() || at < 0
      || at + src.num_elements() > dst.num_elements())
    return core::invalid_argument_error("cannot add ", src.debug_string(0),
                                        " into ", dst.debug_string(0), " at ",
                                        at);
  auto added = visit_reducible(dst.dtype(), [&](auto zero) {
    using T = decltype(zero);
    auto* d = dst.mutable_data<T>() + at;
    const auto* s = src.data<T>();
    for (int64_t k = 0, n = src.num_elements(); k < n; ++k)
      d[k] += s[k];
  });
  if (!added)
    return core::invalid_argument_error("cannot add ",
                                        core::to_string(dst.dtype()));
  return core::status::ok();
}

core::status divide_elements(core::tensor& t, int64_t n) {
  auto divided = visit_reducible(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    auto* d = t.mutable_data<T>();
    for (int64_t k = 0, e = t.num_elements(); k < e; ++k)
      d[k] /= static_cast<T>(n);
  });
  if (!divided)
    return core::invalid_argument_error("cannot divide ",
                                        core::to_string(t.dtype()));
  return core::status::ok();
}

} // namespace actorflow::ops
