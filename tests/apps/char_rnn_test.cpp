// `actorflow train char-rnn`'s parts: how text becomes sequences, windows
// and batches, the character-frequency baseline, and the training graph's
// loss -- masked past each sequence's end, so a batch's loss is the sum of
// its sequences' losses each run alone.

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "models/char_rnn/char_rnn_training.hpp"
#include "models/char_rnn/text_data.hpp"

using namespace actorflow;
using apps::char_vocabulary;
using apps::text_batch;
using core::tensor;

namespace {

/// A scratch folder, removed afterwards.
class scratch_dir {
public:
  scratch_dir() {
    path_ = std::filesystem::temp_directory_path()
            / ("char_rnn_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    auto p = path_ / name;
    std::ofstream{p, std::ios::binary} << text;
    return p.string();
  }
  std::string path() const {
    return path_.string();
  }

private:
  std::filesystem::path path_;
};

std::vector<int32_t> ints(const tensor& t) {
  return {t.data<int32_t>(), t.data<int32_t>() + t.num_elements()};
}

} // namespace

TEST(char_rnn_text,
     fortune_files_split_at_percent_lines_others_at_blank_lines) {
  scratch_dir dir;
  dir.write("a", "one\ntwo\n%\nthree\n%\n\nfour\n%\n");
  dir.write("b", "para one\nline\n\n\npara two\n   \npara three\n");
  dir.write("c.dat", std::string("\0\0\1binary", 9)); // a strfile index
  std::filesystem::create_symlink(dir.path() + "/a", dir.path() + "/a.u8");
  apps::text_corpus corpus;
  ASSERT_TRUE(apps::load_text_corpus(dir.path(), 3, &corpus).is_ok());
  // In name order: a's three fortunes, b's three paragraphs; every third
  // is held out.
  EXPECT_EQ(corpus.train,
            (std::vector<std::string>{"one\ntwo", "three", "para one\nline",
                                      "para two"}));
  EXPECT_EQ(corpus.held_out, (std::vector<std::string>{"four", "para three"}));
}

TEST(char_rnn_text, nothing_to_read_is_a_clear_error) {
  scratch_dir dir;
  apps::text_corpus corpus;
  auto st = apps::load_text_corpus(dir.path() + "/missing", 20, &corpus);
  EXPECT_EQ(st.code(), core::errc::not_found);
  EXPECT_NE(st.message().find("missing"), std::string::npos) << st.message();
  auto one = dir.write("one", "a single paragraph\n");
  st = apps::load_text_corpus(one, 20, &corpus);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("two at least"), std::string::npos);
}

TEST(char_rnn_text, long_sequences_become_windows_that_predict_each_char_once) {
  auto vocab = char_vocabulary::of({"abcdefgh"});
  ASSERT_EQ(vocab.size(), 8);
  EXPECT_EQ(vocab.id('c'), 2);
  EXPECT_EQ(vocab.id('z'), -1);
  std::vector<text_batch> batches;
  // "abcdefgh" with max_len 3: abcd, defg, gh -- targets bcd, efg, h.
  ASSERT_TRUE(
    apps::make_text_batches({"abcdefgh", "ab"}, vocab, 3, 2, &batches).is_ok());
  ASSERT_EQ(batches.size(), 2u);
  // Sorted by length: (gh, ab) then (abcd, defg).
  EXPECT_EQ(ints(batches[0].lengths), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(ints(batches[0].inputs), (std::vector<int32_t>{6, 0}));
  EXPECT_EQ(ints(batches[0].targets), (std::vector<int32_t>{7, 1}));
  EXPECT_EQ(batches[1].inputs.shape(), (core::shape{2, 3}));
  EXPECT_EQ(ints(batches[1].inputs), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(ints(batches[1].targets), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(batches[0].characters + batches[1].characters, 8);
  // A batch is as long as its longest sequence; shorter ones are padded.
  ASSERT_TRUE(
    apps::make_text_batches({"abc", "abcdef"}, vocab, 10, 4, &batches).is_ok());
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(ints(batches[0].lengths), (std::vector<int32_t>{2, 5}));
  EXPECT_EQ(ints(batches[0].inputs),
            (std::vector<int32_t>{0, 1, 0, 0, 0, 0, 1, 2, 3, 4}));
  auto st = apps::make_text_batches({"abz"}, vocab, 10, 4, &batches);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("byte 122"), std::string::npos);
}

TEST(char_rnn_text, the_unigram_perplexity_is_add_one_smoothed_frequencies) {
  auto vocab = char_vocabulary::of({"ab"});
  // Training targets (from the second character): a, b, b -> counts
  // a 1+1, b 2+1 of 5. Held out: "xab" predicts a and b.
  auto p = apps::unigram_perplexity({"xabb"}, {"bab"}, vocab);
  EXPECT_NEAR(p, std::exp(-(std::log(2.0 / 5) + std::log(3.0 / 5)) / 2), 1e-12);
}

TEST(char_rnn_model, a_batch_loss_is_its_sequences_losses_each_alone) {
  actors::engine e;
  graph::scope s{e.context().ops()};
  apps::char_rnn_config config;
  config.units = 8;
  config.embed = 4;
  config.layers = 2;
  auto vocab = char_vocabulary::of({"abcdefgh"});
  config.vocab = vocab.size();
  apps::char_rnn_training_options options;
  options.optimizer.kind = graph::optimizer::algorithm::adam;
  options.optimizer.learning_rate = 0.05;
  apps::char_rnn_training g{s, config, options};
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  std::vector<tensor> out;
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  ASSERT_TRUE(sess.run({}, {}, {g.init}, &out).is_ok());
  auto loss_sum = [&](const text_batch& b) {
    auto st = sess.run(
      {{g.inputs, b.inputs}, {g.targets, b.targets}, {g.lengths, b.lengths}},
      {g.loss_sum, g.loss}, {}, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    EXPECT_NEAR(out[1].scalar_value<float>() * static_cast<float>(b.characters),
                out[0].scalar_value<float>(), 1e-4);
    return out[0].scalar_value<float>();
  };
  std::vector<text_batch> both, first, second;
  ASSERT_TRUE(
    apps::make_text_batches({"abc", "hgfedcba"}, vocab, 20, 2, &both).is_ok());
  ASSERT_TRUE(apps::make_text_batches({"abc"}, vocab, 20, 1, &first).is_ok());
  ASSERT_TRUE(
    apps::make_text_batches({"hgfedcba"}, vocab, 20, 1, &second).is_ok());
  auto alone = loss_sum(first[0]) + loss_sum(second[0]);
  EXPECT_NEAR(loss_sum(both[0]), alone, 1e-4 * alone);
  // Untrained, each character costs about log(vocab).
  EXPECT_NEAR(alone / 9.0, std::log(8.0), 0.3);
  // Training on the batch lowers its loss.
  for (int i = 0; i < 30; ++i)
    ASSERT_TRUE(sess
                  .run({{g.inputs, both[0].inputs},
                        {g.targets, both[0].targets},
                        {g.lengths, both[0].lengths}},
                       {}, {g.train}, &out)
                  .is_ok());
  EXPECT_LT(loss_sum(both[0]), 0.5 * alone);
}
