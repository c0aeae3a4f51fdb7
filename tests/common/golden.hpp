#pragma once

// Loads tests/golden/*.txt files written by the generators next to them.

#include <fstream>
#include <map>
#include <sstream>
#include <string>

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
    std::string name, type;
    h >> name >> type;
    std::vector<int64_t> dims;
    int64_t d;
    while (h >> d)
      dims.push_back(d);
    core::tensor t{core::dtype::float32, core::shape{dims}};
    for (int64_t i = 0; i < t.num_elements(); ++i)
      v >> t.mutable_data<float>()[i];
    result.emplace(name, t);
  }
  return result;
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
