#pragma once

// Loads tests/golden/*.txt files written by the generators next to them and
// compares tensors with them.

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "actorflow/core/tensor.hpp"

namespace actorflow::test {

/// The 16-bit float types, which golden files write as decimal numbers.
template <class T>
inline constexpr bool is_half_type
  = std::disjunction_v<std::is_same<T, Eigen::half>,
                       std::is_same<T, Eigen::bfloat16>>;

/// The element types golden files hold.
template <class T>
inline constexpr bool is_golden_type
  = std::disjunction_v<std::is_same<T, float>, std::is_same<T, double>,
                       std::is_same<T, int32_t>, std::is_same<T, int64_t>,
                       std::is_same<T, uint8_t>,
                       std::is_same<T, bool>> || is_half_type<T>;

/// Returns the tensors read from `in` by name. Each tensor is a line
/// `name dtype dim...` followed by a line of values (bools as 0/1).
inline std::map<std::string, core::tensor>
parse_golden(std::istream& in, const std::string& file) {
  std::map<std::string, core::tensor> result;
  std::string header, values;
  while (std::getline(in, header) && std::getline(in, values)) {
    std::istringstream h{header}, v{values};
    std::string name, type_name;
    h >> name >> type_name;
    std::vector<int64_t> dims;
    int64_t d;
    while (h >> d)
      dims.push_back(d);
    auto type = core::parse_dtype(type_name);
    EXPECT_TRUE(type) << "unknown dtype " << type_name << " in " << file;
    core::tensor t{type ? *type : core::dtype::float32, core::shape{dims}};
    core::visit_dtype(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        for (int64_t i = 0; i < t.num_elements(); ++i) {
          int bit = 0;
          v >> bit;
          t.mutable_data<bool>()[i] = bit != 0;
        }
      } else if constexpr (std::is_floating_point_v<T> || is_half_type<T>) {
        // strtod reads "inf" and "nan" too, which operator>> does not.
        std::string token;
        for (int64_t i = 0; i < t.num_elements(); ++i) {
          v >> token;
          t.mutable_data<T>()[i]
            = static_cast<T>(std::strtod(token.c_str(), nullptr));
        }
      } else if constexpr (is_golden_type<T>) {
        for (int64_t i = 0; i < t.num_elements(); ++i) {
          int64_t x = 0;
          v >> x;
          t.mutable_data<T>()[i] = static_cast<T>(x);
        }
      } else {
        ADD_FAILURE() << "golden files hold floats, int32/64, uint8 and bool";
      }
    });
    result.emplace(name, t);
  }
  return result;
}

/// Returns the tensors of golden file `file` by name (see `parse_golden`).
inline std::map<std::string, core::tensor>
load_golden(const std::string& file) {
  std::ifstream in{std::string{ACTORFLOW_GOLDEN_DIR} + "/" + file};
  EXPECT_TRUE(in.good()) << "cannot open golden file " << file;
  return parse_golden(in, file);
}

/// Calls `f(stem, x)` for every tensor named `<stem>_x` whose name starts
/// with `prefix`: one case of a golden file. Returns the number of cases.
template <class F>
int for_each_case(const std::map<std::string, core::tensor>& golden,
                  const std::string& prefix, F&& f) {
  int cases = 0;
  for (const auto& [name, x] : golden) {
    if (name.rfind(prefix, 0) != 0 || name.size() < 2
        || name.compare(name.size() - 2, 2, "_x") != 0)
      continue;
    f(name.substr(0, name.size() - 2), x);
    ++cases;
  }
  return cases;
}

/// Expects every element of `x` to equal `want`'s within `rtol` relative
/// (absolute near zero).
inline void expect_all_near(const core::tensor& x, const core::tensor& want,
                            double rtol, const std::string& what) {
  ASSERT_EQ(x.dtype(), want.dtype()) << what;
  ASSERT_EQ(x.shape(), want.shape()) << what;
  core::visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_golden_type<T>) {
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        auto a = static_cast<double>(x.data<T>()[i]);
        auto b = static_cast<double>(want.data<T>()[i]);
        if (std::isnan(b))
          EXPECT_TRUE(std::isnan(a)) << what << " element " << i;
        else if (std::isinf(b))
          EXPECT_EQ(a, b) << what << " element " << i;
        else
          EXPECT_NEAR(a, b, rtol * std::max(1.0, std::abs(b)))
            << what << " element " << i;
      }
    }
  });
}

/// Expects float32 `x` to equal `want` within a relative tolerance `rtol`
/// (and an absolute one of `rtol` for values near zero).
inline void expect_near(const core::tensor& x, const core::tensor& want,
                        float rtol = 1e-5f) {
  expect_all_near(x, want, rtol, "tensor");
}

} // namespace actorflow::test
