// TensorFlow's GraphDef, out and back in (issue 15): a graph exported with
// interop::tensorflow::to_graph_def and imported with
// interop::tensorflow::from_graph_def runs to the same bits as the graph it
// came from -- a loop over two devices, and a training step with its gradients
// and optimizer (the variables after three steps) -- in binary and text form; a
// GraphDef in the form TensorFlow writes imports; what the engine lacks is a
// clear error.

#include <cstring>

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "actorflow/actorflow.hpp"
#include "common/golden.hpp"
#include "common/loop_cases.hpp"
#include "graph.pb.h"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

bool same_bits(const tensor& x, const tensor& y) {
  return x.dtype() == y.dtype() && x.shape() == y.shape()
         && std::memcmp(x.raw_data(), y.raw_data(), x.bytes()) == 0;
}

/// `g` through a GraphDef and back, in `format`.
graph::graph round_trip(const graph::graph& g, const ops::op_registry& ops,
                        interop::tensorflow::graph_def_format format) {
  std::string bytes;
  EXPECT_TRUE(interop::tensorflow::to_graph_def(g, &bytes).is_ok());
  if (format == interop::tensorflow::graph_def_format::text) {
    tfproto::GraphDef def;
    EXPECT_TRUE(def.ParseFromString(bytes));
    EXPECT_TRUE(google::protobuf::TextFormat::PrintToString(def, &bytes));
  }
  graph::graph back;
  auto st = interop::tensorflow::from_graph_def(bytes, format, ops, &back);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  return back;
}

