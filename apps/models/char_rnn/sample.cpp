// `actorflow sample`: text a trained char-RNN generates after a prime, in
// one run of a loop in the graph.

#include "models/char_rnn/sample.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>

#include "actorflow/actors/checkpoint_manager.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/io_ops.hpp"
#include "common/flags.hpp"
#include "models/char_rnn/char_rnn_model.hpp"

namespace actorflow::apps {

namespace {

using core::dtype;

int fail(const std::string& what) {
  std::fprintf(stderr, "actorflow sample: %s\n", what.c_str());
  return 1;
}

/// The graph that runs the model over a few characters from a fed state:
/// `inputs` int32 [1, steps], `lengths` int32 [1] and one placeholder per
/// part of the state in; the logits of every step and the state after the
/// last out.
struct sampling_graph {
  sampling_graph(const graph::scope& s, const char_rnn_config& config)
    : model(s.sub("model"), config) {
    auto x = graph::placeholder(s.sub("inputs"), dtype::int32, {1, -1});
    auto lens = graph::placeholder(s.sub("lengths"), dtype::int32, {1});
    std::vector<graph::output> initial;
    for (auto width : model.state_sizes()) {
      auto p
        = graph::placeholder(s.sub("state_" + std::to_string(initial.size())),
                             dtype::float32, {1, width});
      initial.push_back(p);
      state_in.push_back(p.name());
    }
    auto r = model.forward(s.sub("model"), x, lens, initial);
    inputs = x.name();
    lengths = lens.name();
    logits = r.logits.name();
    for (const auto& part : r.state)
      state_out.push_back(part.name());
    std::vector<std::pair<std::string, graph::output>> vars;
    for (const auto& v : model.variables())
      vars.emplace_back(v.node_name(), v);
    saver = graph::make_saver(s.sub("saver"), vars);
  }

  char_rnn_model model;
  std::string inputs, lengths, logits;
  std::vector<std::string> state_in, state_out;
  graph::saver saver;
};

/// An id drawn from softmax(row / temperature).
int32_t draw(const float* row, int64_t n, double temperature,
             std::mt19937_64& rng) {
  double top = row[0];
  for (int64_t i = 1; i < n; ++i)
    top = std::max(top, static_cast<double>(row[i]));
  std::vector<double> p(static_cast<size_t>(n));
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += p[static_cast<size_t>(i)] = std::exp((row[i] - top) / temperature);
  auto u = std::uniform_real_distribution<double>{0.0, sum}(rng);
  for (int64_t i = 0; i < n; ++i) {
    u -= p[static_cast<size_t>(i)];
    if (u < 0)
      return static_cast<int32_t>(i);
  }
  return static_cast<int32_t>(n - 1);
}

} // namespace

int run_sample(const sample_options& o) {
  // The folder train char-rnn wrote, or the one it was given.
  auto dir = o.checkpoint_dir;
  auto trained = dir + "/char-rnn";
  if (!std::filesystem::exists(dir + "/" + char_rnn_config_file)) {
    if (!std::filesystem::exists(trained + "/" + char_rnn_config_file))
      return fail("no " + trained + "/" + char_rnn_config_file + " (nor one in "
                  + dir
                  + "): not a char-rnn checkpoint directory\n  give "
                    "--checkpoint-dir what `actorflow train char-rnn "
                    "--checkpoint-dir` was given, or train one there");
    dir = trained;
  }
  char_rnn_config config;
  char_vocabulary vocab;
  auto st = load_char_rnn_config(dir, &config, &vocab);
  if (!st.is_ok())
    return fail(st.to_string());
  if (o.prime.empty())
    return fail("--prime may not be empty: the model starts from it");
  std::vector<int32_t> prime;
  for (unsigned char c : o.prime) {
    auto id = vocab.id(c);
    if (id < 0)
      return fail("the prime's character '"
                  + std::string(1, static_cast<char>(c)) + "' (byte "
                  + std::to_string(static_cast<int>(c))
                  + ") never occurs in the training text");
    prime.push_back(id);
  }
  actors::engine e{with_threads({}, o.threads)};
  if (!e.init_status().is_ok())
    return fail(e.init_status().to_string());
  graph::scope s{e.context().ops()};
  sampling_graph g{s, config};
  if (!s.ok())
    return fail(s.status().to_string());
  actors::session sess{e};
  st = sess.extend(s.graph_def());
  if (!st.is_ok())
    return fail(st.to_string());
  actors::checkpoint_manager checkpoints{sess, g.saver, dir, "model", 1};
  int64_t step = 0;
  st = checkpoints.restore_latest(&step);
  if (!st.is_ok())
    return fail(st.to_string());
  std::fprintf(stderr, "sampling from %s\n", checkpoints.path(step).c_str());

  auto seed = o.seed != 0 ? o.seed : std::random_device{}();
  std::mt19937_64 rng{seed};
  std::vector<core::tensor> state;
  for (auto width : g.model.state_sizes())
    state.push_back(core::tensor{dtype::float32, core::shape{1, width}});
  for (auto& t : state)
    std::fill_n(t.mutable_data<float>(), t.num_elements(), 0.0f);
  std::string text = o.prime;
  auto next = prime;
  std::vector<core::tensor> out;
  for (int i = 0; i < o.length; ++i) {
    auto steps = static_cast<int64_t>(next.size());
    actors::feed_list feeds{
      {g.inputs, core::tensor::from_vector<int32_t>({1, steps}, next)},
      {g.lengths,
       core::tensor::from_vector<int32_t>({1}, {static_cast<int32_t>(steps)})}};
    for (size_t k = 0; k < state.size(); ++k)
      feeds.push_back({g.state_in[k], state[k]});
    auto fetches = g.state_out;
    fetches.insert(fetches.begin(), g.logits);
    st = sess.run(feeds, fetches, {}, &out);
    if (!st.is_ok())
      return fail(st.to_string());
    const auto* last = out[0].data<float>() + (steps - 1) * config.vocab;
    auto id = draw(last, config.vocab, o.temperature, rng);
    text += vocab.byte(id);
    next.assign(1, id);
    for (size_t k = 0; k < state.size(); ++k)
      state[k] = out[k + 1];
  }
  std::printf("%s\n", text.c_str());
  return 0;
}

void add_sample_command(CLI::App& app, command_list* out) {
  auto sample = std::make_shared<sample_options>();
  auto* cmd = app.add_subcommand(
    "sample", "Print text a char-RNN trained by `actorflow train char-rnn` "
              "generates after a prime, from its newest checkpoint");
  cmd
    ->add_option("--checkpoint-dir", sample->checkpoint_dir,
                 "What train char-rnn's --checkpoint-dir was")
    ->capture_default_str();
  cmd->add_option("--prime", sample->prime, "The text to start from")
    ->capture_default_str();
  cmd->add_option("--length", sample->length, "Characters to generate")
    ->capture_default_str()
    ->check(int_range(0, 1'000'000));
  cmd
    ->add_option("--temperature", sample->temperature,
                 "Below 1: likelier characters; above 1: more varied ones")
    ->capture_default_str()
    ->check(finite_positive());
  cmd
    ->add_option("--seed", sample->seed,
                 "Seed of the sampling (0: another each run)")
    ->capture_default_str();
  add_threads_option(cmd, &sample->threads);
  out->push_back({cmd, [sample] { return run_sample(*sample); }});
}

} // namespace actorflow::apps
