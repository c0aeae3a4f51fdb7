#include "actorflow/core/dtype.hpp"

#include <array>

namespace actorflow::core {

namespace {

struct dtype_info {
  std::string_view name;
  size_t size;
};

constexpr std::array<dtype_info, num_dtypes> infos = {{
  {"invalid", 0},
  {"bool", sizeof(bool)},
  {"int8", 1},
  {"int16", 2},
  {"int32", 4},
  {"int64", 8},
  {"uint8", 1},
  {"uint16", 2},
  {"uint32", 4},
  {"uint64", 8},
  {"float16", 2},
  {"bfloat16", 2},
  {"float", 4},
  {"double", 8},
  {"complex64", 8},
  {"complex128", 16},
  {"string", sizeof(std::string)},
  {"variant", sizeof(variant)},
}};

} // namespace

size_t size_of(dtype x) noexcept {
  auto i = static_cast<size_t>(x);
  return i < num_dtypes ? infos[i].size : 0;
}

std::string_view to_string(dtype x) noexcept {
  auto i = static_cast<size_t>(x);
  return i < num_dtypes ? infos[i].name : "invalid";
}

std::optional<dtype> parse_dtype(std::string_view name) noexcept {
  for (size_t i = 1; i < num_dtypes; ++i)
    if (infos[i].name == name)
      return static_cast<dtype>(i);
  if (name == "float32")
    return dtype::float32;
  if (name == "float64")
    return dtype::float64;
  if (name == "half")
    return dtype::float16;
  if (name == "bool_")
    return dtype::bool_;
  return std::nullopt;
}

bool is_floating(dtype x) noexcept {
  return x == dtype::float16 || x == dtype::bfloat16 || x == dtype::float32
         || x == dtype::float64;
}

bool is_integer(dtype x) noexcept {
  switch (x) {
    case dtype::int8:
    case dtype::int16:
    case dtype::int32:
    case dtype::int64:
    case dtype::uint8:
    case dtype::uint16:
    case dtype::uint32:
    case dtype::uint64: return true;
    default: return false;
  }
}

} // namespace actorflow::core
