// Queues: queue_state's rules (TensorFlow's QueueBase semantics, §5.4 of
// the runtime reference) directly, then queues as actors through sessions:
// blocked requests hold no thread, close, the queue runner.

#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "actorflow/actors/queue_runner.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/queue.hpp"
#include "queues/queue_state.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

/// What the callbacks of one request reported.
struct outcome {
  bool called = false;
  core::status st;
  std::vector<tensor> values;
};

ops::queue::done_fn record(outcome& o) {
  return [&o](core::status st) {
    o.called = true;
    o.st = std::move(st);
  };
}

ops::queue::dequeue_fn record_values(outcome& o) {
  return [&o](core::status st, std::vector<tensor> v) {
    o.called = true;
    o.st = std::move(st);
    o.values = std::move(v);
  };
}

ops::queue_spec spec(int64_t capacity, bool shuffle = false,
                     int64_t min_after = 0) {
  ops::queue_spec s;
  s.name = "q";
  s.types = {dtype::int32};
  s.shapes = {core::shape{}};
  s.capacity = capacity;
  s.shuffle = shuffle;
  s.min_after_dequeue = min_after;
  s.seed = 42;
  return s;
}

std::vector<tensor> one(int32_t v) {
  return {tensor::scalar(v)};
}

std::vector<tensor> range(int32_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = i;
  return {tensor::from_vector<int32_t>({n}, v)};
}

std::vector<int32_t> ints(const tensor& t) {
  return {t.data<int32_t>(), t.data<int32_t>() + t.num_elements()};
}

} // namespace

TEST(queue_state, fifo_order_and_capacity_make_enqueues_wait) {
  actors::queue_state q{spec(2)};
  outcome e1, e2, e3, d1;
  q.enqueue(one(1), false, 1, record(e1));
  q.enqueue(one(2), false, 1, record(e2));
  q.enqueue(one(3), false, 1, record(e3));
  EXPECT_TRUE(e1.called && e2.called);
  EXPECT_FALSE(e3.called); // full: waits, holding no thread
  q.dequeue(1, false, false, 1, record_values(d1));
  ASSERT_TRUE(d1.called && d1.st.is_ok());
  EXPECT_EQ(d1.values[0].scalar_value<int32_t>(), 1);
  EXPECT_TRUE(e3.called && e3.st.is_ok()); // room made: it went in
  EXPECT_EQ(q.size(), 2);
}

TEST(queue_state, dequeue_many_waits_for_n_and_stacks_them) {
  actors::queue_state q{spec(-1)};
  outcome d, e;
  q.dequeue(3, true, false, 1, record_values(d));
  q.enqueue(one(7), false, 1, record(e));
  EXPECT_FALSE(d.called);
  q.enqueue(range(4), true, 1, record(e));
  ASSERT_TRUE(d.called && d.st.is_ok());
  EXPECT_EQ(d.values[0].shape(), core::shape({3}));
  EXPECT_EQ(ints(d.values[0]), (std::vector<int32_t>{7, 0, 1}));
  EXPECT_EQ(q.size(), 2);
}

