// P13: one training step of a character-level LSTM language model, the
// model of ../shared/bench/peers/char_rnn_tf1.py: embedding 100 x 64 ->
// one LSTM of 256 units through graph::dynamic_rnn with sequence_length ->
// dense 256 -> 100 -> sparse softmax cross-entropy masked past each
// sequence's end, averaged over the real characters -> plain SGD (0.1).
// Batch 32, batch-major; each batch's lengths uniform in [20, 100] (fixed
// seed, 8 batches cycled), padded to its longest. Random character ids:
// the step's cost does not depend on the text.
//
//   bench_char_rnn [--steps N] [--warmup W] [--rounds R] [--trace FILE]
//
// Last output line: {"bench": "char_rnn", "ms_per_step": ...,
// "last_loss": ..., "peak_rss_mb": ...}: the best round's mean step.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include <CLI/CLI.hpp>

#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/rnn.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "common/process_memory.hpp"
#include "json_line.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

struct batch_data {
  tensor x, y, lengths;
};

void check(const core::status& st) {
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    std::exit(1);
  }
}

} // namespace

int main(int argc, char** argv) {
  int64_t batch = 32, units = 256, embed = 64, vocab = 100;
  int64_t min_len = 20, max_len = 100;
  int steps = 30, warmup = 5, rounds = 3;
  std::string trace_file;
  CLI::App app{"P13: the training step of a char-level LSTM language model "
               "through dynamic_rnn"};
  app.add_option("--batch", batch)->capture_default_str();
  app.add_option("--units", units)->capture_default_str();
  app.add_option("--min-len", min_len)->capture_default_str();
  app.add_option("--max-len", max_len)->capture_default_str();
  app.add_option("--steps", steps, "Timed steps per round")
    ->capture_default_str();
  app.add_option("--warmup", warmup, "Untimed steps first")
    ->capture_default_str();
  app.add_option("--rounds", rounds, "Rounds; the best counts")
    ->capture_default_str();
  app.add_option("--trace", trace_file,
                 "Write a Chrome trace of three more steps to this file");
  CLI11_PARSE(app, argc, argv);

  std::mt19937 rng{7};
  std::vector<batch_data> batches;
  for (int k = 0; k < 8; ++k) {
    std::uniform_int_distribution<int32_t> len(static_cast<int32_t>(min_len),
                                               static_cast<int32_t>(max_len));
    std::uniform_int_distribution<int32_t> id(0,
                                              static_cast<int32_t>(vocab) - 1);
    std::vector<int32_t> lens(static_cast<size_t>(batch));
    for (auto& l : lens)
      l = len(rng);
    auto t = *std::max_element(lens.begin(), lens.end());
    std::vector<int32_t> xs(static_cast<size_t>(batch * t)),
      ys(static_cast<size_t>(batch * t));
    for (auto& v : xs)
      v = id(rng);
    for (auto& v : ys)
      v = id(rng);
    batches.push_back({tensor::from_vector<int32_t>({batch, t}, xs),
                       tensor::from_vector<int32_t>({batch, t}, ys),
                       tensor::from_vector<int32_t>({batch}, lens)});
  }

  actors::engine e;
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::int32, {batch, -1});
  auto y = graph::placeholder(s.sub("y"), dtype::int32, {batch, -1});
  auto lens = graph::placeholder(s.sub("lens"), dtype::int32, {batch});
  auto emb = graph::variable(
    s.sub("emb"), graph::random_uniform(s.sub("emb_init"), {vocab, embed},
                                        dtype::float32, {1, 1}));
  auto inputs = graph::gather(s, emb, x); // [batch, time, embed]
  auto cell = graph::lstm_cell::make(s.sub("lstm"), embed, units,
                                     dtype::float32, {1, 2});
  auto r = graph::dynamic_rnn(s, cell, inputs, lens);
  auto w = graph::variable(
    s.sub("w"), graph::random_uniform(s.sub("w_init"), {units, vocab},
                                      dtype::float32, {1, 3}));
  auto b
    = graph::variable(s.sub("b"), graph::zeros(s, {vocab}, dtype::float32));
  auto flat = graph::reshape(s, r.outputs, std::vector<int64_t>{-1, units});
  auto logits = graph::add(s, graph::matmul(s, flat, w), b);
  auto labels = graph::cast(s, graph::reshape(s, y, std::vector<int64_t>{-1}),
                            dtype::int64);
  auto ce
    = graph::sparse_softmax_cross_entropy_with_logits(s, logits, labels).first;
  // The mask: position t of sequence i is real while t < lengths[i].
  auto steps_t
    = graph::reshape(s, graph::slice(s, graph::shape_of(s, x), {1}, {1}),
                     std::vector<int64_t>{});
  auto positions = graph::range(s, graph::constant(s, int32_t{0}), steps_t,
                                graph::constant(s, int32_t{1}));
  auto mask = graph::cast(
    s,
    graph::less(s, graph::reshape(s, positions, std::vector<int64_t>{1, -1}),
                graph::reshape(s, lens, std::vector<int64_t>{batch, 1})),
    dtype::float32);
  auto flat_mask = graph::reshape(s, mask, std::vector<int64_t>{-1});
  auto loss = graph::div(s, graph::reduce_sum(s, ce * flat_mask, {0}),
                         graph::reduce_sum(s, flat_mask, {0}));
  auto vars = cell.weights();
  vars.insert(vars.end(), {emb, w, b});
  graph::optimizer sgd;
  sgd.learning_rate = 0.1;
  auto train = graph::minimize(s.sub("train"), loss, vars, sgd);
  auto init = s.initializer();
  check(s.status());
  actors::session sess{e};
  check(sess.extend(s.graph_def()));
  std::vector<tensor> out;
  check(sess.run({}, {}, {init.name}, &out));
  size_t next = 0;
  auto step = [&](const actors::run_options& ro, actors::run_metadata* md) {
    const auto& bd = batches[next++ % batches.size()];
    check(sess.run(
      ro, {{x.name(), bd.x}, {y.name(), bd.y}, {lens.name(), bd.lengths}},
      {loss.name()}, {train.name}, &out, md));
    return out[0].scalar_value<float>();
  };
  actors::run_options plain;
  float last = 0;
  for (int i = 0; i < warmup; ++i)
    last = step(plain, nullptr);
  double best = 1e30;
  for (int round = 0; round < rounds; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
      last = step(plain, nullptr);
    auto ms = std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - t0)
                .count()
              / steps;
    std::printf("round %d: %.2f ms per step, loss %.4f\n", round, ms, last);
    best = std::min(best, ms);
  }
  if (!trace_file.empty()) {
    actors::chrome_trace trace;
    actors::run_options traced;
    traced.trace = actors::trace_level::full;
    for (int i = 0; i < 3; ++i) {
      actors::run_metadata md;
      step(traced, &md);
      trace.add(md.stats);
    }
    check(trace.write(trace_file));
  }
  bench::print_json_line(
    {{"bench", "char_rnn"},
     {"batch", batch},
     {"units", units},
     {"ms_per_step", bench::rounded(best, 3)},
     {"last_loss", bench::rounded(last, 4)},
     {"peak_rss_mb", bench::rounded(test::peak_rss_mb(), 1)}});
  return 0;
}
