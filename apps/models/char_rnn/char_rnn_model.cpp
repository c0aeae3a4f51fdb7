// The char-RNN: embedding, stacked LSTM or GRU cells, softmax, and the
// JSON beside its checkpoints that `sample` rebuilds it from.

#include "models/char_rnn/char_rnn_model.hpp"

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"

namespace actorflow::apps {

using core::dtype;

namespace {

/// A variable of `dims` uniform in [-bound, bound).
graph::output uniform_variable(const graph::scope& s,
                               const std::vector<int64_t>& dims, double bound,
                               graph::seeds seed) {
  auto u = graph::random_uniform(s.sub("init"), dims, dtype::float32, seed);
  return graph::variable(
    s, graph::sub(s, graph::mul(s, u, graph::constant(s, 2 * bound)),
                  graph::constant(s, bound)));
}

} // namespace

core::status save_char_rnn_config(const std::string& dir,
                                  const char_rnn_config& config,
                                  const char_vocabulary& vocab) {
  nlohmann::ordered_json j{{"cell", config.cell},
                           {"layers", config.layers},
                           {"units", config.units},
                           {"embed", config.embed},
                           {"vocabulary", vocab.bytes()}};
  auto path = dir + "/" + char_rnn_config_file;
  std::ofstream out{path};
  out << j.dump(1) << '\n';
  if (!out)
    return core::status{core::errc::internal, "cannot write " + path};
  return core::status::ok();
}

core::status load_char_rnn_config(const std::string& dir,
                                  char_rnn_config* config,
                                  char_vocabulary* vocab) {
  auto path = dir + "/" + char_rnn_config_file;
  std::ifstream in{path};
  if (!in)
    return core::status{core::errc::not_found,
                        "no " + path + ": not a char-rnn checkpoint directory"};
  auto j = nlohmann::json::parse(in, nullptr, false);
  try {
    config->cell = j.at("cell").get<std::string>();
    config->layers = j.at("layers").get<int>();
    config->units = j.at("units").get<int64_t>();
    config->embed = j.at("embed").get<int64_t>();
    auto bytes = j.at("vocabulary").get<std::vector<uint8_t>>();
    *vocab = char_vocabulary{bytes};
    config->vocab = vocab->size();
  } catch (const nlohmann::json::exception&) {
    // The library's text names its own internals, not the file's.
    return core::status{core::errc::data_loss,
                        path
                          + " is damaged: not the JSON `actorflow train "
                            "char-rnn` writes (cell, layers, units, embed, "
                            "vocabulary); train again to write it anew"};
  }
  if ((config->cell != "lstm" && config->cell != "gru") || config->layers < 1
      || config->units < 1 || config->embed < 1 || config->vocab < 1)
    return core::status{core::errc::data_loss,
                        path
                          + " is damaged: a cell, layers, units, embed or "
                            "vocabulary out of range"};
  return core::status::ok();
}

char_rnn_model::char_rnn_model(const graph::scope& s,
                               const char_rnn_config& config)
  : config_(config) {
  const auto& c = config_;
  embedding_ = uniform_variable(s.sub("embedding"), {c.vocab, c.embed}, 1.0,
                                {c.seed, 1});
  // Each cell reads its weights once per step, outside its loop, on the
  // device that runs it (TensorFlow's caching_device): over a cluster the
  // variables stay on the parameter server and the loop does not fetch
  // them again each iteration.
  auto read_all = [](const graph::scope& ls, const graph::rnn_cell& cell) {
    std::vector<graph::output> reads;
    for (const auto& w : cell.weights())
      reads.push_back(graph::identity(ls.sub("read"), w));
    return reads;
  };
  std::vector<std::shared_ptr<const graph::rnn_cell>> layers;
  auto depth = c.embed;
  for (int layer = 0; layer < c.layers; ++layer) {
    auto ls = s.sub(c.cell + "_" + std::to_string(layer + 1));
    graph::seeds seed{c.seed, 2 + layer};
    if (c.cell == "gru") {
      auto made
        = graph::gru_cell::make(ls, depth, c.units, dtype::float32, seed);
      auto r = read_all(ls, made);
      layers.push_back(
        std::make_shared<graph::gru_cell>(r[0], r[1], r[2], r[3]));
      variables_.push_back(made.weights());
    } else {
      auto made
        = graph::lstm_cell::make(ls, depth, c.units, dtype::float32, seed);
      auto r = read_all(ls, made);
      layers.push_back(std::make_shared<graph::lstm_cell>(r[0], r[1]));
      variables_.push_back(made.weights());
    }
    depth = c.units;
  }
  // Several layers step in one loop (TensorFlow's MultiRNNCell).
  cell_ = layers.size() == 1
            ? layers.front()
            : std::make_shared<graph::multi_rnn_cell>(std::move(layers));
  auto bound = std::sqrt(6.0 / static_cast<double>(c.units + c.vocab));
  weights_ = uniform_variable(s.sub("softmax_weights"), {c.units, c.vocab},
                              bound, {c.seed, 2 + c.layers});
  bias_ = graph::variable(s.sub("softmax_bias"),
                          graph::zeros(s, {c.vocab}, dtype::float32));
}

char_rnn_model::result
char_rnn_model::forward(const graph::scope& s, const graph::output& inputs,
                        const graph::output& lengths,
                        const std::vector<graph::output>& initial_state) const {
  result r;
  auto x = graph::gather(s, embedding_, inputs); // [batch, steps, embed]
  auto rnn = graph::dynamic_rnn(s, *cell_, x, lengths, initial_state);
  r.state = rnn.state;
  auto h = rnn.outputs;
  auto flat = graph::reshape(s, h, std::vector<int64_t>{-1, config_.units});
  r.logits = graph::bias_add(s, graph::matmul(s, flat, weights_), bias_);
  return r;
}

std::vector<int64_t> char_rnn_model::state_sizes() const {
  return cell_->state_sizes();
}

std::vector<graph::output> char_rnn_model::variables() const {
  std::vector<graph::output> vars{embedding_};
  for (const auto& layer : variables_)
    vars.insert(vars.end(), layer.begin(), layer.end());
  vars.push_back(weights_);
  vars.push_back(bias_);
  return vars;
}

} // namespace actorflow::apps
