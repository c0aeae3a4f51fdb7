// TensorBoard (issue 15): summary ops run in a session, and the event file
// a summary writer makes, read back record by record -- TFRecord framing
// with its CRCs checked by a bitwise CRC-32C written here as the oracle,
// and the Event protocol buffers parsed.

#include <cfloat>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>
#include <unistd.h>

#include "actorflow/actorflow.hpp"
#include "actorflow/graph/summary_ops.hpp"
#include "actorflow/interop/summary_writer.hpp"
#include "graph.pb.h"
#include "summary.pb.h"

using namespace actorflow;

namespace {

/// Runs `fetch` of the graph in `s` once; returns the scalar string.
core::status run_summary(actors::engine& e, const graph::scope& s,
                         const graph::output& fetch, std::string* out) {
  actors::session sess{e};
  ACTORFLOW_RETURN_IF_ERROR(sess.extend(s.graph_def()));
  std::vector<core::tensor> outs;
  ACTORFLOW_RETURN_IF_ERROR(sess.run({}, {fetch.name()}, {}, &outs));
  *out = outs[0].scalar_value<std::string>();
  return core::status::ok();
}

/// CRC-32C, bit by bit (reflected polynomial 0x82F63B78): the test's
/// oracle for the library's.
uint32_t crc32c_bitwise(const char* data, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= static_cast<unsigned char>(data[i]);
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return ~crc;
}

uint32_t masked(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

template <class T>
T read_le(const char* p) {
  T x = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    x |= static_cast<T>(static_cast<unsigned char>(p[i])) << (8 * i);
  return x;
}

/// The records of a TFRecord file, every CRC checked.
std::vector<std::string> read_records(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::string bytes{std::istreambuf_iterator<char>{in}, {}};
  std::vector<std::string> records;
  size_t at = 0;
  while (at < bytes.size()) {
    EXPECT_LE(at + 12, bytes.size());
    auto len = read_le<uint64_t>(bytes.data() + at);
    EXPECT_EQ(read_le<uint32_t>(bytes.data() + at + 8),
              masked(crc32c_bitwise(bytes.data() + at, 8)));
    EXPECT_LE(at + 12 + len + 4, bytes.size());
    records.emplace_back(bytes, at + 12, len);
    EXPECT_EQ(read_le<uint32_t>(bytes.data() + at + 12 + len),
              masked(crc32c_bitwise(records.back().data(), len)));
    at += 12 + len + 4;
  }
  return records;
}

} // namespace

TEST(summary, the_oracle_gives_the_standard_check_value) {
  EXPECT_EQ(crc32c_bitwise("123456789", 9), 0xE3069283u);
}

TEST(summary, scalar_histogram_and_merge_summaries) {
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto values = graph::constant(
    s.sub("values"), core::tensor::from_vector<float>(
                       {6}, {0.0f, 1.0f, 1.0f, 2.5f, -3.0f, 1e-13f}));
  auto merged = graph::merge_summary(
    s, {graph::scalar_summary(s, "loss", graph::constant(s, 0.25f)),
        graph::histogram_summary(s, "weights", values)});
  std::string bytes;
  auto st = run_summary(e, s, merged, &bytes);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  tfproto::Summary summary;
  ASSERT_TRUE(summary.ParseFromString(bytes));
  ASSERT_EQ(summary.value_size(), 2);
  EXPECT_EQ(summary.value(0).tag(), "loss");
  EXPECT_EQ(summary.value(0).simple_value(), 0.25f);
  const auto& h = summary.value(1).histo();
  EXPECT_EQ(summary.value(1).tag(), "weights");
  EXPECT_EQ(h.num(), 6);
  EXPECT_EQ(h.min(), -3.0);
  EXPECT_EQ(h.max(), 2.5);
  EXPECT_NEAR(h.sum(), 1.5, 1e-12);
  EXPECT_NEAR(h.sum_squares(), 0 + 1 + 1 + 6.25 + 9, 1e-12);
  // Every value lies in its bucket, [previous limit, limit); empty runs
  // are merged, so no two empty buckets follow each other.
  ASSERT_EQ(h.bucket_size(), h.bucket_limit_size());
  double counted = 0;
  for (int i = 0; i < h.bucket_size(); ++i) {
    counted += h.bucket(i);
    if (i > 0) {
      EXPECT_LT(h.bucket_limit(i - 1), h.bucket_limit(i));
    }
    if (i > 0 && h.bucket(i) == 0) {
      EXPECT_NE(h.bucket(i - 1), 0);
    }
  }
  EXPECT_EQ(counted, 6);
  auto count_in = [&](double x) {
    for (int i = 0; i < h.bucket_size(); ++i)
      if (x < h.bucket_limit(i))
        return std::make_pair(h.bucket(i),
                              i > 0 ? h.bucket_limit(i - 1) : -DBL_MAX);
    return std::make_pair(-1.0, 0.0);
  };
  EXPECT_EQ(count_in(1.0).first, 2); // both ones in one bucket
  EXPECT_LE(count_in(1.0).second, 1.0);
  // 0 and 1e-13 share [0, 1e-12), the first bucket above zero.
  EXPECT_EQ(count_in(0.0).first, 2);
  EXPECT_EQ(count_in(0.0).second, 0.0);
  EXPECT_EQ(count_in(1e-13).first, 2);
}

TEST(summary, a_nan_in_a_histogram_or_a_tag_twice_fails_naming_the_node) {
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto bad = graph::histogram_summary(
    s.sub("h"), "w",
    graph::constant(s, core::tensor::from_vector<float>({2}, {1.0f, NAN})));
  std::string bytes;
  auto st = run_summary(e, s, bad, &bytes);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_EQ(st.op(), "HistogramSummary") << st.to_string();
  graph::scope t{e.context().ops()};
  auto a = graph::scalar_summary(t, "x", graph::constant(t, 1.0f));
  auto b = graph::scalar_summary(t, "x", graph::constant(t, 2.0f));
  st = run_summary(e, t, graph::merge_summary(t, {a, b}), &bytes);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_NE(st.message().find("'x'"), std::string::npos) << st.to_string();
}

TEST(summary, the_event_file_holds_the_version_graph_and_summaries) {
  auto dir = std::filesystem::path{::testing::TempDir()}
             / ("actorflow-events-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), core::dtype::float32, {});
  auto sum = graph::scalar_summary(s, "x", x);
  std::unique_ptr<interop::summary_writer> w;
  auto st = interop::summary_writer::open(dir.string(), &w);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  ASSERT_TRUE(w->add_graph(s.graph_def()).is_ok());
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  for (int64_t step = 0; step < 3; ++step) {
    std::vector<core::tensor> out;
    ASSERT_TRUE(sess
                  .run({{x.name(), core::tensor::scalar(0.5f * step)}},
                       {sum.name()}, {}, &out)
                  .is_ok());
    ASSERT_TRUE(
      w->add_summary(out[0].scalar_value<std::string>(), step * 10).is_ok());
  }
  ASSERT_TRUE(w->add_scalar("samples_per_s", 1234.5, 30).is_ok());
  ASSERT_TRUE(w->flush().is_ok());
  EXPECT_EQ(w->add_summary("not a summary", 1).code(),
            core::errc::invalid_argument);
  auto records = read_records(w->path());
  ASSERT_EQ(records.size(), 6u);
  tfproto::Event ev;
  ASSERT_TRUE(ev.ParseFromString(records[0]));
  EXPECT_EQ(ev.file_version(), "brain.Event:2");
  EXPECT_GT(ev.wall_time(), 1.7e9);
  ASSERT_TRUE(ev.ParseFromString(records[1]));
  tfproto::GraphDef def;
  ASSERT_TRUE(def.ParseFromString(ev.graph_def()));
  ASSERT_EQ(static_cast<size_t>(def.node_size()), s.graph_def().size());
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(ev.ParseFromString(records[2 + k]));
    EXPECT_EQ(ev.step(), 10 * k);
    ASSERT_EQ(ev.summary().value_size(), 1);
    EXPECT_EQ(ev.summary().value(0).tag(), "x");
    EXPECT_EQ(ev.summary().value(0).simple_value(), 0.5f * k);
  }
  ASSERT_TRUE(ev.ParseFromString(records[5]));
  EXPECT_EQ(ev.summary().value(0).simple_value(), 1234.5f);
  w.reset();
  std::filesystem::remove_all(dir);
}

TEST(summary, a_log_directory_that_cannot_be_made_says_so) {
  std::unique_ptr<interop::summary_writer> w;
  auto st = interop::summary_writer::open("/proc/actorflow-no/such", &w);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("/proc/actorflow-no/such"), std::string::npos)
    << st.to_string();
}
