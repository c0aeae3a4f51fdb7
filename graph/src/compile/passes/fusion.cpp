// The fusion pass: chains of nodes that one kernel computes in a single
// pass (TensorFlow's remapper); the rules with a file of their own are in
// fusion_rules.hpp.

#include <algorithm>
#include <set>

#include "actorflow/graph/graph_passes.hpp"
#include "compile/passes/fusion_rules.hpp"
#include "compile/passes/pass_util.hpp"

namespace actorflow::graph::passes {

namespace {

using fusion_rules::has_kernel;
using fusion_rules::input_of;
using fusion_rules::replace;

/// The product a BiasAdd adds to that can take it in: a MatMul or a
/// Conv2D, float or double, read by nothing else.
const core::node_def* fusable_product(const graph& g,
                                      const detail::consumers& c,
                                      const pass_context& ctx,
                                      const core::node_def& bias) {
  for (const char* op : {"MatMul", "Conv2D"}) {
    const auto* product = input_of(g, bias, 0, op);
    if (product == nullptr
        || !detail::only_read_by(g, c, ctx.keep, *product, bias)
        || !has_kernel(ctx, bias, std::string{"_Fused"} + op))
      continue;
    auto type = std::get<core::dtype>(product->attrs.at("T"));
    if (type == core::dtype::float32 || type == core::dtype::float64)
      return product;
  }
  return nullptr;
}

/// The nodes whose reference outputs some stateful node reads: the
/// variables the graph may change.
std::set<std::string> changed_variables(const graph& g,
                                        const pass_context& ctx) {
  std::set<std::string> changed;
  for (const auto& node : g.nodes()) {
    const auto* def = ctx.ops.find(node.op);
    if (def == nullptr || !def->is_stateful)
      continue;
    for (const auto& in : detail::data_inputs(node)) {
      const auto* producer = g.find(in.node);
      if (producer != nullptr
          && detail::is_ref_output(ctx.ops, *producer, in.port))
        changed.insert(producer->name);
    }
  }
  return changed;
}

/// The names of the nodes `of` depends on, through data or control edges
/// at any distance.
std::set<std::string> ancestors(const graph& g, const core::node_def& of) {
  std::set<std::string> seen;
  std::vector<const core::node_def*> todo{&of};
  while (!todo.empty()) {
    const auto* n = todo.back();
    todo.pop_back();
    for (const auto& text : n->inputs) {
      core::input_ref r;
      if (!core::input_ref::parse(text, &r) || !seen.insert(r.node).second)
        continue;
      if (const auto* in = g.find(r.node))
        todo.push_back(in);
    }
  }
  return seen;
}

/// The MatMul whose product an ApplyGradientDescent applies, where the two
/// can be one `_MatMulApplyGradientDescent`: float or double, nothing else
/// reads the product's value or keeps it, and it reads no variable the
/// graph changes by reference (its gradient then cannot depend on when
/// another variable changes).
const core::node_def* fusable_gradient(const graph& g,
                                       const detail::consumers& c,
                                       const pass_context& ctx,
                                       const std::set<std::string>& changed,
                                       const core::node_def& update) {
  const auto* product = input_of(g, update, 2, "MatMul");
  if (product == nullptr
      || !has_kernel(ctx, update, "_MatMulApplyGradientDescent"))
    return nullptr;
  auto i = static_cast<size_t>(g.index_of(product->name));
  if (c.data[i] != 1 || ctx.keep.count(product->name) != 0
      || product->device != update.device)
    return nullptr;
  auto type = std::get<core::dtype>(product->attrs.at("T"));
  if (type != core::dtype::float32 && type != core::dtype::float64)
    return nullptr;
  for (const auto& in : detail::data_inputs(*product))
    if (changed.count(in.node) != 0
        && detail::is_ref_output(ctx.ops, *g.find(in.node), in.port))
      return nullptr;
  return product;
}

/// Makes ApplyGradientDescent(var, alpha, MatMul(a, b)) one
/// `_MatMulApplyGradientDescent(var, alpha, a, b)` named after the update,
/// one pair at a time. Control edges on the product (minimize gates every
/// update on every gradient) move to the fused node, except those from
/// nodes the update itself waits for, where the edge would close a cycle:
/// another fused update then runs after this one rather than both waiting
/// for each other's product, which is enough as no fused product reads a
/// variable that changes.
core::status fuse_updates(graph& g, const pass_context& ctx,
                          std::vector<std::string>* log) {
  auto changed = changed_variables(g, ctx);
  for (size_t round = 0; round < g.size(); ++round) {
    detail::consumers c{g};
    const core::node_def* update = nullptr;
    const core::node_def* product = nullptr;
    for (const auto& node : g.nodes()) {
      if (node.op != "ApplyGradientDescent")
        continue;
      product = fusable_gradient(g, c, ctx, changed, node);
      if (product != nullptr) {
        update = &node;
        break;
      }
    }
    if (update == nullptr)
      return core::status::ok();
    auto args = detail::data_inputs(*update);
    auto product_args = detail::data_inputs(*product);
    core::node_def fused{update->name,
                         "_MatMulApplyGradientDescent",
                         {args[0].to_string(), args[1].to_string(),
                          product_args[0].to_string(),
                          product_args[1].to_string()},
                         update->device,
                         update->attrs};
    for (const char* attr : {"transpose_a", "transpose_b"}) {
      auto a = product->attrs.find(attr);
      if (a != product->attrs.end())
        fused.attrs[attr] = a->second;
    }
    std::set<std::string> controls;
    for (const auto* part : {product, update})
      for (const auto& ctl : detail::control_inputs(*part))
        if (ctl != product->name && controls.insert(ctl).second)
          fused.inputs.push_back("^" + ctl);
    auto gone = "^" + product->name;
    auto moved = "^" + update->name;
    if (log != nullptr)
      log->push_back(product->name + " + " + update->name + " are "
                     + update->name + " (_MatMulApplyGradientDescent)");
    auto before = ancestors(g, *update);
    for (auto& node : g.mutable_nodes()) {
      if (&node == update || &node == product)
        continue;
      auto at = std::find(node.inputs.begin(), node.inputs.end(), gone);
      if (at == node.inputs.end())
        continue;
      bool has = std::find(node.inputs.begin(), node.inputs.end(), moved)
                 != node.inputs.end();
      if (before.count(node.name) != 0 || has)
        node.inputs.erase(at);
      else
        *at = moved;
    }
    std::vector<bool> removed(g.size(), false);
    removed[static_cast<size_t>(g.index_of(product->name))] = true;
    *g.mutable_find(update->name) = std::move(fused);
    ACTORFLOW_RETURN_IF_ERROR(detail::remove_nodes(g, removed));
  }
  return core::status::ok();
}

/// Makes ReluGrad(MatMul(a, b), features) one `_MatMulReluGrad(a, b,
/// features)` named after the ReluGrad, where the product is float or
/// double, and read by nothing else (a layer's input gradient through the
/// Relu before the layer).
core::status fuse_relu_grads(graph& g, const pass_context& ctx,
                             std::vector<std::string>* log) {
  detail::consumers c{g};
  std::vector<bool> removed(g.size(), false);
  std::vector<core::node_def> fused; // replaces the node of its name
  for (const auto& relu_grad : g.nodes()) {
    if (relu_grad.op != "ReluGrad")
      continue;
    const auto* product = input_of(g, relu_grad, 0, "MatMul");
    if (product == nullptr
        || !detail::only_read_by(g, c, ctx.keep, *product, relu_grad)
        || !has_kernel(ctx, relu_grad, "_MatMulReluGrad"))
      continue;
    auto type = std::get<core::dtype>(product->attrs.at("T"));
    if (type != core::dtype::float32 && type != core::dtype::float64)
      continue;
    auto args = detail::data_inputs(*product);
    core::node_def node{relu_grad.name,
                        "_MatMulReluGrad",
                        {args[0].to_string(), args[1].to_string(),
                         detail::data_inputs(relu_grad)[1].to_string()},
                        relu_grad.device,
                        product->attrs};
    node.attrs.erase("grad_a");
    node.attrs.erase("grad_b");
    for (const auto* part : {product, &relu_grad})
      for (const auto& ctl : detail::control_inputs(*part))
        node.inputs.push_back("^" + ctl);
    removed[static_cast<size_t>(g.index_of(product->name))] = true;
    if (log != nullptr)
      log->push_back(product->name + " + " + relu_grad.name + " are "
                     + relu_grad.name + " (_MatMulReluGrad)");
    fused.push_back(std::move(node));
  }
  return replace(g, fused, removed);
}

/// Whether one data input of the Mul `mul` is a float or double scalar
/// Const equal to `value` rounded to its type; sets `other` to its other
/// input.
bool scales_by(const graph& g, const core::node_def& mul, double value,
               core::input_ref* other) {
  auto args = detail::data_inputs(mul);
  if (args.size() != 2)
    return false;
  for (size_t i = 0; i < 2; ++i) {
    const auto* k = g.find(args[i].node);
    if (k == nullptr || k->op != "Const" || args[i].port != 0)
      continue;
    const auto& t = std::get<core::tensor>(k->attrs.at("value"));
    if (t.num_elements() != 1)
      continue;
    if ((t.dtype() == core::dtype::float32
         && t.scalar_value<float>() == static_cast<float>(value))
        || (t.dtype() == core::dtype::float64
            && t.scalar_value<double>() == value)) {
      *other = args[1 - i];
      return true;
    }
  }
  return false;
}

/// Makes tf.nn.gelu(x, approximate=False) -- Mul(Mul(x, 0.5),
/// Erfc(Mul(Neg(x), 0.7071067811865475))), either order in each Mul, the
/// constants TensorFlow's own rounded to x's type -- one
/// `_GeluExact(x)` named after the last Mul, float or double, where the
/// four nodes before it are read by nothing else: one pass over x rather
/// than five, and for float32 oneDNN's gelu_erf kernel (TensorFlow's
/// oneDNN build fuses the same kernel into the MatMul before it, which
/// Keras' Dense over a sequence hides behind a Reshape).
core::status fuse_gelus(graph& g, const pass_context& ctx,
                        std::vector<std::string>* log) {
  detail::consumers c{g};
  std::vector<bool> removed(g.size(), false);
  std::vector<core::node_def> fused; // replaces the node of its name
  for (const auto& out : g.nodes()) {
    if (out.op != "Mul" || !has_kernel(ctx, out, "_GeluExact"))
      continue;
    auto type = std::get<core::dtype>(out.attrs.at("T"));
    if (type != core::dtype::float32 && type != core::dtype::float64)
      continue;
    for (size_t e = 0; e < 2; ++e) {
      const auto* erfc = input_of(g, out, e, "Erfc");
      const auto* half = input_of(g, out, 1 - e, "Mul");
      core::input_ref x, negated;
      if (erfc == nullptr || half == nullptr || !scales_by(g, *half, 0.5, &x))
        continue;
      const auto* scaled = input_of(g, *erfc, 0, "Mul");
      if (scaled == nullptr
          || !scales_by(g, *scaled, 0.7071067811865475, &negated)
          || negated.port != 0)
        continue;
      const auto* neg = g.find(negated.node);
      if (neg == nullptr || neg->op != "Neg")
        continue;
      auto neg_in = detail::data_inputs(*neg);
      if (neg_in.size() != 1 || neg_in[0].node != x.node
          || neg_in[0].port != x.port
          || !detail::only_read_by(g, c, ctx.keep, *half, out)
          || !detail::only_read_by(g, c, ctx.keep, *erfc, out)
          || !detail::only_read_by(g, c, ctx.keep, *scaled, *erfc)
          || !detail::only_read_by(g, c, ctx.keep, *neg, *scaled))
        continue;
      core::node_def node{
        out.name, "_GeluExact", {x.to_string()}, out.device, {{"T", type}}};
      for (const auto* part : {&out, half, erfc, scaled, neg}) {
        for (const auto& ctl : detail::control_inputs(*part))
          node.inputs.push_back("^" + ctl);
        if (part != &out)
          removed[static_cast<size_t>(g.index_of(part->name))] = true;
      }
      if (log != nullptr)
        log->push_back(neg->name + " + " + scaled->name + " + " + erfc->name
                       + " + " + half->name + " + " + out.name + " are "
                       + out.name + " (_GeluExact)");
      fused.push_back(std::move(node));
      break;
    }
  }
  return replace(g, fused, removed);
}

/// Marks the convolutions whose filter is a Const (`_constant_filter`) --
/// one the run does not feed or fetch -- so their kernels may keep the
/// filter in a layout of their own across runs.
void mark_constant_filters(graph& g, const pass_context& ctx) {
  const auto& nodes = g.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    if (node.op != "Conv2D" && node.op != "_FusedConv2D"
        && node.op != "DepthwiseConv2dNative"
        && node.op != "_FusedConvBatchNorm")
      continue;
    auto args = detail::data_inputs(node);
    const auto* filter = args.size() > 1 ? g.find(args[1].node) : nullptr;
    if (filter != nullptr && filter->op == "Const" && args[1].port == 0
        && ctx.keep.count(filter->name) == 0)
      g.mutable_attrs(i)["_constant_filter"] = true;
  }
}

} // namespace