TEST(queue_state, enqueue_many_goes_in_as_room_appears) {
  actors::queue_state q{spec(2)};
  outcome e, d;
  q.enqueue(range(5), true, 1, record(e));
  EXPECT_FALSE(e.called);
  q.dequeue(4, true, false, 1, record_values(d));
  EXPECT_TRUE(d.called);
  EXPECT_EQ(ints(d.values[0]), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_TRUE(e.called && e.st.is_ok());
  EXPECT_EQ(q.size(), 1);
}

TEST(queue_state, rows_of_batches_come_out_whole_singly_and_in_runs) {
  // Two components, an int32 row of two and a string: the rows of two
  // enqueue_many batches with one enqueued element between them, taken
  // one alone and then five stacked across both batches' ends; then an
  // element of another row shape stops a dequeue_many.
  ops::queue_spec s;
  s.name = "q";
  s.types = {dtype::int32, dtype::string};
  s.capacity = -1;
  actors::queue_state q{s};
  auto batch = [](int32_t first, int64_t rows) {
    std::vector<int32_t> numbers;
    std::vector<std::string> names;
    for (int32_t r = 0; r < rows; ++r) {
      numbers.push_back(first + 2 * r);
      numbers.push_back(first + 2 * r + 1);
      names.push_back("s" + std::to_string(first + 2 * r));
    }
    return std::vector<tensor>{tensor::from_vector<int32_t>({rows, 2}, numbers),
                               tensor::from_vector<std::string>({rows}, names)};
  };
  outcome e1, e2, e3, e4, d1, d2, d3;
  q.enqueue(batch(0, 3), true, 1, record(e1));
  q.enqueue({tensor::from_vector<int32_t>({2}, {100, 101}),
             tensor::scalar(std::string{"one"})},
            false, 1, record(e2));
  q.enqueue(batch(10, 2), true, 1, record(e3));
  q.dequeue(1, false, false, 1, record_values(d1));
  ASSERT_TRUE(d1.called && d1.st.is_ok()) << d1.st.to_string();
  EXPECT_EQ(d1.values[0].shape(), core::shape({2}));
  EXPECT_EQ(ints(d1.values[0]), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(d1.values[1].scalar_value<std::string>(), "s0");
  q.dequeue(5, true, false, 1, record_values(d2));
  ASSERT_TRUE(d2.called && d2.st.is_ok()) << d2.st.to_string();
  EXPECT_EQ(d2.values[0].shape(), core::shape({5, 2}));
  EXPECT_EQ(ints(d2.values[0]),
            (std::vector<int32_t>{2, 3, 4, 5, 100, 101, 10, 11, 12, 13}));
  const auto* names = d2.values[1].data<std::string>();
  EXPECT_EQ(std::vector<std::string>(names, names + 5),
            (std::vector<std::string>{"s2", "s4", "one", "s10", "s12"}));
  q.enqueue(batch(20, 1), true, 1, record(e4));
  q.enqueue({tensor::from_vector<int32_t>({3}, {7, 8, 9}),
             tensor::scalar(std::string{"three"})},
            false, 1, record(e4));
  q.dequeue(2, true, false, 1, record_values(d3));
  ASSERT_TRUE(d3.called);
  EXPECT_EQ(d3.st.code(), core::errc::invalid_argument);
  EXPECT_NE(d3.st.message().find("needs elements of one shape"),
            std::string::npos)
    << d3.st.to_string();
  // A shuffling queue takes rows of one batch out of order: each comes
  // out whole, its number beside its name.
  s.shuffle = true;
  s.seed = 7;
  actors::queue_state shuffled{s};
  outcome e5, d4;
  shuffled.enqueue(batch(0, 16), true, 1, record(e5));
  shuffled.dequeue(16, true, false, 1, record_values(d4));
  ASSERT_TRUE(d4.called && d4.st.is_ok()) << d4.st.to_string();
  auto numbers = ints(d4.values[0]);
  const auto* labels = d4.values[1].data<std::string>();
  std::set<int32_t> seen;
  for (size_t r = 0; r < 16; ++r) {
    EXPECT_EQ(numbers[2 * r + 1], numbers[2 * r] + 1);
    EXPECT_EQ(labels[r], "s" + std::to_string(numbers[2 * r]));
    seen.insert(numbers[2 * r]);
  }
  EXPECT_EQ(seen.size(), 16u);
  EXPECT_NE(numbers[0], 0); // out of order (with this seed)
}

TEST(queue_state, close_fails_dequeues_that_cannot_be_met_and_later_enqueues) {
  actors::queue_state q{spec(-1)};
  outcome e, many, up_to, c, late, after;
  q.enqueue(range(3), true, 1, record(e));
  q.dequeue(5, true, false, 1, record_values(many));
  EXPECT_FALSE(many.called);
  q.close(false, record(c));
  ASSERT_TRUE(many.called);
  EXPECT_EQ(many.st.code(), core::errc::out_of_range) << many.st.to_string();
  EXPECT_EQ(q.size(), 3); // put back
  q.dequeue(5, true, true, 1, record_values(up_to));
  ASSERT_TRUE(up_to.called && up_to.st.is_ok());
  EXPECT_EQ(ints(up_to.values[0]), (std::vector<int32_t>{0, 1, 2}));
  q.enqueue(one(9), false, 1, record(late));
  EXPECT_EQ(late.st.code(), core::errc::cancelled);
  q.dequeue(1, false, false, 1, record_values(after));
  EXPECT_EQ(after.st.code(), core::errc::out_of_range);
}

TEST(queue_state, close_with_and_without_cancelling_pending_enqueues) {
  {
    actors::queue_state q{spec(1)};
    outcome e1, e2, c, d1, d2;
    q.enqueue(one(1), false, 1, record(e1));
    q.enqueue(one(2), false, 1, record(e2));
    q.close(false, record(c));
    EXPECT_FALSE(e2.called); // still waits for room
    q.dequeue(1, false, false, 1, record_values(d1));
    EXPECT_TRUE(e2.called && e2.st.is_ok());
    q.dequeue(1, false, false, 1, record_values(d2));
    EXPECT_EQ(d2.values[0].scalar_value<int32_t>(), 2);
  }
  actors::queue_state q{spec(1)};
  outcome e1, e2, c;
  q.enqueue(one(1), false, 1, record(e1));
  q.enqueue(one(2), false, 1, record(e2));
  q.close(true, record(c));
  ASSERT_TRUE(e2.called);
  EXPECT_EQ(e2.st.code(), core::errc::cancelled);
  EXPECT_EQ(q.size(), 1);
}

TEST(queue_state, cancelling_a_step_fails_its_waits_and_loses_nothing) {
  // (The outcomes outlive the queues, whose destructors fail what waits.)
  outcome e, d7, d8, late, e1, e9, e10;
  actors::queue_state q{spec(-1)};
  q.enqueue(range(2), true, 1, record(e));
  q.dequeue(4, true, false, 7, record_values(d7)); // takes 0 and 1, waits
  q.dequeue(1, false, false, 8, record_values(d8));
  EXPECT_EQ(q.size(), 0);
  EXPECT_FALSE(d7.called || d8.called);
  q.cancel_step(7);
  ASSERT_TRUE(d7.called);
  EXPECT_EQ(d7.st.code(), core::errc::cancelled);
  EXPECT_NE(d7.st.message().find("its step failed"), std::string::npos);
  // Step 7's elements went back in front, in order: step 8 gets 0.
  ASSERT_TRUE(d8.called && d8.st.is_ok());
  EXPECT_EQ(ints(d8.values[0]), std::vector<int32_t>{0});
  EXPECT_EQ(q.size(), 1);
  actors::queue_state full{spec(1)};
  full.enqueue(one(5), false, 1, record(e1));
  full.enqueue(one(6), false, 9, record(e9));
  full.enqueue(one(7), false, 10, record(e10));
  full.cancel_step(9);
  ASSERT_TRUE(e9.called);
  EXPECT_EQ(e9.st.code(), core::errc::cancelled);
  EXPECT_FALSE(e10.called); // another step's wait stays
  full.cancel_step(12345);  // a step with nothing waiting: nothing happens
  EXPECT_EQ(full.size(), 1);
  // A request of a cancelled step that arrives after the cancellation
  // fails at once.
  q.dequeue(1, false, false, 7, record_values(late));
  ASSERT_TRUE(late.called);
  EXPECT_EQ(late.st.code(), core::errc::cancelled);
  EXPECT_EQ(q.size(), 1);
}

TEST(queue_state,
     a_shuffle_queue_keeps_min_after_dequeue_and_delivers_each_once) {
  actors::queue_state q{spec(-1, true, 10)};
  outcome e, d, c, rest;
  q.enqueue(range(12), true, 1, record(e));
  q.dequeue(3, true, false, 1, record_values(d));
  EXPECT_FALSE(d.called); // two taken, then the floor of 10 holds
  EXPECT_EQ(q.size(), 10);
  q.close(false, record(c)); // closing drops the floor
  ASSERT_TRUE(d.called && d.st.is_ok());
  q.dequeue(100, true, true, 1, record_values(rest));
  ASSERT_TRUE(rest.called && rest.st.is_ok());
  auto all = ints(d.values[0]);
  for (auto v : ints(rest.values[0]))
    all.push_back(v);
  auto sorted = all;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, ints(range(12)[0])); // each exactly once
  EXPECT_NE(all, ints(range(12)[0]));    // in another order
}

TEST(queue_state, destroying_it_fails_what_waits) {
  outcome d;
  {
    actors::queue_state q{spec(-1)};
    q.dequeue(1, false, false, 1, record_values(d));
    EXPECT_FALSE(d.called);
  }
  ASSERT_TRUE(d.called);
  EXPECT_EQ(d.st.code(), core::errc::cancelled);
}

namespace {

/// A graph with one FIFO queue of (float32 [2], int32) elements.
struct queue_graph {
  explicit queue_graph(actors::engine& e, int64_t capacity = -1)
    : s(e.context().ops()) {
    graph::queue::options o{{dtype::float32, dtype::int32},
                            {core::shape{2}, core::shape{}},
                            capacity};
    q = graph::queue::fifo(s.sub("q"), o);
    x = graph::placeholder(s.sub("x"), dtype::float32, {-1, 2});
    y = graph::placeholder(s.sub("y"), dtype::int32, {-1});
    put = q.enqueue_many(s.sub("put"), {x, y});
    take = q.dequeue(s.sub("take"));
    batch = q.dequeue_many(s.sub("batch"), 3);
    close = q.close(s.sub("close"));
    cancel = q.close(s.sub("cancel"), true);
    size = q.size(s.sub("size"));
  }

  actors::feed_list rows(int32_t first, int32_t n) const {
    std::vector<float> xs;
    std::vector<int32_t> ys;
    for (int32_t i = first; i < first + n; ++i) {
      xs.push_back(static_cast<float>(i));
      xs.push_back(static_cast<float>(-i));
      ys.push_back(i);
    }
    return {{x.name(), tensor::from_vector<float>({n, 2}, xs)},
            {y.name(), tensor::from_vector<int32_t>({n}, ys)}};
  }

  graph::scope s;
  graph::queue q;
  graph::output x, y, size;
  graph::operation put, close, cancel;
  std::vector<graph::output> take, batch;
};

} // namespace

TEST(queues, enqueue_many_then_dequeue_and_dequeue_many_through_sessions) {
  actors::engine e;
  queue_graph g{e};
  ASSERT_TRUE(g.s.ok()) << g.s.status().to_string();
  EXPECT_EQ(g.batch[0].shape(), core::shape({3, 2}));
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(g.s.graph_def()).is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run(g.rows(0, 5), {}, {g.put.name}, &out).is_ok());
  ASSERT_TRUE(sess.run({}, {g.size.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].scalar_value<int32_t>(), 5);
  ASSERT_TRUE(
    sess.run({}, {g.take[0].name(), g.take[1].name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].data<float>()[1], -0.0f);
  EXPECT_EQ(out[1].scalar_value<int32_t>(), 0);
  ASSERT_TRUE(
    sess.run({}, {g.batch[0].name(), g.batch[1].name()}, {}, &out).is_ok());
  EXPECT_EQ(ints(out[1]), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(out[0].shape(), core::shape({3, 2}));
  EXPECT_EQ(out[0].data<float>()[5], -3.0f);
  // One left: closed, a batch of 3 fails out_of_range naming the node.
  ASSERT_TRUE(sess.run({}, {}, {g.close.name}, &out).is_ok());
  auto st = sess.run({}, {g.batch[0].name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::out_of_range) << st.to_string();
  EXPECT_EQ(st.op(), "QueueDequeueManyV2");
  st = sess.run(g.rows(9, 1), {}, {g.put.name}, &out);
  EXPECT_EQ(st.code(), core::errc::cancelled) << st.to_string();
}

TEST(queues, blocked_dequeues_hold_no_thread) {
  // Eight steps wait on an empty queue with two scheduler threads; the
  // enqueue that feeds them still runs.
  actors::engine_options opts;
  opts.scheduler_threads = 2;
  actors::engine e{opts};
  queue_graph g{e};
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(g.s.graph_def()).is_ok());
  std::vector<std::thread> waiters;
  std::vector<int32_t> got(8, -1);
  for (size_t i = 0; i < 8; ++i)
    waiters.emplace_back([&, i] {
      std::vector<tensor> out;
      auto st = sess.run({}, {g.take[1].name()}, {}, &out);
      if (st.is_ok())
        got[i] = out[0].scalar_value<int32_t>();
    });
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run(g.rows(0, 8), {}, {g.put.name}, &out).is_ok());
  for (auto& t : waiters)
    t.join();
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(queues, a_failing_step_cancels_its_waiting_dequeue_and_loses_nothing) {
  // The dequeue waits on an empty queue while x fails its check in the
  // same step: the step fails with the check's error instead of waiting
  // for an element forever, and the queue serves later steps.
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto q = graph::queue::fifo(s.sub("q"), {{dtype::int32}, {{}}, -1});
  auto take = q.dequeue(s.sub("take"));
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {});
  auto checked = graph::check_numerics(s.sub("checked"), x, "x is bad");
  auto put = q.enqueue(s.sub("put"), {graph::constant(s, int32_t{42})});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  for (int i = 0; i < 3; ++i) {
    auto st = sess.run({{x.name(), tensor::scalar(std::nanf(""))}},
                       {take[0].name(), checked.name()}, {}, &out);
    EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
    EXPECT_EQ(st.node(), checked.node_name()) << st.to_string();
  }
  ASSERT_TRUE(sess.run({}, {}, {put.name}, &out).is_ok());
  auto st = sess.run({}, {take[0].name()}, {}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0].scalar_value<int32_t>(), 42);
}

TEST(queues, a_wrong_component_dtype_names_the_node) {
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto q = graph::queue::fifo(s.sub("q"), {{dtype::int32}, {}, -1});
  auto bad = q.enqueue(s.sub("bad"), {graph::constant(s, 1.5)});
  ASSERT_TRUE(s.ok());
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto st = sess.run({}, {}, {bad.name}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_EQ(st.node(), bad.name);
  EXPECT_NE(st.message().find("component 0"), std::string::npos)
    << st.message();
}

TEST(queues, a_queue_runner_keeps_the_queue_filled_until_stopped) {
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto q = graph::queue::fifo(s.sub("q"), {{dtype::int32}, {{}}, 4});
  auto counter
    = graph::variable(s.sub("counter"), graph::constant(s, 0.0, dtype::int32));
  auto next = graph::assign_add(s.sub("next"), counter,
                                graph::constant(s, 1.0, dtype::int32));
  auto put = q.enqueue(s.sub("put"), {graph::identity(s, next)});
  auto take = q.dequeue_many(s.sub("take"), 5);
  auto close = q.close(s.sub("close"));
  auto cancel = q.close(s.sub("cancel"), true);
  auto init = s.initializer();
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run({}, {}, {init.name}, &out).is_ok());
  actors::queue_runner runner{sess, {put.name}, close.name, cancel.name};
  runner.start();
  std::vector<int32_t> seen;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(sess.run({}, {take[0].name()}, {}, &out).is_ok());
    for (auto v : ints(out[0]))
      seen.push_back(v);
  }
  runner.stop(); // its enqueue blocked on the full queue: cancelled
  EXPECT_TRUE(runner.status().is_ok()) << runner.status().to_string();
  EXPECT_GE(runner.steps(), 20);
  // One runner: the counter's values in order.
  for (size_t i = 0; i < seen.size(); ++i)
    EXPECT_EQ(seen[i], static_cast<int32_t>(i + 1));
}

