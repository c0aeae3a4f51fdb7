#include "actorflow/graph/validate.hpp"

#include <gtest/gtest.h>

#include "actorflow/ops/registration.hpp"

using namespace actorflow;
using core::dtype;

namespace {

class validation : public ::testing::Test {
protected:
  validation() {
    EXPECT_TRUE(ops::register_ops(registry).is_ok());
  }

  core::node_def konst(const std::string& name, dtype t = dtype::float32) {
    return {
      name, "Const", {}, "", {{"value", core::tensor{t, {}}}, {"dtype", t}}};
  }

  core::status check(std::vector<core::node_def> nodes) {
    graph::graph g;
    for (auto& n : nodes)
      ACTORFLOW_RETURN_IF_ERROR(g.add(std::move(n)));
    return graph::validate(g, registry);
  }

  ops::op_registry registry;
};

} // namespace

TEST_F(validation, a_valid_graph_passes_and_gets_default_attrs) {
  graph::graph g;
  ASSERT_TRUE(g.add(konst("a")).is_ok());
  ASSERT_TRUE(
    g.add({"m", "MatMul", {"a", "a:0"}, "", {{"T", dtype::float32}}}).is_ok());
  graph::graph_types types;
  ASSERT_TRUE(graph::validate(g, registry, &types).is_ok());
  EXPECT_EQ(std::get<bool>(g.find("m")->attrs.at("transpose_a")), false);
  EXPECT_EQ(types.outputs[1][0].type, dtype::float32);
}

TEST_F(validation, unknown_op) {
  auto st = check({{"x", "Frobnicate", {}, "", {}}});
  EXPECT_EQ(st.code(), core::errc::not_found);
  EXPECT_EQ(st.node(), "x");
  EXPECT_NE(st.message().find("unknown op 'Frobnicate'"), std::string::npos);
}

TEST_F(validation, dangling_input) {
  auto st
    = check({{"i", "Identity", {"ghost:0"}, "", {{"T", dtype::float32}}}});
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "i");
  EXPECT_NE(st.message().find("dangling input 'ghost:0'"), std::string::npos);
}

TEST_F(validation, output_port_out_of_range_and_malformed_inputs) {
  auto st = check(
    {konst("a"), {"i", "Identity", {"a:3"}, "", {{"T", dtype::float32}}}});
  EXPECT_NE(st.message().find("reads output 3"), std::string::npos);
  st = check(
    {konst("a"), {"i", "Identity", {"a:x"}, "", {{"T", dtype::float32}}}});
  EXPECT_NE(st.message().find("malformed input"), std::string::npos);
}

TEST_F(validation, duplicate_name) {
  auto st = check({konst("a"), konst("a")});
  EXPECT_EQ(st.code(), core::errc::already_exists);
  EXPECT_EQ(st.node(), "a");
  EXPECT_NE(st.message().find("duplicate node name 'a'"), std::string::npos);
}

TEST_F(validation, attr_of_the_wrong_type_or_missing) {
  auto st = check({{"c",
                    "Const",
                    {},
                    "",
                    {{"value", int64_t{1}}, {"dtype", dtype::float32}}}});
  EXPECT_EQ(st.node(), "c");
  EXPECT_NE(
    st.message().find("attr 'value' of op Const has type int, expected tensor"),
    std::string::npos);
  st = check({{"p", "Placeholder", {}, "", {}}});
  EXPECT_EQ(st.node(), "p");
  EXPECT_NE(st.message().find("missing attr 'dtype'"), std::string::npos);
}

TEST_F(validation, dtype_mismatch_on_an_edge) {
  auto st = check({konst("a", dtype::float32),
                   konst("b", dtype::float64),
                   {"s", "Add", {"a", "b"}, "", {{"T", dtype::float32}}}});
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "s");
  EXPECT_NE(st.message().find("dtype mismatch on edge 'b' -> 's': input 1 "
                              "expects float, got double"),
            std::string::npos);
}

TEST_F(validation, wrong_number_of_inputs_and_order) {
  auto st
    = check({konst("a"), {"s", "Add", {"a"}, "", {{"T", dtype::float32}}}});
  EXPECT_NE(st.message().find("has 1 data inputs, needs 2"), std::string::npos);
  st = check(
    {konst("a"), {"i", "Identity", {"^a", "a"}, "", {{"T", dtype::float32}}}});
  EXPECT_NE(st.message().find("after a control input"), std::string::npos);
}

