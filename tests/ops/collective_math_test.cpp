// A collective member's arithmetic: a chunk summed into its place, the
// sum divided by the members; other dtypes and misfit chunks refused.

#include <gtest/gtest.h>

#include "actorflow/ops/collective.hpp"

using namespace actorflow;
using core::tensor;

namespace {

template <class T>
std::vector<T> values(const tensor& t) {
  return {t.data<T>(), t.data<T>() + t.num_elements()};
}

} // namespace

TEST(collective_math, adds_a_chunk_at_its_place_and_divides_the_sum) {
  auto sum = tensor::from_vector<float>({5}, {1, 2, 3, 4, 5});
  ASSERT_TRUE(
    ops::add_chunk(sum, 2, tensor::from_vector<float>({2}, {10, 20})).is_ok());
  EXPECT_EQ(values<float>(sum), (std::vector<float>{1, 2, 13, 24, 5}));
  ASSERT_TRUE(ops::divide_elements(sum, 2).is_ok());
  EXPECT_EQ(values<float>(sum), (std::vector<float>{0.5, 1, 6.5, 12, 2.5}));
  // Integers divide as integers, as the kernel's C++ type does.
  auto counts = tensor::from_vector<int64_t>({2}, {7, -7});
  ASSERT_TRUE(ops::divide_elements(counts, 2).is_ok());
  EXPECT_EQ(values<int64_t>(counts), (std::vector<int64_t>{3, -3}));
}

TEST(collective_math, refuses_what_it_cannot_sum) {
  auto halves = tensor::from_vector<double>({2}, {1, 2});
  EXPECT_FALSE(
    ops::add_chunk(halves, 0, tensor::from_vector<float>({2}, {1, 2})).is_ok());
  EXPECT_FALSE(
    ops::add_chunk(halves, 1, tensor::from_vector<double>({2}, {1, 2}))
      .is_ok());
  auto flags = tensor::from_vector<uint8_t>({1}, {1});
  EXPECT_FALSE(ops::add_chunk(flags, 0, flags).is_ok());
  EXPECT_FALSE(ops::divide_elements(flags, 2).is_ok());
  EXPECT_FALSE(ops::reducible(core::dtype::string));
  EXPECT_TRUE(ops::reducible(core::dtype::int32));
}
