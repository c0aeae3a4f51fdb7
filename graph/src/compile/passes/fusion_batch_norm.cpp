// The fusion rule of a convolution and its inference batch norm:
// Keras' Conv2D / DepthwiseConv2D + BatchNormalization (+ ReLU) blocks as
// one oneDNN convolution.

#include <optional>

#include "actorflow/graph/graph_passes.hpp"
#include "compile/passes/fusion_rules.hpp"
#include "compile/passes/pass_util.hpp"

namespace actorflow::graph::passes::fusion_rules {

namespace {

/// The zeros a Pad before a VALID convolution adds around its image, as
/// [top, bottom, left, right], when the convolution can take them as its
/// own padding: constant paddings on H and W only, a zero fill (Pad, or
/// PadV2 of a constant 0), read by the convolution alone.
std::optional<std::vector<int64_t>> absorbed_pads(const graph& g,
                                                  const detail::consumers& c,
                                                  const pass_context& ctx,
                                                  const core::node_def& conv) {
  auto padding = conv.attrs.find("padding");
  if (padding == conv.attrs.end()
      || std::get<std::string>(padding->second) != "VALID")
    return std::nullopt;
  const auto* pad = input_of(g, conv, 0, "Pad");
  if (pad == nullptr)
    pad = input_of(g, conv, 0, "PadV2");
  if (pad == nullptr || !detail::only_read_by(g, c, ctx.keep, *pad, conv))
    return std::nullopt;
  auto args = detail::data_inputs(*pad);
  auto constant = [&](size_t i) -> const core::tensor* {
    const auto* node = i < args.size() ? g.find(args[i].node) : nullptr;
    return node != nullptr && node->op == "Const" && args[i].port == 0
             ? &std::get<core::tensor>(node->attrs.at("value"))
             : nullptr;
  };
  if (pad->op == "PadV2") {
    const auto* fill = constant(2);
    if (fill == nullptr || fill->dtype() != core::dtype::float32
        || fill->num_elements() != 1 || fill->data<float>()[0] != 0.0f)
      return std::nullopt;
  }
  const auto* paddings = constant(1);
  if (paddings == nullptr || paddings->shape() != core::shape{4, 2})
    return std::nullopt;
  std::vector<int64_t> p(8);
  for (int64_t i = 0; i < 8; ++i)
    p[static_cast<size_t>(i)] = paddings->dtype() == core::dtype::int32
                                  ? paddings->data<int32_t>()[i]
                                  : paddings->data<int64_t>()[i];
  if (p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0)
    return std::nullopt;
  return std::vector<int64_t>{p[2], p[3], p[4], p[5]};
}

} // namespace

core::status fuse_batch_norms(graph& g, const pass_context& ctx,
                              std::vector<std::string>* log) {
  detail::consumers c{g};
  std::vector<bool> removed(g.size(), false);
  std::vector<core::node_def> fused;
  auto nhwc = [](const core::node_def& n) {
    auto format = n.attrs.find("data_format");
    return format == n.attrs.end()
           || std::get<std::string>(format->second) == "NHWC";
  };
  for (size_t n = 0; n < g.size(); ++n) {
    const auto& norm = g.nodes()[n];
    auto is_training = norm.attrs.find("is_training");
    // The batch norm's other outputs (its batch statistics) are read by
    // nobody.
    if ((norm.op != "FusedBatchNorm" && norm.op != "FusedBatchNormV2"
         && norm.op != "FusedBatchNormV3")
        || is_training == norm.attrs.end()
        || std::get<bool>(is_training->second) || !nhwc(norm) || c.past_first[n]
        || !has_kernel(ctx, norm, "_FusedConvBatchNorm"))
      continue;
    const auto* bias = input_of(g, norm, 0, "BiasAdd");
    if (bias != nullptr
        && (!nhwc(*bias) || !detail::only_read_by(g, c, ctx.keep, *bias, norm)))
      continue;
    const core::node_def* conv = nullptr;
    for (const char* op : {"Conv2D", "DepthwiseConv2dNative"})
      if (conv == nullptr)
        conv = input_of(g, bias != nullptr ? *bias : norm, 0, op);
    const auto& next = bias != nullptr ? *bias : norm;
    if (conv == nullptr || !nhwc(*conv)
        || std::get<core::dtype>(conv->attrs.at("T")) != core::dtype::float32
        || !detail::only_read_by(g, c, ctx.keep, *conv, next))
      continue;
    // Relu or Relu6 too when it is the batch norm's only reader.
    const core::node_def* last = &norm;
    if (c.reader[n] >= 0) {
      const auto& act = g.nodes()[static_cast<size_t>(c.reader[n])];
      if ((act.op == "Relu" || act.op == "Relu6")
          && detail::only_read_by(g, c, ctx.keep, norm, act))
        last = &act;
    }
    auto conv_args = detail::data_inputs(*conv);
    auto norm_args = detail::data_inputs(norm);
    // A Pad before a VALID convolution (Keras' ZeroPadding2D before a
    // strided DepthwiseConv2D): the convolution pads instead.
    auto pads = absorbed_pads(g, c, ctx, *conv);
    const core::node_def* pad = nullptr;
    if (pads) {
      pad = g.find(conv_args[0].node);
      conv_args[0] = detail::data_inputs(*pad)[0];
    }
    core::node_def node{last->name,
                        "_FusedConvBatchNorm",
                        {conv_args[0].to_string(), conv_args[1].to_string()},
                        last->device,
                        conv->attrs};
    std::vector<std::string> ops_fused;
    if (bias != nullptr) {
      ops_fused.emplace_back("BiasAdd");
      node.inputs.push_back(detail::data_inputs(*bias)[1].to_string());
    }
    ops_fused.emplace_back("FusedBatchNorm");
    if (last != &norm)
      ops_fused.push_back(last->op);
    for (size_t k = 1; k < 5; ++k)
      node.inputs.push_back(norm_args[k].to_string());
    node.attrs["fused_ops"] = ops_fused;
    node.attrs["num_args"] = static_cast<int64_t>(bias != nullptr ? 5 : 4);
    node.attrs["depthwise"] = conv->op == "DepthwiseConv2dNative";
    if (auto eps = norm.attrs.find("epsilon"); eps != norm.attrs.end())
      node.attrs["epsilon"] = eps->second;
    if (pads)
      node.attrs["pads"] = *pads;
    for (const auto* part : {pad, conv, bias, &norm, last})
      if (part != nullptr)
        for (const auto& ctl : detail::control_inputs(*part))
          node.inputs.push_back("^" + ctl);
    std::string chain = conv->name;
    for (const auto* part : {bias, &norm, last}) {
      if (part == nullptr || (part == last && last == &norm))
        continue;
      removed[static_cast<size_t>(g.index_of(part->name))] = part != last;
      chain += " + " + part->name;
    }
    removed[static_cast<size_t>(g.index_of(conv->name))] = true;
    if (pad != nullptr) {
      removed[static_cast<size_t>(g.index_of(pad->name))] = true;
      chain = pad->name + " + " + chain;
    }
    if (log != nullptr)
      log->push_back(chain + " are " + last->name + " (_FusedConvBatchNorm)");
    fused.push_back(std::move(node));
  }
  return replace(g, fused, removed);
}

} // namespace actorflow::graph::passes::fusion_rules
