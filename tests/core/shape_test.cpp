#include "actorflow/core/shape.hpp"

#include <gtest/gtest.h>

using namespace actorflow::core;

TEST(shape, scalar_and_known_shapes) {
  shape scalar;
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.num_elements(), 1);
  shape s{2, 3, 4};
  EXPECT_TRUE(s.fully_defined());
  EXPECT_EQ(s.num_elements(), 24);
  EXPECT_EQ(s.to_string(), "[2,3,4]");
  EXPECT_EQ((shape{0, 5}).num_elements(), 0);
}

TEST(shape, unknown_rank_and_dimensions) {
  auto u = shape::unknown();
  EXPECT_FALSE(u.known_rank());
  EXPECT_EQ(u.rank(), -1);
  EXPECT_EQ(u.num_elements(), -1);
  EXPECT_EQ(u.to_string(), "<unknown>");
  shape partial{-1, 3};
  EXPECT_FALSE(partial.fully_defined());
  EXPECT_EQ(partial.to_string(), "[?,3]");
  EXPECT_TRUE(partial.compatible_with(shape{7, 3}));
  EXPECT_FALSE(partial.compatible_with(shape{7, 4}));
  EXPECT_FALSE(partial.compatible_with(shape{3}));
  EXPECT_TRUE(u.compatible_with(shape{1, 2, 3}));
  EXPECT_EQ(partial.merge(shape{7, -1}), (shape{7, 3}));
  EXPECT_EQ(u.merge(partial), partial);
}
