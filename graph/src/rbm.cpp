#include "actorflow/graph/rbm.hpp"

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"

namespace actorflow::graph {

rbm::rbm(output w, output visible_bias, output hidden_bias)
  : w_(std::move(w)), visible_bias_(std::move(visible_bias)),
    hidden_bias_(std::move(hidden_bias)) {
}

rbm rbm::make(const scope& s, int64_t visible, int64_t hidden, core::dtype type,
              seeds seed) {
  auto w
    = variable(s.sub("w"), random_normal(s.sub("w_init"), {visible, hidden},
                                         0.0, 0.01, type, seed));
  auto bv = variable(s.sub("visible_bias"),
                     zeros(s.sub("visible_bias_init"), {visible}, type));
  auto bh = variable(s.sub("hidden_bias"),
                     zeros(s.sub("hidden_bias_init"), {hidden}, type));
  return {w, bv, bh};
}

output rbm::hidden_probs(const scope& s, const output& v, bool linear) const {
  auto x = add(s, matmul(s, v, w_), hidden_bias_);
  return linear ? x : sigmoid(s, x);
}

output rbm::visible_probs(const scope& s, const output& h) const {
  matmul_options t;
  t.transpose_b = true;
  return sigmoid(s, add(s, matmul(s, h, w_, t), visible_bias_));
}

output rbm::sample(const scope& s, const output& p, seeds seed) {
  auto u = standard_uniform(s, shape_of(s, p), p.dtype(), seed);
  return cast(s, less(s, u, p), p.dtype());
}

rbm_step rbm::train_step(const scope& outer, const output& v0,
                         const rbm_options& o) const {
  auto s = outer.sub("cd");
  auto type = v0.dtype();
  int64_t draws = 0;
  auto next_seed = [&] {
    return seeds{o.seed.seed, o.seed.seed2 * 1000 + ++draws};
  };
  // A linear hidden unit's sample is its input plus unit Gaussian noise.
  auto hidden_sample = [&](const output& p) {
    return o.linear_hidden
             ? add(s, p, standard_normal(s, shape_of(s, p), type, next_seed()))
             : sample(s, p, next_seed());
  };
  auto ph0 = hidden_probs(s, v0, o.linear_hidden);
  output chain;
  auto h = hidden_sample(ph0);
  if (o.persistent) {
    chain = variable(s.sub("chain"), sample(s.sub("chain_init"),
                                            fill(s.sub("chain_init"),
                                                 {o.batch, w_.shape().dim(0)},
                                                 constant(s, 0.5, type)),
                                            next_seed()));
    h = hidden_sample(hidden_probs(s, chain, o.linear_hidden));
  }
  output vk, phk;
  for (int64_t i = 0; i < o.cd_k; ++i) {
    vk = sample(s, visible_probs(s, h), next_seed());
    phk = hidden_probs(s, vk, o.linear_hidden);
    if (i + 1 < o.cd_k)
      h = hidden_sample(phk);
  }
  auto rows = cast(
    s, reshape(s, slice(s, shape_of(s, v0), {0}, {1}), std::vector<int64_t>{}),
    type);
  auto lr = constant(s, o.learning_rate, type);
  matmul_options ta;
  ta.transpose_a = true;
  auto dw
    = div(s, mul(s, lr, sub(s, matmul(s, v0, ph0, ta), matmul(s, vk, phk, ta))),
          rows);
  auto dbv = mul(s, lr, reduce_mean(s, sub(s, v0, vk), {0}));
  auto dbh = mul(s, lr, reduce_mean(s, sub(s, ph0, phk), {0}));
  // The reconstruction reads the weights too: the updates wait for it, so
  // the error is always the one of the weights before the step.
  auto recon = visible_probs(s, ph0);
  auto after_recon = s.with_control_dependencies({recon.op()});
  std::vector<operation> updates{
    assign_add(after_recon.sub("update_w"), w_, dw).op(),
    assign_add(after_recon.sub("update_visible_bias"), visible_bias_, dbv).op(),
    assign_add(after_recon.sub("update_hidden_bias"), hidden_bias_, dbh).op()};
  if (o.persistent)
    updates.push_back(assign(s.sub("advance_chain"), chain, vk).op());
  rbm_step out;
  out.update = no_op(s.sub("update").with_control_dependencies(updates));
  out.reconstruction_error
    = reduce_mean(s, square(s, sub(s, v0, recon)), {0, 1});
  out.positive_hidden = ph0;
  out.negative_visible = vk;
  out.negative_hidden = phk;
  return out;
}

} // namespace actorflow::graph
