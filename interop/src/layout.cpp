// NCHW windowed nodes of an imported graph rewritten into NHWC between
// Transposes.

#include "layout.hpp"

#include <algorithm>
#include <map>

namespace actorflow::interop::detail {

namespace {

/// Which inputs of an op are NCHW images, which are NCHW shapes, and
/// whether its output is an image.
struct layout_roles {
  std::vector<int> images;
  std::vector<int> shapes;
  bool image_output = true;
};

const std::map<std::string, layout_roles>& nchw_ops() {
  static const std::map<std::string, layout_roles> table{
    {"Conv2D", {{0}, {}, true}},
    {"DepthwiseConv2dNative", {{0}, {}, true}},
    {"MaxPool", {{0}, {}, true}},
    {"AvgPool", {{0}, {}, true}},
    {"BiasAdd", {{0}, {}, true}},
    {"Conv2DBackpropInput", {{2}, {0}, true}},
    {"Conv2DBackpropFilter", {{0, 2}, {}, false}},
    {"DepthwiseConv2dNativeBackpropInput", {{2}, {0}, true}},
    {"DepthwiseConv2dNativeBackpropFilter", {{0, 2}, {}, false}},
    {"MaxPoolGrad", {{0, 1, 2}, {}, true}},
    {"AvgPoolGrad", {{1}, {0}, true}},
    {"BiasAddGrad", {{0}, {}, false}},
  };
  return table;
}

/// [a, b, c, d] in NCHW order to NHWC: [a, c, d, b].
std::vector<int64_t> to_nhwc(const std::vector<int64_t>& v) {
  return v.size() == 4 ? std::vector<int64_t>{v[0], v[2], v[3], v[1]} : v;
}

/// The same for pairs (explicit_paddings: two per dimension).
std::vector<int64_t> pairs_to_nhwc(const std::vector<int64_t>& v) {
  if (v.size() != 8)
    return v;
  return {v[0], v[1], v[4], v[5], v[6], v[7], v[2], v[3]};
}

/// Adds an int32 vector constant named `name`.
core::status add_vector(graph::graph& g, const std::string& name,
                        const std::string& device,
                        const std::vector<int32_t>& values) {
  core::node_def n;
  n.name = name;
  n.op = "Const";
  n.device = device;
  n.attrs = {{"dtype", core::dtype::int32},
             {"value", core::tensor::from_vector<int32_t>(
                         {static_cast<int64_t>(values.size())}, values)}};
  return g.add(std::move(n));
}

/// Adds `name` = Transpose(input, perm) of dtype `type`.
core::status add_transpose(graph::graph& g, const std::string& name,
                           const std::string& device, const std::string& input,
                           const std::string& perm, core::dtype type) {
  core::node_def n;
  n.name = name;
  n.op = "Transpose";
  n.device = device;
  n.inputs = {input, perm};
  n.attrs = {{"T", type}, {"Tperm", core::dtype::int32}};
  return g.add(std::move(n));
}

} // namespace

core::status nchw_to_nhwc(graph::graph* g, size_t* rewritten) {
  size_t count = 0;
  graph::graph out;
  // Its own nodes (the permutations, added once before the first use)
  // under a prefix no node of the graph has.
  std::string prefix = "nchw_to_nhwc/";
  for (int n = 1; std::any_of(g->nodes().begin(), g->nodes().end(),
                              [&](const core::node_def& node) {
                                return node.name.rfind(prefix, 0) == 0;
                              });
       ++n)
    prefix = "nchw_to_nhwc_" + std::to_string(n) + "/";
  bool constants = false;
  for (auto node : g->nodes()) {
    auto format = node.attrs.find("data_format");
    auto roles = nchw_ops().find(node.op);
    const auto* t = node.attrs.count("T") != 0
                      ? std::get_if<core::dtype>(&node.attrs.at("T"))
                      : nullptr;
    // Left as they are: NHWC nodes, and malformed ones, which validation
    // reports (too few inputs, no dtype).
    auto inputs_fit = [&] {
      for (const auto* list : {&roles->second.images, &roles->second.shapes})
        for (int i : *list)
          if (static_cast<size_t>(i) >= node.inputs.size())
            return false;
      return true;
    };
    if (format == node.attrs.end() || roles == nchw_ops().end()
        || std::get_if<std::string>(&format->second) == nullptr
        || std::get<std::string>(format->second) != "NCHW" || t == nullptr
        || !inputs_fit()) {
      ACTORFLOW_RETURN_IF_ERROR(out.add(std::move(node)));
      continue;
    }
    auto type = *t;
    if (!constants) {
      ACTORFLOW_RETURN_IF_ERROR(
        add_vector(out, prefix + "to_nhwc", "", {0, 2, 3, 1}));
      ACTORFLOW_RETURN_IF_ERROR(
        add_vector(out, prefix + "to_nchw", "", {0, 3, 1, 2}));
      core::node_def axis;
      axis.name = prefix + "axis";
      axis.op = "Const";
      axis.attrs = {{"dtype", core::dtype::int32},
                    {"value", core::tensor::scalar(int32_t{0})}};
      ACTORFLOW_RETURN_IF_ERROR(out.add(std::move(axis)));
      constants = true;
    }
    auto inner = node.name + "/nhwc";
    for (int i : roles->second.images) {
      auto& in = node.inputs[static_cast<size_t>(i)];
      auto name = inner + "/input_" + std::to_string(i);
      ACTORFLOW_RETURN_IF_ERROR(
        add_transpose(out, name, node.device, in, prefix + "to_nhwc", type));
      in = name;
    }
    for (int i : roles->second.shapes) {
      auto& in = node.inputs[static_cast<size_t>(i)];
      core::node_def gather;
      gather.name = inner + "/shape_" + std::to_string(i);
      gather.op = "GatherV2";
      gather.device = node.device;
      gather.inputs = {in, prefix + "to_nhwc", prefix + "axis"};
      gather.attrs = {{"Tparams", core::dtype::int32},
                      {"Tindices", core::dtype::int32},
                      {"Taxis", core::dtype::int32}};
      in = gather.name;
      ACTORFLOW_RETURN_IF_ERROR(out.add(std::move(gather)));
    }
    for (const char* attr : {"strides", "ksize", "dilations"})
      if (auto a = node.attrs.find(attr); a != node.attrs.end())
        if (auto* v = std::get_if<std::vector<int64_t>>(&a->second))
          *v = to_nhwc(*v);
    if (auto a = node.attrs.find("explicit_paddings"); a != node.attrs.end())
      if (auto* v = std::get_if<std::vector<int64_t>>(&a->second))
        *v = pairs_to_nhwc(*v);
    format->second = std::string{"NHWC"};
    auto name = node.name;
    auto device = node.device;
    if (roles->second.image_output) {
      node.name = inner;
      ACTORFLOW_RETURN_IF_ERROR(out.add(std::move(node)));
      ACTORFLOW_RETURN_IF_ERROR(
        add_transpose(out, name, device, inner, prefix + "to_nchw", type));
    } else {
      ACTORFLOW_RETURN_IF_ERROR(out.add(std::move(node)));
    }
    ++count;
  }
  if (count > 0)
    *g = std::move(out);
  if (rewritten != nullptr)
    *rewritten = count;
  return core::status::ok();
}

} // namespace actorflow::interop::detail