/// Runs `steps` times: `targets`, then fetches `fetches`.
std::vector<tensor> run(actors::engine& e, const graph::graph& g,
                        const actors::feed_list& feeds,
                        const std::vector<std::string>& fetches,
                        const std::vector<std::string>& init,
                        const std::vector<std::string>& targets, int steps) {
  actors::session sess{e};
  auto st = sess.extend(g);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  std::vector<tensor> out;
  if (!init.empty()) {
    st = sess.run({}, {}, init, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
  }
  for (int i = 0; i < steps; ++i) {
    st = sess.run(feeds, {}, targets, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
  }
  st = sess.run(feeds, fetches, {}, &out);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  return out;
}

class graph_def
  : public ::testing::TestWithParam<interop::tensorflow::graph_def_format> {
protected:
  actors::engine e;
};

} // namespace

TEST_P(graph_def, a_loop_over_two_devices_runs_the_same_after_import) {
  graph::scope s{e.context().ops()};
  auto n
    = graph::placeholder(s.sub("n").with_device("cpu:0"), dtype::int64, {});
  auto loop
    = test::halving_loop(s.sub("loop").with_device("cpu:0"), n, "cpu:1");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto back = round_trip(s.graph_def(), e.context().ops(), GetParam());
  ASSERT_EQ(back.size(), s.graph_def().size());
  for (size_t i = 0; i < back.size(); ++i) {
    const auto& x = s.graph_def().nodes()[i];
    const auto& y = back.nodes()[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.inputs, y.inputs) << x.name;
    EXPECT_EQ(x.device, y.device) << x.name;
    EXPECT_EQ(x.attrs.size(), y.attrs.size()) << x.name;
  }
  actors::feed_list feeds{{n.name(), tensor::scalar(int64_t{20})}};
  auto want = run(e, s.graph_def(), feeds, {loop[1].name()}, {}, {}, 0);
  auto got = run(e, back, feeds, {loop[1].name()}, {}, {}, 0);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(same_bits(got[0], want[0])) << got[0].debug_string();
}

TEST_P(graph_def, a_training_step_trains_the_same_after_import) {
  graph::scope s{e.context().ops()};
  std::vector<float> xs(32), ys(4);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
  for (size_t i = 0; i < ys.size(); ++i)
    ys[i] = static_cast<float>(i) - 1.5f;
  auto x = graph::constant(s.sub("x"), tensor::from_vector<float>({4, 8}, xs));
  auto y = graph::constant(s.sub("y"), tensor::from_vector<float>({4, 1}, ys));
  auto w = graph::variable(
    s.sub("w"), graph::constant(s, tensor::from_vector<float>(
                                     {8, 1}, std::vector<float>(8, 0.125f))));
  auto b = graph::variable(s.sub("b"), graph::constant(s, 0.0f));
  auto err = graph::sub(s, graph::add(s, graph::matmul(s, x, w), b), y);
  auto loss
    = graph::reduce_mean(s.sub("loss"), graph::mul(s, err, err), {0, 1});
  graph::optimizer opt;
  opt.kind = graph::optimizer::algorithm::momentum;
  opt.learning_rate = 0.05;
  auto train = graph::minimize(s.sub("train"), loss, {w, b}, opt);
  auto init = std::vector<std::string>{s.initializer().name};
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto back = round_trip(s.graph_def(), e.context().ops(), GetParam());
  std::vector<std::string> fetches{w.name(), b.name(), loss.name()};
  auto want = run(e, s.graph_def(), {}, fetches, init, {train.name}, 3);
  auto got = run(e, back, {}, fetches, init, {train.name}, 3);
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(same_bits(got[i], want[i])) << fetches[i];
}

INSTANTIATE_TEST_SUITE_P(
  forms, graph_def,
  ::testing::Values(interop::tensorflow::graph_def_format::binary,
                    interop::tensorflow::graph_def_format::text),
  [](const auto& info) {
    return info.param == interop::tensorflow::graph_def_format::binary
             ? std::string{"binary"}
             : std::string{"text"};
  });

// What TensorFlow 1 writes for `tf.nn.relu(x + c)` (tf.io.write_graph,
// as_text): its devices, annotations starting with '_' and a splat
// constant (one value for four elements).
TEST(graph_def_import, a_graph_in_tensorflows_own_text_form_runs) {
  const char* text = R"pb(
    node {
      name: "x"
      op: "Placeholder"
      device: "/device:CPU:0"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 4 } } } }
      attr { key: "_output_shapes" value { list { shape { dim { size: 4 } } } } }
    }
    node {
      name: "c"
      op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr {
        key: "value"
        value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: -1.5 } }
      }
    }
    node {
      name: "add"
      op: "AddV2"
      input: "x"
      input: "c:0"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node {
      name: "relu"
      op: "Relu"
      input: "add"
      device: "/job:localhost/replica:0/task:0/device:CPU:0"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    versions { producer: 1882 }
  )pb";
  actors::engine e;
  graph::graph g;
  auto st = interop::tensorflow::from_graph_def(
    text, interop::tensorflow::graph_def_format::text, e.context().ops(), &g);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  auto out = run(e, g, {{"x", tensor::from_vector<float>({4}, {0, 1, 2, 3})}},
                 {"relu"}, {}, {}, 0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(
    same_bits(out[0], tensor::from_vector<float>({4}, {0, 0, 0.5f, 1.5f})))
    << out[0].debug_string();
}

TEST(graph_def_import, what_the_engine_lacks_is_an_error_naming_the_node) {
  actors::engine e;
  struct bad_case {
    const char* text;
    core::errc code;
    const char* node;
    const char* says;
  };
  for (
    const auto& c : std::vector<bad_case>{
      {R"(node { name: "q" op: "NoSuchOp" })", core::errc::unimplemented, "q",
       "NoSuchOp"},
      {R"(node { name: "r" op: "Relu" attr { key: "T" value { type: DT_FLOAT } }
                    attr { key: "frobnicate" value { i: 1 } } })",
       core::errc::invalid_argument, "r", "frobnicate"},
      {R"(node { name: "p" op: "Placeholder" attr { key: "dtype" value { i: 3 } } })",
       core::errc::invalid_argument, "p", "dtype"},
      // An attr the engine lacks, at a value other than TensorFlow's default.
      {R"(node { name: "e" op: "Equal" attr { key: "T" value { type: DT_FLOAT } }
                    attr { key: "incompatible_shape_error" value { b: false } } })",
       core::errc::invalid_argument, "e", "incompatible_shape_error"},
      // A quantized type; a resource is a string (its name), a variant
      // a TensorList.
      {R"(node { name: "h" op: "Placeholder" attr { key: "dtype" value { type: DT_QINT8 } } })",
       core::errc::unimplemented, "h", "DT_QINT8"},
      {R"(node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
                    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                                         tensor_content: "abc" } } } })",
       core::errc::invalid_argument, "k", "content bytes"}}) {
    graph::graph g;
    auto st = interop::tensorflow::from_graph_def(
      c.text, interop::tensorflow::graph_def_format::text, e.context().ops(),
      &g);
    EXPECT_EQ(st.code(), c.code) << st.to_string();
    EXPECT_EQ(st.node(), c.node) << st.to_string();
    EXPECT_NE(st.to_string().find(c.says), std::string::npos) << st.to_string();
  }
  graph::graph g;
  auto st = interop::tensorflow::from_graph_def(
    "\xff\xff\xff garbage", interop::tensorflow::graph_def_format::binary,
    e.context().ops(), &g);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  st = interop::tensorflow::from_graph_def(
    "node {", interop::tensorflow::graph_def_format::text, e.context().ops(),
    &g);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
}

