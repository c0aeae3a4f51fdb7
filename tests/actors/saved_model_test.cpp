// TensorFlow 2 SavedModels (issue 55): models TensorFlow wrote
// (tests/golden/gen_saved_model_golden.py) load with their variables,
// their signatures run -- function calls inlined, tf.while_loop, tf.cond
// and tf.switch_case lowered onto the engine's frames -- and give
// TensorFlow's outputs bit for bit; a training signature updates the
// variables as TensorFlow's does; bad input is an error naming it.

#include <cstring>
#include <filesystem>
#include <fstream>

#include <set>

#include <gtest/gtest.h>

#include "actorflow/actorflow.hpp"
#include "actorflow/actors/saved_model_session.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::tensor;

namespace {

bool same_bits(const tensor& x, const tensor& y) {
  return x.dtype() == y.dtype() && x.shape() == y.shape()
         && std::memcmp(x.raw_data(), y.raw_data(), x.bytes()) == 0;
}

std::string model_dir(const std::string& name) {
  return std::string{ACTORFLOW_GOLDEN_DIR} + "/saved_model/" + name;
}

class saved_models : public ::testing::Test {
protected:
  /// Opens tests/golden/saved_model/<name>.
  std::unique_ptr<actors::saved_model_session> open(const std::string& name) {
    std::unique_ptr<actors::saved_model_session> m;
    auto st
      = actors::saved_model_session::open(e, model_dir(name), {"serve"}, &m);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return m;
  }

