// TensorFlow 2's resource variables, TensorLists and the ops of a
// SavedModel's save function, op by op: what the SavedModels of
// saved_model_test use, and the ops they do not.

#include <filesystem>

#include <unistd.h>

#include <gtest/gtest.h>

#include "actorflow/actorflow.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

core::node_def node(std::string name, std::string op,
                    std::vector<std::string> inputs, core::attr_map attrs) {
  return core::node_def{std::move(name), std::move(op), std::move(inputs), "",
                        std::move(attrs)};
}

core::node_def constant(std::string name, tensor value) {
  auto type = value.dtype();
  return node(std::move(name), "Const", {},
              {{"value", std::move(value)}, {"dtype", type}});
}

/// Runs `nodes` once: `targets` first (one step each, in order), then
/// fetches `fetches`.
core::status run(const std::vector<core::node_def>& nodes,
                 const std::vector<std::vector<std::string>>& steps,
                 const std::vector<std::string>& fetches,
                 std::vector<tensor>* out) {
  graph::graph g;
  for (const auto& n : nodes)
    ACTORFLOW_RETURN_IF_ERROR(g.add(n));
  actors::engine e;
  actors::session sess{e};
  ACTORFLOW_RETURN_IF_ERROR(sess.extend(g));
  std::vector<tensor> none;
  for (const auto& targets : steps)
    ACTORFLOW_RETURN_IF_ERROR(sess.run({}, {}, targets, &none));
  return sess.run({}, fetches, {}, out);
}

TEST(resource_variables, assign_update_and_read_through_a_handle) {
  std::vector<core::node_def> nodes{
    node("v", "VarHandleOp", {},
         {{"dtype", dtype::float32},
          {"shape", core::shape{2}},
          {"shared_name", std::string{"v"}}}),
    node("init_before", "VarIsInitializedOp", {"v"}, {}),
    constant("one_two", tensor::from_vector<float>({2}, {1, 2})),
    constant("halves", tensor::from_vector<float>({2}, {0.5f, 0.5f})),
    node("assign", "AssignVariableOp", {"v", "one_two"},
         {{"dtype", dtype::float32}}),
    node("add", "AssignAddVariableOp", {"v", "halves"},
         {{"dtype", dtype::float32}}),
    node("sub", "AssignSubVariableOp", {"v", "halves", "^add"},
         {{"dtype", dtype::float32}}),
    node("no_copy", "DisableCopyOnRead", {"v"}, {}),
    node("read", "ReadVariableOp", {"v", "^no_copy"},
         {{"dtype", dtype::float32}}),
    node("init_after", "VarIsInitializedOp", {"v"}, {}),
    constant("rows", tensor::from_vector<int32_t>({3}, {1, 0, 1})),
    node("gather", "ResourceGather", {"v", "rows"},
         {{"dtype", dtype::float32}, {"Tindices", dtype::int32}}),
    node("var_shape", "VariableShape", {"v"}, {{"out_type", dtype::int64}})};
  std::vector<tensor> out;
  // assign; add; sub, which adds first: 1.5, 2.5.
  auto st = run(nodes, {{"assign"}, {"add"}, {"sub"}},
                {"read", "init_after", "gather", "var_shape"}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0], tensor::from_vector<float>({2}, {1.5f, 2.5f}))
    << out[0].debug_string();
  EXPECT_TRUE(out[1].scalar_value<bool>());
  // Keras' Embedding: rows of the variable.
  EXPECT_EQ(out[2], tensor::from_vector<float>({3}, {2.5f, 1.5f, 2.5f}))
    << out[2].debug_string();
  EXPECT_EQ(out[3], tensor::from_vector<int64_t>({1}, {2}));
  st = run(nodes, {}, {"init_before"}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_FALSE(out[0].scalar_value<bool>());
  // Reading a variable never assigned names it.
  st = run(nodes, {}, {"read"}, &out);
  EXPECT_EQ(st.code(), core::errc::failed_precondition) << st.to_string();
  EXPECT_NE(st.message().find("uninitialized value v"), std::string::npos)
    << st.to_string();
}

