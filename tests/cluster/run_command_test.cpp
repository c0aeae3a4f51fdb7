// `actorflow run`: a saved graph, feeds and fetches as .npy files, run from
// the shell in one process and on two real `actorflow worker` processes,
// against the same graph run in this process.

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/interop/npy.hpp"
#include "actorflow/interop/tensorflow/graph_def.hpp"
#include "actorflow/net/graph_codec.hpp"
#include "actorflow/ops/registration.hpp"
#include "common/command.hpp"
#include "common/loop_cases.hpp"
#include "common/trace_checks.hpp"
#include "common/worker_processes.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using test::run_command;

namespace {

tensor iota(const core::shape& s, float scale) {
  std::vector<float> v(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = scale * static_cast<float>(i % 13) - 1.0f;
  return tensor::from_vector<float>(s, v);
}

bool same_bits(const tensor& x, const tensor& y) {
  return x.dtype() == y.dtype() && x.shape() == y.shape()
         && x.bytes() == y.bytes()
         && std::memcmp(x.raw_data(), y.raw_data(), x.bytes()) == 0;
}

/// Figure 1, relu(W x + b), with W and b on device `a` and the rest on
/// `b`; x is fed.
struct figure {
  graph::graph g;
  std::string x, add, relu; ///< Tensor names.
};

figure figure_one(const ops::op_registry& registry, const std::string& a,
                  const std::string& b) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {16, 8});
  auto w = graph::constant(s.sub("W").with_device(a), iota({12, 16}, 0.07f));
  auto bias = graph::constant(s.sub("b").with_device(a), iota({12, 1}, 0.2f));
  auto add
    = graph::add(s.sub("add").with_device(b),
                 graph::matmul(s.sub("matmul").with_device(b), w, x), bias);
  auto relu = graph::relu(s.sub("relu").with_device(b), add);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return {s.graph_def(), x.name(), add.name(), relu.name()};
}

class run_command_test : public ::testing::Test {
protected:
  run_command_test() {
    dir_
      = std::filesystem::path{::testing::TempDir()}
        / ("actorflow-run-" + std::to_string(::getpid()) + "-"
           + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    EXPECT_TRUE(interop::save_npy(x_, path("x.npy")).is_ok());
    EXPECT_TRUE(ops::register_ops(registry_).is_ok());
  }

  ~run_command_test() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::string path(const std::string& name) const {
    return (dir_ / name).string();
  }

  /// Saves the graph to `name` in the test's folder.
  std::string save(const figure& f, const std::string& name) {
    EXPECT_TRUE(net::save_graph(f.g, path(name)).is_ok());
    return path(name);
  }

  /// relu(W x + b) computed in this process, over cpu:0 and cpu:1.
  tensor expected() {
    actors::engine e;
    actors::session sess{e};
    auto f = figure_one(e.context().ops(), "cpu:0", "cpu:1");
    EXPECT_TRUE(sess.extend(f.g).is_ok());
    std::vector<tensor> out;
    EXPECT_TRUE(sess.run({{f.x, x_}}, {f.relu}, {}, &out).is_ok());
    return out.empty() ? tensor{} : out[0];
  }

  std::string cli_ = ACTORFLOW_CLI;
  std::filesystem::path dir_;
  tensor x_ = iota({16, 8}, 0.11f);
  ops::op_registry registry_;
};

} // namespace

TEST_F(run_command_test, runs_a_saved_graph_in_one_process) {
  auto f = figure_one(registry_, "cpu:0", "cpu:1");
  auto r = run_command(cli_ + " run --graph " + save(f, "g.afg") + " --feed "
                       + f.x + "=" + path("x.npy") + " --fetch " + f.relu + "="
                       + path("y.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(f.relu + " = tensor<float, [12,8]>"),
            std::string::npos)
    << r.output;
  tensor y;
  ASSERT_TRUE(interop::load_npy(path("y.npy"), &y).is_ok());
  EXPECT_TRUE(same_bits(y, expected())) << y.debug_string();
}

TEST_F(run_command_test, runs_a_saved_graph_on_two_worker_processes) {
  test::worker_processes procs{ACTORFLOW_CLI, 2};
  ASSERT_TRUE(procs.ok()) << procs.error();
  ASSERT_TRUE(procs.write_config(path("cluster.yaml")));
  auto f = figure_one(registry_, "/job:worker/task:0/device:cpu:0",
                      "/job:worker/task:1/device:cpu:1");
  auto r = run_command(cli_ + " run --config " + path("cluster.yaml")
                       + " --graph " + save(f, "g.afg") + " --feed " + f.x + "="
                       + path("x.npy") + " --fetch " + f.relu + "="
                       + path("y.npy") + " --fetch " + f.add);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(f.add + " = tensor<float, [12,8]>"),
            std::string::npos)
    << r.output;
  tensor y;
  ASSERT_TRUE(interop::load_npy(path("y.npy"), &y).is_ok());
  EXPECT_TRUE(same_bits(y, expected())) << y.debug_string();
}

