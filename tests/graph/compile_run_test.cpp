#include "actorflow/graph/compile_run.hpp"

#include <gtest/gtest.h>

#include "actorflow/devices/device_set.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/graph_index.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/registration.hpp"

using namespace actorflow;
using core::dtype;

namespace {

/// Compiles runs on two CPUs, without actors or devices at work.
class compile_run : public ::testing::Test {
protected:
  compile_run() : devs(devices::device_set::make_local(2, 1)) {
    EXPECT_TRUE(ops::register_ops(registry).is_ok());
    ops::register_cpu_kernels(kernels);
    for (const auto& d : devs.all())
      device_names.push_back(d->name());
  }

  core::status compile(const graph::scope& s, const graph::run_signature& sig,
                       graph::compiled_run* out) {
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    g = s.graph_def();
    EXPECT_TRUE(graph::validate(g, registry, &types).is_ok());
    graph::compile_options opts{registry, kernels,      pipeline,
                                {},       device_names, device_names.front()};
    return graph::compile_run(g, types, sig, opts, out);
  }

  ops::op_registry registry;
  ops::kernel_registry kernels;
  devices::device_set devs;
  std::vector<std::string> device_names;
  graph::pass_pipeline pipeline = graph::pass_pipeline::standard();
  graph::graph g;
  graph::graph_types types;
};

} // namespace

// A fed placeholder on one CPU, a loop on the other: two partitions joined
// by Send/Recv pairs, each with the dtypes validation would give it, the
// feed's dtype and shape, and every node's device.
TEST_F(compile_run, gives_typed_partitions_feeds_and_placement) {
  graph::scope s;
  auto x = graph::placeholder(s.with_device("cpu:0").sub("x"), dtype::float32,
                              core::shape{2});
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, graph::reduce_sum(c, v[0], {0}),
                         graph::constant(c, 50.0f));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      return std::vector<graph::output>{
        graph::mul(b.with_device("cpu:1"), v[0], graph::constant(b, 2.0f))};
    },
    {x});
  graph::compiled_run run;
  auto st = compile(s, {{x.name()}, {outs[0].name()}, {}}, &run);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  ASSERT_EQ(run.partitions.size(), 2u);
  EXPECT_EQ(run.partitions[0].device, device_names[0]);
  EXPECT_EQ(run.partitions[1].device, device_names[1]);
  size_t sends = 0, recvs = 0;
  for (auto& p : run.partitions) {
    // The types compile_run hands along are validation's.
    graph::graph copy = p.g;
    graph::graph_types checked;
    auto vst = graph::validate(copy, registry, &checked, true);
    ASSERT_TRUE(vst.is_ok()) << vst.to_string();
    EXPECT_EQ(p.types.inputs, checked.inputs) << p.device;
    EXPECT_EQ(p.types.outputs, checked.outputs) << p.device;
    for (const auto& n : p.g.nodes()) {
      EXPECT_EQ(n.device, p.device) << n.name;
      EXPECT_EQ(run.placement.at(n.name), p.device) << n.name;
      sends += n.op == ops::runtime_op::send;
      recvs += n.op == ops::runtime_op::recv;
    }
  }
  EXPECT_GT(sends, 0u);
  EXPECT_EQ(sends, recvs);
  ASSERT_EQ(run.feeds.size(), 1u);
  EXPECT_EQ(run.feeds[0].node, x.node_name());
  EXPECT_EQ(run.feeds[0].op, "Placeholder");
  EXPECT_EQ(run.feeds[0].type, dtype::float32);
  EXPECT_EQ(run.feeds[0].shape.to_string(), core::shape{2}.to_string());
  EXPECT_EQ(run.fetches, std::vector<std::string>{outs[0].name()});
  EXPECT_EQ(run.placement.count(x.node_name()), 0u); // fed: cut off
}

// A signature that names no node fails before anything is placed, naming
// what it names.
TEST_F(compile_run, a_bad_signature_names_its_tensor) {
  graph::scope s;
  graph::relu(s.sub("r"), graph::constant(s.sub("c"), 1.0f));
  graph::compiled_run run;
  auto st = compile(s, {{}, {"nope:0"}, {}}, &run);
  EXPECT_EQ(st.code(), core::errc::not_found);
  EXPECT_EQ(st.node(), "nope");
  st = compile(s, {{}, {}, {}}, &run);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
}