TEST(tensor_lists, push_pop_stack_and_shapes) {
  auto shape = tensor::from_vector<int32_t>({1}, {2});
  std::vector<core::node_def> nodes{
    constant("shape", shape), constant("max", tensor::scalar(int32_t{-1})),
    node("empty", "EmptyTensorList", {"shape", "max"},
         {{"element_dtype", dtype::float32}, {"shape_type", dtype::int32}}),
    constant("a", tensor::from_vector<float>({2}, {1, 2})),
    constant("b", tensor::from_vector<float>({2}, {3, 4})),
    node("one", "TensorListPushBack", {"empty", "a"},
         {{"element_dtype", dtype::float32}}),
    node("two", "TensorListPushBack", {"one", "b"},
         {{"element_dtype", dtype::float32}}),
    node("length", "TensorListLength", {"two"}, {}),
    node("element_shape", "TensorListElementShape", {"two"},
         {{"shape_type", dtype::int32}}),
    node("popped", "TensorListPopBack", {"two", "shape"},
         {{"element_dtype", dtype::float32}}),
    node("stacked", "TensorListStack", {"two", "shape"},
         {{"element_dtype", dtype::float32}}),
    node("rest", "TensorListStack", {"popped", "shape"},
         {{"element_dtype", dtype::float32}}),
    // A list of three, item 1 set: the others read as zeros.
    constant("three", tensor::scalar(int32_t{3})),
    constant("index", tensor::scalar(int32_t{1})),
    node("reserved", "TensorListReserve", {"shape", "three"},
         {{"element_dtype", dtype::float32}, {"shape_type", dtype::int32}}),
    node("set", "TensorListSetItem", {"reserved", "index", "b"},
         {{"element_dtype", dtype::float32}}),
    node("sparse", "TensorListStack", {"set", "shape"},
         {{"element_dtype", dtype::float32}}),
    node("from", "TensorListFromTensor", {"stacked", "shape"},
         {{"element_dtype", dtype::float32}, {"shape_type", dtype::int32}}),
    node("row", "TensorListGetItem", {"from", "index", "shape"},
         {{"element_dtype", dtype::float32}}),
    constant("nine", tensor::scalar(int32_t{9})),
    node("out_of_range", "TensorListGetItem", {"from", "nine", "shape"},
         {{"element_dtype", dtype::float32}})};
  std::vector<tensor> out;
  auto st = run(
    nodes, {},
    {"length", "element_shape", "popped:1", "stacked", "rest", "sparse", "row"},
    &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0].scalar_value<int32_t>(), 2);
  EXPECT_EQ(out[1], shape);
  EXPECT_EQ(out[2], tensor::from_vector<float>({2}, {3, 4}));
  EXPECT_EQ(out[3], tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}));
  // Popping made a new list: the one it popped from still has both.
  EXPECT_EQ(out[4], tensor::from_vector<float>({1, 2}, {1, 2}));
  EXPECT_EQ(out[5], tensor::from_vector<float>({3, 2}, {0, 0, 3, 4, 0, 0}));
  EXPECT_EQ(out[6], tensor::from_vector<float>({2}, {3, 4}));
  st = run(nodes, {}, {"out_of_range"}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_NE(st.message().find("index 9 is out of a list of 2"),
            std::string::npos)
    << st.to_string();
}