  /// Runs signature `key` of `m`, expecting success.
  std::map<std::string, tensor> run(actors::saved_model_session& m,
                                    const std::string& key,
                                    const std::map<std::string, tensor>& in) {
    std::map<std::string, tensor> out;
    auto st = m.run(key, in, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return out;
  }

  void expect_same(const tensor& got, const std::string& want) {
    EXPECT_TRUE(same_bits(got, golden[want]))
      << want << ": " << got.debug_string() << " vs "
      << golden[want].debug_string();
  }

  actors::engine e;
  std::map<std::string, tensor> golden = test::load_golden("saved_model.txt");
};

TEST_F(saved_models, a_keras_model_runs_by_input_and_output_key) {
  auto m = open("keras_multi");
  ASSERT_NE(m, nullptr);
  auto out
    = run(*m, "serving_default",
          {{"a", golden["keras_multi_a"]}, {"b", golden["keras_multi_b"]}});
  ASSERT_EQ(out.size(), 2u);
  expect_same(out["out1"], "keras_multi_out1");
  expect_same(out["out2"], "keras_multi_out2");
}

TEST_F(saved_models, a_keras3_export_runs_by_input_and_output_key) {
  // Keras 3's model.export: inputs and outputs by name, under both of
  // the signatures it writes.
  auto m = open("keras3_multi");
  ASSERT_NE(m, nullptr);
  for (const char* key : {"serve", "serving_default"}) {
    SCOPED_TRACE(key);
    auto out
      = run(*m, key,
            {{"a", golden["keras3_multi_a"]}, {"b", golden["keras3_multi_b"]}});
    ASSERT_EQ(out.size(), 2u);
    expect_same(out["out1"], "keras3_multi_out1");
    expect_same(out["out2"], "keras3_multi_out2");
  }
}

TEST_F(saved_models, keras3_layers_in_a_module_restore_by_object_path) {
  // The model's restore function assigns copies of the layer's variables;
  // the ones its signature reads are restored by their paths in the
  // object graph (dense/_kernel), as TensorFlow's loader does.
  auto m = open("keras3_module");
  ASSERT_NE(m, nullptr);
  auto out = run(*m, "serving_default", {{"x", golden["keras3_module_x"]}});
  ASSERT_EQ(out.size(), 1u);
  expect_same(out["y"], "keras3_module_y");
}

TEST_F(saved_models, functional_loops_and_branches_run_lowered) {
  auto m = open("control_flow");
  ASSERT_NE(m, nullptr);
  auto x = golden["control_flow_x"];
  expect_same(
    run(*m, "loop", {{"x", x}, {"n", tensor::scalar(int32_t{5})}})["y"],
    "control_flow_loop_y");
  // A function called in the loop's body: its constants in the frame.
  expect_same(
    run(*m, "loop_calls", {{"x", x}, {"n", tensor::scalar(int32_t{5})}})["y"],
    "control_flow_loop_calls_y");
  expect_same(run(*m, "branch", {{"p", tensor::scalar(2.0f)}})["z"],
              "control_flow_branch_pos");
  expect_same(run(*m, "branch", {{"p", tensor::scalar(-2.0f)}})["z"],
              "control_flow_branch_neg");
  for (int32_t k : {0, 1, 2, 7})
    expect_same(run(*m, "switch", {{"k", tensor::scalar(k)}, {"x", x}})["y"],
                "control_flow_switch_" + std::to_string(k));
  expect_same(run(*m, "nested", {{"x", x}})["y"], "control_flow_nested_y");
}

TEST_F(saved_models, a_training_signature_updates_the_variables) {
  auto m = open("control_flow");
  ASSERT_NE(m, nullptr);
  const auto& losses = golden["control_flow_train_loss"];
  for (int i = 0; i < 3; ++i) {
    auto loss = run(*m, "train", {{"x", golden["control_flow_x"]}})["loss"];
    ASSERT_EQ(loss.num_elements(), 1);
    EXPECT_EQ(loss.data<float>()[0], losses.data<float>()[i]) << "step " << i;
  }
  expect_same(run(*m, "read", {})["v"], "control_flow_trained_v");
  // A new session starts from the saved values.
  auto fresh = open("control_flow");
  ASSERT_NE(fresh, nullptr);
  auto v = run(*fresh, "read", {})["v"];
  EXPECT_EQ(v.data<float>()[0], 0.5f);
}

TEST_F(saved_models, a_loop_writing_a_tensor_array_runs_on_tensor_lists) {
  auto m = open("tensor_array");
  ASSERT_NE(m, nullptr);
  expect_same(run(*m, "cumsum", {{"x", golden["tensor_array_x"]}})["y"],
              "tensor_array_y");
}

TEST_F(saved_models, tensor_arrays_scatter_gather_split_and_concat) {
  // TensorListScatterIntoExistingList, Gather, Split, ConcatV2,
  // ScatterV2 and Resize (the items past the scatter read as zeros).
  auto m = open("tensor_list_bulk");
  ASSERT_NE(m, nullptr);
  auto out = run(*m, "bulk",
                 {{"x", golden["tensor_list_bulk_x"]},
                  {"order", golden["tensor_list_bulk_order"]},
                  {"lengths", golden["tensor_list_bulk_lengths"]}});
  for (const char* key : {"gathered", "stacked", "concat", "resized"})
    expect_same(out[key], std::string{"tensor_list_bulk_"} + key);
}

TEST_F(saved_models, keras_rnns_over_masked_sequences_give_tensorflows_output) {
  // Masking, LSTM and GRU: their TF2 loops over TensorLists inside an If.
  auto m = open("keras_rnn");
  ASSERT_NE(m, nullptr);
  auto out = run(*m, "serving_default", {{"seq", golden["keras_rnn_seq"]}});
  test::expect_all_near(out["lstm"], golden["keras_rnn_lstm"], 1e-5, "lstm");
  test::expect_all_near(out["gru"], golden["keras_rnn_gru"], 1e-5, "gru");
}

TEST_F(saved_models, a_gradient_through_a_loop_over_tensor_lists_trains) {
  // TensorFlow wrote the loop's gradient as a second loop popping the
  // TensorList accumulators the first pushes, with ZerosLike and AddN of
  // lists and VariableShape; three steps give TensorFlow's losses and
  // weights (tanh: within 1e-5 of the 6 digits written).
  auto m = open("loop_train");
  ASSERT_NE(m, nullptr);
  const auto& losses = golden["loop_train_loss"];
  for (int i = 0; i < 3; ++i) {
    auto loss = run(*m, "train", {{"x", golden["loop_train_x"]}})["loss"];
    ASSERT_EQ(loss.num_elements(), 1);
    EXPECT_NEAR(loss.data<float>()[0], losses.data<float>()[i],
                1e-5 * std::abs(losses.data<float>()[i]))
      << "step " << i;
  }
  auto weights = run(*m, "read", {});
  test::expect_all_near(weights["w"], golden["loop_train_w"], 1e-5, "w");
  test::expect_all_near(weights["u"], golden["loop_train_u"], 1e-5, "u");
}

TEST_F(saved_models, a_keras_lstm_trains_as_in_tensorflow) {
  auto m = open("keras_lstm_train");
  ASSERT_NE(m, nullptr);
  std::map<std::string, tensor> in{{"seq", golden["keras_lstm_train_seq"]},
                                   {"y", golden["keras_lstm_train_y"]}};
  const auto& losses = golden["keras_lstm_train_loss"];
  for (int i = 0; i < 3; ++i) {
    auto loss = run(*m, "train", in)["loss"];
    ASSERT_EQ(loss.num_elements(), 1);
    EXPECT_NEAR(loss.data<float>()[0], losses.data<float>()[i],
                1e-5 * std::abs(losses.data<float>()[i]))
      << "step " << i;
  }
  test::expect_all_near(run(*m, "read", {})["kernel"],
                        golden["keras_lstm_train_kernel"], 1e-5, "kernel");
}

TEST_F(saved_models, a_keras_cnn_with_batch_norm_gives_tensorflows_output) {
  auto m = open("keras_cnn");
  ASSERT_NE(m, nullptr);
  auto out = run(*m, "serving_default", {{"image", golden["keras_cnn_image"]}});
  test::expect_all_near(out["logits"], golden["keras_cnn_logits"], 1e-5,
                        "logits");
}

TEST_F(saved_models, bad_feeds_and_signatures_are_named) {
  auto m = open("keras_multi");
  ASSERT_NE(m, nullptr);
  std::map<std::string, tensor> out;
  auto a = golden["keras_multi_a"];
  auto b = golden["keras_multi_b"];
  auto st = m->run("predict", {{"a", a}, {"b", b}}, &out);
  EXPECT_EQ(st.code(), core::errc::not_found);
  EXPECT_NE(st.message().find("'serving_default'"), std::string::npos)
    << st.to_string();
  st = m->run("serving_default", {{"a", a}, {"b", b}, {"c", b}}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("'c' is not an input"), std::string::npos)
    << st.to_string();
  st = m->run("serving_default", {{"a", a}}, &out);
  EXPECT_NE(st.message().find("input 'b' is missing"), std::string::npos)
    << st.to_string();
  st = m->run("serving_default", {{"a", a}, {"b", tensor::scalar(int32_t{1})}},
              &out);
  EXPECT_NE(st.message().find("input 'b' takes float"), std::string::npos)
    << st.to_string();
  st = m->run("serving_default", {{"a", b}, {"b", b}}, &out);
  EXPECT_NE(st.message().find("input 'a' takes shape"), std::string::npos)
    << st.to_string();
}

TEST_F(saved_models, ops_the_engine_lacks_are_listed_at_once) {
  std::unique_ptr<actors::saved_model_session> m;
  auto st
    = actors::saved_model_session::open(e, model_dir("strings"), {"serve"}, &m);
  EXPECT_EQ(st.code(), core::errc::unimplemented);
  EXPECT_NE(st.message().find("StringLength"), std::string::npos);
  EXPECT_NE(st.message().find("StringUpper"), std::string::npos)
    << st.to_string();
  st = actors::saved_model_session::open(e, model_dir("keras_multi"), {"train"},
                                         &m);
  EXPECT_EQ(st.code(), core::errc::not_found);
  EXPECT_NE(st.message().find("{serve}"), std::string::npos) << st.to_string();
}

TEST_F(saved_models, trained_variables_export_as_a_saved_model) {
  // Three training steps, then the model's own save function (SaveV2,
  // MergeV2Checkpoints) writes the variables next to a copy of its graph.
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path()
             / ("actorflow_export_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto m = open("control_flow");
  ASSERT_NE(m, nullptr);
  for (int i = 0; i < 3; ++i)
    run(*m, "train", {{"x", golden["control_flow_x"]}});
  auto st = m->save(dir.string());
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  std::set<std::string> files;
  for (const auto& f : fs::recursive_directory_iterator(dir))
    if (f.is_regular_file())
      files.insert(fs::relative(f.path(), dir).string());
  EXPECT_EQ(
    files, (std::set<std::string>{"saved_model.pb", "variables/variables.index",
                                  "variables/variables.data-00000-of-00001"}));
  // Opened anew (an engine of its own: variables are per engine), the
  // export holds the trained value.
  {
    actors::engine other;
    std::unique_ptr<actors::saved_model_session> exported;
    st = actors::saved_model_session::open(other, dir.string(), {"serve"},
                                           &exported);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    expect_same(run(*exported, "read", {})["v"], "control_flow_trained_v");
  }
  // A Keras model's many variables, exported untouched, give its outputs.
  auto keras = open("keras_multi");
  ASSERT_NE(keras, nullptr);
  st = keras->save((dir / "keras").string());
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  {
    actors::engine other;
    std::unique_ptr<actors::saved_model_session> exported;
    st = actors::saved_model_session::open(other, (dir / "keras").string(),
                                           {"serve"}, &exported);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    auto out
      = run(*exported, "serving_default",
            {{"a", golden["keras_multi_a"]}, {"b", golden["keras_multi_b"]}});
    expect_same(out["out1"], "keras_multi_out1");
  }
  // Not over the model itself.
  st = m->save(model_dir("control_flow"));
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  fs::remove_all(dir);
}

TEST_F(saved_models, a_corrupt_variables_file_is_data_loss_naming_it) {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path()
             / ("actorflow_saved_model_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(model_dir("keras_multi"), dir, fs::copy_options::recursive);
  auto data = dir / "variables" / "variables.data-00000-of-00001";
  {
    std::fstream f{data, std::ios::in | std::ios::out | std::ios::binary};
    f.seekp(100);
    f.put('\x7f');
  }
  std::unique_ptr<actors::saved_model_session> m;
  auto st = actors::saved_model_session::open(e, dir.string(), {"serve"}, &m);
  EXPECT_EQ(st.code(), core::errc::data_loss) << st.to_string();
  EXPECT_NE(st.message().find("variables.data-00000-of-00001"),
            std::string::npos)
    << st.to_string();
  // A truncated index too.
  fs::resize_file(dir / "variables" / "variables.index", 40);
  st = actors::saved_model_session::open(e, dir.string(), {"serve"}, &m);
  EXPECT_EQ(st.code(), core::errc::data_loss) << st.to_string();
  EXPECT_NE(st.message().find("variables.index"), std::string::npos)
    << st.to_string();
  fs::remove_all(dir);
}

} // namespace
