// Builders over sequences and experts from Python: map_fn, scan, foldl
// and foldr with Python functions, dynamic_rnn over the engine's RNN
// cells, and the mixture-of-experts layer with Python-built experts.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "actorflow/graph/functional_ops.hpp"
#include "actorflow/graph/moe.hpp"
#include "actorflow/graph/rnn.hpp"
#include "bindings.hpp"
#include "errors.hpp"
#include "python_calls.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace actorflow::python {

namespace {

using outputs = std::vector<graph::output>;

outputs map_fn(const graph::scope& s, nb::callable fn, const outputs& elems,
               int64_t parallel_iterations,
               const std::vector<std::string>& dtypes) {
  graph::functional_options o;
  o.parallel_iterations = parallel_iterations;
  for (const auto& d : dtypes) {
    auto t = core::parse_dtype(d);
    if (!t)
      throw status_error{
        core::invalid_argument_error("unknown dtype '", d, "'")};
    o.dtypes.push_back(*t);
  }
  python_calls call{s};
  auto out = graph::map_fn(
    s,
    [&](const graph::scope& at, const outputs& row) {
      return call([&] { return nb::cast<outputs>(fn(at, row)); });
    },
    elems, o);
  call.finish();
  return out;
}

/// scan, foldl or foldr: `kind` picks the builder.
outputs fold(const std::string& kind, const graph::scope& s, nb::callable fn,
             const outputs& elems, const outputs& initializer,
             int64_t parallel_iterations, bool reverse) {
  python_calls call{s};
  auto body
    = [&](const graph::scope& at, const outputs& acc, const outputs& row) {
        return call([&] { return nb::cast<outputs>(fn(at, acc, row)); });
      };
  outputs out;
  if (kind == "scan") {
    graph::functional_options o;
    o.parallel_iterations = parallel_iterations;
    o.reverse = reverse;
    out = graph::scan(s, body, elems, initializer, o);
  } else if (kind == "foldl") {
    out = graph::foldl(s, body, elems, initializer, parallel_iterations);
  } else {
    out = graph::foldr(s, body, elems, initializer, parallel_iterations);
  }
  call.finish();
  return out;
}

using cell_ptr = std::shared_ptr<const graph::rnn_cell>;

/// A cell with new variables under `s`: kind basic, lstm or gru.
cell_ptr make_cell(const graph::scope& s, const std::string& kind,
                   int64_t input_depth, int64_t units, const std::string& dtype,
                   int64_t seed, int64_t seed2, double forget_bias) {
  auto t = core::parse_dtype(dtype);
  if (!t)
    throw status_error{
      core::invalid_argument_error("unknown dtype '", dtype, "'")};
  graph::seeds seeds{seed, seed2};
  cell_ptr cell;
  if (kind == "basic")
    cell = std::make_shared<graph::basic_rnn_cell>(
      graph::basic_rnn_cell::make(s, input_depth, units, *t, seeds));
  else if (kind == "lstm")
    cell = std::make_shared<graph::lstm_cell>(
      graph::lstm_cell::make(s, input_depth, units, *t, seeds, forget_bias));
  else if (kind == "gru")
    cell = std::make_shared<graph::gru_cell>(
      graph::gru_cell::make(s, input_depth, units, *t, seeds));
  else
    throw status_error{core::invalid_argument_error(
      "unknown cell kind '", kind, "'; one of basic, lstm, gru")};
  throw_if_error(s.take_error());
  return cell;
}

/// A cell over given weights: kind basic or lstm (kernel, bias), gru
/// (gate kernel, gate bias, candidate kernel, candidate bias).
cell_ptr cell_of(const std::string& kind, const outputs& w,
                 double forget_bias) {
  auto want = kind == "gru" ? 4u : 2u;
  if (w.size() != want)
    throw status_error{core::invalid_argument_error(
      "a ", kind, " cell takes ", want, " weights, got ", w.size())};
  if (kind == "basic")
    return std::make_shared<graph::basic_rnn_cell>(w[0], w[1]);
  if (kind == "lstm")
    return std::make_shared<graph::lstm_cell>(w[0], w[1], forget_bias);
  if (kind == "gru")
    return std::make_shared<graph::gru_cell>(w[0], w[1], w[2], w[3]);
  throw status_error{core::invalid_argument_error(
    "unknown cell kind '", kind, "'; one of basic, lstm, gru")};
}

/// One step of `cell` built in `s`: (output, next state parts).
nb::tuple cell_step(const graph::scope& s, const cell_ptr& cell,
                    const graph::output& x, const outputs& state) {
  graph::output out;
  auto next = cell->step(s, x, state, &out);
  throw_if_error(s.take_error());
  return nb::make_tuple(out, next);
}

nb::tuple dynamic_rnn(const graph::scope& s, const cell_ptr& cell,
                      const graph::output& inputs,
                      std::optional<graph::output> sequence_length,
                      const outputs& initial_state, bool time_major,
                      int64_t parallel_iterations) {
  graph::rnn_options o;
  o.time_major = time_major;
  o.parallel_iterations = parallel_iterations;
  auto r = graph::dynamic_rnn(s, *cell, inputs,
                              sequence_length.value_or(graph::output{}),
                              initial_state, o);
  throw_if_error(s.take_error());
  return nb::make_tuple(r.outputs, r.state);
}

/// The mixture-of-experts layer: `build(scope, rows, index)` builds
/// expert `index` on its rows; returns the layer's outputs as a dict.
nb::dict moe_layer(const graph::scope& s, const graph::output& x,
                   const graph::output& w_gate, const graph::output& w_noise,
                   int64_t experts, int64_t output_size, nb::callable build,
                   const std::vector<std::string>& devices, int64_t k,
                   bool noisy_gating, double w_importance, double w_load,
                   std::optional<graph::output> noise_scale, int64_t seed,
                   int64_t seed2) {
  python_calls call{s};
  graph::moe_experts e;
  e.count = experts;
  e.output_size = output_size;
  e.devices = devices;
  e.build
    = [&](const graph::scope& at, const graph::output& rows, int64_t index) {
        return call(
          [&] { return nb::cast<graph::output>(build(at, rows, index)); });
      };
  graph::moe_options o;
  o.k = k;
  o.noisy_gating = noisy_gating;
  o.w_importance = w_importance;
  o.w_load = w_load;
  if (noise_scale)
    o.noise_scale = *noise_scale;
  o.seed = {seed, seed2};
  auto r = graph::moe_layer(s, x, graph::moe_gating{w_gate, w_noise}, e, o);
  call.finish();
  nb::dict out;
  out["y"] = r.y;
  out["loss"] = r.loss;
  out["importance"] = r.importance;
  out["load"] = r.load;
  out["gates"] = r.gates;
  out["rows"] = r.rows;
  return out;
}

} // namespace

