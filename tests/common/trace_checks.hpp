#pragma once

// A traced run of a split graph and a loop, and the checks the one-process
// and the cluster suites share: what run_metadata's step stats hold, and
// the structure of the Chrome trace written from them, read back with a
// JSON library.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/scope.hpp"
#include "common/loop_cases.hpp"

namespace actorflow::test {

/// Runs once on `e`, traced: x (n floats) doubled on device `a`, plus one
/// on `b`; and the halving loop (20 outer iterations of 3 inner ones) with
/// its counter on `a` and its body on `b`.
inline actors::run_metadata traced_split_run(actors::engine& e,
                                             const std::string& a,
                                             const std::string& b, int64_t n) {
  graph::scope s{e.context().ops()};
  auto x
    = graph::placeholder(s.sub("x").with_device(a), core::dtype::float32, {n});
  auto y = graph::mul(s.sub("y").with_device(a), x,
                      graph::constant(s.with_device(a), 2.0f));
  auto z = graph::add(s.sub("z").with_device(b), y,
                      graph::constant(s.with_device(b), 1.0f));
  auto count = graph::constant(s.sub("n").with_device(a), int64_t{20});
  auto loop = halving_loop(s.sub("loop").with_device(a), count, b);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  auto st = sess.extend(s.graph_def());
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  actors::run_options opts;
  opts.trace = actors::trace_level::full;
  opts.output_partition_graphs = true;
  std::vector<core::tensor> out;
  actors::run_metadata md;
  st = sess.run(opts, {{x.name(), core::tensor{core::dtype::float32, {n}}}},
                {z.name(), loop[1].name()}, {}, &out, &md);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  return md;
}

/// What `traced_split_run` must have recorded: firings on both devices
/// inside the step, the product's bytes, the Send/Recv pairs, every loop
/// iteration once and in order, the partitions.
inline void expect_split_run_stats(const actors::run_metadata& md,
                                   const std::string& a, const std::string& b,
                                   int64_t n) {
  const auto& st = md.stats;
  ASSERT_GT(st.end_us, st.start_us);
  std::set<std::string> devices;
  std::map<std::string, int> firings_by_op;
  // Merge firings by (node, frame instance): their iterations.
  std::map<std::pair<std::string, uint64_t>,
           std::vector<const actors::node_exec_stats*>>
    merges;
  bool saw_product = false;
  for (const auto& d : st.devices) {
    devices.insert(d.device);
    EXPECT_FALSE(d.worker.empty()) << d.device;
    EXPECT_GT(d.peak_bytes, 0) << d.device;
    EXPECT_GE(d.peak_bytes, d.bytes_in_use) << d.device;
    for (const auto& x : d.nodes) {
      ++firings_by_op[x.op];
      EXPECT_LE(st.start_us, x.start_us) << x.node;
      EXPECT_LE(x.start_us, x.end_us) << x.node;
      EXPECT_LE(x.end_us, st.end_us) << x.node;
      if (x.op == "Add" && x.node.rfind("z", 0) == 0) {
        saw_product = true;
        EXPECT_EQ(x.output_bytes, n * 4);
        EXPECT_NE(d.device.find(b), std::string::npos) << d.device;
      }
      if (x.op == "_Send" || x.op == "_Recv") {
        EXPECT_FALSE(x.tensor_name.empty()) << x.node;
      }
      if (x.op == "Merge") {
        EXPECT_FALSE(x.frame_name.empty()) << x.node;
        merges[{x.node, x.frame}].push_back(&x);
      }
    }
  }
  EXPECT_TRUE(saw_product);
  EXPECT_EQ(devices.size(), 2u);
  EXPECT_GT(firings_by_op["_Send"], 20); // the predicate, every iteration
  EXPECT_EQ(firings_by_op["_Send"], firings_by_op["_Recv"]);
  EXPECT_GE(st.partition_messages, firings_by_op["_Send"]);
  EXPECT_GE(st.partition_bytes, n * 4);
  // Every Merge fired once per iteration, 0..k with no gap, in order; the
  // outer loop ran 20 iterations (and the test of a 21st), each inner one 3.
  int64_t outer = 0, inner = 0;
  for (auto& [key, xs] : merges) {
    std::sort(xs.begin(), xs.end(),
              [](auto* x, auto* y) { return x->iter < y->iter; });
    for (size_t i = 0; i < xs.size(); ++i) {
      EXPECT_EQ(xs[i]->iter, static_cast<int64_t>(i)) << key.first;
      if (i > 0) {
        EXPECT_LE(xs[i - 1]->start_us, xs[i]->start_us) << key.first;
      }
    }
    outer += xs.size() == 21;
    inner += xs.size() == 4;
  }
  EXPECT_GT(outer, 0);
  EXPECT_GT(inner, 0);
  ASSERT_EQ(md.partition_graphs.size(), 2u);
  for (const auto& g : md.partition_graphs) {
    int joins = 0;
    for (const auto& node : g.nodes())
      joins += node.op == "_Send" || node.op == "_Recv";
    EXPECT_GT(joins, 0);
  }
}

/// The structure of a Chrome trace file's JSON text: named processes and
/// threads, every firing inside its step's slice, every arrow from a Send
/// to a later Recv, a loop's Merges in iteration order.
inline void expect_trace_structure(const std::string& text,
                                   size_t expected_steps) {
  auto doc = nlohmann::json::parse(text);
  ASSERT_TRUE(doc.contains("traceEvents"));
  const auto& events = doc["traceEvents"];
  std::map<uint64_t, std::pair<int64_t, int64_t>> steps;
  std::set<std::pair<int, int>> named_threads;
  std::set<int> named_processes;
  for (const auto& ev : events) {
    auto ph = ev.at("ph").get<std::string>();
    if (ph == "M" && ev["name"] == "process_name")
      named_processes.insert(ev["pid"].get<int>());
    if (ph == "M" && ev["name"] == "thread_name")
      named_threads.emplace(ev["pid"].get<int>(), ev["tid"].get<int>());
    if (ph == "X" && ev["cat"] == "step")
      steps[ev["args"]["step"].get<uint64_t>()]
        = {ev["ts"].get<int64_t>(),
           ev["ts"].get<int64_t>() + ev["dur"].get<int64_t>()};
  }
  ASSERT_EQ(steps.size(), expected_steps);
  std::map<int64_t, std::pair<int64_t, int64_t>> flows; // id: s, f
  // (step, frame, node): (iteration, ts) of each Merge firing
  std::map<std::tuple<uint64_t, uint64_t, std::string>,
           std::vector<std::pair<int64_t, int64_t>>>
    merges;
  size_t firings = 0;
  for (const auto& ev : events) {
    auto ph = ev.at("ph").get<std::string>();
    if (ph == "s")
      flows[ev["id"].get<int64_t>()].first = ev["ts"].get<int64_t>();
    if (ph == "f")
      flows[ev["id"].get<int64_t>()].second = ev["ts"].get<int64_t>();
    if (ph != "X" || ev["cat"] == "step")
      continue;
    ++firings;
    auto pid = ev["pid"].get<int>();
    EXPECT_EQ(named_processes.count(pid), 1u) << ev.dump();
    EXPECT_EQ(named_threads.count({pid, ev["tid"].get<int>()}), 1u)
      << ev.dump();
    auto step = steps.find(ev["args"]["step"].get<uint64_t>());
    ASSERT_NE(step, steps.end()) << ev.dump();
    auto ts = ev["ts"].get<int64_t>();
    EXPECT_LE(step->second.first, ts) << ev.dump();
    EXPECT_LE(ts + ev["dur"].get<int64_t>(), step->second.second) << ev.dump();
    if (ev["cat"] == "Merge") {
      auto name = ev["name"].get<std::string>();
      EXPECT_NE(name.find(" ["), std::string::npos) << name; // labelled
      merges[{step->first, ev["args"]["frame"].get<uint64_t>(),
              name.substr(0, name.find(" ["))}]
        .emplace_back(ev["args"]["iteration"].get<int64_t>(), ts);
    }
  }
  EXPECT_GT(firings, 0u);
  // The slices of a thread never overlap (they would have to nest).
  std::map<std::pair<int, int>, std::vector<std::pair<int64_t, int64_t>>>
    slices;
  for (const auto& ev : events)
    if (ev["ph"] == "X" && ev["cat"] != "step")
      slices[{ev["pid"].get<int>(), ev["tid"].get<int>()}].emplace_back(
        ev["ts"].get<int64_t>(),
        ev["ts"].get<int64_t>() + ev["dur"].get<int64_t>());
  for (auto& [thread, xs] : slices) {
    std::sort(xs.begin(), xs.end());
    for (size_t i = 1; i < xs.size(); ++i)
      EXPECT_LE(xs[i - 1].second, xs[i].first)
        << "thread " << thread.first << "/" << thread.second;
  }
  EXPECT_FALSE(flows.empty());
  for (const auto& [id, sf] : flows)
    EXPECT_LE(sf.first, sf.second) << "flow " << id;
  EXPECT_FALSE(merges.empty());
  for (auto& [key, its] : merges) {
    std::sort(its.begin(), its.end());
    for (size_t i = 1; i < its.size(); ++i)
      EXPECT_LE(its[i - 1].second, its[i].second) << std::get<2>(key);
  }
}

} // namespace actorflow::test
