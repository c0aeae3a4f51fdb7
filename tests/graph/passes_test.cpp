// The compile path's steps (graph/src/compile/) one by one, and
// compile_run over them.

#include <algorithm>
#include <functional>

#include <gtest/gtest.h>

#include "actorflow/devices/device_set.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/compile_run.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/tensor_array.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/registration.hpp"
#include "compile/graph_index.hpp"
#include "compile/partition.hpp"
#include "compile/place.hpp"
#include "compile/rewrite.hpp"
#include "compile/type_check.hpp"

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

  /// The graph `s` built, placed on the fixture's two CPUs (cpu:0 by
  /// default) and partitioned.
  std::map<std::string, graph::graph> partitioned(const graph::scope& s) {
    graph::graph_types types;
    auto g = checked(s, &types);
    std::map<std::string, graph::graph> parts;
    EXPECT_TRUE(graph::place(g, types, device_names, kernels, "cpu:0").is_ok());
    EXPECT_TRUE(graph::partition(g, types, &parts).is_ok());
    return parts;
  }

  /// Compiles `sig` of the graph `s` built (`graph::compile_run`) on the
  /// fixture's two CPUs with the standard passes.
  core::status compile(const graph::scope& s, const graph::run_signature& sig,
                       graph::compiled_run* out) {
    graph::graph_types types;
    auto g = checked(s, &types);
    auto pipeline = graph::pass_pipeline::standard();
    graph::compile_options opts{registry, kernels,      pipeline,
                                {},       device_names, device_names.front()};
    return graph::compile_run(g, types, sig, opts, out);
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

TEST_F(passes, ops_on_a_tensor_array_go_where_the_array_lives) {
  // The array is made on cpu:1; a loop on the default device (cpu:0)
  // writes it through an Enter. The write, and the Enter bringing the
  // handle into the loop, join the array: its elements live in cpu:1's
  // process, which on a cluster is another task.
  graph::scope s;
  auto ta = graph::tensor_array::make(s.with_device("cpu:1").sub("ta"), 3,
                                      {dtype::float32});
  auto raw = s.sub("raw"); // the ops as a GraphDef brings them: no device
  auto out = graph::while_loop(
    raw,
    [](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], graph::constant(c, 3));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto w = b.add_node(
        "TensorArrayWriteV3", "write",
        {ta.handle(), v[0], graph::cast(b, v[0], dtype::float32), v[1]},
        {{"T", dtype::float32}});
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1)), w.at(0)};
    },
    {graph::constant(raw, 0), ta.flow()});
  ASSERT_EQ(out.size(), 2u);
  graph::graph_types types;
  auto g = checked(s, &types);
  ASSERT_TRUE(graph::place(g, types, device_names, kernels, "cpu:0").is_ok());
  auto cpu1 = devs.all()[1]->name();
  for (const auto& node : g.nodes()) {
    bool handle_path
      = node.op == "TensorArrayWriteV3"
        || (node.op == "Enter" && node.inputs[0] == ta.handle().name());
    if (node.op == "TensorArrayV3" || handle_path) {
      EXPECT_EQ(node.device, cpu1) << node.name;
    } else if (node.op == "Add") {
      EXPECT_EQ(node.device, devs.all()[0]->name()) << node.name;
    }
  }
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
  auto parts = partitioned(s);
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
  auto parts = partitioned(s);
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

// A constant in the body on another device than the loop's condition: its
// control input from the body's pivot does not cross devices once per
// iteration as an empty value; the pivot of its own device's control loop
// (live in the same iterations) takes its place.
TEST_F(passes, a_body_constant_on_another_device_hangs_off_its_control_loop) {
  graph::scope s;
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], graph::constant(c, 5.0));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto far = b.with_device("cpu:1");
      return std::vector<graph::output>{
        graph::mul(far, v[0], graph::constant(far.sub("half"), 0.5))};
    },
    {graph::constant(s, 1.0)});
  auto parts = partitioned(s);
  ASSERT_EQ(parts.size(), 2u);
  const auto& there = parts[devs.all()[1]->name()];
  const auto* half = there.find("while/body/half/Const");
  ASSERT_NE(half, nullptr);
  ASSERT_EQ(half->inputs.size(), 1u);
  const auto* pivot = there.find(half->inputs[0].substr(1));
  ASSERT_NE(pivot, nullptr) << half->inputs[0];
  EXPECT_EQ(pivot->op, "Identity");
  EXPECT_EQ(pivot->inputs[0].rfind("_cloop_", 0), 0u) << pivot->inputs[0];
  for (const auto& [device, part] : parts)
    for (const auto& n : part.nodes())
      EXPECT_EQ(n.name.find("_ctrl"), std::string::npos) << n.name;
  (void)outs;
}

