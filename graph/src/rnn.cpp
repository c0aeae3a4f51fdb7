#include "actorflow/graph/rnn.hpp"

#include <cmath>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/tensor_array.hpp"
#include "builder_util.hpp"
#include "sequence_loop.hpp"

namespace actorflow::graph {

namespace {

/// A variable of `dims` Glorot-uniform in [-b, b), b = sqrt(6 / (in + out)).
output glorot(const scope& s, const std::vector<int64_t>& dims,
              core::dtype type, seeds seed) {
  auto bound = std::sqrt(6.0 / static_cast<double>(dims[0] + dims[1]));
  auto u = random_uniform(s.sub("init"), dims, type, seed);
  auto w
    = sub(s, mul(s, u, constant(s, 2 * bound, type)), constant(s, bound, type));
  return variable(s, w);
}

output filled(const scope& s, int64_t n, double v, core::dtype type) {
  return variable(s, fill(s.sub("init"), {n}, constant(s, v, type)));
}

/// The width a kernel's last dimension gives, divided by `parts`.
int64_t units_of(const output& kernel, int64_t parts) {
  const auto& k = kernel.shape();
  return k.rank() == 2 && k.dim(1) >= 0 ? k.dim(1) / parts : -1;
}

/// [x, h] @ kernel + bias.
output affine(const scope& s, const output& x, const output& h,
              const output& kernel, const output& bias) {
  return bias_add(s, matmul(s, concat(s, {x, h}, 1), kernel), bias);
}

/// Zeros of [dims..., width], the leading dims given as int32 scalars.
output zeros_of(const scope& s, const std::vector<output>& dims, int64_t width,
                core::dtype type) {
  std::vector<output> parts;
  for (const auto& d : dims)
    parts.push_back(reshape(s, d, std::vector<int64_t>{1}));
  parts.push_back(
    detail::int_constant(s, "width", {width}, false, core::dtype::int32));
  return fill(s, concat(s, parts, 0), constant(s, 0.0, type));
}

} // namespace

// -- basic_rnn_cell ----------------------------------------------------------

basic_rnn_cell::basic_rnn_cell(output kernel, output bias)
  : kernel_(std::move(kernel)), bias_(std::move(bias)),
    units_(units_of(kernel_, 1)) {
  // nop
}

basic_rnn_cell basic_rnn_cell::make(const scope& s, int64_t input_depth,
                                    int64_t units, core::dtype type,
                                    seeds seed) {
  return {glorot(s.sub("kernel"), {input_depth + units, units}, type, seed),
          filled(s.sub("bias"), units, 0.0, type)};
}

std::vector<int64_t> basic_rnn_cell::state_sizes() const {
  return {units_};
}

int64_t basic_rnn_cell::output_size() const {
  return units_;
}

std::vector<output> basic_rnn_cell::weights() const {
  return {kernel_, bias_};
}

std::vector<output> basic_rnn_cell::step(const scope& s, const output& x,
                                         const std::vector<output>& state,
                                         output* out) const {
  *out = tanh(s, affine(s, x, state.at(0), kernel_, bias_));
  return {*out};
}

// -- lstm_cell ---------------------------------------------------------------

lstm_cell::lstm_cell(output kernel, output bias, double forget_bias)
  : kernel_(std::move(kernel)), bias_(std::move(bias)),
    forget_bias_(forget_bias), units_(units_of(kernel_, 4)) {
  // nop
}

lstm_cell lstm_cell::make(const scope& s, int64_t input_depth, int64_t units,
                          core::dtype type, seeds seed, double forget_bias) {
  return {glorot(s.sub("kernel"), {input_depth + units, 4 * units}, type, seed),
          filled(s.sub("bias"), 4 * units, 0.0, type), forget_bias};
}

std::vector<int64_t> lstm_cell::state_sizes() const {
  return {units_, units_};
}

int64_t lstm_cell::output_size() const {
  return units_;
}

std::vector<output> lstm_cell::weights() const {
  return {kernel_, bias_};
}

std::vector<output> lstm_cell::step(const scope& s, const output& x,
                                    const std::vector<output>& state,
                                    output* out) const {
  const auto& c = state.at(0);
  const auto& h = state.at(1);
  auto gates = split(s, affine(s, x, h, kernel_, bias_), 1, 4);
  if (gates.size() != 4)
    return {};
  auto forget = constant(s, forget_bias_, c.dtype());
  auto next_c = sigmoid(s, gates[2] + forget) * c
                + sigmoid(s, gates[0]) * tanh(s, gates[1]);
  *out = sigmoid(s, gates[3]) * tanh(s, next_c);
  return {next_c, *out};
}

// -- gru_cell ----------------------------------------------------------------

gru_cell::gru_cell(output gate_kernel, output gate_bias,
                   output candidate_kernel, output candidate_bias)
  : gate_kernel_(std::move(gate_kernel)), gate_bias_(std::move(gate_bias)),
    candidate_kernel_(std::move(candidate_kernel)),
    candidate_bias_(std::move(candidate_bias)),
    units_(units_of(candidate_kernel_, 1)) {
  // nop
}

gru_cell gru_cell::make(const scope& s, int64_t input_depth, int64_t units,
                        core::dtype type, seeds seed) {
  auto gates = s.sub("gates");
  auto candidate = s.sub("candidate");
  seeds second{seed.seed, seed.seed2 + 1};
  return {
    glorot(gates.sub("kernel"), {input_depth + units, 2 * units}, type, seed),
    filled(gates.sub("bias"), 2 * units, 1.0, type),
    glorot(candidate.sub("kernel"), {input_depth + units, units}, type, second),
    filled(candidate.sub("bias"), units, 0.0, type)};
}

std::vector<int64_t> gru_cell::state_sizes() const {
  return {units_};
}

int64_t gru_cell::output_size() const {
  return units_;
}

std::vector<output> gru_cell::weights() const {
  return {gate_kernel_, gate_bias_, candidate_kernel_, candidate_bias_};
}

std::vector<output> gru_cell::step(const scope& s, const output& x,
                                   const std::vector<output>& state,
                                   output* out) const {
  const auto& h = state.at(0);
  auto ru
    = split(s, sigmoid(s, affine(s, x, h, gate_kernel_, gate_bias_)), 1, 2);
  if (ru.size() != 2)
    return {};
  auto c = tanh(s, affine(s, x, ru[0] * h, candidate_kernel_, candidate_bias_));
  auto one = constant(s, 1.0, h.dtype());
  *out = ru[1] * h + (one - ru[1]) * c;
  return {*out};
}

// -- multi_rnn_cell ----------------------------------------------------------

multi_rnn_cell::multi_rnn_cell(
  std::vector<std::shared_ptr<const rnn_cell>> cells)
  : cells_(std::move(cells)) {
  // nop
}

std::vector<int64_t> multi_rnn_cell::state_sizes() const {
  std::vector<int64_t> sizes;
  for (const auto& c : cells_)
    for (auto w : c->state_sizes())
      sizes.push_back(w);
  return sizes;
}

int64_t multi_rnn_cell::output_size() const {
  return cells_.empty() ? -1 : cells_.back()->output_size();
}

std::vector<output> multi_rnn_cell::weights() const {
  std::vector<output> ws;
  for (const auto& c : cells_)
    for (auto& w : c->weights())
      ws.push_back(std::move(w));
  return ws;
}

std::vector<output> multi_rnn_cell::step(const scope& s, const output& x,
                                         const std::vector<output>& state,
                                         output* out) const {
  std::vector<output> next;
  auto h = x;
  size_t part = 0;
  for (size_t k = 0; k < cells_.size(); ++k) {
    auto parts = cells_[k]->state_sizes().size();
    if (part + parts > state.size())
      return {}; // dynamic_rnn reports the missing parts
    std::vector<output> own(state.begin() + static_cast<std::ptrdiff_t>(part),
                            state.begin()
                              + static_cast<std::ptrdiff_t>(part + parts));
    part += parts;
    output cell_out;
    auto cell_next
      = cells_[k]->step(s.sub("cell_" + std::to_string(k)), h, own, &cell_out);
    if (cell_next.size() != parts)
      return {};
    h = cell_out;
    next.insert(next.end(), cell_next.begin(), cell_next.end());
  }
  *out = h;
  return next;
}

// -- dynamic_rnn -------------------------------------------------------------

rnn_result dynamic_rnn(const scope& scope_in, const rnn_cell& cell,
                       const output& inputs, const output& sequence_length,
                       const std::vector<output>& initial_state,
                       const rnn_options& o) {
  auto s = scope_in.sub("rnn");
  rnn_result result;
  const auto& in = inputs.shape();
  if (!in.known_rank() || in.rank() != 3 || in.dim(2) < 0) {
    s.record_error(core::invalid_argument_error(
      "dynamic_rnn needs inputs of rank 3 with a known depth, got ",
      in.to_string(), " (", inputs.name(), ")"));
    return result;
  }
  auto type = inputs.dtype();
  auto x = o.time_major ? inputs : transpose(s, inputs, {1, 0, 2});
  auto steps = detail::dim_of(s, x, 0);
  auto batch = detail::dim_of(s, x, 1);
  auto sizes = cell.state_sizes();
  auto state = initial_state;
  if (state.empty())
    for (auto width : sizes)
      state.push_back(zeros_of(s.sub("zero_state"), {batch}, width, type));
  if (state.size() != sizes.size()) {
    s.record_error(core::invalid_argument_error(
      "dynamic_rnn: the cell's state has ", sizes.size(), " parts, ",
      "initial_state ", state.size()));
    return result;
  }
  // The loop stops after the longest sequence; the outputs past it are
  // zeros, added after the loop.
  auto length = steps;
  if (sequence_length.valid())
    length = minimum(
      s, steps,
      cast(s, reduce_max(s, sequence_length, {0}), core::dtype::int32));
  tensor_array::options in_opts{type};
  in_opts.element_shape = detail::row_shape(x.shape());
  auto input_ta = tensor_array::make(s.sub("input"), steps, in_opts)
                    .unstack(s.sub("input"), x);
  auto n = state.size();
  auto step
    = [&](const scope& b, const output& time, const std::vector<output>& now) {
        output out;
        auto next = cell.step(b, input_ta.read(b, time), now, &out);
        if (next.size() != n) {
          b.record_error(core::invalid_argument_error(
            "dynamic_rnn: the cell's step gave ", next.size(), " state parts, ",
            "its state has ", n));
          return std::vector<output>{};
        }
        if (sequence_length.valid()) {
          // Past its length a sequence's output is zeros and its state stays.
          auto done = greater_equal(b, time, sequence_length);
          out = select(b, done, zeros_like(b, out), out);
          for (size_t k = 0; k < n; ++k)
            next[k] = select(b, done, now[k], next[k]);
        }
        next.push_back(out);
        return next;
      };
  auto loop = detail::index_loop(s.sub("while"), length, 0, false, state,
                                 {type}, o.parallel_iterations, step);
  if (loop.carried.size() != n)
    return result;
  auto stacked = loop.results[0].stack(s);
  if (sequence_length.valid())
    stacked = concat(
      s,
      {stacked, zeros_of(s.sub("padding"), {sub(s, steps, length), batch},
                         cell.output_size(), type)},
      0);
  result.outputs = o.time_major ? stacked : transpose(s, stacked, {1, 0, 2});
  result.state = std::move(loop.carried);
  return result;
}

} // namespace actorflow::graph
