#include "actorflow/net/graph_codec.hpp"

#include <cstdio>

#include <gtest/gtest.h>

#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/ops/registration.hpp"

using namespace actorflow;
using core::dtype;

namespace {

class codec : public ::testing::Test {
protected:
  codec() {
    EXPECT_TRUE(ops::register_ops(registry).is_ok());
  }

  /// A graph that uses every attr kind the spine's ops have.
  graph::graph sample() {
    graph::scope s;
    auto W = graph::variable(
      s.with_device("/job:localhost/task:0/device:cpu:1").sub("W"), {3, 2},
      dtype::float32, "box");
    auto x = graph::placeholder(s.sub("x"), dtype::float32, {2, -1});
    auto k = graph::constant(s.sub("k"),
                             core::tensor::from_vector<double>({2}, {1.5, -2}));
    auto i = graph::constant(s.sub("i"), core::tensor::scalar<int64_t>(7));
    auto str = core::tensor{dtype::string, {2}};
    str.mutable_data<std::string>()[0] = "hello";
    str.mutable_data<std::string>()[1] = std::string("\0bin", 4);
    graph::constant(s.sub("str"), str);
    auto bits = core::tensor::from_vector<bool>({3}, {true, false, true});
    graph::constant(s.sub("bits"), bits);
    auto y = graph::relu(s.with_control_dependencies({i.op()}).sub("y"),
                         graph::matmul(s, W, x, {false, false}));
    (void)k;
    (void)y;
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    return s.graph_def();
  }

  ops::op_registry registry;
};

} // namespace

TEST_F(codec, save_load_save_is_byte_identical) {
  auto g = sample();
  std::string first, second;
  ASSERT_TRUE(net::encode_graph(g, &first).is_ok());
  graph::graph back;
  ASSERT_TRUE(net::decode_graph(first, registry, &back).is_ok());
  ASSERT_EQ(back.size(), g.size());
  for (size_t i = 0; i < g.size(); ++i) {
    const auto& a = g.nodes()[i];
    const auto& b = back.nodes()[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.op, b.op);
    EXPECT_EQ(a.inputs, b.inputs);
    EXPECT_EQ(a.device, b.device);
    ASSERT_EQ(a.attrs.size(), b.attrs.size()) << a.name;
    for (const auto& [key, value] : a.attrs)
      EXPECT_TRUE(core::attr_equal(value, b.attrs.at(key)))
        << a.name << "." << key;
  }
  EXPECT_EQ(back.find("str/Const")->attrs.at("value").index(),
            g.find("str/Const")->attrs.at("value").index());
  auto strs = std::get<core::tensor>(back.find("str/Const")->attrs.at("value"));
  EXPECT_EQ(strs.data<std::string>()[1], std::string("\0bin", 4));
  ASSERT_TRUE(net::encode_graph(back, &second).is_ok());
  EXPECT_EQ(first, second);
}

TEST_F(codec, every_attr_kind_round_trips) {
  // A test op that declares one attr of each list kind.
  ASSERT_TRUE(registry
                .add(ops::op_def_builder("EveryAttr")
                       .attr("li: list(int)")
                       .attr("lf: list(float)")
                       .attr("lb: list(bool)")
                       .attr("ls: list(string)")
                       .attr("lt: list(type)")
                       .attr("lsh: list(shape)")
                       .attr("lte: list(tensor)")
                       .attr("f: float")
                       .attr("u: shape"))
                .is_ok());
  graph::graph g;
  core::node_def n{"all", "EveryAttr", {}, "cpu:0", {}};
  n.attrs["li"] = std::vector<int64_t>{1, -2, INT64_MAX};
  n.attrs["lf"] = std::vector<double>{0.5, -1e300};
  n.attrs["lb"] = std::vector<bool>{true, false, true};
  n.attrs["ls"] = std::vector<std::string>{"a", "", "long string"};
  n.attrs["lt"] = std::vector<core::dtype>{dtype::bfloat16, dtype::complex128};
  n.attrs["lsh"]
    = std::vector<core::shape>{core::shape::unknown(), {2, -1}, {}};
  n.attrs["lte"]
    = std::vector<core::tensor>{core::tensor::from_vector<int32_t>({2}, {7, 8}),
                                core::tensor::scalar(Eigen::half(0.25f))};
  n.attrs["f"] = 3.25;
  n.attrs["u"] = core::shape::unknown();
  ASSERT_TRUE(g.add(n).is_ok());
  std::string bytes, again;
  ASSERT_TRUE(net::encode_graph(g, &bytes).is_ok());
  graph::graph back;
  auto st = net::decode_graph(bytes, registry, &back);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  const auto& attrs = back.find("all")->attrs;
  ASSERT_EQ(attrs.size(), n.attrs.size());
  for (const auto& [key, value] : n.attrs)
    EXPECT_TRUE(core::attr_equal(value, attrs.at(key)))
      << key << ": " << core::to_string(attrs.at(key));
  ASSERT_TRUE(net::encode_graph(back, &again).is_ok());
  EXPECT_EQ(bytes, again);
}

