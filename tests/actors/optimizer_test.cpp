// The optimizers' update ops through sessions: three updates of a variable
// and its slots from fed gradients, against numpy's values for TensorFlow's
// formulas (tests/golden/optimizers.txt, written by
// gen_optimizer_golden.py).

#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

/// What a case's update op gets: the variable, its slots, the gradient,
/// and step-dependent scalars fed per update (Adam's beta powers).
struct update_inputs {
  graph::output var;
  std::vector<graph::output> slots;
  graph::output grad;
  graph::output beta1_power, beta2_power;
};

/// The first output of a node just added.
graph::output first_of(const std::vector<graph::output>& outputs) {
  return outputs.empty() ? graph::output{} : outputs.front();
}

/// Builds a case's update; returns its node.
using build_fn
  = std::function<graph::operation(const graph::scope&, const update_inputs&)>;

class optimizers : public ::testing::Test {
protected:
  /// Runs three updates of case `name` with slots `slots` and compares the
  /// variable and the slots after each with the golden values. With
  /// `resource` the variables are resource variables (VarHandleOp), and
  /// `build` gets their handles.
  void check(const std::string& name, const std::vector<std::string>& slots,
             const build_fn& build, bool resource = false) {
    graph::scope s{e.context().ops()};
    update_inputs in;
    std::vector<std::string> inits;
    auto variable = [&](const std::string& slot) {
      auto value = graph::constant(s, golden.at(name + "_" + slot + "0"));
      auto vs = s.sub(name + "_" + slot);
      if (!resource) {
        auto v = graph::variable(vs, {2, 3}, dtype::float64);
        inits.push_back(graph::assign(vs.sub("init"), v, value).node_name());
        return v;
      }
      auto v = first_of(
        vs.add_node("VarHandleOp", "VarHandleOp", {},
                    {{"dtype", dtype::float64}, {"shape", core::shape{2, 3}}}));
      inits.push_back(vs.add_operation("AssignVariableOp", "init", {v, value},
                                       {{"dtype", dtype::float64}})
                        .name);
      return v;
    };
    in.var = variable("var");
    for (const auto& slot : slots)
      in.slots.push_back(variable(slot));
    in.grad = graph::placeholder(s.sub("grad"), dtype::float64, {2, 3});
    in.beta1_power = graph::placeholder(s.sub("b1p"), dtype::float64, {});
    in.beta2_power = graph::placeholder(s.sub("b2p"), dtype::float64, {});
    auto update = build(s.sub(name), in).name;
    std::vector<std::string> reads;
    auto read = [&](const std::string& what, const graph::output& v) {
      auto rs = s.sub("read_" + what);
      reads.push_back(
        resource ? first_of(rs.add_node("ReadVariableOp", "ReadVariableOp", {v},
                                        {{"dtype", dtype::float64}}))
                     .name()
                 : graph::identity(rs, v).name());
    };
    read("var", in.var);
    for (size_t k = 0; k < slots.size(); ++k)
      read(slots[k], in.slots[k]);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<tensor> out;
    ASSERT_TRUE(sess.run({}, {}, inits, &out).is_ok());
    for (int t = 1; t <= 3; ++t) {
      auto step = std::to_string(t);
      actors::feed_list feeds{
        {in.grad.name(), golden.at(name + "_grad" + step)},
        {in.beta1_power.name(), tensor::scalar(std::pow(0.9, t))},
        {in.beta2_power.name(), tensor::scalar(std::pow(0.999, t))}};
      auto st = sess.run(feeds, {}, {update}, &out);
      ASSERT_TRUE(st.is_ok()) << st.to_string();
      ASSERT_TRUE(sess.run({}, reads, {}, &out).is_ok());
      test::expect_all_near(out[0], golden.at(name + "_var" + step), 1e-12,
                            name + " var after update " + step);
      for (size_t k = 0; k < slots.size(); ++k)
        test::expect_all_near(out[k + 1],
                              golden.at(name + "_" + slots[k] + step), 1e-12,
                              name + " " + slots[k] + " after update " + step);
    }
  }

  static graph::output f64(const graph::scope& s, double x) {
    return graph::constant(s, x, dtype::float64);
  }

  actors::engine e;
  std::map<std::string, tensor> golden = test::load_golden("optimizers.txt");
};

} // namespace

TEST_F(optimizers, gradient_descent) {
  check("sgd", {}, [](const graph::scope& s, const update_inputs& in) {
    return graph::apply_gradient_descent(s, in.var, f64(s, 0.1), in.grad).op();
  });
}