core::status fusion(graph& g, const pass_context& ctx,
                    std::vector<std::string>* log) {
  ACTORFLOW_RETURN_IF_ERROR(fuse_updates(g, ctx, log));
  ACTORFLOW_RETURN_IF_ERROR(fuse_relu_grads(g, ctx, log));
  ACTORFLOW_RETURN_IF_ERROR(fuse_gelus(g, ctx, log));
  ACTORFLOW_RETURN_IF_ERROR(fusion_rules::fuse_batch_norms(g, ctx, log));
  detail::consumers c{g};
  std::vector<bool> removed(g.size(), false);
  std::vector<core::node_def> fused; // replaces the node of its name
  for (const auto& bias : g.nodes()) {
    if (bias.op != "BiasAdd")
      continue;
    auto format = bias.attrs.find("data_format");
    if (format != bias.attrs.end()
        && std::get<std::string>(format->second) != "NHWC")
      continue;
    const auto* product = fusable_product(g, c, ctx, bias);
    if (product == nullptr)
      continue;
    // Relu too when it is the BiasAdd's only reader.
    const core::node_def* last = &bias;
    auto b = static_cast<size_t>(g.index_of(bias.name));
    if (c.reader[b] >= 0) {
      const auto& next = g.nodes()[static_cast<size_t>(c.reader[b])];
      if (next.op == "Relu" && detail::only_read_by(g, c, ctx.keep, bias, next))
        last = &next;
    }
    std::vector<std::string> ops_fused{"BiasAdd"};
    if (last != &bias)
      ops_fused.emplace_back("Relu");
    // The product's attrs (T, transposes; windows) and what was fused.
    auto args = detail::data_inputs(*product);
    auto op = "_Fused" + product->op;
    core::node_def node{last->name,
                        op,
                        {args[0].to_string(), args[1].to_string(),
                         detail::data_inputs(bias)[1].to_string()},
                        last->device,
                        product->attrs};
    node.attrs.erase("grad_a");
    node.attrs.erase("grad_b");
    node.attrs["fused_ops"] = ops_fused;
    for (const auto* part : {product, &bias, last})
      for (const auto& ctl : detail::control_inputs(*part))
        node.inputs.push_back("^" + ctl);
    removed[static_cast<size_t>(g.index_of(product->name))] = true;
    if (last != &bias)
      removed[b] = true;
    if (log != nullptr)
      log->push_back(product->name + " + " + bias.name
                     + (last != &bias ? " + " + last->name : std::string{})
                     + " are " + last->name + " (" + op + ")");
    fused.push_back(std::move(node));
  }
  ACTORFLOW_RETURN_IF_ERROR(replace(g, fused, removed));
  mark_constant_filters(g, ctx);
  return core::status::ok();
}

} // namespace actorflow::graph::passes
