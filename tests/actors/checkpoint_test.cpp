// Save and Restore through sessions: variables of several dtypes written to
// a checkpoint file and read back by name; a truncated or corrupted file
// fails with data_loss naming it while an earlier checkpoint still loads;
// missing names and wrong dtypes are errors; no temporary file is left.

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "actorflow/actors/checkpoint_manager.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/io_ops.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
namespace fs = std::filesystem;

namespace {

class checkpoint : public ::testing::Test {
protected:
  checkpoint() {
    dir = fs::temp_directory_path()
          / ("actorflow_ckpt_" + std::to_string(::getpid()) + "_"
             + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    file = graph::placeholder(s.sub("file"), dtype::string, {});
    w = graph::variable(s.sub("w"), {2, 3}, dtype::float32);
    k = graph::variable(s.sub("k"), {4}, dtype::int32);
    w_value = graph::placeholder(s.sub("w_value"), dtype::float32, {2, 3});
    k_value = graph::placeholder(s.sub("k_value"), dtype::int32, {4});
    set_w = graph::assign(s.sub("set_w"), w, w_value).node_name();
    set_k = graph::assign(s.sub("set_k"), k, k_value).node_name();
    save = graph::save(s.sub("save"), file, {"w", "k"},
                       {graph::identity(s, w), graph::identity(s, k)})
             .name;
    restore_w = graph::assign(s.sub("restore_w"), w,
                              graph::restore(s, file, "w", dtype::float32))
                  .node_name();
    restore_k = graph::assign(s.sub("restore_k"), k,
                              graph::restore(s, file, "k", dtype::int32))
                  .node_name();
    wrong_type = graph::restore(s.sub("wrong"), file, "w", dtype::float64);
    missing = graph::restore(s.sub("missing"), file, "nope", dtype::float32);
    read_w = graph::identity(s.sub("read_w"), w);
    read_k = graph::identity(s.sub("read_k"), k);
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    EXPECT_TRUE(sess.extend(s.graph_def()).is_ok());
  }

  ~checkpoint() override {
    fs::remove_all(dir);
  }

  core::status set(const tensor& wv, const tensor& kv) {
    std::vector<tensor> out;
    return sess.run({{w_value.name(), wv}, {k_value.name(), kv}}, {},
                    {set_w, set_k}, &out);
  }

  core::status run_with_file(const std::string& path,
                             std::vector<std::string> targets,
                             std::vector<std::string> fetches = {}) {
    out.clear();
    return sess.run({{file.name(), tensor::scalar(path)}}, fetches, targets,
                    &out);
  }

  void expect_values(const tensor& wv, const tensor& kv, const char* what) {
    ASSERT_TRUE(sess.run({}, {read_w.name(), read_k.name()}, {}, &out).is_ok());
    test::expect_all_near(out[0], wv, 0, std::string{what} + " w");
    test::expect_all_near(out[1], kv, 0, std::string{what} + " k");
  }

  fs::path dir;
  actors::engine e;
  graph::scope s{e.context().ops()};
  actors::session sess{e};
  graph::output file, w, k, w_value, k_value, wrong_type, missing, read_w,
    read_k;
  std::string set_w, set_k, save, restore_w, restore_k;
  std::vector<tensor> out;
  tensor w1 = tensor::from_vector<float>({2, 3}, {1.5f, -2, 3, 0.25f, 5, -6});
  tensor k1 = tensor::from_vector<int32_t>({4}, {7, -8, 9, 2147483647});
  tensor w2 = tensor::from_vector<float>({2, 3}, {0, 0, 0, 0, 0, 1});
  tensor k2 = tensor::from_vector<int32_t>({4}, {1, 1, 1, 1});
};

/// A copy of `from` at `to` with its last `cut` bytes dropped, or with the
/// bytes at `flip` inverted.
void damage(const fs::path& from, const fs::path& to, size_t cut,
            std::vector<size_t> flip) {
  std::ifstream in{from, std::ios::binary};
  std::string bytes{std::istreambuf_iterator<char>{in},
                    std::istreambuf_iterator<char>{}};
  bytes.resize(bytes.size() - cut);
  for (auto i : flip)
    bytes[i] = static_cast<char>(~bytes[i]);
  std::ofstream out{to, std::ios::binary};
  out << bytes;
}

} // namespace

TEST_F(checkpoint, variables_come_back_by_name) {
  auto one = (dir / "ckpt-1").string();
  ASSERT_TRUE(set(w1, k1).is_ok());
  ASSERT_TRUE(run_with_file(one, {save}).is_ok());
  ASSERT_TRUE(set(w2, k2).is_ok());
  expect_values(w2, k2, "changed");
  auto st = run_with_file(one, {restore_w, restore_k});
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  expect_values(w1, k1, "restored");
  // Only the checkpoint is in the directory: the temporary file was
  // renamed over it.
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"ckpt-1"});
}

