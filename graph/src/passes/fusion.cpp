#include "actorflow/core/device_name.hpp"
#include "actorflow/graph/optimizer.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "pass_util.hpp"

namespace actorflow::graph::passes {

namespace {

/// The node that reads data input `port` of `node`, if it is an `op`.
const core::node_def* input_of(const graph& g, const core::node_def& node,
                               size_t port, const char* op) {
  auto args = detail::data_inputs(node);
  if (port >= args.size() || args[port].port != 0)
    return nullptr;
  const auto* producer = g.find(args[port].node);
  return producer != nullptr && producer->op == op ? producer : nullptr;
}

/// Whether the device `node` asks for has a kernel of `op` (the default
/// device, a CPU, when it asks for none).
bool has_kernel(const pass_context& ctx, const core::node_def& node,
                const std::string& op) {
  auto name = core::device_name::parse(node.device);
  auto type = name && name->type ? *name->type : std::string{"cpu"};
  return ctx.kernels.supports(op, type);
}

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

} // namespace

core::status fusion(graph& g, const pass_context& ctx,
                    std::vector<std::string>* log) {
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
  if (fused.empty())
    return core::status::ok();
  for (auto& node : fused)
    *g.find(node.name) = std::move(node);
  return detail::remove_nodes(g, removed);
}

} // namespace actorflow::graph::passes
