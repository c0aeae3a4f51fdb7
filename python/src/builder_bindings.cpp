// The builders that take Python functions or build many nodes: loops,
// conds, gradients, variables and optimizers.
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "bindings.hpp"
#include "errors.hpp"
#include "python_calls.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace actorflow::python {

namespace {

std::vector<graph::output> while_loop(const graph::scope& s, nb::callable cond,
                                      nb::callable body,
                                      const std::vector<graph::output>& vars,
                                      int64_t parallel_iterations,
                                      std::optional<int64_t> maximum_iterations,
                                      std::optional<nb::list> invariants) {
  graph::while_options options;
  options.parallel_iterations = parallel_iterations;
  options.maximum_iterations = maximum_iterations;
  if (invariants)
    for (auto x : *invariants) {
      std::vector<int64_t> dims;
      for (auto d : x)
        dims.push_back(d.is_none() ? -1 : nb::cast<int64_t>(d));
      options.shape_invariants.emplace_back(std::move(dims));
    }
  python_calls call{s};
  auto out = graph::while_loop(
    s,
    [&](const graph::scope& at, const std::vector<graph::output>& v) {
      return call([&] { return nb::cast<graph::output>(cond(at, v)); });
    },
    [&](const graph::scope& at, const std::vector<graph::output>& v) {
      return call(
        [&] { return nb::cast<std::vector<graph::output>>(body(at, v)); });
    },
    vars, options);
  call.finish();
  return out;
}

std::vector<graph::output> cond(const graph::scope& s,
                                const graph::output& pred, nb::callable then_fn,
                                nb::callable else_fn) {
  python_calls call{s};
  auto branch = [&](nb::callable& fn) {
    return [&](const graph::scope& at) {
      return call([&] { return nb::cast<std::vector<graph::output>>(fn(at)); });
    };
  };
  auto out = graph::cond(s, pred, branch(then_fn), branch(else_fn));
  call.finish();
  return out;
}

std::vector<std::optional<graph::output>>
gradients(const graph::scope& s, const std::vector<graph::output>& ys,
          const std::vector<graph::output>& xs,
          const std::vector<graph::output>& grad_ys) {
  auto out = graph::gradients(s, ys, xs, grad_ys);
  throw_if_error(s.take_error());
  return out;
}

graph::output variable(const graph::scope& s, const graph::output& initial,
                       const std::string& container) {
  auto out = graph::variable(s, initial, container);
  throw_if_error(s.take_error());
  return out;
}

graph::optimizer make_optimizer(const std::string& name, nb::dict options) {
  graph::optimizer opt;
  if (!graph::optimizer::parse(name, &opt))
    throw status_error{core::invalid_argument_error(
      "unknown optimizer '", name,
      "'; one of sgd, momentum, nesterov, adagrad, rmsprop, adam")};
  for (auto [key, value] : options) {
    auto k = nb::cast<std::string>(key);
    if (k == "learning_rate" && nb::isinstance<graph::output>(value)) {
      opt.learning_rate_tensor = nb::cast<graph::output>(value);
      continue;
    }
    auto v = nb::cast<double>(value);
    if (k == "learning_rate")
      opt.learning_rate = v;
    else if (k == "momentum")
      opt.momentum = v;
    else if (k == "initial_accumulator_value")
      opt.initial_accumulator = v;
    else if (k == "rho" || k == "decay")
      opt.rho = v;
    else if (k == "beta1")
      opt.beta1 = v;
    else if (k == "beta2")
      opt.beta2 = v;
    else if (k == "epsilon")
      opt.epsilon = v;
    else
      throw status_error{core::invalid_argument_error(
        "optimizer ", name, " has no option '", k, "'")};
  }
  return opt;
}

std::string minimize(const graph::scope& s, const graph::output& loss,
                     const std::vector<graph::output>& var_list,
                     const std::string& name, nb::dict options) {
  auto op = graph::minimize(s, loss, var_list, make_optimizer(name, options));
  throw_if_error(s.take_error());
  return op.name;
}

std::string
apply_gradients(const graph::scope& s,
                const std::vector<std::optional<graph::output>>& grads,
                const std::vector<graph::output>& var_list,
                const std::string& name, nb::dict options) {
  auto op
    = graph::apply_gradients(s, grads, var_list, make_optimizer(name, options));
  throw_if_error(s.take_error());
  return op.name;
}

} // namespace

void bind_builders(nb::module_& m) {
  m.def("while_loop", &while_loop, "scope"_a, "cond"_a, "body"_a, "loop_vars"_a,
        "parallel_iterations"_a = 10, "maximum_iterations"_a = nb::none(),
        "shape_invariants"_a = nb::none(),
        "`while cond(vars): vars = body(vars)` in the graph; cond and body "
        "get the scope to build in and the loop variables.");
  m.def("cond", &cond, "scope"_a, "pred"_a, "then_fn"_a, "else_fn"_a,
        "pred ? then_fn(scope) : else_fn(scope) in the graph.");
  m.def("gradients", &gradients, "scope"_a, "ys"_a, "xs"_a,
        "grad_ys"_a = std::vector<graph::output>{},
        "d(sum ys)/d(x) for each x; None where no path leads from x.");
  m.def("variable", &variable, "scope"_a, "initial"_a, "container"_a = "",
        "A variable set to `initial` by the graph's initializer.");
  m.def("minimize", &minimize, "scope"_a, "loss"_a, "var_list"_a,
        "optimizer"_a = "sgd", "options"_a = nb::dict(),
        "One training step of `optimizer`; returns the NoOp that runs it.");
  m.def("apply_gradients", &apply_gradients, "scope"_a, "grads"_a, "var_list"_a,
        "optimizer"_a = "sgd", "options"_a = nb::dict(),
        "The updates of `var_list` from `grads`; returns the NoOp.");
}

} // namespace actorflow::python