void bind_sequences(nb::module_& m) {
  m.def("moe_layer", &moe_layer, "scope"_a, "x"_a, "w_gate"_a, "w_noise"_a,
        "experts"_a, "output_size"_a, "build"_a,
        "devices"_a = std::vector<std::string>{}, "k"_a = 2,
        "noisy_gating"_a = true, "w_importance"_a = 0.1, "w_load"_a = 0.1,
        "noise_scale"_a = nb::none(), "seed"_a = 0, "seed2"_a = 0,
        "The sparsely-gated mixture-of-experts layer on x.");
  m.def("map_fn", &map_fn, "scope"_a, "fn"_a, "elems"_a,
        "parallel_iterations"_a = 10, "dtypes"_a = std::vector<std::string>{},
        "fn(scope, rows) over the rows of `elems`, stacked.");
  m.def("fold", &fold, "kind"_a, "scope"_a, "fn"_a, "elems"_a, "initializer"_a,
        "parallel_iterations"_a = 10, "reverse"_a = false,
        "scan, foldl or foldr of fn(scope, acc, rows) over `elems`.");
  nb::class_<graph::rnn_cell>(m, "RNNCell", "An RNN cell of the engine's.")
    .def_prop_ro("state_sizes", &graph::rnn_cell::state_sizes)
    .def_prop_ro("output_size", &graph::rnn_cell::output_size)
    .def_prop_ro("weights", &graph::rnn_cell::weights);
  m.def("make_cell", &make_cell, "scope"_a, "kind"_a, "input_depth"_a,
        "units"_a, "dtype"_a = "float32", "seed"_a = 0, "seed2"_a = 0,
        "forget_bias"_a = 1.0, "A cell (basic, lstm, gru) with new weights.");
  m.def("cell_of", &cell_of, "kind"_a, "weights"_a, "forget_bias"_a = 1.0,
        "A cell (basic, lstm, gru) over the given weights.");
  m.def("cell_step", &cell_step, "scope"_a, "cell"_a, "x"_a, "state"_a,
        "One step of `cell`: (output, next state parts).");
  m.def(
    "multi_cell",
    [](const std::vector<cell_ptr>& cells) -> cell_ptr {
      return std::make_shared<graph::multi_rnn_cell>(cells);
    },
    "cells"_a, "The cells stacked, first cell first.");
  m.def("dynamic_rnn", &dynamic_rnn, "scope"_a, "cell"_a, "inputs"_a,
        "sequence_length"_a = nb::none(),
        "initial_state"_a = std::vector<graph::output>{},
        "time_major"_a = false, "parallel_iterations"_a = 32,
        "Runs `cell` over `inputs` in a while loop; returns (outputs, "
        "final state parts).");
}

} // namespace actorflow::python