TEST_F(codec, files_round_trip_and_missing_files_are_not_found) {
  auto g = sample();
  auto path = ::testing::TempDir() + "/codec_test.afg";
  ASSERT_TRUE(net::save_graph(g, path).is_ok());
  graph::graph back;
  ASSERT_TRUE(net::load_graph(path, registry, &back).is_ok());
  EXPECT_EQ(back.size(), g.size());
  std::remove(path.c_str());
  EXPECT_EQ(net::load_graph(path, registry, &back).code(),
            core::errc::not_found);
}

TEST_F(codec, messages_over_the_size_limit_are_rejected) {
  std::string bytes;
  ASSERT_TRUE(net::encode_graph(sample(), &bytes).is_ok());
  graph::graph back;
  auto st = net::decode_graph(bytes, registry, &back, bytes.size() - 8);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("exceeds the limit"), std::string::npos);
}

TEST_F(codec, malformed_messages_are_errors_not_crashes) {
  std::string bytes;
  ASSERT_TRUE(net::encode_graph(sample(), &bytes).is_ok());
  graph::graph back;
  EXPECT_EQ(net::decode_graph("", registry, &back).code(),
            core::errc::invalid_argument);
  EXPECT_EQ(net::decode_graph("1234567", registry, &back).code(),
            core::errc::invalid_argument);
  std::string garbage(64, '\xff');
  auto st = net::decode_graph(garbage, registry, &back);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("Cap'n Proto"), std::string::npos);
  // Truncations and byte flips: every one decodes or fails cleanly.
  int failures = 0;
  for (size_t cut = 8; cut < bytes.size(); cut += 8)
    failures
      += !net::decode_graph(bytes.substr(0, cut), registry, &back).is_ok();
  EXPECT_EQ(failures, static_cast<int>((bytes.size() - 8) / 8));
  // A flipped byte either still decodes to a valid graph or is reported as
  // a bad message or an invalid graph; nothing else.
  int flips_rejected = 0;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    auto flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    auto code = net::decode_graph(flipped, registry, &back).code();
    EXPECT_TRUE(code == core::errc::ok || code == core::errc::invalid_argument
                || code == core::errc::not_found
                || code == core::errc::already_exists)
      << "byte " << i << ": " << core::to_string(code);
    flips_rejected += code != core::errc::ok;
  }
  EXPECT_GT(flips_rejected, 0);
}

TEST_F(codec, decoded_graphs_are_validated) {
  graph::graph g;
  ASSERT_TRUE(
    g.add({"p", "Placeholder", {}, "", {{"dtype", dtype::float32}}}).is_ok());
  ASSERT_TRUE(g.add({"q", "Frobnicate", {"p"}, "", {}}).is_ok());
  std::string bytes;
  ASSERT_TRUE(net::encode_graph(g, &bytes).is_ok());
  graph::graph back;
  auto st = net::decode_graph(bytes, registry, &back);
  EXPECT_EQ(st.code(), core::errc::not_found);
  EXPECT_EQ(st.node(), "q");
}

// A number attr sizes the argument list validation builds: one that says
// 2^50 was once allocated (bad_alloc, the process gone); it and a rank
// beyond TensorFlow's limit are refused before anything is allocated.
TEST_F(codec, numbers_that_size_things_are_bounded) {
  graph::graph g;
  ASSERT_TRUE(
    g.add({"p", "Placeholder", {}, "", {{"dtype", dtype::float32}}}).is_ok());
  ASSERT_TRUE(g.add({"sum",
                     "AddN",
                     {"p", "p"},
                     "",
                     {{"T", dtype::float32}, {"N", int64_t{1} << 50}}})
                .is_ok());
  std::string bytes;
  ASSERT_TRUE(net::encode_graph(g, &bytes).is_ok());
  graph::graph back;
  auto st = net::decode_graph(bytes, registry, &back);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_NE(st.message().find("N <= 1048576, got 1125899906842624"),
            std::string::npos)
    << st.to_string();
  EXPECT_EQ(st.node(), "sum");

  graph::graph deep;
  ASSERT_TRUE(deep
                .add({"p",
                      "Placeholder",
                      {},
                      "",
                      {{"dtype", dtype::float32},
                       {"shape", core::shape{std::vector<int64_t>(300, 1)}}}})
                .is_ok());
  ASSERT_TRUE(net::encode_graph(deep, &bytes).is_ok());
  st = net::decode_graph(bytes, registry, &back);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_NE(st.message().find("rank 300 exceeds the limit of 254"),
            std::string::npos)
    << st.to_string();
}