// A variable on one device read inside a loop on the other (as
// place_replica puts variables on the parameter server): its Enter takes
// it by reference and stays with it, and the value the Enter sends lives
// inside the loop, so its Recv hangs off the other device's control loop
// rather than sitting in the root frame; the Send is triggered by the
// control loop on the variable's device.
TEST_F(passes, a_variable_entered_on_another_device_is_received_inside_a_loop) {
  graph::scope s;
  auto other = devs.all()[1]->name();
  auto w
    = graph::variable(s.sub("w").with_device(other), graph::constant(s, 2.0));
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], graph::constant(c, 5.0));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      return std::vector<graph::output>{graph::add(b, v[0], w)};
    },
    {graph::constant(s, 0.0)});
  auto parts = partitioned(s);
  ASSERT_EQ(parts.size(), 2u);
  const auto& here = parts[devs.all()[0]->name()];
  std::string merge;
  for (const auto& n : here.nodes())
    if (n.name.rfind("_cloop_", 0) == 0 && n.op == "Merge")
      merge = n.name;
  ASSERT_FALSE(merge.empty()) << "no control loop on cpu:0";
  int recvs = 0;
  for (const auto& n : here.nodes())
    if (n.op == "_Recv") {
      ++recvs;
      EXPECT_EQ(n.inputs, std::vector<std::string>{"^" + merge}) << n.name;
    }
  EXPECT_EQ(recvs, 1);
  // The Send of the loop constant runs once per iteration too: its own
  // device's control loop triggers it.
  const auto& there = parts[other];
  std::string there_merge;
  for (const auto& n : there.nodes())
    if (n.name.rfind("_cloop_", 0) == 0 && n.op == "Merge")
      there_merge = n.name;
  ASSERT_FALSE(there_merge.empty()) << "no control loop on cpu:1";
  int sends = 0;
  for (const auto& n : there.nodes())
    if (n.op == "_Send" && n.inputs[0].rfind("while/Enter", 0) == 0) {
      ++sends;
      EXPECT_EQ(n.inputs.back(), "^" + there_merge) << n.name;
    }
  EXPECT_EQ(sends, 1);
  (void)outs;
}

