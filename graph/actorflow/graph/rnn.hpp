#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// One step of a recurrent cell, built into a loop's body by `dynamic_rnn`.
/// The cell holds its weights (variables, or any tensors: placeholders in
/// tests); the step reads them from outside the loop.
class rnn_cell {
public:
  virtual ~rnn_cell() = default;

  /// The width of each part of the state: {units}, or {units, units} for
  /// an LSTM's (c, h).
  virtual std::vector<int64_t> state_sizes() const = 0;

  /// The width of the output.
  virtual int64_t output_size() const = 0;

  /// The cell's weights, for an optimizer's var_list.
  virtual std::vector<output> weights() const = 0;

  /// Builds one step in `s`: from x [batch, depth] and the state's parts
  /// ([batch, width] each), the output [batch, output_size] and the next
  /// state's parts.
  virtual std::vector<output> step(const scope& s, const output& x,
                                   const std::vector<output>& state,
                                   output* out) const = 0;
};

/// h' = tanh([x, h] @ kernel + bias), TensorFlow's BasicRNNCell; the output
/// is h'. kernel: [depth + units, units].
class basic_rnn_cell : public rnn_cell {
public:
  basic_rnn_cell(output kernel, output bias);

  /// A cell with new variables under `s`: kernel Glorot-uniform, bias 0.
  static basic_rnn_cell make(const scope& s, int64_t input_depth, int64_t units,
                             core::dtype type = core::dtype::float32,
                             seeds seed = {});

  std::vector<int64_t> state_sizes() const override;
  int64_t output_size() const override;
  std::vector<output> weights() const override;
  std::vector<output> step(const scope& s, const output& x,
                           const std::vector<output>& state,
                           output* out) const override;

private:
  output kernel_, bias_;
  int64_t units_;
};

/// TensorFlow's LSTMCell (and BasicLSTMCell) without peepholes or
/// projection: [i, j, f, o] = [x, h] @ kernel + bias (gates in that order),
/// c' = sigmoid(f + forget_bias) * c + sigmoid(i) * tanh(j),
/// h' = sigmoid(o) * tanh(c'). The state is (c, h), the output h'.
/// kernel: [depth + units, 4 * units].
class lstm_cell : public rnn_cell {
public:
  lstm_cell(output kernel, output bias, double forget_bias = 1.0);

  /// A cell with new variables under `s`: kernel Glorot-uniform, bias 0.
  static lstm_cell make(const scope& s, int64_t input_depth, int64_t units,
                        core::dtype type = core::dtype::float32,
                        seeds seed = {}, double forget_bias = 1.0);

  std::vector<int64_t> state_sizes() const override;
  int64_t output_size() const override;
  std::vector<output> weights() const override;
  std::vector<output> step(const scope& s, const output& x,
                           const std::vector<output>& state,
                           output* out) const override;

private:
  output kernel_, bias_;
  double forget_bias_;
  int64_t units_;
};

/// TensorFlow's GRUCell: [r, u] = sigmoid([x, h] @ gate_kernel +
/// gate_bias), c = tanh([x, r * h] @ candidate_kernel + candidate_bias),
/// h' = u * h + (1 - u) * c; the output is h'. gate_kernel:
/// [depth + units, 2 * units], candidate_kernel: [depth + units, units].
class gru_cell : public rnn_cell {
public:
  gru_cell(output gate_kernel, output gate_bias, output candidate_kernel,
           output candidate_bias);

  /// A cell with new variables under `s`: kernels Glorot-uniform, the
  /// gates' bias 1 and the candidate's 0 (TensorFlow's defaults).
  static gru_cell make(const scope& s, int64_t input_depth, int64_t units,
                       core::dtype type = core::dtype::float32,
                       seeds seed = {});

  std::vector<int64_t> state_sizes() const override;
  int64_t output_size() const override;
  std::vector<output> weights() const override;
  std::vector<output> step(const scope& s, const output& x,
                           const std::vector<output>& state,
                           output* out) const override;

private:
  output gate_kernel_, gate_bias_, candidate_kernel_, candidate_bias_;
  int64_t units_;
};

/// TensorFlow's MultiRNNCell: `cells` stacked in one step, each one's
/// output the next one's input. The state is every cell's parts, first
/// cell first; the output is the last cell's. One `dynamic_rnn` loop runs
/// all layers, so layer k + 1 of step t can run beside layer k of step t +
/// 1 (up to `parallel_iterations`).
class multi_rnn_cell : public rnn_cell {
public:
  explicit multi_rnn_cell(std::vector<std::shared_ptr<const rnn_cell>> cells);

  std::vector<int64_t> state_sizes() const override;
  int64_t output_size() const override;
  std::vector<output> weights() const override;
  std::vector<output> step(const scope& s, const output& x,
                           const std::vector<output>& state,
                           output* out) const override;

private:
  std::vector<std::shared_ptr<const rnn_cell>> cells_;
};

/// How `dynamic_rnn` lays out and runs its loop.
struct rnn_options {
  /// Inputs and outputs are [time, batch, ...] rather than [batch, time, ...].
  bool time_major = false;
  /// Time steps that may run at once (only the cell's independent work
  /// overlaps: each step needs the state of the one before).
  int64_t parallel_iterations = 32;
  /// TensorFlow's swap_memory: accepted, and a no-op on the CPU.
  bool swap_memory = false;
};

/// What `dynamic_rnn` returns: every step's output ([batch, time, out], or
/// time-major) and the final state's parts.
struct rnn_result {
  output outputs;
  std::vector<output> state;
};

/// Runs `cell` over `inputs` ([batch, time, depth], depth known) in a while
/// loop, as TensorFlow's tf.nn.dynamic_rnn: with `sequence_length` (an
/// int32 vector of the batch's lengths; invalid for none), a sequence's
/// outputs past its length are zeros and its state is carried through
/// unchanged, and the loop stops after the longest sequence, so a batch
/// costs what its longest sequence costs. `initial_state` is empty (zeros)
/// or one tensor per part of the cell's state.
rnn_result dynamic_rnn(const scope& s, const rnn_cell& cell,
                       const output& inputs, const output& sequence_length,
                       const std::vector<output>& initial_state = {},
                       const rnn_options& options = {});

} // namespace actorflow::graph