// Each mistake exits 1 with a message that names what is wrong.
TEST_F(run_command_test, bad_input_is_a_clear_error) {
  auto f = figure_one(registry_, "cpu:0", "cpu:1");
  auto graph = save(f, "g.afg");
  auto far = save(figure_one(registry_, "/job:ps/task:0", "cpu:0"), "far.afg");
  auto broken = path("broken.npy");
  std::ofstream{broken} << "not numpy";
  auto fetch = " --fetch " + f.relu;
  auto feed = " --feed " + f.x + "=";
  struct bad_case {
    std::string args;
    std::string says;
  };
  for (const auto& [args, says] : std::vector<bad_case>{
         {"--graph " + graph + feed + path("none.npy") + fetch,
          "feed " + f.x + ": cannot open " + path("none.npy")},
         {"--graph " + graph + feed + broken + fetch,
          "feed " + f.x + ": " + broken + ": not a .npy file"},
         {"--graph " + graph + " --feed " + f.x + fetch, "is not name=file"},
         {"--graph " + graph + feed + path("x.npy") + " --fetch nope", "nope"},
         {"--graph " + graph + fetch, f.x},
         {"--graph " + far + feed + path("x.npy") + fetch, "no device matches"},
         {"--graph " + path("x.npy") + fetch, path("x.npy")}}) {
    SCOPED_TRACE(args);
    auto r = run_command(cli_ + " run " + args);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("actorflow run: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
  }
}

namespace {

/// The halving loop, its counter on cpu:0 and its body on cpu:1, and a
/// node run after the loop by a control edge.
struct loop_graph {
  graph::graph g;
  std::string n, x; ///< Tensor names: the count fed, the loop's result.
};

loop_graph halving(const ops::op_registry& registry) {
  graph::scope s{registry};
  auto n
    = graph::placeholder(s.sub("n").with_device("cpu:0"), dtype::int64, {});
  auto loop
    = test::halving_loop(s.sub("loop").with_device("cpu:0"), n, "cpu:1");
  graph::identity(s.sub("after").with_device("cpu:0").with_control_dependencies(
                    {loop[1].op()}),
                  n);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return {s.graph_def(), n.name(), loop[1].name()};
}

/// Saves `f` to `graph` and a count of 5 for it to `n_npy`.
void save_halving(const loop_graph& f, const std::string& graph,
                  const std::string& n_npy) {
  EXPECT_TRUE(net::save_graph(f.g, graph).is_ok());
  EXPECT_TRUE(interop::save_npy(tensor::scalar(int64_t{5}), n_npy).is_ok());
}

} // namespace

TEST_F(run_command_test, graph_show_draws_frames_devices_and_control_edges) {
  auto f = halving(registry_);
  auto graph = path("loop.afg");
  save_halving(f, graph, path("n.npy"));
  auto list = run_command(cli_ + " graph show " + graph);
  ASSERT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find(" = Enter("), std::string::npos) << list.output;
  auto r
    = run_command(cli_ + " graph show " + graph + " --dot -o " + path("g.dot"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in{path("g.dot")};
  std::string dot{std::istreambuf_iterator<char>{in}, {}};
  EXPECT_EQ(dot.rfind("digraph actorflow {", 0), 0u) << dot;
  // Two loop frames, the inner nested in the outer; two devices; the
  // control edge dashed.
  auto outer = dot.find("label=\"loop ");
  ASSERT_NE(outer, std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"loop ", outer + 1), std::string::npos) << dot;
  size_t legend = 0;
  for (auto at = dot.find("\"legend "); at != std::string::npos;
       at = dot.find("\"legend ", at + 1))
    ++legend;
  EXPECT_EQ(legend, 2u) << dot;
  EXPECT_NE(dot.find("[style=dashed]"), std::string::npos) << dot;
  // Graphviz itself reads it.
  auto svg = run_command("dot -Tsvg " + path("g.dot") + " -o " + path("g.svg"));
  EXPECT_EQ(svg.exit_code, 0) << svg.output;
}

TEST_F(run_command_test, graph_show_partitions_draws_what_a_run_placed) {
  auto f = halving(registry_);
  auto graph = path("loop.afg");
  save_halving(f, graph, path("n.npy"));
  auto r = run_command(cli_ + " graph show " + graph + " --partitions --dot"
                       + " --feed " + f.n + "=" + path("n.npy") + " --fetch "
                       + f.x + " -o " + path("p.dot"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in{path("p.dot")};
  std::string dot{std::istreambuf_iterator<char>{in}, {}};
  EXPECT_NE(dot.find("subgraph \"cluster_p0/\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("subgraph \"cluster_p1/\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("style=dotted"), std::string::npos) << dot; // Send->Recv
  auto svg = run_command("dot -Tsvg " + path("p.dot") + " -o " + path("p.svg"));
  EXPECT_EQ(svg.exit_code, 0) << svg.output;
}

TEST_F(run_command_test, run_trace_writes_a_chrome_trace_of_the_step) {
  auto f = halving(registry_);
  auto graph = path("loop.afg");
  save_halving(f, graph, path("n.npy"));
  auto r = run_command(cli_ + " run --graph " + graph + " --feed " + f.n + "="
                       + path("n.npy") + " --fetch " + f.x + " --trace "
                       + path("t.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in{path("t.json")};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  test::expect_trace_structure(text, 1);
}

TEST_F(run_command_test, runs_a_tensorflow_graph_def_file) {
  auto f = figure_one(registry_, "cpu:0", "cpu:1");
  ASSERT_TRUE(interop::tensorflow::save_graph_def(f.g, path("g.pb")).is_ok());
  auto r
    = run_command(cli_ + " run --graph " + path("g.pb") + " --feed " + f.x + "="
                  + path("x.npy") + " --fetch " + f.relu + "=" + path("y.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  tensor y;
  ASSERT_TRUE(interop::load_npy(path("y.npy"), &y).is_ok());
  EXPECT_TRUE(same_bits(y, expected())) << y.debug_string();
  auto show = run_command(cli_ + " graph show " + path("g.pb"));
  EXPECT_EQ(show.exit_code, 0) << show.output;
  EXPECT_NE(show.output.find(" = MatMul("), std::string::npos) << show.output;
  // What to feed and what to fetch, before the nodes.
  EXPECT_EQ(show.output.rfind("# feed x: float [16,8]\n", 0), 0u)
    << show.output;
  EXPECT_NE(show.output.find("\n# fetch " + f.relu + " (Relu)\n"),
            std::string::npos)
    << show.output;
}