TEST_F(checkpoint, a_damaged_file_is_data_loss_and_the_previous_one_loads) {
  auto one = (dir / "ckpt-1").string(), two = (dir / "ckpt-2").string();
  ASSERT_TRUE(set(w1, k1).is_ok());
  ASSERT_TRUE(run_with_file(one, {save}).is_ok());
  ASSERT_TRUE(set(w2, k2).is_ok());
  ASSERT_TRUE(run_with_file(two, {save}).is_ok());
  auto size = fs::file_size(two);
  struct broken {
    std::string name;
    size_t cut;
    std::vector<size_t> flip;
    const char* words;
  };
  for (const auto& b :
       {broken{"truncated", 5, {}, "truncated"},
        broken{"cut_in_header", size - 10, {}, "not a checkpoint"},
        broken{"flipped_body", 0, {size - 9, size - 30}, "checksum"},
        broken{"flipped_length", 0, {9}, "truncated"},
        broken{"flipped_magic", 0, {0}, "not a checkpoint"}}) {
    auto path = (dir / b.name).string();
    damage(two, path, b.cut, b.flip);
    auto st = run_with_file(path, {restore_w});
    EXPECT_EQ(st.code(), core::errc::data_loss) << b.name << st.to_string();
    EXPECT_NE(st.message().find(path), std::string::npos) << st.to_string();
    EXPECT_NE(st.message().find(b.words), std::string::npos)
      << b.name << ": " << st.to_string();
    EXPECT_EQ(st.op(), "Restore");
  }
  expect_values(w2, k2, "after the failed restores");
  ASSERT_TRUE(run_with_file(one, {restore_w, restore_k}).is_ok());
  expect_values(w1, k1, "the previous checkpoint");
}

TEST_F(checkpoint, a_file_of_format_1_says_what_to_do) {
  // Format 1 had a tensor form of its own; format 2 has the one of
  // ops/schema/tensor.capnp. The magic's seventh byte is the format.
  auto two = (dir / "ckpt-2").string(), one = (dir / "ckpt-v1").string();
  ASSERT_TRUE(set(w1, k1).is_ok());
  ASSERT_TRUE(run_with_file(two, {save}).is_ok());
  std::ifstream in{two, std::ios::binary};
  std::string bytes{std::istreambuf_iterator<char>{in},
                    std::istreambuf_iterator<char>{}};
  ASSERT_EQ(bytes.substr(0, 8), "AFCKPT2\n");
  bytes[6] = '1';
  std::ofstream{one, std::ios::binary} << bytes;
  auto st = run_with_file(one, {restore_w});
  EXPECT_EQ(st.code(), core::errc::failed_precondition) << st.to_string();
  EXPECT_NE(st.message().find("has format 1"), std::string::npos)
    << st.to_string();
}

TEST_F(checkpoint, missing_files_names_and_dtypes_are_clear_errors) {
  auto one = (dir / "ckpt-1").string();
  auto st = run_with_file((dir / "absent").string(), {restore_w});
  EXPECT_EQ(st.code(), core::errc::not_found);
  EXPECT_NE(st.message().find("absent"), std::string::npos);
  // Saving an uninitialised variable fails and writes nothing.
  st = run_with_file(one, {save});
  EXPECT_EQ(st.code(), core::errc::failed_precondition) << st.to_string();
  EXPECT_FALSE(fs::exists(one));
  ASSERT_TRUE(set(w1, k1).is_ok());
  ASSERT_TRUE(run_with_file(one, {save}).is_ok());
  st = run_with_file(one, {}, {missing.name()});
  EXPECT_EQ(st.code(), core::errc::not_found);
  EXPECT_NE(st.message().find("no tensor 'nope'"), std::string::npos);
  st = run_with_file(one, {}, {wrong_type.name()});
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("is float"), std::string::npos) << st.to_string();
}

