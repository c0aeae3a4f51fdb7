#include "actorflow/graph/passes.hpp"

#include <gtest/gtest.h>

#include "actorflow/devices/device_set.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/registration.hpp"

using namespace actorflow;
using core::dtype;

namespace {

class passes : public ::testing::Test {
protected:
  passes() : devs(devices::device_set::make_local(2, 1)) {
    EXPECT_TRUE(ops::register_ops(registry).is_ok());
    ops::register_cpu_kernels(kernels);
    for (const auto& d : devs.all())
      device_names.push_back(d->name());
  }

  graph::graph checked(const graph::scope& s, graph::graph_types* types) {
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    graph::graph g = s.graph_def();
    EXPECT_TRUE(graph::validate(g, registry, types).is_ok());
    return g;
  }

  ops::op_registry registry;
  ops::kernel_registry kernels;
  devices::device_set devs;
  std::vector<std::string> device_names;
};

std::vector<std::string> names(const graph::graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g.nodes())
    out.push_back(n.name);
  return out;
}

} // namespace

// The white paper's Figure 6: a -> b -> c -> f, with d and e hanging off b
// and c. With inputs {b} and outputs {f:0}, a, d and e are pruned away.
// (Op functions name nodes scope/Op: b is "b/Identity".)
TEST_F(passes, figure_six_pruning) {
  graph::scope s;
  auto a = graph::constant(s.sub("a"), 1.0);
  auto b = graph::identity(s.sub("b"), a);
  auto c = graph::identity(s.sub("c"), b);
  auto d = graph::relu(s.sub("d"), b);
  auto e = graph::add(s.sub("e"), c, d);
  auto f = graph::relu(s.sub("f"), c);
  graph::graph_types types;
  auto g = checked(s, &types);
  graph::graph out;
  ASSERT_TRUE(
    graph::rewrite_for_run(g, types, {{"b/Identity"}, {"f/Relu:0"}, {}}, &out)
      .is_ok());
  EXPECT_EQ(names(out), (std::vector<std::string>{"c/Identity", "f/Relu",
                                                  "_feed_0", "_fetch_0"}));
  EXPECT_EQ(out.find("c/Identity")->inputs,
            (std::vector<std::string>{"_feed_0"}));
  EXPECT_EQ(out.find("_fetch_0")->inputs, (std::vector<std::string>{"f/Relu"}));
  (void)e;
  (void)f;
}

TEST_F(passes, feeds_and_fetches_are_checked) {
  graph::scope s;
  auto a = graph::constant(s.sub("a"), 1.0);
  graph::graph_types types;
  auto g = checked(s, &types);
  graph::graph out;
  EXPECT_EQ(graph::rewrite_for_run(g, types, {{}, {"nope"}, {}}, &out).code(),
            core::errc::not_found);
  EXPECT_EQ(
    graph::rewrite_for_run(g, types, {{}, {"a/Const:1"}, {}}, &out).code(),
    core::errc::invalid_argument);
  EXPECT_EQ(
    graph::rewrite_for_run(g, types, {{"a/Const"}, {"a/Const:0"}, {}}, &out)
      .code(),
    core::errc::invalid_argument);
  EXPECT_EQ(graph::rewrite_for_run(g, types, {{}, {}, {}}, &out).code(),
            core::errc::invalid_argument);
  ASSERT_TRUE(
    graph::rewrite_for_run(g, types, {{}, {}, {"a/Const"}}, &out).is_ok());
  EXPECT_EQ(names(out), (std::vector<std::string>{a.node_name()}));
}

TEST_F(passes, placement_honours_requests_and_colocates_references) {
  graph::scope s;
  auto v = graph::variable(s.sub("v"), {2}, dtype::float32);
  auto init
    = graph::assign(s.with_device("cpu:1").sub("init"), v,
                    graph::constant(s, core::tensor{dtype::float32, {2}}));
  auto r = graph::relu(s.sub("r"), v);
  graph::graph_types types;
  auto g = checked(s, &types);
  ASSERT_TRUE(graph::place(g, types, device_names, kernels, "cpu:0").is_ok());
  auto cpu1 = devs.all()[1]->name();
  auto cpu0 = devs.all()[0]->name();
  EXPECT_EQ(g.find("v")->device, cpu1); // with its Assign, by reference
  EXPECT_EQ(g.find(init.node_name())->device, cpu1);
  EXPECT_EQ(g.find("r/Relu")->device, cpu0); // reads the value: default
  (void)r;
}