TEST(tensor_lists, scatter_concat_and_their_bad_input) {
  auto shape = tensor::from_vector<int32_t>({1}, {2});
  auto rows = tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  std::vector<core::node_def> nodes{
    constant("shape", shape), constant("rows", rows),
    constant("indices", tensor::from_vector<int32_t>({2}, {3, 1})),
    // Items 3 and 1 set, 0 and 2 never: four items.
    node("scattered", "TensorListScatter", {"rows", "indices", "shape"},
         {{"element_dtype", dtype::float32}, {"shape_type", dtype::int32}}),
    node("length", "TensorListLength", {"scattered"}, {}),
    node("stacked", "TensorListStack", {"scattered", "shape"},
         {{"element_dtype", dtype::float32}}),
    constant("any", tensor::from_vector<int32_t>({1}, {-1})),
    constant("leading", tensor::from_vector<int64_t>({4}, {1, 1, 2, 1})),
    node("concat", "TensorListConcatV2", {"scattered", "any", "leading"},
         {{"element_dtype", dtype::float32}, {"shape_type", dtype::int32}}),
    constant("no_leading", tensor{dtype::int64, core::shape{0}}),
    node("concat_unsized", "TensorListConcatV2",
         {"scattered", "any", "no_leading"},
         {{"element_dtype", dtype::float32}, {"shape_type", dtype::int32}}),
    constant("unknown", tensor::scalar(int32_t{-1})),
    constant("lengths", tensor::from_vector<int64_t>({1}, {1})),
    node("split", "TensorListSplit", {"rows", "unknown", "lengths"},
         {{"element_dtype", dtype::float32}, {"shape_type", dtype::int32}}),
    constant("nine", tensor::from_vector<int32_t>({1}, {9})),
    node("gather_out", "TensorListGather", {"scattered", "nine", "shape"},
         {{"element_dtype", dtype::float32}})};
  std::vector<tensor> out;
  auto st = run(nodes, {}, {"length", "stacked", "concat", "concat:1"}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0].scalar_value<int32_t>(), 4);
  EXPECT_EQ(out[1],
            tensor::from_vector<float>({4, 2}, {0, 0, 3, 4, 0, 0, 1, 2}));
  // The items (vectors of 2) joined along their first dimension; the
  // unset ones are as long as leading_dims says (1 and 2) of zeros.
  EXPECT_EQ(out[2], tensor::from_vector<float>({7}, {0, 3, 4, 0, 0, 1, 2}));
  EXPECT_EQ(out[3], tensor::from_vector<int64_t>({4}, {1, 2, 2, 2}));
  auto fails = [&](const std::string& fetch, const std::string& why) {
    SCOPED_TRACE(fetch);
    auto st = run(nodes, {}, {fetch}, &out);
    EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
    EXPECT_NE(st.message().find(why), std::string::npos) << st.to_string();
  };
  fails("concat_unsized", "item 0 was never set");
  fails("split", "leave rows of a tensor of 2 unused");
  fails("gather_out", "index 9 is out of a list of 4");
}

TEST(tensor_lists, zeros_like_and_add_n_of_lists) {
  // What TensorFlow's loop gradients do with the lists they carry: an
  // item unset in one list of a sum is the other's, and ZerosLike keeps
  // unset items unset.
  auto shape = tensor::from_vector<int32_t>({1}, {2});
  std::vector<core::node_def> nodes{
    constant("shape", shape),
    constant("three", tensor::scalar(int32_t{3})),
    constant("index", tensor::scalar(int32_t{1})),
    constant("b", tensor::from_vector<float>({2}, {10, 20})),
    node("reserved", "TensorListReserve", {"shape", "three"},
         {{"element_dtype", dtype::float32}, {"shape_type", dtype::int32}}),
    node("sparse", "TensorListSetItem", {"reserved", "index", "b"},
         {{"element_dtype", dtype::float32}}),
    constant("rows", tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6})),
    node("full", "TensorListFromTensor", {"rows", "shape"},
         {{"element_dtype", dtype::float32}, {"shape_type", dtype::int32}}),
    node("sum", "AddN", {"sparse", "full", "sparse"},
         {{"T", dtype::variant}, {"N", int64_t{3}}}),
    node("summed", "TensorListStack", {"sum", "shape"},
         {{"element_dtype", dtype::float32}}),
    node("zeros", "ZerosLike", {"sparse"}, {{"T", dtype::variant}}),
    node("zero_sum", "AddN", {"zeros", "full"},
         {{"T", dtype::variant}, {"N", int64_t{2}}}),
    node("zero_summed", "TensorListStack", {"zero_sum", "shape"},
         {{"element_dtype", dtype::float32}}),
    constant("two_rows", tensor::from_vector<float>({2, 2}, {1, 2, 3, 4})),
    node("shorter", "TensorListFromTensor", {"two_rows", "shape"},
         {{"element_dtype", dtype::float32}, {"shape_type", dtype::int32}}),
    node("mismatch", "AddN", {"full", "shorter"},
         {{"T", dtype::variant}, {"N", int64_t{2}}})};
  std::vector<tensor> out;
  auto st = run(nodes, {}, {"summed", "zero_summed"}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0], tensor::from_vector<float>({3, 2}, {1, 2, 23, 44, 5, 6}))
    << out[0].debug_string();
  EXPECT_EQ(out[1], tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6}))
    << out[1].debug_string();
  st = run(nodes, {}, {"mismatch"}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_NE(st.message().find("lists of 3 and 2 items do not add"),
            std::string::npos)
    << st.to_string();
}