TEST(checkpoint_manager, keeps_the_last_n_and_falls_back_past_a_damaged_one) {
  auto dir = fs::temp_directory_path()
             / ("actorflow_ckpt_mgr_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto w = graph::variable(s.sub("w"), {3}, dtype::float64);
  auto value = graph::placeholder(s.sub("value"), dtype::float64, {3});
  auto set_w = graph::assign(s.sub("set"), w, value).node_name();
  auto read = graph::identity(s.sub("read"), w);
  auto ops = graph::make_saver(s.sub("saver"), {{"w", w}});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  actors::checkpoint_manager ckpt{sess, ops, dir.string(), "model", 2};
  std::vector<tensor> out;
  auto at = [](double x) {
    return tensor::from_vector<double>({3}, {x, x + 1, x + 2});
  };
  for (int64_t step : {1, 2, 3}) {
    ASSERT_TRUE(
      sess.run({{value.name(), at(10.0 * double(step))}}, {}, {set_w}, &out)
        .is_ok());
    ASSERT_TRUE(ckpt.save(step).is_ok());
  }
  EXPECT_EQ(ckpt.steps(), (std::vector<int64_t>{2, 3}));
  ASSERT_TRUE(sess.run({{value.name(), at(0)}}, {}, {set_w}, &out).is_ok());
  int64_t step = 0;
  ASSERT_TRUE(ckpt.restore_latest(&step).is_ok());
  EXPECT_EQ(step, 3);
  ASSERT_TRUE(sess.run({}, {read.name()}, {}, &out).is_ok());
  test::expect_all_near(out[0], at(30), 0, "latest");
  // Each is TensorFlow's tensor bundle.
  EXPECT_TRUE(fs::is_regular_file(ckpt.path(3) + ".index"));
  EXPECT_TRUE(fs::is_regular_file(ckpt.path(3) + ".data-00000-of-00001"));
  EXPECT_FALSE(fs::exists(ckpt.path(1) + ".index"));
  EXPECT_FALSE(fs::exists(ckpt.path(1) + ".data-00000-of-00001"));
  // Step 3's index cut short: restoring it names it; the latest that loads
  // is step 2.
  auto index = ckpt.path(3) + ".index";
  fs::resize_file(index, fs::file_size(index) - 8);
  auto st = ckpt.restore(3);
  EXPECT_EQ(st.code(), core::errc::data_loss);
  EXPECT_NE(st.message().find(ckpt.path(3)), std::string::npos);
  ASSERT_TRUE(ckpt.restore_latest(&step).is_ok());
  EXPECT_EQ(step, 2);
  ASSERT_TRUE(sess.run({}, {read.name()}, {}, &out).is_ok());
  test::expect_all_near(out[0], at(20), 0, "fallback");
  fs::remove_all(dir);
  actors::checkpoint_manager empty{sess, ops, dir.string()};
  EXPECT_EQ(empty.restore_latest(&step).code(), core::errc::not_found);
  fs::remove_all(dir);
}

// A checkpoint that loads but does not fit the graph (a variable the
// graph has is not in it: another optimizer's slot) stops a restore with
// failed_precondition rather than passing for "no checkpoint"; restoring
// what fits restores the rest. A directory where a checkpoint file should
// be is named and skipped. Nothing the line did not supersede is deleted.
TEST(checkpoint_manager, a_checkpoint_that_does_not_fit_is_an_error) {
  auto dir = fs::temp_directory_path()
             / ("actorflow_ckpt_fit_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto w = graph::variable(s.sub("w"), {2}, dtype::float64);
  auto slot = graph::variable(s.sub("slot"), {2}, dtype::float64);
  auto value = graph::placeholder(s.sub("value"), dtype::float64, {2});
  auto set_w = graph::assign(s.sub("set_w"), w, value).node_name();
  auto set_slot = graph::assign(s.sub("set_slot"), slot, value).node_name();
  auto old_saver = graph::make_saver(s.sub("old"), {{"w", w}});
  auto new_saver = graph::make_saver(s.sub("new"), {{"w", w}, {"slot", slot}});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto set = [&](const std::string& target, double x) {
    return sess.run({{value.name(), tensor::from_vector<double>({2}, {x, x})}},
                    {}, {target}, &out);
  };
  ASSERT_TRUE(set(set_w, 1).is_ok());
  {
    actors::checkpoint_manager old{sess, old_saver, dir.string(), "model", 2};
    ASSERT_TRUE(old.save(3).is_ok());
  }
  fs::create_directories(dir / "model-5"); // newer, and not a file
  actors::checkpoint_manager ckpt{sess, new_saver, dir.string(), "model", 2};
  auto st = ckpt.restore(5);
  EXPECT_EQ(st.code(), core::errc::data_loss);
  EXPECT_NE(st.message().find("model-5' is a directory"), std::string::npos)
    << st.to_string();
  ASSERT_TRUE(set(set_w, 7).is_ok());
  ASSERT_TRUE(set(set_slot, 7).is_ok());
  int64_t step = 0;
  st = ckpt.restore_latest(&step);
  EXPECT_EQ(st.code(), core::errc::failed_precondition) << st.to_string();
  EXPECT_NE(st.message().find("model-3' does not fit"), std::string::npos)
    << st.to_string();
  EXPECT_NE(st.message().find("key 'slot' is not in tensor bundle"),
            std::string::npos)
    << st.to_string();
  EXPECT_TRUE(fs::exists(ckpt.path(3) + ".index"));

  std::vector<std::string> skipped;
  st = ckpt.restore_latest(&step, actors::checkpoint_manager::fit::what_fits,
                           &skipped);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(step, 3);
  EXPECT_EQ(skipped, std::vector<std::string>{"slot"});
  ASSERT_TRUE(sess.run({}, {w.name(), slot.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].data<double>()[0], 1.0); // restored
  EXPECT_EQ(out[1].data<double>()[0], 7.0); // left as it was

  // The line is step 3 and what it saves: step 3 goes once two newer good
  // ones exist; the directory was never part of it.
  ASSERT_TRUE(ckpt.save(4).is_ok());
  EXPECT_TRUE(fs::exists(ckpt.path(3) + ".index"));
  ASSERT_TRUE(ckpt.save(6).is_ok());
  EXPECT_FALSE(fs::exists(ckpt.path(3) + ".index"));
  EXPECT_FALSE(fs::exists(ckpt.path(3) + ".data-00000-of-00001"));
  EXPECT_TRUE(fs::exists(ckpt.path(4) + ".index"));
  EXPECT_TRUE(fs::exists(ckpt.path(6) + ".index"));
  EXPECT_TRUE(fs::is_directory(dir / "model-5"));
  fs::remove_all(dir);
}

// A checkpoint of actorflow's old format (one AFCKPT2 file, what savers
// wrote before the tensor bundle) still restores, for this release, and
// is replaced by bundles like any other of the line.
TEST(checkpoint_manager, an_old_format_file_still_restores) {
  auto dir = fs::temp_directory_path()
             / ("actorflow_ckpt_old_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto w = graph::variable(s.sub("w"), {2}, dtype::float64);
  auto value = graph::placeholder(s.sub("value"), dtype::float64, {2});
  auto set_w = graph::assign(s.sub("set"), w, value).node_name();
  auto file = graph::placeholder(s.sub("file"), dtype::string, {});
  auto old_save
    = graph::save(s.sub("old_save"), file, {"w"}, {graph::identity(s, w)});
  auto ops = graph::make_saver(s.sub("saver"), {{"w", w}});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto set = [&](double x) {
    return sess.run({{value.name(), tensor::from_vector<double>({2}, {x, x})}},
                    {}, {set_w}, &out);
  };
  ASSERT_TRUE(set(4).is_ok());
  actors::checkpoint_manager ckpt{sess, ops, dir.string(), "model", 1};
  ASSERT_TRUE(sess
                .run({{file.name(), tensor::scalar(ckpt.path(7))}}, {},
                     {old_save.name}, &out)
                .is_ok());
  ASSERT_TRUE(set(0).is_ok());
  int64_t step = 0;
  ASSERT_TRUE(ckpt.restore_latest(&step).is_ok());
  EXPECT_EQ(step, 7);
  ASSERT_TRUE(sess.run({}, {w.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].data<double>()[1], 4.0);
  ASSERT_TRUE(ckpt.save(8).is_ok());
  EXPECT_FALSE(fs::exists(ckpt.path(7)));
  EXPECT_TRUE(fs::exists(ckpt.path(8) + ".index"));
  fs::remove_all(dir);
}