// Graphs TensorFlow itself wrote (tests/golden/gen_graphdef_golden.py,
// TensorFlow 2.21's tf.compat.v1 with v1 control flow and reference
// variables), imported and run; TensorFlow's results in graphdef.txt.
class tensorflow_graphs : public ::testing::Test {
protected:
  /// Imports tests/golden/graphdef/<file> and runs it: `targets` of
  /// `init` once, of `train` `steps` times, then fetches `fetches`.
  std::vector<tensor> run_file(const std::string& file,
                               const actors::feed_list& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& init = {},
                               const std::vector<std::string>& train = {},
                               int steps = 0) {
    graph::graph g;
    auto st = interop::tensorflow::load_graph_def(
      std::string{ACTORFLOW_GOLDEN_DIR} + "/graphdef/" + file,
      e.context().ops(), &g);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return run(e, g, feeds, fetches, init, train, steps);
  }

  actors::engine e;
  std::map<std::string, tensor> golden = test::load_golden("graphdef.txt");
};

TEST_F(tensorflow_graphs, an_mlp_trains_three_steps_as_in_tensorflow) {
  auto out
    = run_file("mlp_train.pb",
               {{"x", golden["mlp_train_x"]}, {"y", golden["mlp_train_y"]}},
               {"w1", "b1", "w2", "loss"}, {"init"}, {"train"}, 3);
  ASSERT_EQ(out.size(), 4u);
  for (auto [i, name] : {std::pair{0, "w1"}, {1, "b1"}, {2, "w2"}, {3, "loss"}})
    test::expect_all_near(out[static_cast<size_t>(i)],
                          golden[std::string{"mlp_train_"} + name], 1e-10,
                          name);
}