TEST_F(optimizers, momentum_with_and_without_nesterov) {
  for (bool nesterov : {false, true})
    check(nesterov ? "nesterov" : "momentum", {"accum"},
          [&](const graph::scope& s, const update_inputs& in) {
            return graph::apply_momentum(s, in.var, in.slots[0], f64(s, 0.1),
                                         in.grad, f64(s, 0.9), nesterov)
              .op();
          });
}

TEST_F(optimizers, adagrad) {
  check(
    "adagrad", {"accum"}, [](const graph::scope& s, const update_inputs& in) {
      return graph::apply_adagrad(s, in.var, in.slots[0], f64(s, 0.1), in.grad)
        .op();
    });
}

TEST_F(optimizers, rms_prop) {
  check("rmsprop", {"ms", "mom"},
        [](const graph::scope& s, const update_inputs& in) {
          return graph::apply_rms_prop(s, in.var, in.slots[0], in.slots[1],
                                       f64(s, 0.01), f64(s, 0.9), f64(s, 0.5),
                                       f64(s, 1e-7), in.grad)
            .op();
        });
}

TEST_F(optimizers, adam_with_and_without_nesterov) {
  for (bool nesterov : {false, true})
    check(nesterov ? "nadam" : "adam", {"m", "v"},
          [&](const graph::scope& s, const update_inputs& in) {
            graph::adam_inputs h{in.beta1_power, in.beta2_power, f64(s, 0.001),
                                 f64(s, 0.9),    f64(s, 0.999),  f64(s, 1e-8)};
            return graph::apply_adam(s, in.var, in.slots[0], in.slots[1], h,
                                     in.grad, nesterov)
              .op();
          });
}

namespace {

/// An update op by name (`Apply<op>` or `ResourceApply<op>`) on the
/// variables and slots, then `scalars` and the gradient in the op's order
/// (the gradient where `grad_at` says among the scalars).
build_fn update_op(const std::string& op, std::vector<double> scalars,
                   size_t grad_at, core::attr_map attrs = {}) {
  return [=](const graph::scope& s, const update_inputs& in) {
    std::vector<graph::output> inputs{in.var};
    inputs.insert(inputs.end(), in.slots.begin(), in.slots.end());
    for (size_t k = 0; k <= scalars.size(); ++k) {
      if (k == grad_at)
        inputs.push_back(in.grad);
      if (k < scalars.size())
        inputs.push_back(graph::constant(s, scalars[k], dtype::float64));
    }
    auto a = attrs;
    a["T"] = dtype::float64;
    return s.add_operation(op, op, inputs, std::move(a));
  };
}

} // namespace

TEST_F(optimizers, keras_momentum_and_adagrad_v2) {
  for (bool nesterov : {false, true})
    check(nesterov ? "keras_nesterov" : "keras_momentum", {"accum"},
          update_op("ApplyKerasMomentum", {0.1, 0.9}, 1,
                    {{"use_nesterov", nesterov}}));
  check("adagrad_v2", {"accum"}, update_op("ApplyAdagradV2", {0.1, 1e-7}, 2));
}

TEST_F(optimizers, resource_variables_update_as_reference_ones_do) {
  // ResourceApply* (TensorFlow 2's and Keras' optimizers) on handles.
  auto resource
    = [&](const std::string& name, const std::vector<std::string>& slots,
          const build_fn& build) {
        SCOPED_TRACE(name);
        check(name, slots, build, true);
      };
  resource("sgd", {}, update_op("ResourceApplyGradientDescent", {0.1}, 1));
  for (bool nesterov : {false, true}) {
    core::attr_map attrs{{"use_nesterov", nesterov}};
    resource(nesterov ? "nesterov" : "momentum", {"accum"},
             update_op("ResourceApplyMomentum", {0.1, 0.9}, 1, attrs));
    resource(nesterov ? "keras_nesterov" : "keras_momentum", {"accum"},
             update_op("ResourceApplyKerasMomentum", {0.1, 0.9}, 1, attrs));
  }
  resource("adagrad", {"accum"}, update_op("ResourceApplyAdagrad", {0.1}, 1));
  resource("adagrad_v2", {"accum"},
           update_op("ResourceApplyAdagradV2", {0.1, 1e-7}, 2));
  for (bool nesterov : {false, true})
    resource(nesterov ? "nadam" : "adam", {"m", "v"},
             [&](const graph::scope& s, const update_inputs& in) {
               std::vector<graph::output> inputs{in.var, in.slots[0],
                                                 in.slots[1], in.beta1_power,
                                                 in.beta2_power};
               for (double h : {0.001, 0.9, 0.999, 1e-8})
                 inputs.push_back(f64(s, h));
               inputs.push_back(in.grad);
               return s.add_operation(
                 "ResourceApplyAdam", "ResourceApplyAdam", inputs,
                 {{"T", dtype::float64}, {"use_nesterov", nesterov}});
             });
  resource("rmsprop", {"ms", "mom"},
           update_op("ResourceApplyRMSProp", {0.01, 0.9, 0.5, 1e-7}, 4));
}

