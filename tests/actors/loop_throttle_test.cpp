// The loop throttle: at most parallel_iterations iterations in flight.

#include "actorflow/actors/loop_throttle.hpp"

#include <gtest/gtest.h>

using namespace actorflow;
using actors::loop_throttle;
using actors::tag;

namespace {

tag at(int64_t iter) {
  return tag{1, 42, iter, nullptr};
}

} // namespace

TEST(loop_throttle, a_fast_variable_waits_for_the_slow_one) {
  // Two NextIterations (0: a counter, 1: a slow value), P = 2.
  loop_throttle th{{7, 9}, 2};
  std::vector<loop_throttle::wakeup> wake;
  // The slow one has not reached iteration 0 yet: the counter may feed
  // iteration 1 (0 + 1 - 2 < 0 is fine) ...
  EXPECT_TRUE(th.arrive(0, at(0), &wake));
  // ... but not iteration 2, which needs both in iteration 1 - 2 + 1 = 0.
  EXPECT_FALSE(th.arrive(0, at(1), &wake));
  EXPECT_TRUE(wake.empty());
  // The slow one reaches iteration 0: the counter's iteration 1 goes on.
  EXPECT_TRUE(th.arrive(1, at(0), &wake));
  ASSERT_EQ(wake.size(), 1u);
  EXPECT_EQ(wake[0].index, 0);
  EXPECT_EQ(th.node(wake[0].index), 7);
  EXPECT_EQ(wake[0].parked.iter, 1);
  // Other steps and frames are separate.
  wake.clear();
  EXPECT_TRUE(th.arrive(0, tag{2, 42, 0, nullptr}, &wake));
  EXPECT_TRUE(wake.empty());
}

TEST(loop_throttle, one_iteration_at_a_time) {
  loop_throttle th{{0, 1}, 1};
  std::vector<loop_throttle::wakeup> wake;
  EXPECT_FALSE(th.arrive(0, at(0), &wake)); // waits for the other
  EXPECT_TRUE(th.arrive(1, at(0), &wake));  // iteration 0 complete
  ASSERT_EQ(wake.size(), 1u);
  EXPECT_EQ(wake[0].index, 0);
  th.forget_step(1);
  wake.clear();
  EXPECT_FALSE(th.arrive(1, at(0), &wake)) << "a fresh instance after forget";
}