TEST_F(tensorflow_graphs, a_frozen_inference_graph_gives_tensorflows_output) {
  auto out
    = run_file("frozen_mlp.pb", {{"x", golden["frozen_mlp_x"]}}, {"out"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(same_bits(out[0], golden["frozen_mlp_out"]))
    << out[0].debug_string();
}

TEST_F(tensorflow_graphs, a_cnn_gives_tensorflows_logits) {
  auto out = run_file("cnn.pb", {{"images", golden["cnn_images"]}}, {"logits"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(same_bits(out[0], golden["cnn_logits"])) << out[0].debug_string();
}

TEST_F(tensorflow_graphs, a_while_loop_rnn_gives_tensorflows_state) {
  auto out = run_file("rnn.pb", {{"seq", golden["rnn_seq"]}}, {"state"});
  ASSERT_EQ(out.size(), 1u);
  test::expect_all_near(out[0], golden["rnn_state"], 1e-5, "state");
}

TEST_F(tensorflow_graphs, nested_conds_take_every_branch_as_in_tensorflow) {
  for (auto file : {"nested_cond.pb", "nested_cond.pbtxt"})
    for (int p = 0; p < 2; ++p)
      for (int q = 0; q < 2; ++q) {
        auto out = run_file(file,
                            {{"p", tensor::scalar(p == 1)},
                             {"q", tensor::scalar(q == 1)},
                             {"x", golden["nested_cond_x"]}},
                            {"out"});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_TRUE(same_bits(
          out[0],
          golden["nested_cond_" + std::to_string(p) + std::to_string(q)]))
          << file << " p=" << p << " q=" << q << ": " << out[0].debug_string();
      }
}

TEST_F(tensorflow_graphs, tensor_arrays_map_fn_scan_and_their_gradient) {
  auto out = run_file("tensor_arrays.pb", {{"x", golden["tensor_arrays_x"]}},
                      {"filled", "mapped", "scanned", "dx"});
  ASSERT_EQ(out.size(), 4u);
  // Dyadic inputs: every value is exact whatever the order of the sums.
  for (auto [i, name] :
       {std::pair{0, "filled"}, {1, "mapped"}, {2, "scanned"}, {3, "dx"}})
    EXPECT_TRUE(same_bits(out[static_cast<size_t>(i)],
                          golden[std::string{"tensor_arrays_"} + name]))
      << name << ": " << out[static_cast<size_t>(i)].debug_string();
}

TEST_F(tensorflow_graphs, attrs_tensorflow_writes_with_their_defaults_import) {
  auto out = run_file(
    "default_attrs.pb",
    {{"a", golden["default_attrs_a"]}, {"b", golden["default_attrs_b"]}},
    {"bmm", "eq", "top_values", "top_indices"});
  ASSERT_EQ(out.size(), 4u);
  for (auto [i, name] :
       {std::pair{0, "bmm"}, {1, "eq"}, {2, "top_values"}, {3, "top_indices"}})
    EXPECT_TRUE(same_bits(out[static_cast<size_t>(i)],
                          golden[std::string{"default_attrs_"} + name]))
      << name << ": " << out[static_cast<size_t>(i)].debug_string();
}

TEST_F(tensorflow_graphs, dynamic_rnns_over_lstm_and_gru_cells_and_gradients) {
  // tf.nn.dynamic_rnn with sequence_length, LSTM batch-major and GRU
  // time-major, and TensorFlow's gradient graph of both (Assert,
  // ConcatOffset, InvertPermutation, Select by rows, TensorArray
  // gradients, stacks).
  std::vector<std::string> names{"lstm_out",
                                 "lstm_c",
                                 "lstm_h",
                                 "gru_out",
                                 "gru_h",
                                 "d_x",
                                 "d_lstm_kernel",
                                 "d_lstm_bias",
                                 "d_gru_gates_kernel",
                                 "d_gru_gates_bias",
                                 "d_gru_candidate_kernel",
                                 "d_gru_candidate_bias"};
  auto out = run_file("dynamic_rnn.pb",
                      {{"x", golden["dynamic_rnn_x"]},
                       {"lengths", golden["dynamic_rnn_lengths"]}},
                      names, {"init"}, {"set_weights"}, 1);
  ASSERT_EQ(out.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i)
    test::expect_all_near(out[i], golden["dynamic_rnn_" + names[i]], 1e-10,
                          names[i]);
}

TEST_F(tensorflow_graphs,
       mixture_of_experts_dispatch_in_both_styles_and_grads) {
  // tensor2tensor's dispatcher (Where, a dynamic SplitV, UnsortedSegmentSum)
  // and dynamic_partition / dynamic_stitch, with erf, cumsum, gather_nd,
  // scatter_nd, broadcast_to and TensorFlow's gradient graph of them all
  // (ParallelDynamicStitch, ScatterNd, StridedSliceGrad, ...).
  std::vector<std::string> names{"combined", "firsts", "load", "position",
                                 "spread",   "d_w",    "d_x"};
  auto out = run_file(
    "moe_dispatch.pb",
    {{"x", golden["moe_dispatch_x"]}, {"w", golden["moe_dispatch_w"]}}, names);
  ASSERT_EQ(out.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i)
    test::expect_all_near(out[i], golden["moe_dispatch_" + names[i]], 1e-10,
                          names[i]);
}

TEST_F(tensorflow_graphs, a_frozen_keras_cnn_gives_tensorflows_output) {
  // Conv2D, BatchNormalization (FusedBatchNormV3 under Keras' learning
  // phase: a PlaceholderWithDefault and a cond), ReLU6, DepthwiseConv2D
  // with a multiplier, global pooling and Dense; exact dyadic values.
  auto out = run_file("keras_cnn.pb", {{"conv2d_input", golden["keras_cnn_x"]}},
                      {"dense/BiasAdd"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(same_bits(out[0], golden["keras_cnn_y"]))
    << out[0].debug_string();
  // Fed, the learning phase is what was fed: training mode normalises by
  // the batch's statistics, and the output moves.
  out = run_file("keras_cnn.pb",
                 {{"conv2d_input", golden["keras_cnn_x"]},
                  {"keras_learning_phase", tensor::scalar(true)}},
                 {"dense/BiasAdd"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(same_bits(out[0], golden["keras_cnn_y"]));
}

TEST_F(tensorflow_graphs, a_frozen_keras_lstm_reads_its_weights_every_step) {
  // tf_keras' LSTM freezes its weights into the loop as constants that
  // Identity nodes read with no other input: they run in every iteration
  // as in TensorFlow's executor.
  auto out = run_file("keras_lstm.pb", {{"lstm_input", golden["keras_lstm_x"]}},
                      {"dense/BiasAdd"});
  ASSERT_EQ(out.size(), 1u);
  test::expect_all_near(out[0], golden["keras_lstm_y"], 1e-10, "y");
}

TEST_F(tensorflow_graphs,
       a_frozen_keras_transformer_block_gives_tensorflows_output) {
  // MultiHeadAttention's Einsums, Softmax, LayerNormalization (moments:
  // SquaredDifference, StopGradient), gelu (Erfc); float64.
  auto out
    = run_file("keras_attention.pb", {{"tokens", golden["keras_attention_x"]}},
               {"out/batchnorm/add_1"});
  ASSERT_EQ(out.size(), 1u);
  test::expect_all_near(out[0], golden["keras_attention_y"], 1e-10, "y");
}

TEST_F(tensorflow_graphs,
       frozen_keras_grouped_convolutions_give_tensorflows_output) {
  // Keras' Conv2D(groups > 1) -- ConvNeXt's group per channel, RegNet's
  // groups of several -- each a jit-compiled function behind a
  // PartitionedCall; exact dyadic values.
  auto out = run_file("keras_grouped.pb",
                      {{"conv2d_input", golden["keras_grouped_x"]}},
                      {"global_average_pooling2d/Mean"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(same_bits(out[0], golden["keras_grouped_y"]))
    << out[0].debug_string();
}

TEST(graph_def_import, nchw_graphs_compute_what_their_nhwc_twins_do) {
  // Graphs written on GPUs lay images out NCHW: the importer puts their
  // windowed ops between transposes. Each op here, in both layouts, on the
  // same numbers: the NCHW result is the NHWC one transposed.
  actors::engine e;
  auto values = [](core::shape s, int seed) {
    std::vector<float> v(static_cast<size_t>(s.num_elements()));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>((static_cast<int>(i) * 7 + seed) % 11 - 5) / 4;
    return tensor::from_vector<float>(s, v);
  };
  auto transposed = [&](const tensor& t, std::vector<int32_t> perm) {
    graph::scope s{e.context().ops()};
    auto y
      = graph::transpose(s, graph::constant(s, t), {perm.begin(), perm.end()});
    actors::session sess{e};
    EXPECT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<tensor> out;
    EXPECT_TRUE(sess.run({}, {y.name()}, {}, &out).is_ok());
    return out.empty() ? tensor{} : out[0];
  };
  auto image = values({2, 5, 6, 3}, 1);
  auto filter = values({3, 3, 3, 2}, 2);
  auto bias = values({2}, 3);
  auto dw_filter = values({2, 2, 2, 2}, 4);
  // `layout` applied to a window attr [1, h, w, 1].
  auto run_in = [&](const std::string& layout) {
    bool nchw = layout == "NCHW";
    auto window = [&](int64_t h, int64_t w) {
      return nchw ? std::vector<int64_t>{1, 1, h, w}
                  : std::vector<int64_t>{1, h, w, 1};
    };
    graph::graph g;
    auto add = [&](std::string name, std::string op,
                   std::vector<std::string> inputs, core::attr_map attrs) {
      core::node_def n;
      n.name = std::move(name);
      n.op = std::move(op);
      n.inputs = std::move(inputs);
      n.attrs = std::move(attrs);
      EXPECT_TRUE(g.add(std::move(n)).is_ok());
    };
    auto c = [&](std::string name, const tensor& t) {
      add(std::move(name), "Const", {}, {{"dtype", t.dtype()}, {"value", t}});
    };
    c("x", nchw ? transposed(image, {0, 3, 1, 2}) : image);
    c("f", filter);
    c("b", bias);
    c("dwf", dw_filter);
    auto sizes = nchw ? std::vector<int32_t>{2, 3, 5, 6}
                      : std::vector<int32_t>{2, 5, 6, 3};
    c("sizes", tensor::from_vector<int32_t>({4}, sizes));
    core::attr_map common{{"T", dtype::float32},
                          {"data_format", layout},
                          {"padding", std::string{"SAME"}}};
    auto with = [&](core::attr_map more) {
      auto all = common;
      for (auto& [k, v] : more)
        all[k] = v;
      return all;
    };
    add("conv", "Conv2D", {"x", "f"}, with({{"strides", window(1, 2)}}));
    add("biased", "BiasAdd", {"conv", "b"},
        {{"T", dtype::float32}, {"data_format", layout}});
    add("max", "MaxPool", {"biased"},
        with({{"ksize", window(2, 2)}, {"strides", window(2, 1)}}));
    add("avg", "AvgPool", {"biased"},
        with({{"ksize", window(3, 2)}, {"strides", window(1, 1)}}));
    add("dw", "DepthwiseConv2dNative", {"biased", "dwf"},
        with({{"strides", window(2, 2)}}));
    add("back", "Conv2DBackpropInput", {"sizes", "f", "conv"},
        with({{"strides", window(1, 2)}}));
    std::string bytes;
    EXPECT_TRUE(interop::tensorflow::to_graph_def(g, &bytes).is_ok());
    graph::graph imported;
    auto st = interop::tensorflow::from_graph_def(
      bytes, interop::tensorflow::graph_def_format::binary, e.context().ops(),
      &imported);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    actors::session sess{e};
    st = sess.extend(imported);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    std::vector<tensor> out;
    st = sess.run({}, {"biased", "max", "avg", "dw", "back"}, {}, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return out;
  };
  auto nhwc = run_in("NHWC");
  auto nchw = run_in("NCHW");
  ASSERT_EQ(nhwc.size(), 5u);
  ASSERT_EQ(nchw.size(), 5u);
  for (size_t i = 0; i < nhwc.size(); ++i)
    EXPECT_TRUE(same_bits(nchw[i], transposed(nhwc[i], {0, 3, 1, 2})))
      << "output " << i << ": " << nchw[i].debug_string();
}

TEST(graph_def_import, every_missing_op_is_named_at_once) {
  actors::engine e;
  graph::graph g;
  auto st = interop::tensorflow::from_graph_def(
    R"(node { name: "a" op: "NoSuchOp" }
                                   node { name: "b" op: "Relu" }
                                   node { name: "c" op: "OtherOp" }
                                   node { name: "d" op: "NoSuchOp" })",
    interop::tensorflow::graph_def_format::text, e.context().ops(), &g);
  EXPECT_EQ(st.code(), core::errc::unimplemented) << st.to_string();
  EXPECT_EQ(st.node(), "a") << st.to_string();
  auto text = st.to_string();
  for (auto says : {"2 ops", "NoSuchOp (2 nodes, first 'a')",
                    "OtherOp (1 node: 'c')", "actorflow ops --missing"})
    EXPECT_NE(text.find(says), std::string::npos) << says << " in " << text;
}
