// What a session tells a user (issue 11, part 5): feed and fetch errors
// name their node, a fetch of an uninitialised variable names the
// variable, placements in run_metadata and in the log, graphs from files.

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <unistd.h>

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include "actorflow/actorflow.hpp"
#include "actorflow/core/logging.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

class session_api : public ::testing::Test {
protected:
  session_api() {
    x = graph::placeholder(s.sub("x"), dtype::float32, {2, 3});
    v = graph::variable(s.sub("v"), {2}, dtype::float32);
    y = graph::relu(s.with_device("cpu:1"), x);
  }

  /// Runs `fetches` of `s`'s graph with `feeds`; returns the status.
  core::status run(actors::feed_list feeds,
                   const std::vector<std::string>& fetches) {
    actors::session sess{e};
    auto st = sess.extend(s.graph_def());
    std::vector<tensor> out;
    return st.is_ok() ? sess.run(std::move(feeds), fetches, {}, &out) : st;
  }

  actors::engine e;
  graph::scope s{e.context().ops()};
  graph::output x, v, y;
};

} // namespace

TEST_F(session_api, a_feed_of_the_wrong_dtype_or_shape_names_its_placeholder) {
  for (const auto& fed :
       {tensor{dtype::float64, {2, 3}}, tensor{dtype::float32, {2, 4}}}) {
    auto st = run({{x.name(), fed}}, {y.name()});
    EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
    EXPECT_EQ(st.node(), "x") << st.to_string();
    EXPECT_EQ(st.op(), "Placeholder") << st.to_string();
  }
}

TEST_F(session_api, unknown_feeds_fetches_and_targets_name_what_was_asked) {
  auto st = run({}, {"nope:0"});
  EXPECT_EQ(st.code(), core::errc::not_found);
  EXPECT_EQ(st.node(), "nope") << st.to_string();
  st = run({{"missing", tensor{dtype::float32, {2, 3}}}}, {y.name()});
  EXPECT_EQ(st.node(), "missing") << st.to_string();
  st = run({}, {"x:5"});
  EXPECT_EQ(st.node(), "x") << st.to_string();
  EXPECT_EQ(st.op(), "Placeholder") << st.to_string();
}

TEST_F(session_api, fetching_an_uninitialised_variable_names_the_variable) {
  auto st = run({}, {v.name()});
  EXPECT_EQ(st.code(), core::errc::failed_precondition) << st.to_string();
  EXPECT_EQ(st.node(), "v") << st.to_string();
  EXPECT_EQ(st.op(), "VariableV2") << st.to_string();
}

TEST_F(session_api, a_negative_dimension_keeps_its_value_in_messages) {
  EXPECT_EQ((core::shape{-3, 2}).to_string(), "[-3,2]");
  EXPECT_EQ((core::shape{-1, 2}).to_string(), "[?,2]");
  try {
    tensor bad{dtype::float32, {-3, 2}};
    ADD_FAILURE() << "a tensor of shape [-3,2] was made";
  } catch (const std::exception& ex) {
    EXPECT_NE(std::string{ex.what()}.find("-3"), std::string::npos)
      << ex.what();
  }
}

TEST_F(session_api, run_metadata_tells_where_each_node_ran) {
  constexpr auto npos = std::string::npos;
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  actors::run_metadata md;
  auto st = sess.run({{x.name(), tensor{dtype::float32, {2, 3}}}}, {y.name()},
                     {}, &out, &md);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  ASSERT_EQ(md.placement.count(y.node_name()), 1u);
  EXPECT_NE(md.placement.at(y.node_name()).find("cpu:1"), std::string::npos);
  // The fed placeholder became a feed node on cpu:0 (the default device),
  // and its value crosses to cpu:1 through a Send and a Recv.
  int feeds = 0, sends = 0, recvs = 0;
  for (const auto& [node, device] : md.placement) {
    feeds += node.rfind("_feed", 0) == 0 && device.find("cpu:0") != npos;
    sends += node.rfind("_send", 0) == 0 && device.find("cpu:0") != npos;
    recvs += node.rfind("_recv", 0) == 0 && device.find("cpu:1") != npos;
  }
  EXPECT_EQ(feeds, 1);
  EXPECT_GE(sends, 1);
  EXPECT_GE(recvs, 1);
  EXPECT_EQ(md.placement.count("x"), 0u);
}