TEST(queues, a_random_shuffle_queue_and_dequeue_up_to_through_sessions) {
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto q = graph::queue::random_shuffle(s.sub("q"), {{dtype::int32}, {{}}, 100},
                                        5, {7, 8});
  auto x = graph::placeholder(s.sub("x"), dtype::int32, {-1});
  auto put = q.enqueue_many(s.sub("put"), {x});
  auto some = q.dequeue_up_to(s.sub("some"), 4);
  auto close = q.close(s.sub("close"));
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_FALSE(some[0].shape().fully_defined()); // up to 4: unknown length
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(
    sess.run({{x.name(), range(10)[0]}}, {}, {put.name}, &out).is_ok());
  // 10 in, 5 must stay: one batch of 4, then the floor holds until close.
  std::vector<int32_t> all;
  ASSERT_TRUE(sess.run({}, {some[0].name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].num_elements(), 4);
  for (auto v : ints(out[0]))
    all.push_back(v);
  ASSERT_TRUE(sess.run({}, {}, {close.name}, &out).is_ok());
  for (int64_t want : {4, 2}) {
    ASSERT_TRUE(sess.run({}, {some[0].name()}, {}, &out).is_ok());
    EXPECT_EQ(out[0].num_elements(), want);
    for (auto v : ints(out[0]))
      all.push_back(v);
  }
  auto st = sess.run({}, {some[0].name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::out_of_range) << st.to_string();
  auto sorted = all;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, ints(range(10)[0]));
  EXPECT_NE(all, ints(range(10)[0]));
}

TEST(stacks, pushes_and_pops_are_last_in_first_out_within_a_step) {
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto first = [](std::vector<graph::output> v) { return v.at(0); };
  auto stack = first(s.add_node(
    "StackV2", "stack", {graph::constant(s, core::tensor::scalar(int32_t{-1}))},
    {{"elem_type", dtype::int32}, {"stack_name", std::string{"s"}}}));
  auto push = [&](int32_t v, const std::vector<graph::operation>& after) {
    return first(s.with_control_dependencies(after).add_node(
      "StackPushV2", "push", {stack, graph::constant(s, tensor::scalar(v))},
      {{"T", dtype::int32}}));
  };
  auto pop = [&](const std::vector<graph::operation>& after) {
    return first(s.with_control_dependencies(after).add_node(
      "StackPopV2", "pop", {stack}, {{"elem_type", dtype::int32}}));
  };
  auto p1 = push(1, {});
  auto p2 = push(2, {p1.op()});
  auto a = pop({p2.op()});
  auto b = pop({a.op()});
  auto c = pop({b.op()});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  for (int step = 0; step < 3; ++step) { // each step has a stack of its own
    ASSERT_TRUE(sess.run({}, {a.name(), b.name()}, {}, &out).is_ok());
    EXPECT_EQ(out[0].scalar_value<int32_t>(), 2);
    EXPECT_EQ(out[1].scalar_value<int32_t>(), 1);
  }
  auto st = sess.run({}, {c.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::out_of_range) << st.to_string();
  EXPECT_EQ(st.node(), c.node_name());
  EXPECT_NE(st.message().find("empty"), std::string::npos) << st.message();
}
