#pragma once

// The char-RNN's model and the file that describes it beside checkpoints.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/rnn.hpp"
#include "actorflow/graph/scope.hpp"
#include "models/char_rnn/text_data.hpp"

namespace actorflow::apps {

/// The shape of a character-level language model.
struct char_rnn_config {
  /// "lstm" or "gru".
  std::string cell = "lstm";
  int layers = 1;
  int64_t units = 256;
  int64_t embed = 64;
  /// Characters in the vocabulary.
  int64_t vocab = 0;
  int64_t seed = 1;
};

/// The file beside a char-RNN's checkpoints that says how to rebuild the
/// model: `config` and the vocabulary, as JSON.
inline constexpr const char* char_rnn_config_file = "char-rnn.json";

/// Writes `dir`/char-rnn.json.
core::status save_char_rnn_config(const std::string& dir,
                                  const char_rnn_config& config,
                                  const char_vocabulary& vocab);

/// Reads `dir`/char-rnn.json: not_found when it is not there, data_loss
/// when it is not what save_char_rnn_config writes.
core::status load_char_rnn_config(const std::string& dir,
                                  char_rnn_config* config,
                                  char_vocabulary* vocab);

/// A character-level language model's variables and forward pass:
/// embedding [vocab, embed] -> `layers` LSTM or GRU layers of `units`
/// (one graph::dynamic_rnn over a multi_rnn_cell) -> dense [units,
/// vocab]. The forward pass can
/// be built several times over the same variables (training, sampling).
class char_rnn_model {
public:
  /// New variables under `s` (initialised by the graph's initializer).
  char_rnn_model(const graph::scope& s, const char_rnn_config& config);

  /// The logits and the final state of one forward pass.
  struct result {
    /// [batch * steps, vocab], row-major over (sequence, step); rows past
    /// a sequence's length are the bias alone.
    graph::output logits;
    /// Every layer's state parts, first layer first.
    std::vector<graph::output> state;
  };

  /// The pass over `inputs` (int32 ids [batch, steps]) with `lengths`
  /// (int32 [batch]) from `initial_state` (empty: zeros; else as
  /// `result::state`).
  result forward(const graph::scope& s, const graph::output& inputs,
                 const graph::output& lengths,
                 const std::vector<graph::output>& initial_state = {}) const;

  /// The width of each part of the state, as `result::state` orders them.
  std::vector<int64_t> state_sizes() const;

  /// Every weight, for an optimizer and a saver.
  std::vector<graph::output> variables() const;

  const char_rnn_config& config() const noexcept {
    return config_;
  }

private:
  char_rnn_config config_;
  graph::output embedding_, weights_, bias_;
  /// The layers' cell (a multi_rnn_cell for several), over reads of
  /// their variables.
  std::shared_ptr<const graph::rnn_cell> cell_;
  /// Each layer's variables.
  std::vector<std::vector<graph::output>> variables_;
};

} // namespace actorflow::apps
