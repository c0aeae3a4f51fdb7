// A loop frame instance's bookkeeping: iterations retire in order when
// their work is done, at most parallel_iterations are in flight, and the
// instance is finished when its Enters arrived and its iterations retired
// (the rules of TensorFlow's executor, §2.4 of the runtime notes).

#include "transport/worker_protocol.hpp"
#include "worker/frame_instance.hpp"

#include <gtest/gtest.h>

using namespace actorflow;
using actors::frame_instance;
using actors::frame_ref;
using actors::step_tracker;
using actors::tag;

namespace {

frame_instance::held_value held(int node, int64_t iter) {
  return {node, tag{1, 42, iter}, actors::value_state::live, {}};
}

/// The held values `f.retire` lets go on.
std::vector<frame_instance::held_value> retire(frame_instance& f) {
  std::vector<frame_instance::held_value> ready;
  f.retire(ready);
  return ready;
}

} // namespace

TEST(frame_instance, iterations_retire_in_order_when_their_work_is_done) {
  frame_instance f{2, 10};
  step_tracker tracker;
  f.learn(&tracker, 42);
  EXPECT_EQ(f.parent(), 0u) << "frame 42 is not known yet";
  EXPECT_EQ(f.record(), nullptr);
  tracker.enter_frame(frame_ref{42, 7, 3, true});
  f.learn(&tracker, 42);
  EXPECT_EQ(f.parent(), 7u);
  ASSERT_NE(f.record(), nullptr);
  EXPECT_EQ(f.record()->parent_iter, 3);
  EXPECT_TRUE(f.record()->dead);
  EXPECT_TRUE(f.add_work(0));
  EXPECT_TRUE(f.may_enter(1)); // starts iteration 1
  EXPECT_TRUE(f.add_work(1));
  EXPECT_FALSE(f.add_work(5)) << "iteration 5 is not in flight";
  // Iteration 1 is done first, but retires only after iteration 0.
  f.work_done(1);
  EXPECT_TRUE(retire(f).empty());
  EXPECT_EQ(f.oldest(), 0);
  // Iteration 0 has no work left but waits for both Enter values.
  f.work_done(0);
  f.entry_arrived();
  retire(f);
  EXPECT_EQ(f.oldest(), 0);
  EXPECT_FALSE(f.finished());
  f.entry_arrived();
  retire(f);
  EXPECT_EQ(f.oldest(), 2);
  EXPECT_TRUE(f.finished());
}

TEST(frame_instance, parallel_iterations_bound_the_iterations_in_flight) {
  frame_instance f{0, 2};
  EXPECT_TRUE(f.add_work(0));
  EXPECT_TRUE(f.may_enter(1));
  EXPECT_TRUE(f.add_work(1));
  // Two in flight: iteration 2 waits, and so does a second value for it.
  EXPECT_FALSE(f.may_enter(2));
  f.hold(held(3, 1));
  EXPECT_FALSE(f.may_enter(2));
  f.hold(held(4, 1));
  EXPECT_FALSE(f.finished()) << "held values are work";
  // Iteration 1 finishing does not help: iteration 0 is still in flight.
  f.work_done(1);
  EXPECT_TRUE(retire(f).empty());
  // Iteration 0 finishing retires 0 and 1; iteration 2 starts with both
  // held values, in order.
  f.work_done(0);
  auto go = retire(f);
  ASSERT_EQ(go.size(), 2u);
  EXPECT_EQ(go[0].node, 3);
  EXPECT_EQ(go[1].node, 4);
  EXPECT_EQ(go[0].tag.iter, 1);
  EXPECT_EQ(f.oldest(), 2);
  EXPECT_EQ(f.newest(), 2);
  EXPECT_TRUE(f.may_enter(2)) << "in flight now";
  EXPECT_FALSE(f.finished()) << "iteration 2 has not retired";
  retire(f);
  EXPECT_TRUE(f.finished());
}

TEST(frame_instance, an_iteration_waits_for_the_child_frames_it_created) {
  frame_instance f{0, 10};
  f.add_child(99, 0);
  f.add_child(99, 0); // a second Enter of the same child instance
  retire(f);
  EXPECT_EQ(f.oldest(), 0);
  f.child_done(98); // not ours
  retire(f);
  EXPECT_EQ(f.oldest(), 0);
  f.child_done(99);
  retire(f);
  EXPECT_TRUE(f.finished());
}

TEST(frame_instance, many_iterations_in_flight_keep_their_own_work) {
  // More iterations in flight than the instance first has room for: each
  // keeps its count as the room grows, and they still retire in order.
  constexpr int64_t n = 37;
  frame_instance f{0, 100};
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) {
      EXPECT_TRUE(f.may_enter(i));
    }
    for (int64_t k = 0; k <= i % 3; ++k)
      EXPECT_TRUE(f.add_work(i));
  }
  EXPECT_EQ(f.newest(), n - 1);
  for (int64_t i = n - 1; i > 0; --i)
    for (int64_t k = 0; k <= i % 3; ++k)
      f.work_done(i);
  retire(f);
  EXPECT_EQ(f.oldest(), 0) << "iteration 0 still has its work";
  f.work_done(0);
  retire(f);
  EXPECT_EQ(f.oldest(), n);
  EXPECT_TRUE(f.finished());
  // The instance starts iterations again from where it is.
  EXPECT_FALSE(f.add_work(n));
  EXPECT_TRUE(f.may_enter(n));
  EXPECT_TRUE(f.add_work(n));
  EXPECT_FALSE(f.finished());
}