TEST_F(optimizers, bad_inputs_name_the_node_and_change_nothing) {
  graph::scope s{e.context().ops()};
  auto v = graph::variable(s.sub("v"), {2, 3}, dtype::float64);
  auto g
    = graph::placeholder(s.sub("g"), dtype::float64, core::shape::unknown());
  auto update = graph::apply_gradient_descent(s.sub("sgd"), v, f64(s, 0.5), g);
  auto ones = tensor::from_vector<double>({2, 3}, {1, 1, 1, 1, 1, 1});
  auto init = graph::assign(s.sub("init"), v, graph::constant(s, ones));
  auto read = graph::identity(s.sub("read"), v);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  // The variable was never assigned.
  auto st = sess.run({{g.name(), ones}}, {}, {update.node_name()}, &out);
  EXPECT_EQ(st.code(), core::errc::failed_precondition);
  EXPECT_EQ(st.op(), "ApplyGradientDescent");
  EXPECT_EQ(st.node(), update.node_name());
  // A gradient of another shape: the variable keeps its value.
  ASSERT_TRUE(sess.run({}, {}, {init.node_name()}, &out).is_ok());
  st = sess.run({{g.name(), tensor::from_vector<double>({4}, {1, 2, 3, 4})}},
                {}, {update.node_name()}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("shape"), std::string::npos) << st.message();
  ASSERT_TRUE(sess.run({}, {read.name()}, {}, &out).is_ok());
  test::expect_all_near(out[0], ones, 0, "after the failed update");
  // The next update works: 1 - 0.5 * 1.
  ASSERT_TRUE(
    sess.run({{g.name(), ones}}, {}, {update.node_name()}, &out).is_ok());
  ASSERT_TRUE(sess.run({}, {read.name()}, {}, &out).is_ok());
  test::expect_all_near(
    out[0], tensor::from_vector<double>({2, 3}, {.5, .5, .5, .5, .5, .5}), 0,
    "after one update");
}

TEST_F(optimizers, a_gradient_of_the_wrong_shape_fails_at_build_time) {
  graph::scope s{e.context().ops()};
  auto v = graph::variable(s.sub("v"), {2, 3}, dtype::float64);
  auto g = graph::placeholder(s.sub("g"), dtype::float64, {3, 2});
  graph::apply_gradient_descent(s.sub("sgd"), v, f64(s, 0.1), g);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.status().to_string().find("sgd"), std::string::npos)
    << s.status().to_string();
}

namespace {

/// Three steps of minimize(0.5 * sum((w - target)^2)) for `opt` against the
/// optimizer's formulas written out here (gradient: w - target).
void check_minimize(
  actors::engine& e, const graph::optimizer& opt,
  const std::function<void(double g, double* w, std::vector<double>& slots,
                           int t)>& reference) {
  graph::scope s{e.context().ops()};
  std::vector<double> w0{0.5, -1.0, 2.0};
  std::vector<double> target{1.0, 1.0, -1.0};
  auto w = graph::variable(
    s.sub("w"), graph::constant(s, tensor::from_vector<double>({3}, w0)));
  auto diff = graph::sub(
    s, w, graph::constant(s, tensor::from_vector<double>({3}, target)));
  auto loss = graph::mul(s, graph::constant(s, 0.5, dtype::float64),
                         graph::reduce_sum(s, graph::square(s, diff), {0}));
  auto train = graph::minimize(s.sub("train"), loss, {w}, opt);
  auto init = s.initializer();
  auto read = graph::identity(s.sub("read"), w);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run({}, {}, {init.name}, &out).is_ok());
  auto want = w0;
  std::vector<std::vector<double>> slots(3);
  for (int t = 1; t <= 3; ++t) {
    auto st = sess.run({}, {}, {train.name}, &out);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    for (size_t i = 0; i < 3; ++i)
      reference(want[i] - target[i], &want[i], slots[i], t);
    ASSERT_TRUE(sess.run({}, {read.name()}, {}, &out).is_ok());
    test::expect_all_near(out[0], tensor::from_vector<double>({3}, want), 1e-12,
                          "w after step " + std::to_string(t));
  }
}

} // namespace