// A fed placeholder on one CPU, a loop on the other: two partitions joined
// by Send/Recv pairs, each with the dtypes validation would give it, the
// feed's dtype and shape, and every node's device.
TEST_F(passes, compile_run_gives_typed_partitions_feeds_and_placement) {
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
TEST_F(passes, compile_run_names_the_tensor_of_a_bad_signature) {
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
TEST_F(passes, compile_run_reports_what_the_passes_did) {
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
  for (const char* op : {"MergeSummary", "RefLoopCond", "RefIdentity", "Ref"})
    EXPECT_EQ(graph::flow_role_of(op), graph::flow_role::none) << op;
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

// place_replica: a shared variable without a device goes to the ps with
// its updates; one that asks for a device (a mixture's expert) keeps it,
// and so do its initializer and updates; the rest goes to the worker.
TEST_F(passes, place_replica_keeps_updates_with_their_variables) {
  graph::scope s;
  const std::string ps = "/job:ps/task:0/device:cpu:0";
  const std::string worker = "/job:worker/task:0/device:cpu:0";
  const std::string expert = "/job:expert/task:1/device:cpu:0";
  auto shared = graph::variable(s.sub("shared"), graph::constant(s, 1.0));
  auto own = graph::variable(s.sub("expert").with_device(expert),
                             graph::constant(s, 2.0));
  auto step = graph::add(s.sub("sum"), shared, own);
  auto a = graph::assign_add(s.sub("update_shared"), shared, step);
  auto b = graph::assign_add(s.sub("update_expert"), own, step);
  graph::graph_types types;
  auto def = checked(s, &types);
  ASSERT_TRUE(graph::place_replica(def, types, ps, worker, "").is_ok());
  auto device_of = [&](const std::string& name) {
    return def.nodes()[static_cast<size_t>(def.index_of(name))].device;
  };
  EXPECT_EQ(device_of(shared.node_name()), ps);
  EXPECT_EQ(device_of(a.node_name()), ps);
  EXPECT_EQ(device_of(own.node_name()), expert);
  EXPECT_EQ(device_of(b.node_name()), expert);
  EXPECT_EQ(device_of(step.node_name()), worker);
}

namespace {

const std::string task0 = "/job:worker/task:0/device:cpu:0";
const std::string task1 = "/job:worker/task:1/device:cpu:0";

/// The node after which the Send of `value` to device `to` waits: its
/// control input is a Recv whose Send, on `to`, sends a constant made
/// after that node. "" if the Send waits for nothing, "?" if there is no
/// such Send or the chain is not as expected.
std::string trigger_of(const std::map<std::string, graph::graph>& parts,
                       const std::string& value, const std::string& to) {
  auto tensor_of = [](const core::node_def& n) {
    return std::get<std::string>(n.attrs.at("tensor_name"));
  };
  for (const auto& [device, part] : parts)
    for (const auto& send : part.nodes()) {
      if (send.op != "_Send" || send.inputs.front() != value
          || std::get<std::string>(send.attrs.at("recv_device")) != to)
        continue;
      if (send.inputs.size() == 1)
        return "";
      const auto* recv = part.find(send.inputs[1].substr(1));
      if (recv == nullptr || recv->op != "_Recv")
        return "?";
      for (const auto& n : parts.at(to).nodes())
        if (n.op == "_Send" && tensor_of(n) == tensor_of(*recv)) {
          const auto* dummy = parts.at(to).find(n.inputs.front());
          return dummy == nullptr || dummy->inputs.size() != 1
                   ? "?"
                   : dummy->inputs.front().substr(1);
        }
    }
  return "?";
}

/// `g` partitioned, with recv scheduling or without; every partition's
/// types resolve.
std::map<std::string, graph::graph>
partitioned_scheduled(const graph::graph& g, const graph::graph_types& types,
                      const ops::op_registry& registry, bool scheduled) {
  std::map<std::string, graph::graph> parts;
  graph::partition_options o;
  o.schedule_recvs = scheduled ? &registry : nullptr;
  EXPECT_TRUE(graph::partition(g, types, &parts, o).is_ok());
  for (auto& [device, part] : parts) {
    graph::graph_types part_types;
    EXPECT_TRUE(graph::resolve_types(part, registry, &part_types).is_ok())
      << device;
  }
  return parts;
}

} // namespace

// Recv scheduling: x is made on task 0 at once but consumed on task 1 only
// after a chain of five products. Scheduled, its Send waits for the chain's
// third product (the latest node on task 1 two levels before x's first
// consumer, reduce_sum); v, which the chain starts from, a value for a
// device of its own task, or any value with no scheduling, leave at once.
TEST_F(passes, scheduled_recvs_wait_for_the_receiver_to_near_their_consumer) {
  graph::scope s;
  auto here = s.with_device(task0);
  auto far = s.with_device(task1);
  auto x = graph::constant(here.sub("x"), 2.0f);
  auto v = graph::constant(here.sub("v"), 1.5f);
  auto y = graph::constant(far.sub("c"), 1.5f);
  std::vector<std::string> chain;
  for (int i = 1; i <= 5; ++i) {
    y = graph::mul(far.sub("y" + std::to_string(i)), y, i == 1 ? v : y);
    chain.push_back(y.node_name());
  }
  graph::add(far.sub("out"), y, graph::reduce_sum(far.sub("r"), x, {}));
  const std::string cpu1 = "/job:worker/task:0/device:cpu:1";
  graph::neg(s.with_device(cpu1).sub("local"), x);
  graph::graph_types types;
  auto g = checked(s, &types);
  for (bool scheduled : {false, true}) {
    SCOPED_TRACE(scheduled ? "scheduled" : "not scheduled");
    auto parts = partitioned_scheduled(g, types, registry, scheduled);
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(trigger_of(parts, x.node_name(), task1),
              scheduled ? chain[2] : "");
    EXPECT_EQ(trigger_of(parts, x.node_name(), cpu1), "");
    EXPECT_EQ(trigger_of(parts, v.node_name(), task1), "");
  }
}

// A node that may be dead (after a cond's Switch) or that follows a
// stateful op with inputs (a random op here; a dequeue could be waiting
// for the value itself) never triggers a Send; a loop beside the chain
// changes nothing.
TEST_F(passes, scheduled_recvs_never_wait_for_a_node_that_may_not_come) {
  using head_fn = std::function<graph::output(const graph::scope&)>;
  auto trigger = [&](const head_fn& head) {
    graph::scope s;
    auto here = s.with_device(task0);
    auto far = s.with_device(task1);
    auto x = graph::constant(here.sub("x"), 2.0f);
    auto y = head(far.sub("head"));
    for (int i = 1; i <= 4; ++i)
      y = graph::mul(far.sub("y" + std::to_string(i)), y, y);
    graph::add(far.sub("out"), y, graph::reduce_sum(far.sub("r"), x, {}));
    auto w = graph::constant(here.sub("w"), 1.0f);
    auto loop = graph::while_loop(
      far.sub("loop"),
      [](const graph::scope& c, const std::vector<graph::output>& v) {
        return graph::less(c, v[0], graph::constant(c, 10.0f));
      },
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        return std::vector<graph::output>{graph::add(b, v[0], w)};
      },
      {graph::constant(far.sub("zero"), 0.0f)});
    graph::mul(far.sub("after"), loop[0], y);
    graph::graph_types types;
    auto parts
      = partitioned_scheduled(checked(s, &types), types, registry, true);
    return trigger_of(parts, x.node_name(), task1);
  };
  EXPECT_EQ(trigger([](const graph::scope& at) {
              auto c = graph::constant(at, 1.5f);
              return graph::mul(at, c, c);
            }),
            "y2/Mul");
  EXPECT_EQ(trigger([](const graph::scope& at) {
              return graph::reduce_sum(at, graph::random_uniform(at, {2}), {});
            }),
            "");
  EXPECT_EQ(trigger([](const graph::scope& at) {
              auto c = graph::constant(at, 1.5f);
              return graph::cond(
                at, graph::constant(at, true),
                [&](const graph::scope& b) {
                  return std::vector<graph::output>{graph::mul(b, c, c)};
                },
                [&](const graph::scope& b) {
                  return std::vector<graph::output>{graph::neg(b, c)};
                })[0];
            }),
            "");
}
