#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <Eigen/Core>

#include "actorflow/core/variant.hpp"

namespace actorflow::core {

/// The element type of a tensor.
enum class dtype : uint8_t {
  invalid = 0,
  bool_,
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float16,
  bfloat16,
  float32,
  float64,
  complex64,
  complex128,
  string,
  /// Opaque values of ops (TensorFlow's TensorLists; core::variant): they
  /// stay in their process and `visit_dtype` leaves them out.
  variant,
};

/// The number of dtypes, including `invalid`.
inline constexpr size_t num_dtypes = static_cast<size_t>(dtype::variant) + 1;

/// Returns the size of one element in bytes (`sizeof(std::string)` for
/// strings, 0 for `invalid`).
size_t size_of(dtype x) noexcept;

/// Returns the name used in op specs and error messages, e.g. "float".
std::string_view to_string(dtype x) noexcept;

/// Parses a name produced by `to_string` (and the aliases "float32",
/// "float64", "half", "bool_").
std::optional<dtype> parse_dtype(std::string_view name) noexcept;

bool is_floating(dtype x) noexcept;
bool is_integer(dtype x) noexcept;

/// Maps a C++ element type to its dtype.
template <class T>
struct dtype_of;

#define ACTORFLOW_DTYPE_OF(type, value)                                        \
  template <>                                                                  \
  struct dtype_of<type> {                                                      \
    static constexpr dtype v = dtype::value;                                   \
  };

ACTORFLOW_DTYPE_OF(bool, bool_)
ACTORFLOW_DTYPE_OF(int8_t, int8)
ACTORFLOW_DTYPE_OF(int16_t, int16)
ACTORFLOW_DTYPE_OF(int32_t, int32)
ACTORFLOW_DTYPE_OF(int64_t, int64)
ACTORFLOW_DTYPE_OF(uint8_t, uint8)
ACTORFLOW_DTYPE_OF(uint16_t, uint16)
ACTORFLOW_DTYPE_OF(uint32_t, uint32)
ACTORFLOW_DTYPE_OF(uint64_t, uint64)
ACTORFLOW_DTYPE_OF(Eigen::half, float16)
ACTORFLOW_DTYPE_OF(Eigen::bfloat16, bfloat16)
ACTORFLOW_DTYPE_OF(float, float32)
ACTORFLOW_DTYPE_OF(double, float64)
ACTORFLOW_DTYPE_OF(std::complex<float>, complex64)
ACTORFLOW_DTYPE_OF(std::complex<double>, complex128)
ACTORFLOW_DTYPE_OF(std::string, string)
ACTORFLOW_DTYPE_OF(variant, variant)

#undef ACTORFLOW_DTYPE_OF

template <class T>
inline constexpr dtype dtype_v = dtype_of<T>::v;

/// Calls `f(T{})` with the C++ type of `x`, for every dtype but `invalid`
/// and `variant` (whose values only their ops touch). Returns false for
/// those. The one dtype-dispatch helper.
template <class F>
bool visit_dtype(dtype x, F&& f) {
  switch (x) {
    case dtype::bool_: f(bool{}); return true;
    case dtype::int8: f(int8_t{}); return true;
    case dtype::int16: f(int16_t{}); return true;
    case dtype::int32: f(int32_t{}); return true;
    case dtype::int64: f(int64_t{}); return true;
    case dtype::uint8: f(uint8_t{}); return true;
    case dtype::uint16: f(uint16_t{}); return true;
    case dtype::uint32: f(uint32_t{}); return true;
    case dtype::uint64: f(uint64_t{}); return true;
    case dtype::float16: f(Eigen::half{}); return true;
    case dtype::bfloat16: f(Eigen::bfloat16{}); return true;
    case dtype::float32: f(float{}); return true;
    case dtype::float64: f(double{}); return true;
    case dtype::complex64: f(std::complex<float>{}); return true;
    case dtype::complex128: f(std::complex<double>{}); return true;
    case dtype::string: f(std::string{}); return true;
    default: return false;
  }
}

} // namespace actorflow::core