TEST(save_function_ops, strings_name_the_files_and_bundles_round_trip) {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path()
             / ("actorflow_bundle_ops_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto str = [](std::string v) { return tensor::scalar(std::move(v)); };
  auto prefix = (dir / "ckpt").string();
  auto names = [](std::vector<std::string> v) {
    tensor t{dtype::string, core::shape{static_cast<int64_t>(v.size())}};
    std::copy(v.begin(), v.end(), t.mutable_data<std::string>());
    return t;
  };
  tensor words = names({"a", "", "longer word"});
  auto weights = tensor::from_vector<float>({2, 2}, {1.5f, -2, 0.25f, 8});
  auto steps = tensor::from_vector<int64_t>({1}, {1});
  std::vector<core::node_def> nodes{
    constant("prefix", str(prefix)),
    constant("suffix", str("_temp/part")),
    constant("parts", names({"x", "y"})),
    node("joined", "StringJoin", {"prefix", "suffix"}, {{"N", int64_t{2}}}),
    node("joined_each", "StringJoin", {"parts", "suffix"},
         {{"N", int64_t{2}}, {"separator", std::string{"-"}}}),
    node("is_s3", "StaticRegexFullMatch", {"prefix"},
         {{"pattern", std::string{"^s3://.*"}}}),
    constant("shard", tensor::scalar(int32_t{0})),
    constant("shards", tensor::scalar(int32_t{1})),
    node("shard_name", "ShardedFilename", {"joined", "shard", "shards"}, {}),
    constant("keys", names({"w", "words", "step"})),
    constant("slices", names({"", "", ""})),
    constant("w", weights),
    constant("words", words),
    constant("step", steps),
    node("save", "SaveV2",
         {"shard_name", "keys", "slices", "w", "words", "step"},
         {{"dtypes",
           std::vector<dtype>{dtype::float32, dtype::string, dtype::int64}}}),
    node("shard_list", "Pack", {"shard_name", "^save"},
         {{"N", int64_t{1}}, {"T", dtype::string}, {"axis", int64_t{0}}}),
    node("merge", "MergeV2Checkpoints", {"shard_list", "prefix"}, {}),
    constant("read_keys", names({"words", "w"})),
    constant("read_slices", names({"", ""})),
    node("restore", "RestoreV2", {"prefix", "read_keys", "read_slices"},
         {{"dtypes", std::vector<dtype>{dtype::string, dtype::float32}}})};
  std::vector<tensor> out;
  auto st = run(
    nodes, {{"merge"}},
    {"joined", "joined_each", "is_s3", "shard_name", "restore", "restore:1"},
    &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0], str(prefix + "_temp/part"));
  EXPECT_EQ(out[1], names({"x-_temp/part", "y-_temp/part"}));
  EXPECT_EQ(out[2].scalar_value<bool>(), false);
  EXPECT_EQ(out[3], str(prefix + "_temp/part-00000-of-00001"));
  EXPECT_EQ(out[4], words);
  EXPECT_EQ(out[5], weights);
  // The merge left the bundle at the prefix and removed the shard and its
  // directory.
  EXPECT_TRUE(fs::exists(prefix + ".index"));
  EXPECT_TRUE(fs::exists(prefix + ".data-00000-of-00001"));
  EXPECT_FALSE(fs::exists(prefix + "_temp"));
  // A slice spec is refused, and so is a key saved twice.
  nodes.push_back(constant("a_slice", names({"2 2 0,1:-"})));
  nodes.push_back(constant("one_key", names({"w"})));
  nodes.push_back(node("save_slice", "SaveV2",
                       {"prefix", "one_key", "a_slice", "w"},
                       {{"dtypes", std::vector<dtype>{dtype::float32}}}));
  st = run(nodes, {{"save_slice"}}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::unimplemented) << st.to_string();
  nodes.push_back(constant("same_keys", names({"w", "w"})));
  nodes.push_back(constant("two_slices", names({"", ""})));
  nodes.push_back(node(
    "save_twice", "SaveV2", {"prefix", "same_keys", "two_slices", "w", "w"},
    {{"dtypes", std::vector<dtype>{dtype::float32, dtype::float32}}}));
  st = run(nodes, {{"save_twice"}}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_NE(st.message().find("saved twice"), std::string::npos)
    << st.to_string();
  fs::remove_all(dir);
}

} // namespace
