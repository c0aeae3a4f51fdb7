// ReadIdx through a session: IDX files, plain and gzip'd, against the values
// numpy wrote them from (tests/golden/gen_idx_golden.py), and broken files
// failing with an error that names the file; ReadTextLines on the text
// files the same script writes.

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/io_ops.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

class read_idx : public ::testing::Test {
protected:
  read_idx() {
    file = graph::placeholder(s.sub("file"), dtype::string, {});
    for (auto type : {dtype::uint8, dtype::float32, dtype::int32})
      reads.push_back(graph::read_idx(
        s.sub("read_" + std::string{core::to_string(type)}), file, type));
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    EXPECT_TRUE(sess.extend(s.graph_def()).is_ok());
  }

  /// Reads `name` (in tests/golden/idx) as the op for `type`.
  core::status read(const std::string& name, size_t type, tensor* out) {
    std::vector<tensor> outs;
    auto path = std::string{ACTORFLOW_GOLDEN_DIR} + "/idx/" + name;
    auto st = sess.run({{file.name(), tensor::scalar(path)}},
                       {reads[type].name()}, {}, &outs);
    if (st.is_ok())
      *out = outs[0];
    return st;
  }

  actors::engine e;
  graph::scope s{e.context().ops()};
  graph::output file;
  std::vector<graph::output> reads; // uint8, float32, int32
  actors::session sess{e};
  std::map<std::string, tensor> golden = test::load_golden("idx_values.txt");
};

} // namespace

TEST_F(read_idx, plain_and_gzipped_files_give_their_tensors) {
  tensor t;
  ASSERT_TRUE(read("images_u8.idx", 0, &t).is_ok());
  test::expect_all_near(t, golden.at("images_u8"), 0, "images_u8.idx");
  ASSERT_TRUE(read("images_u8.idx.gz", 0, &t).is_ok());
  test::expect_all_near(t, golden.at("images_u8"), 0, "images_u8.idx.gz");
  ASSERT_TRUE(read("values_f32.idx", 1, &t).is_ok());
  test::expect_all_near(t, golden.at("values_f32"), 0, "values_f32.idx");
  ASSERT_TRUE(read("labels_i32.idx.gz", 2, &t).is_ok());
  test::expect_all_near(t, golden.at("labels_i32"), 0, "labels_i32.idx.gz");
}

TEST_F(read_idx, broken_files_fail_naming_the_file) {
  tensor t;
  auto expect = [&](const std::string& name, size_t type, core::errc code,
                    const std::string& words) {
    auto st = read(name, type, &t);
    EXPECT_EQ(st.code(), code) << name << ": " << st.to_string();
    EXPECT_NE(st.message().find(name), std::string::npos) << st.to_string();
    EXPECT_NE(st.message().find(words), std::string::npos) << st.to_string();
    EXPECT_EQ(st.op(), "ReadIdx");
  };
  expect("missing.idx", 0, core::errc::not_found, "cannot open");
  expect("truncated.idx", 0, core::errc::data_loss, "truncated");
  expect("bad_magic.idx", 0, core::errc::data_loss, "not an IDX file");
  expect("corrupt.idx.gz", 0, core::errc::data_loss, "corrupt");
  expect("values_f32.idx", 0, core::errc::invalid_argument, "holds float");
  // The session goes on.
  ASSERT_TRUE(read("images_u8.idx", 0, &t).is_ok());
  test::expect_all_near(t, golden.at("images_u8"), 0, "after the errors");
}

TEST(read_text_lines, plain_and_gzipped_files_give_their_lines) {
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto file = graph::placeholder(s.sub("file"), dtype::string, {});
  auto all = graph::read_text_lines(s.sub("all"), file);
  auto body = graph::read_text_lines(s.sub("body"), file, 1);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  // What gen_idx_golden.py wrote: a CRLF header, LF lines, an empty line
  // and a last line without an end.
  std::vector<std::string> want{"label,text", "1,first line", "2,second", "",
                                "3,last without newline"};
  for (const char* name : {"lines.txt", "lines.txt.gz"}) {
    auto path = std::string{ACTORFLOW_GOLDEN_DIR} + "/idx/" + name;
    std::vector<tensor> out;
    ASSERT_TRUE(sess
                  .run({{file.name(), tensor::scalar(path)}},
                       {all.name(), body.name()}, {}, &out)
                  .is_ok());
    ASSERT_EQ(out[0].num_elements(), 5) << name;
    ASSERT_EQ(out[1].num_elements(), 4) << name;
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_EQ(out[0].data<std::string>()[i], want[i]) << name << " " << i;
    EXPECT_EQ(out[1].data<std::string>()[0], "1,first line") << name;
  }
  std::vector<tensor> out;
  auto st
    = sess.run({{file.name(), tensor::scalar(std::string{"/nonexistent/x"})}},
               {all.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::not_found);
  EXPECT_NE(st.message().find("/nonexistent/x"), std::string::npos);
  EXPECT_EQ(st.op(), "ReadTextLines");
}
