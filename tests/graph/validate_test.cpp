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
