#pragma once

// Loads tests/golden/*.txt files written by the generators next to them.

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "actorflow/core/tensor.hpp"

namespace actorflow::test {

/// Returns the tensors of golden file `file` by name.
inline std::map<std::string, core::tensor>
load_golden(const std::string& file) {
  std::map<std::string, core::tensor> result;
  std::ifstream in{std::string{ACTORFLOW_GOLDEN_DIR} + "/" + file};
  EXPECT_TRUE(in.good()) << "cannot open golden file " << file;
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
      if constexpr (
        std::is_same_v<
          T,
          float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
        for (int64_t i = 0; i < t.num_elements(); ++i)
          v >> t.mutable_data<T>()[i];
      } else {
        ADD_FAILURE() << "golden files hold float32/64 and int32/64 only";
      }
    });
    result.emplace(name, t);
  }
  return result;
}

/// Expects every element of `x` to equal `want`'s within `rtol` relative
/// (absolute near zero), for float32/64 and int32/64 tensors.
inline void expect_all_near(const core::tensor& x, const core::tensor& want,
                            double rtol, const std::string& what) {
  ASSERT_EQ(x.dtype(), want.dtype()) << what;
  ASSERT_EQ(x.shape(), want.shape()) << what;
  core::visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (
      std::is_same_v<
        T,
        float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        auto a = static_cast<double>(x.data<T>()[i]);
        auto b = static_cast<double>(want.data<T>()[i]);
        EXPECT_NEAR(a, b, rtol * std::max(1.0, std::abs(b)))
          << what << " element " << i;
      }
    }
  });
}

/// Expects `x` to equal `want` within a relative tolerance `rtol` (and an
/// absolute one of `rtol` for values near zero).
inline void expect_near(const core::tensor& x, const core::tensor& want,
                        float rtol = 1e-5f) {
  ASSERT_EQ(x.dtype(), want.dtype());
  ASSERT_EQ(x.shape(), want.shape())
    << x.shape().to_string() << " vs " << want.shape().to_string();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    auto a = x.data<float>()[i];
    auto b = want.data<float>()[i];
    EXPECT_NEAR(a, b, rtol * std::max(1.0f, std::abs(b))) << "at element " << i;
  }
}

} // namespace actorflow::test