TEST_F(passes, impossible_requests_are_invalid_arguments) {
  graph::scope s;
  graph::constant(s.with_device("cpu:7").sub("far"), 1.0);
  graph::graph_types types;
  auto g = checked(s, &types);
  auto st = graph::place(g, types, device_names, kernels, "cpu:0");
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "far/Const");
  EXPECT_EQ(st.device(), "cpu:7");
  EXPECT_NE(st.message().find("no device matches"), std::string::npos);
  graph::scope t;
  auto v = graph::variable(t.with_device("cpu:0").sub("v"), {}, dtype::float32);
  graph::assign(t.with_device("cpu:1").sub("a"), v, graph::constant(t, 1.0));
  auto g2 = checked(t, &types);
  st = graph::place(g2, types, device_names, kernels, "cpu:0");
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("reference edge"), std::string::npos);
}

TEST_F(passes, partitioning_adds_one_recv_per_tensor_and_device) {
  graph::scope s;
  auto a = graph::constant(s.with_device("cpu:0").sub("a"), 1.0);
  auto b = graph::relu(s.with_device("cpu:1").sub("b"), a);
  auto c = graph::identity(s.with_device("cpu:1").sub("c"), a);
  auto d = graph::identity(
    s.with_device("cpu:1").with_control_dependencies({a.op()}).sub("d"), b);
  graph::graph_types types;
  auto g = checked(s, &types);
  ASSERT_TRUE(graph::place(g, types, device_names, kernels, "cpu:0").is_ok());
  std::map<std::string, graph::graph> parts;
  ASSERT_TRUE(graph::partition(g, types, &parts).is_ok());
  ASSERT_EQ(parts.size(), 2u);
  const auto& p0 = parts[devs.all()[0]->name()];
  const auto& p1 = parts[devs.all()[1]->name()];
  int sends = 0, recvs = 0;
  for (const auto& n : p0.nodes())
    sends += n.op == "_Send";
  for (const auto& n : p1.nodes())
    recvs += n.op == "_Recv";
  // One data Recv shared by b and c, one for d's control edge.
  EXPECT_EQ(sends, 2);
  EXPECT_EQ(recvs, 2);
  EXPECT_EQ(p1.find("b/Relu")->inputs, p1.find("c/Identity")->inputs);
  EXPECT_EQ(p1.find("d/Identity")->inputs.back().front(), '^');
  (void)c;
  (void)d;
}

TEST_F(passes, a_loop_across_devices_gets_a_control_loop_per_device) {
  graph::scope s;
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], graph::constant(c, 5.0));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      return std::vector<graph::output>{
        graph::add(b.with_device("cpu:1"), v[0], graph::constant(b, 1.0))};
    },
    {graph::constant(s, 0.0)});
  graph::graph_types types;
  auto g = checked(s, &types);
  ASSERT_TRUE(graph::place(g, types, device_names, kernels, "cpu:0").is_ok());
  std::map<std::string, graph::graph> parts;
  ASSERT_TRUE(graph::partition(g, types, &parts).is_ok());
  ASSERT_EQ(parts.size(), 2u);
  for (const auto& [device, part] : parts) {
    // Each device runs a control loop (Enter, Merge, Switch, NextIteration)
    // of the frame, and every Recv inside the frame hangs off its Merge.
    std::string merge;
    int loop_nodes = 0;
    for (const auto& n : part.nodes())
      if (n.name.rfind("_cloop_", 0) == 0) {
        ++loop_nodes;
        if (n.op == "Merge")
          merge = n.name;
      }
    // A dummy constant feeds the control loop of a frame at the root.
    EXPECT_EQ(loop_nodes, 5) << device;
    for (const auto& n : part.nodes()) {
      if (n.op == "_Recv") {
        EXPECT_EQ(n.inputs, std::vector<std::string>{"^" + merge}) << n.name;
      }
    }
  }
  (void)outs;
}