TEST_F(session_api, log_device_placement_logs_every_node_once_per_signature) {
  std::ostringstream log;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  auto& logger = core::log();
  auto level = logger.level();
  logger.sinks().push_back(sink);
  logger.set_level(spdlog::level::info);
  {
    actors::session_options options;
    options.log_device_placement = true;
    actors::session sess{e, options};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<tensor> out;
    for (int i = 0; i < 2; ++i)
      ASSERT_TRUE(sess
                    .run({{x.name(), tensor{dtype::float32, {2, 3}}}},
                         {y.name()}, {}, &out)
                    .is_ok());
  }
  logger.sinks().pop_back();
  logger.set_level(level);
  auto text = log.str();
  auto line = "placement: " + y.node_name() + " (Relu) on ";
  auto at = text.find(line);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NE(text.find("cpu:1", at), std::string::npos) << text;
  EXPECT_EQ(text.find(line, at + 1), std::string::npos) << "logged twice";
}

// A variable asking for no device, updated on cpu:1 by one run and only
// initialised by another: placed per run, the initialising run made it on
// the default device (cpu:0). On a GPU the same happened to a global step
// (its AssignAdd has no GPU kernel), which the training step then read on
// the CPU from GPU memory.
TEST_F(session_api, a_variable_keeps_its_device_in_every_run) {
  graph::scope g{e.context().ops()};
  auto counter = graph::variable(g.sub("counter"), {}, dtype::int64);
  auto init = graph::assign(g.sub("init"), counter,
                            graph::constant(g, 0.0, dtype::int64));
  auto inc = graph::assign_add(g.with_device("cpu:1").sub("inc"), counter,
                               graph::constant(g, 1.0, dtype::int64));
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(g.graph_def()).is_ok());
  std::vector<tensor> out;
  actors::run_metadata first;
  actors::run_metadata second;
  ASSERT_TRUE(sess.run({}, {}, {init.node_name()}, &out, &first).is_ok());
  ASSERT_TRUE(sess.run({}, {}, {inc.node_name()}, &out, &second).is_ok());
  auto where = [&](const actors::run_metadata& md) {
    auto i = md.placement.find(counter.node_name());
    return i == md.placement.end() ? std::string{"nowhere"} : i->second;
  };
  EXPECT_EQ(where(first), where(second));
  EXPECT_NE(where(second).find("cpu:1"), std::string::npos) << where(second);
  ASSERT_TRUE(sess.run({}, {counter.name()}, {}, &out).is_ok());
  EXPECT_EQ(out.at(0).scalar_value<int64_t>(), 1);
}

TEST_F(session_api, extend_reads_a_graph_file) {
  auto path
    = std::filesystem::temp_directory_path()
      / ("actorflow_session_api_" + std::to_string(::getpid()) + ".graph");
  ASSERT_TRUE(net::save_graph(s.graph_def(), path.string()).is_ok());
  actors::session sess{e};
  auto st = sess.extend(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  std::vector<tensor> out;
  auto in = tensor::from_vector<float>({2, 3}, {1, -2, 3, -4, 5, -6});
  ASSERT_TRUE(sess.run({{x.name(), in}}, {y.name()}, {}, &out).is_ok());
  EXPECT_EQ(out.at(0).data<float>()[2], 3.0f);
  EXPECT_EQ(out.at(0).data<float>()[3], 0.0f);
  EXPECT_EQ(sess.extend(path.string()).code(), core::errc::not_found);
}

// A graph whose AddN says N = 2^50 once killed the master (bad_alloc in
// validation): the extend gets a status and the session goes on.
TEST_F(session_api, a_graph_that_sizes_a_list_beyond_bounds_is_refused) {
  graph::graph bad;
  ASSERT_TRUE(
    bad.add({"p", "Placeholder", {}, "", {{"dtype", dtype::float32}}}).is_ok());
  ASSERT_TRUE(bad
                .add({"sum",
                      "AddN",
                      {"p", "p"},
                      "",
                      {{"T", dtype::float32}, {"N", int64_t{1} << 50}}})
                .is_ok());
  actors::session sess{e};
  auto st = sess.extend(bad);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_EQ(st.node(), "sum");
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto in = tensor::from_vector<float>({2, 3}, {1, -2, 3, -4, 5, -6});
  ASSERT_TRUE(sess.run({{x.name(), in}}, {y.name()}, {}, &out).is_ok());
  EXPECT_EQ(out.at(0).data<float>()[2], 3.0f);
}
