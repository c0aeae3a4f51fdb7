// Runs every op case of the golden case files (tests/golden/*_cases.txt,
// computed with numpy by gen_case_golden.py) through the CPU kernels, and
// checks each op's shape function against the shapes the kernel produced:
// with everything known, with only ranks known and with nothing known.

#include <set>

#include <gtest/gtest.h>

#include "common/kernel_runner.hpp"
#include "common/op_cases.hpp"

using namespace actorflow;

namespace {

/// Checks that the shape function of `c.op` agrees with `actual`, the
/// shapes the kernel produced, for more and less known inputs.
void check_shape_function(const test::kernel_runner& runner,
                          const test::op_case& c,
                          const std::vector<core::tensor>& actual) {
  std::vector<core::shape> full, ranks, unknown;
  std::map<size_t, core::tensor> constants;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const auto& s = c.inputs[i].shape();
    full.push_back(s);
    ranks.push_back(
      core::shape{std::vector<int64_t>(static_cast<size_t>(s.rank()), -1)});
    unknown.push_back(core::shape::unknown());
    constants.emplace(i, c.inputs[i]);
  }
  struct variant {
    const char* what;
    const std::vector<core::shape>* shapes;
    bool with_constants;
  };
  for (auto v :
       {variant{"known", &full, true}, variant{"known", &full, false},
        variant{"ranks", &ranks, false}, variant{"unknown", &unknown, false}}) {
    std::vector<core::shape> inferred;
    auto st = runner.infer(c.op, c.attrs, *v.shapes,
                           v.with_constants ? constants
                                            : std::map<size_t, core::tensor>{},
                           &inferred);
    ASSERT_TRUE(st.is_ok()) << v.what << ": " << st.to_string();
    ASSERT_EQ(inferred.size(), actual.size());
    for (size_t i = 0; i < actual.size(); ++i)
      EXPECT_TRUE(inferred[i].compatible_with(actual[i].shape()))
        << v.what << " shapes, output " << i << ": inferred "
        << inferred[i].to_string() << ", kernel produced "
        << actual[i].shape().to_string();
    // With every input known, the shape function knows the result.
    if (v.shapes == &full && v.with_constants) {
      for (size_t i = 0; i < actual.size(); ++i)
        EXPECT_EQ(inferred[i], actual[i].shape())
          << "output " << i << " with every input known";
    }
  }
}

/// Runs case `c` and checks its outputs (or error) and shape function.
void run_case(test::kernel_runner& runner, const test::op_case& c) {
  std::vector<core::tensor> outs;
  auto st = runner.run(c.op, c.attrs, c.inputs, &outs);
  if (!c.error.empty()) {
    EXPECT_EQ(std::string{core::to_string(st.code())}, c.error)
      << st.to_string();
    EXPECT_FALSE(st.message().empty());
    return;
  }
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  ASSERT_EQ(outs.size(), c.outputs.size());
  for (size_t i = 0; i < outs.size(); ++i)
    test::expect_all_near(outs[i], c.outputs[i], c.rtol,
                          c.name + " output " + std::to_string(i));
  check_shape_function(runner, c, outs);
}

/// Runs every case of `file`; returns how many ran.
size_t run_cases(const std::string& file) {
  test::kernel_runner runner;
  auto cases = test::load_cases(file);
  for (const auto& c : cases) {
    SCOPED_TRACE(file + ": case " + c.name + " (" + c.op + ")");
    run_case(runner, c);
  }
  return cases.size();
}

} // namespace

TEST(op_cases, array_ops_match_numpy) {
  EXPECT_GT(run_cases("array_cases.txt"), 80u);
}

TEST(op_cases, nn_linalg_random_and_check_ops_match_numpy) {
  EXPECT_GT(run_cases("nn_cases.txt"), 50u);
}

TEST(op_cases, dispatch_segment_and_scan_ops_match_numpy) {
  EXPECT_GT(run_cases("dispatch_cases.txt"), 50u);
}

TEST(op_cases, math_ops_match_numpy) {
  EXPECT_GT(run_cases("math_cases.txt"), 80u);
}