TEST_F(validation, cycle_without_next_iteration) {
  auto st = check({konst("a"),
                   {"x", "Add", {"a", "y"}, "", {{"T", dtype::float32}}},
                   {"y", "Identity", {"x"}, "", {{"T", dtype::float32}}}});
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_TRUE(st.node() == "x" || st.node() == "y") << st.node();
  EXPECT_NE(st.message().find("does not pass through a NextIteration"),
            std::string::npos);
  // A control-edge cycle counts too.
  st = check({{"p", "NoOp", {"^q"}, "", {}}, {"q", "NoOp", {"^p"}, "", {}}});
  EXPECT_NE(st.message().find("cycle"), std::string::npos);
}

TEST_F(validation, reserved_names) {
  auto st = check({konst("_secret")});
  EXPECT_NE(st.message().find("reserved"), std::string::npos);
}

namespace {

core::node_def enter(const std::string& name, const std::string& input,
                     const std::string& frame, int64_t parallel = 10) {
  return {name,
          "Enter",
          {input},
          "",
          {{"T", dtype::float32},
           {"frame_name", frame},
           {"parallel_iterations", parallel}}};
}

core::node_def unary(const std::string& name, const std::string& op,
                     const std::string& input) {
  return {name, op, {input}, "", {{"T", dtype::float32}}};
}

} // namespace

TEST_F(validation, exit_and_next_iteration_need_a_frame) {
  for (const char* op : {"Exit", "NextIteration"}) {
    auto st = check({konst("a"), unary("x", op, "a")});
    EXPECT_EQ(st.code(), core::errc::invalid_argument) << op;
    EXPECT_EQ(st.node(), "x");
    EXPECT_NE(st.message().find("outside any loop frame"), std::string::npos)
      << st.message();
  }
  // Inside a frame they are fine.
  EXPECT_TRUE(
    check({konst("a"), enter("e", "a", "f"), unary("x", "Exit", "e")}).is_ok());
}

TEST_F(validation, the_enters_of_a_frame_agree_on_parallel_iterations) {
  auto st = check({konst("a"),
                   enter("e1", "a", "f", 10),
                   enter("e2", "a", "f", 4),
                   {"m", "Add", {"e1", "e2"}, "", {{"T", dtype::float32}}}});
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "e2");
  EXPECT_NE(st.message().find("parallel_iterations"), std::string::npos);
}

TEST_F(validation, a_merge_needs_two_inputs) {
  auto st = check(
    {konst("a"),
     {"m", "Merge", {"a"}, "", {{"T", dtype::float32}, {"N", int64_t{1}}}}});
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "m");
  EXPECT_NE(st.message().find("two or more"), std::string::npos);
}

TEST_F(validation, a_node_is_in_one_frame) {
  // Add reads a value inside frame f and one outside it.
  auto st = check({konst("a"),
                   enter("e", "a", "f"),
                   {"m", "Add", {"e", "a"}, "", {{"T", dtype::float32}}}});
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "m");
  EXPECT_NE(st.message().find("frame 'f'"), std::string::npos) << st.message();
}

TEST_F(validation, a_frame_entered_from_itself_is_named_with_its_parent) {
  // A value of frame f entered into f again makes a frame f inside f; the
  // message tells the two apart.
  auto st = check({konst("a"),
                   enter("e", "a", "f"),
                   enter("e2", "e", "f"),
                   {"m", "Add", {"e", "e2"}, "", {{"T", dtype::float32}}}});
  EXPECT_EQ(st.node(), "m");
  EXPECT_NE(st.message().find("from frame 'f' and from frame 'f' inside 'f'"),
            std::string::npos)
    << st.message();
}

TEST_F(validation, a_loop_passes_when_its_cycle_goes_through_next_iteration) {
  auto st = check(
    {konst("a"),
     enter("e", "a", "f"),
     {"m", "Merge", {"e", "n"}, "", {{"T", dtype::float32}, {"N", int64_t{2}}}},
     {"p",
      "Const",
      {"^m"},
      "",
      {{"value", core::tensor::scalar(false)}, {"dtype", dtype::bool_}}},
     {"c", "LoopCond", {"p"}, "", {}},
     {"s", "Switch", {"m", "c"}, "", {{"T", dtype::float32}}},
     unary("x", "Exit", "s"),
     unary("n", "NextIteration", "s:1")});
  EXPECT_TRUE(st.is_ok()) << st.to_string();
}
