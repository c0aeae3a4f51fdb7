#pragma once

/// Graph optimization passes (white paper §5, TensorFlow's Grappler): a
/// pipeline the master runs over a run signature's pruned graph before
/// placement. The standard passes are common subexpression elimination,
/// constant folding, the removal of branches a constant predicate never
/// takes, fusion (a convolution + its inference batch norm (+ Relu or
/// Relu6), MatMul or Conv2D + BiasAdd (+ Relu), a
/// weight's gradient product + its update, an input gradient's product +
/// its ReluGrad, gelu's five nodes), algebraic rewrites, the removal of
/// Identities that only forward, constant loop variables and the removal
/// of dead nodes; each can be
/// switched off per session, per run and from the command line, and users
/// can append passes of their own.

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"

namespace actorflow::ops {
class kernel_registry;
class op_registry;
} // namespace actorflow::ops

namespace actorflow::graph {

/// What a pass may look at besides the graph it rewrites.
struct pass_context {
  const ops::op_registry& ops;
  const ops::kernel_registry& kernels;
  /// Nodes that must keep their names and stay in the graph: the run's
  /// targets (fetched tensors are held by their `_Fetch` nodes).
  std::set<std::string> keep;
  /// Where placement puts a node that asks for no device type (the
  /// engine's default device, e.g. "gpu:0"); empty: a CPU. Passes that
  /// make ops of their own check that such a device has their kernels.
  std::string default_device;
};

/// One rewrite a pass made, for logs and tests: the pass and what it did.
struct pass_rewrite {
  std::string pass;
  std::string what;
};

/// A graph pass: rewrites `g` in place and appends what it did to `log`.
/// It must leave results unchanged, keep `pass_context::keep`, and never
/// move a computation into or out of a loop frame or a cond branch.
using pass_function = std::function<core::status(
  graph& g, const pass_context& ctx, std::vector<std::string>* log)>;

/// A named pass.
struct graph_pass {
  std::string name;
  pass_function run;
};

/// Which passes run: all but the disabled ones.
struct pass_selection {
  std::set<std::string> disabled;

  /// Whether pass `name` runs.
  bool runs(const std::string& name) const {
    return disabled.count(name) == 0;
  }

  /// Parses the command-line form: `all`, `none`, the passes to run
  /// (`cse,fusion`), or `all` less some (`-fusion,-cse`). Names are the
  /// standard pipeline's; an unknown one is `invalid_argument` listing
  /// them.
  static core::status parse(const std::string& text, pass_selection* out);

  /// The passes that run, comma-separated ("none" if none).
  std::string to_string() const;
};

/// An ordered list of passes.
class pass_pipeline {
public:
  /// The engine's passes, in the order they run: `cse`,
  /// `constant_folding`, `fusion`, `arithmetic`, `identities`,
  /// `loop_invariants`, `dead_nodes`.
  static pass_pipeline standard();

  /// Appends `pass`; it runs after the others.
  void add(graph_pass pass);

  const std::vector<graph_pass>& passes() const noexcept {
    return passes_;
  }