// The passes run before placement, and what they did is reported.
TEST_F(compile_run, reports_what_the_passes_did) {
  graph::scope s;
  auto a = graph::constant(s.sub("a"), 2.0f);
  auto b = graph::add(s.sub("b"), a, a);
  graph::compiled_run run;
  auto st = compile(s, {{}, {b.name()}, {}}, &run);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_FALSE(run.rewrites.empty());
  ASSERT_EQ(run.partitions.size(), 1u);
  const auto* folded = run.partitions[0].g.find(b.node_name());
  ASSERT_NE(folded, nullptr);
  EXPECT_EQ(folded->op, "Const");
}

// The index reads each edge once, from both ends; the order puts every
// node after its producers with a loop's back edge left out; the role
// table knows every reference variant.
TEST(graph_index, edges_order_and_roles) {
  graph::scope s;
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], graph::constant(c, 5.0f));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1.0f))};
    },
    {graph::constant(s, 0.0f)});
  ASSERT_TRUE(s.ok());
  const auto& g = s.graph_def();
  graph::graph_index index{g};
  ASSERT_EQ(index.size(), g.size());
  std::vector<size_t> position(g.size());
  const auto& order = index.topological_order();
  ASSERT_EQ(order.size(), g.size());
  for (size_t k = 0; k < order.size(); ++k)
    position[order[k]] = k;
  size_t edges = 0, merges = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_EQ(index.bad_input(i), -1);
    EXPECT_EQ(index.inputs(i).size(), g.nodes()[i].inputs.size());
    for (const auto& e : index.inputs(i)) {
      ++edges;
      EXPECT_EQ(e.dst, static_cast<int>(i));
      const auto& uses = index.consumers(static_cast<size_t>(e.src));
      EXPECT_NE(std::find_if(uses.begin(), uses.end(),
                             [&](const graph::graph_edge& u) {
                               return u.dst == e.dst && u.slot == e.slot
                                      && u.port == e.port;
                             }),
                uses.end());
      if (index.role(static_cast<size_t>(e.src))
          != graph::flow_role::next_iteration) {
        EXPECT_LT(position[static_cast<size_t>(e.src)], position[i]);
      }
    }
    merges += index.role(i) == graph::flow_role::merge;
  }
  size_t uses = 0;
  for (size_t i = 0; i < g.size(); ++i)
    uses += index.consumers(i).size();
  EXPECT_EQ(uses, edges);
  EXPECT_EQ(merges, 1u);
  for (const char* op : {"Enter", "RefEnter"})
    EXPECT_EQ(graph::flow_role_of(op), graph::flow_role::enter);
  for (const char* op : {"Exit", "RefExit"})
    EXPECT_EQ(graph::flow_role_of(op), graph::flow_role::exit);
  for (const char* op : {"NextIteration", "RefNextIteration"})
    EXPECT_EQ(graph::flow_role_of(op), graph::flow_role::next_iteration);
  for (const char* op : {"Switch", "RefSwitch"})
    EXPECT_EQ(graph::flow_role_of(op), graph::flow_role::switch_node);
  EXPECT_EQ(graph::flow_role_of("MergeSummary"), graph::flow_role::none);
  (void)outs;
}

// A malformed or dangling input is left out of the edges and marked.
TEST(graph_index, marks_the_first_bad_input) {
  graph::graph g;
  ASSERT_TRUE(g.add({"a", "Const", {}, "", {}}).is_ok());
  ASSERT_TRUE(g.add({"b", "Identity", {"a", "^nope", "^a"}, "", {}}).is_ok());
  graph::graph_index index{g};
  EXPECT_EQ(index.bad_input(0), -1);
  EXPECT_EQ(index.bad_input(1), 1);
  EXPECT_EQ(index.inputs(1).size(), 2u);
  EXPECT_EQ(index.consumers(0).size(), 2u);
  EXPECT_TRUE(index.inputs(1)[1].control());
}
