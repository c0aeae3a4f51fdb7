#include "actorflow/graph/training_ops.hpp"

#include <algorithm>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "builder_util.hpp"

namespace actorflow::graph {

using detail::typed;

output apply_gradient_descent(const scope& s, const output& var,
                              const output& alpha, const output& delta,
                              bool use_locking) {
  return typed(s, "ApplyGradientDescent", {var, alpha, delta},
               {{"use_locking", use_locking}});
}

output apply_momentum(const scope& s, const output& var, const output& accum,
                      const output& lr, const output& grad,
                      const output& momentum, bool use_nesterov,
                      bool use_locking) {
  return typed(s, "ApplyMomentum", {var, accum, lr, grad, momentum},
               {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}});
}

output apply_adagrad(const scope& s, const output& var, const output& accum,
                     const output& lr, const output& grad, bool use_locking) {
  return typed(s, "ApplyAdagrad", {var, accum, lr, grad},
               {{"use_locking", use_locking}});
}

output apply_rms_prop(const scope& s, const output& var, const output& ms,
                      const output& mom, const output& lr, const output& rho,
                      const output& momentum, const output& epsilon,
                      const output& grad, bool use_locking) {
  return typed(s, "ApplyRMSProp",
               {var, ms, mom, lr, rho, momentum, epsilon, grad},
               {{"use_locking", use_locking}});
}

output apply_adam(const scope& s, const output& var, const output& m,
                  const output& v, const adam_inputs& h, const output& grad,
                  bool use_nesterov, bool use_locking) {
  return typed(s, "ApplyAdam",
               {var, m, v, h.beta1_power, h.beta2_power, h.lr, h.beta1, h.beta2,
                h.epsilon, grad},
               {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}});
}

bool optimizer::parse(const std::string& name, optimizer* out) {
  static const std::pair<const char*, algorithm> names[]
    = {{"sgd", algorithm::sgd},           {"momentum", algorithm::momentum},
       {"nesterov", algorithm::momentum}, {"adagrad", algorithm::adagrad},
       {"rmsprop", algorithm::rms_prop},  {"adam", algorithm::adam}};
  for (const auto& [n, kind] : names)
    if (name == n) {
      out->kind = kind;
      out->nesterov = name == "nesterov";
      return true;
    }
  return false;
}

namespace {

/// A slot variable of `var`, initialised to `value` and named
/// `var/slot` from the graph's root, as TensorFlow names its slots (so
/// checkpoints match), outside the control dependencies of the step.
output slot(const scope& s, const output& var, const std::string& name,
            double value) {
  auto at
    = s.root().without_control_dependencies().sub(var.node_name() + "/" + name);
  auto init = fill(at.sub("Initializer"), var.shape().dims(),
                   constant(at.sub("Initializer"), value, var.dtype()));
  return variable(at, init);
}

} // namespace

operation minimize(const scope& s, const output& loss,
                   const std::vector<output>& var_list, const optimizer& opt) {
  auto grads = gradients(s, {loss}, var_list);
  if (!s.ok())
    return {};
  if (std::none_of(grads.begin(), grads.end(),
                   [](const auto& g) { return g.has_value(); })) {
    s.record_error(core::invalid_argument_error("minimize: ", loss.name(),
                                                " depends on none of the ",
                                                var_list.size(), " variables"));
    return {};
  }
  return apply_gradients(s, grads, var_list, opt);
}

operation apply_gradients(const scope& s,
                          const std::vector<std::optional<output>>& grads,
                          const std::vector<output>& var_list,
                          const optimizer& opt) {
  using algo = optimizer::algorithm;
  if (grads.size() != var_list.size() || var_list.empty()) {
    s.record_error(core::invalid_argument_error(
      "apply_gradients: ", grads.size(), " gradients for ", var_list.size(),
      " variables"));
    return {};
  }
  auto t = var_list.front().dtype();
  auto c = [&](double v) { return constant(s, v, t); };
  auto lr = opt.learning_rate_tensor ? *opt.learning_rate_tensor
                                     : c(opt.learning_rate);
  adam_inputs adam;
  if (opt.kind == algo::adam) {
    auto top = s.root().without_control_dependencies();
    adam = {variable(top.sub("beta1_power"), constant(top, opt.beta1, t)),
            variable(top.sub("beta2_power"), constant(top, opt.beta2, t)),
            lr,
            c(opt.beta1),
            c(opt.beta2),
            c(opt.epsilon)};
  }
  // Every gradient is computed before any variable changes (TensorFlow's
  // GATE_GRAPH): a gradient may still read a variable that another
  // variable's update would otherwise have changed under it.
  std::vector<operation> computed;
  for (const auto& g : grads)
    if (g)
      computed.push_back(g->op());
  auto gated = s.with_control_dependencies(computed);
  std::vector<operation> updates;
  for (size_t i = 0; i < var_list.size(); ++i) {
    if (!grads[i])
      continue;
    const auto& var = var_list[i];
    const auto& g = *grads[i];
    auto u = gated.sub(var.node_name() + "_update");
    output done;
    switch (opt.kind) {
      case algo::sgd: done = apply_gradient_descent(u, var, lr, g); break;
      case algo::momentum:
        done = apply_momentum(u, var, slot(s, var, "Momentum", 0), lr, g,
                              c(opt.momentum), opt.nesterov);
        break;
      case algo::adagrad:
        done = apply_adagrad(
          u, var, slot(s, var, "Adagrad", opt.initial_accumulator), lr, g);
        break;
      case algo::rms_prop:
        done = apply_rms_prop(u, var, slot(s, var, "RMSProp", 1),
                              slot(s, var, "RMSProp_1", 0), lr, c(opt.rho),
                              c(opt.momentum), c(opt.epsilon), g);
        break;
      case algo::adam:
        done = apply_adam(u, var, slot(s, var, "Adam", 0),
                          slot(s, var, "Adam_1", 0), adam, g, opt.nesterov);
        break;
    }
    updates.push_back(done.op());
  }
  if (opt.kind == algo::adam) {
    // beta^t advances once per step, after every variable used it.
    auto after = s.with_control_dependencies(updates);
    updates.push_back(assign(after.sub("beta1_power_update"), adam.beta1_power,
                             mul(after, adam.beta1_power, adam.beta1))
                        .op());
    updates.push_back(assign(after.sub("beta2_power_update"), adam.beta2_power,
                             mul(after, adam.beta2_power, adam.beta2))
                        .op());
  }
  return s.with_control_dependencies(updates).add_operation("NoOp", "train", {},
                                                            {});
}

} // namespace actorflow::graph