TEST(op_cases, every_op_is_checked_against_golden_data) {
  test::kernel_runner runner;
  std::set<std::string> covered;
  for (const char* file : {"math_cases.txt", "array_cases.txt", "nn_cases.txt",
                           "dispatch_cases.txt"})
    for (const auto& c : test::load_cases(file))
      covered.insert(c.op);
  // Checked by the older golden files (unary, binary, cast, reduce, spine),
  // the state and session tests and the control-flow tests.
  for (const char* op :
       {"Neg", "Abs", "Sign", "Square", "Exp", "Log", "Log1p", "Sqrt", "Rsqrt",
        "Floor", "Ceil", "Round", "Tanh", "Sigmoid", "Pow", "Maximum",
        "Minimum", "Greater", "GreaterEqual", "Less", "LessEqual", "Equal",
        "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "Cast", "Select",
        "Mean", "Max", "Min", "Relu", "Const", "Placeholder", "Identity",
        "NoOp", "VariableV2", "Assign", "AssignAdd", "AssignSub",
        // graph_def_test's frozen Keras model, fed and not, and
        // gradients_test
        "PlaceholderWithDefault", "IdentityN",
        // control flow: kernels_test and the control-flow tests
        "Switch", "RefSwitch", "Merge", "Enter", "RefEnter", "Exit",
        "NextIteration", "LoopCond", "ControlTrigger",
        // optimizers: optimizer_test against optimizers.txt
        "ApplyGradientDescent", "ApplyMomentum", "ApplyKerasMomentum",
        "ApplyAdagrad", "ApplyAdagradV2", "ApplyRMSProp", "ApplyAdam",
        "ResourceApplyGradientDescent", "ResourceApplyMomentum",
        "ResourceApplyKerasMomentum", "ResourceApplyAdagrad",
        "ResourceApplyAdagradV2", "ResourceApplyRMSProp", "ResourceApplyAdam",
        // read_idx_test against idx_values.txt, checkpoint_test
        "ReadIdx", "ReadTextLines", "Save", "Restore",
        // queue_test
        "FIFOQueueV2", "RandomShuffleQueueV2", "QueueEnqueueV2",
        "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2",
        "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2",
        // queue_test, and the loop gradients of gradients_test
        "StackV2", "StackPushV2", "StackPopV2",
        // tensor_array_test, and TensorFlow's graphs in graph_def_test
        "TensorArrayV3", "TensorArrayReadV3", "TensorArrayWriteV3",
        "TensorArrayGatherV3", "TensorArrayScatterV3", "TensorArrayConcatV3",
        "TensorArraySplitV3", "TensorArraySizeV3", "TensorArrayCloseV3",
        "TensorArrayGradV3", "TensorArrayGradWithShape",
        // TensorFlow's dynamic_rnn gradient graphs in graph_def_test, and
        // their errors in kernels_test
        "Assert", "ConcatOffset", "InvertPermutation",
        // summary_test: the Summary protos they write
        "ScalarSummary", "HistogramSummary", "MergeSummary",
        // collective_test (exact sums of integers in floats) and the
        // cluster's collective tests
        "CollectiveAllReduce",
        // saved_model_test: SavedModels TensorFlow wrote, and the resource
        // variables and TensorLists of resource_list_ops_test
        "VarHandleOp", "ReadVariableOp", "AssignVariableOp",
        "AssignAddVariableOp", "AssignSubVariableOp", "VarIsInitializedOp",
        "DisableCopyOnRead", "VariableShape", "RestoreV2", "ResourceGather",
        "TensorListReserve", "EmptyTensorList", "TensorListFromTensor",
        "TensorListSetItem", "TensorListGetItem", "TensorListStack",
        "TensorListLength", "TensorListElementShape", "TensorListPushBack",
        "TensorListPopBack",
        // saved_model_test's tensor_list_bulk, resource_list_ops_test
        "TensorListGather", "TensorListScatter", "TensorListScatterV2",
        "TensorListScatterIntoExistingList", "TensorListConcatV2",
        "TensorListSplit", "TensorListResize",
        // resource_list_ops_test's save_function_ops, and saved_model_test's
        // export (strings are not in the case files)
        "SaveV2", "MergeV2Checkpoints", "StringJoin", "StaticRegexFullMatch",
        "ShardedFilename"})
    covered.insert(op);
  for (const auto& name : runner.op_registry().names()) {
    if (name.front() == '_')
      continue;
    EXPECT_EQ(covered.count(name), 1u) << name << " has no golden case";
  }
}
