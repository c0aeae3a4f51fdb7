// TensorFlow's TF_CONFIG as a cluster (issue 40): its jobs and this task,
// the chief as worker 0, the evaluator left out, and clear errors.

#include "actorflow/actors/tf_config.hpp"

#include <gtest/gtest.h>

using namespace actorflow;

namespace {

/// The task TF_CONFIG `json` names, or the error's message.
std::string task_of(const std::string& json, actors::cluster_spec* spec) {
  std::string task;
  auto st = actors::parse_tf_config(json, spec, &task);
  return st.is_ok() ? task : "error: " + st.message();
}

} // namespace

TEST(tf_config, jobs_and_task_as_a_cluster_file_has_them) {
  actors::cluster_spec spec;
  EXPECT_EQ(task_of(R"({"cluster": {"ps": ["h0:2222"],
                                    "worker": ["h1:2222", "h2:2223"]},
                        "task": {"type": "worker", "index": 1},
                        "environment": "cloud", "rpc_layer": "grpc"})",
                    &spec),
            "worker:1");
  ASSERT_EQ(spec.tasks.size(), 3u);
  ASSERT_NE(spec.find("worker:1"), nullptr);
  EXPECT_EQ(spec.find("worker:1")->host, "h2");
  EXPECT_EQ(spec.find("worker:1")->port, 2223);
  EXPECT_EQ(spec.find("ps:0")->host, "h0");
  EXPECT_EQ(task_of(R"({"cluster": {"ps": ["h0:1"], "worker": ["h1:2"]},
                        "task": {"type": "ps", "index": 0}})",
                    &spec),
            "ps:0");
}

TEST(tf_config, the_chief_is_worker_zero_and_the_evaluator_is_left_out) {
  actors::cluster_spec spec;
  auto json = [](const std::string& type, int index) {
    return R"({"cluster": {"chief": ["c:1"], "worker": ["w0:2", "w1:3"],
                           "ps": ["p:4"], "evaluator": ["e:5"]},
               "task": {"type": ")"
           + type + R"(", "index": )" + std::to_string(index) + "}}";
  };
  EXPECT_EQ(task_of(json("chief", 0), &spec), "worker:0");
  ASSERT_EQ(spec.tasks.size(), 4u);
  EXPECT_EQ(spec.find("worker:0")->host, "c");
  EXPECT_EQ(spec.find("worker:1")->host, "w0");
  EXPECT_EQ(spec.find("worker:2")->host, "w1");
  EXPECT_EQ(spec.find("evaluator:0"), nullptr);
  EXPECT_EQ(task_of(json("worker", 1), &spec), "worker:2");
  EXPECT_EQ(task_of(json("ps", 0), &spec), "ps:0");
  EXPECT_NE(task_of(json("evaluator", 0), &spec)
              .find("not part of the "
                    "cluster"),
            std::string::npos);
  // A chief alone is the only worker.
  EXPECT_EQ(task_of(R"({"cluster": {"chief": ["c:1"], "ps": ["p:2"]},
                        "task": {"type": "chief", "index": 0}})",
                    &spec),
            "worker:0");
}

TEST(tf_config, what_is_wrong_is_said) {
  struct bad_case {
    const char* json;
    const char* says;
  };
  for (auto [json, says] : std::vector<bad_case>{
         {"", "not a JSON object"},
         {"{\"cluster\": ", "not a JSON object"},
         {"[1, 2]", "not a JSON object"},
         {R"({"task": {"type": "worker", "index": 0}})", "no \"cluster\""},
         {R"({"cluster": {"worker": ["h:1"]}})", "no \"task\""},
         {R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "worker"}})",
          "integer \"index\""},
         {R"({"cluster": {"worker": ["h:1"]},
              "task": {"type": "worker", "index": 3}})",
          "worker 3, is not in the cluster"},
         {R"({"cluster": {"worker": {"0": "h:1"}},
              "task": {"type": "worker", "index": 0}})",
          "map of index to address"},
         {R"({"cluster": {"worker": ["h:1", 7]},
              "task": {"type": "worker", "index": 0}})",
          "holds 7"},
         {R"({"cluster": {"worker": ["nohost"]},
              "task": {"type": "worker", "index": 0}})",
          "not host:port"},
         {R"({"cluster": {"chief": ["a:1", "b:2"]},
              "task": {"type": "chief", "index": 0}})",
          "one chief"},
         {R"({"cluster": {"worker": ["h:1"]},
              "task": {"type": "chief", "index": 0}})",
          "has no chief"}}) {
    actors::cluster_spec spec;
    std::string task;
    auto st = actors::parse_tf_config(json, &spec, &task);
    EXPECT_EQ(st.code(), core::errc::invalid_argument) << json;
    EXPECT_NE(st.message().find(says), std::string::npos)
      << json << " -> " << st.message();
  }
}