TEST_F(optimizers, minimize_builds_each_optimizer_with_its_slots) {
  using algo = graph::optimizer::algorithm;
  graph::optimizer opt;
  opt.learning_rate = 0.1;
  check_minimize(e, opt,
                 [](double g, double* w, auto&, int) { *w -= 0.1 * g; });
  opt.kind = algo::momentum;
  check_minimize(e, opt, [](double g, double* w, auto& a, int) {
    a.resize(1, 0.0);
    a[0] = 0.9 * a[0] + g;
    *w -= 0.1 * a[0];
  });
  opt.kind = algo::adagrad;
  check_minimize(e, opt, [](double g, double* w, auto& a, int) {
    a.resize(1, 0.1);
    a[0] += g * g;
    *w -= 0.1 * g / std::sqrt(a[0]);
  });
  opt.kind = algo::rms_prop;
  check_minimize(e, opt, [](double g, double* w, auto& a, int) {
    a.resize(2, 0.0);
    if (a[0] == 0.0)
      a[0] = 1.0; // ms starts at one, as TensorFlow's
    a[0] = 0.9 * a[0] + 0.1 * g * g;
    a[1] = 0.9 * a[1] + 0.1 * g / std::sqrt(a[0] + 1e-8);
    *w -= a[1];
  });
  opt.kind = algo::adam;
  check_minimize(e, opt, [](double g, double* w, auto& a, int t) {
    a.resize(2, 0.0);
    a[0] = 0.9 * a[0] + 0.1 * g;
    a[1] = 0.999 * a[1] + 0.001 * g * g;
    auto lr = 0.1 * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t));
    *w -= lr * a[0] / (std::sqrt(a[1]) + 1e-8);
  });
}

TEST_F(optimizers, minimize_of_a_loss_without_the_variables_fails) {
  graph::scope s{e.context().ops()};
  auto w = graph::variable(s.sub("w"), graph::constant(s, 1.0, dtype::float64));
  auto loss = graph::constant(s, 3.0, dtype::float64);
  graph::minimize(s.sub("train"), loss, {w});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("none of the 1 variables"),
            std::string::npos)
    << s.status().to_string();
}

TEST_F(optimizers, minimize_computes_every_gradient_before_any_update) {
  // loss = sum(x W1 W2): dW1 = x^T (W2^T) reads W2, which dW2's update
  // changes. One SGD step must use the old W2 (and the old W1 for dW2).
  graph::scope s{e.context().ops()};
  auto x = graph::constant(s, tensor::from_vector<double>({1, 2}, {1.5, -2}));
  auto w1v = tensor::from_vector<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto w2v = tensor::from_vector<double>({3, 1}, {0.5, -1, 2});
  auto w1 = graph::variable(s.sub("w1"), graph::constant(s, w1v));
  auto w2 = graph::variable(s.sub("w2"), graph::constant(s, w2v));
  auto loss = graph::reduce_sum(
    s, graph::matmul(s, graph::matmul(s, x, w1), w2), {0, 1});
  graph::optimizer sgd;
  sgd.learning_rate = 0.1;
  auto train = graph::minimize(s.sub("train"), loss, {w1, w2}, sgd);
  auto init = s.initializer();
  auto r1 = graph::identity(s.sub("r1"), w1);
  auto r2 = graph::identity(s.sub("r2"), w2);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  for (int run = 0; run < 20; ++run) {
    ASSERT_TRUE(sess.run({}, {}, {init.name}, &out).is_ok());
    ASSERT_TRUE(sess.run({}, {}, {train.name}, &out).is_ok());
    ASSERT_TRUE(sess.run({}, {r1.name(), r2.name()}, {}, &out).is_ok());
    // dW1[i][j] = x[i] * W2[j]; dW2[j] = (x W1)[j].
    std::vector<double> want1, want2;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        want1.push_back(w1v.data<double>()[i * 3 + j]
                        - 0.1 * (i == 0 ? 1.5 : -2) * w2v.data<double>()[j]);
    for (int j = 0; j < 3; ++j)
      want2.push_back(
        w2v.data<double>()[j]
        - 0.1 * (1.5 * w1v.data<double>()[j] - 2 * w1v.data<double>()[3 + j]));
    test::expect_all_near(out[0], tensor::from_vector<double>({2, 3}, want1),
                          1e-12, "w1 after one step");
    test::expect_all_near(out[1], tensor::from_vector<double>({3, 1}, want2),
                          1e-12, "w2 after one step");
  }
}
