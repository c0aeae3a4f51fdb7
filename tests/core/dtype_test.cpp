#include "actorflow/core/dtype.hpp"

#include <gtest/gtest.h>

using namespace actorflow::core;

TEST(dtype, names_round_trip_for_every_dtype) {
  for (size_t i = 1; i < num_dtypes; ++i) {
    auto t = static_cast<dtype>(i);
    auto parsed = parse_dtype(to_string(t));
    ASSERT_TRUE(parsed) << to_string(t);
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_FALSE(parse_dtype("float128"));
  EXPECT_EQ(*parse_dtype("float32"), dtype::float32);
  EXPECT_EQ(*parse_dtype("half"), dtype::float16);
}

TEST(dtype, sizes_match_the_cpp_types) {
  size_t checked = 0;
  for (size_t i = 1; i < num_dtypes; ++i) {
    auto t = static_cast<dtype>(i);
    if (t == dtype::variant) {
      // Opaque values: only their ops touch them.
      EXPECT_FALSE(visit_dtype(t, [](auto) {}));
      EXPECT_EQ(size_of(t), sizeof(variant));
      continue;
    }
    EXPECT_TRUE(visit_dtype(t, [&](auto tag) {
      EXPECT_EQ(size_of(t), sizeof(tag)) << to_string(t);
      EXPECT_EQ(dtype_v<decltype(tag)>, t);
      ++checked;
    }));
  }
  EXPECT_EQ(checked, num_dtypes - 2);
  EXPECT_FALSE(visit_dtype(dtype::invalid, [](auto) {}));
  EXPECT_EQ(size_of(dtype::bfloat16), 2u);
  EXPECT_EQ(size_of(dtype::complex128), 16u);
}

TEST(dtype, classification) {
  EXPECT_TRUE(is_floating(dtype::bfloat16));
  EXPECT_FALSE(is_floating(dtype::int32));
  EXPECT_TRUE(is_integer(dtype::uint64));
  EXPECT_FALSE(is_integer(dtype::bool_));
}