  /// Runs the selected passes in order over `g`; appends their rewrites
  /// to `log` when given. A failing pass leaves `g` as the passes before
  /// it made it and returns its status, naming the pass.
  core::status run(graph& g, const pass_context& ctx,
                   const pass_selection& selection,
                   std::vector<pass_rewrite>* log = nullptr) const;

private:
  std::vector<graph_pass> passes_;
};

/// The standard passes, for pipelines of one's own.
namespace passes {

/// Merges nodes that compute the same thing: same op, attrs, device and
/// inputs (control inputs as a set), stateless and not control flow.
/// Nodes with the same inputs are in the same frame, so no node moves.
core::status common_subexpressions(graph& g, const pass_context& ctx,
                                   std::vector<std::string>* log);

/// Evaluates nodes whose data inputs are all `Const` (asking for the
/// node's own device) on the CPU and
/// replaces each by a `Const` of its value (single-output, stateless,
/// outputs up to 10 MiB, like TensorFlow's limit). The new `Const` keeps
/// the node's name and control inputs and takes its inputs' control
/// inputs, so it stays in the frame they were in.
core::status constant_folding(graph& g, const pass_context& ctx,
                              std::vector<std::string>* log);

/// Removes the branch of a cond whose predicate is a constant (Keras'
/// learning phase once constant folding made the unfed
/// PlaceholderWithDefault its default): the nodes that would be dead in
/// every run go, the constant Switches and the Merges left with one input
/// go too, their readers reading what they forwarded (Grappler's dead
/// branch elimination). A loop whose entry is in that branch goes whole.
/// The graph stays as it is where a dead node is kept or the session's,
/// a constant Switch has a control reader, or a Merge's index is read.
core::status dead_branches(graph& g, const pass_context& ctx,
                           std::vector<std::string>* log);

/// Replaces Conv2D or DepthwiseConv2dNative (-> BiasAdd) -> an inference
/// FusedBatchNorm (-> Relu or Relu6) chains, float32 and NHWC, by one
/// `_FusedConvBatchNorm` (oneDNN post-ops, bit for bit the chain's
/// result);
/// MatMul or Conv2D -> BiasAdd (-> Relu) chains whose
/// intermediate values have no other consumer by one `_FusedMatMul` or
/// `_FusedConv2D` node named after the last node of the chain (TensorFlow's
/// remapper), and ApplyGradientDescent(var, alpha, MatMul(a, b)) by one
/// `_MatMulApplyGradientDescent` named after the update, which adds the
/// scaled product into the variable as the GEMM writes it (the product
/// read by nothing else and reading no variable the graph changes), and
/// ReluGrad(MatMul(a, b), features) by one `_MatMulReluGrad` named after
/// the ReluGrad (the product read by nothing else), and tf.nn.gelu's Mul,
/// Neg, Mul, Erfc, Mul by one `_GeluExact` named after the last Mul, where
/// the device has the kernel.
core::status fusion(graph& g, const pass_context& ctx,
                    std::vector<std::string>* log);

/// Algebraic rewrites that leave every value as it was, bit for bit
/// (Grappler's arithmetic optimizer has others of the kind):
/// ReluGrad(MaxPoolGrad(x, y, g), x) becomes MaxPoolGrad(x, y,
/// ReluGrad(g, y)), the ReluGrad on the pooled gradient, where nothing else
/// reads the MaxPoolGrad. The MaxPoolGrad takes the ReluGrad's name.
core::status arithmetic(graph& g, const pass_context& ctx,
                        std::vector<std::string>* log);

/// Removes Identity and IdentityN nodes that only forward values (a
/// lowered While or If writes several per iteration), each reader reading
/// what the node read and waiting for its control inputs too. A node stays
/// when it is kept, has control readers (a cond's pivots), reads a
/// reference (an Identity of a variable is a snapshot) or another device's
/// value, or has control inputs and a control-flow or runtime reader.
core::status identities(graph& g, const pass_context& ctx,
                        std::vector<std::string>* log);

/// Makes a loop variable that the body passes back unchanged (a lowered
/// While's bound and its captured values) a constant Enter: its Merge,
/// Switch, NextIteration and unread Exits no longer run every iteration,
/// and their readers read the Enter. A variable stays when some node
/// waits on its nodes, reads its Exit, sits on another device, would be
/// left with loop constants alone, or reads its Switch's value with
/// nothing that is live exactly when that is.
core::status loop_invariants(graph& g, const pass_context& ctx,
                             std::vector<std::string>* log);

/// Removes stateless nodes that nothing consumes and no target names,
/// until none is left (control flow and the runtime's nodes stay).
core::status dead_nodes(graph& g, const pass_context& ctx,
                        std::vector<std::string>* log);

} // namespace passes

} // namespace actorflow::graph
