// One harness for every GPU kernel (ggml's test-backend-ops idea): each
// case runs an op on gpu:0 and on cpu:0 in one session step, on the same
// random inputs, and compares the results within the op's tolerance. A GPU
// kernel registered without a case fails `every_kernel_has_a_case`.
// Without a GPU (CI) every test skips, saying so.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/devices/gpu.hpp"
#include "actorflow/ops/registration.hpp"

using namespace actorflow;
using core::dtype;
using core::shape;
using core::tensor;

namespace {

/// What values an input gets.
enum class values { signed_unit, positive, labels, small_int };

struct input_spec {
  shape dims;
  dtype type;
  values kind = values::signed_unit;
  bool host_const = false; ///< A Const (axes, shapes) rather than a feed.
  std::vector<int64_t> ints = {};
};

struct kernel_case {
  std::string op;
  dtype type; ///< The registration's dtype (of its type attr).
  std::vector<input_spec> inputs;
  core::attr_map attrs;
  double tolerance = 1e-5;
  int outputs = 1;
};

/// The GPU kernels that only move handles, read shapes or hold state:
/// they are the CPU's own classes (ops/src/kernels/cpu), checked by the
/// session tests below rather than against themselves.
const std::set<std::string> handle_ops{"Switch",         "RefSwitch",
                                       "Merge",          "Enter",
                                       "RefEnter",       "Exit",
                                       "NextIteration",  "LoopCond",
                                       "ControlTrigger", "Const",
                                       "Identity",       "StopGradient",
                                       "NoOp",           "Shape",
                                       "Rank",           "Size",
                                       "Reshape",        "ExpandDims",
                                       "Squeeze",        "VariableV2",
                                       "Assign",         "ApplyGradientDescent",
                                       "ApplyMomentum",  "ApplyAdam",
                                       "_HostToDevice",  "_DeviceToHost"};

tensor random_tensor(const input_spec& in, std::mt19937& rng) {
  tensor t{in.type, in.dims};
  if (!in.ints.empty()) {
    for (size_t i = 0; i < in.ints.size(); ++i)
      if (in.type == dtype::int32)
        t.mutable_data<int32_t>()[i] = static_cast<int32_t>(in.ints[i]);
      else
        t.mutable_data<int64_t>()[i] = in.ints[i];
    return t;
  }
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> pos(0.1, 2.0);
  auto value = [&](int64_t) {
    return in.kind == values::positive ? pos(rng) : unit(rng);
  };
  auto n = t.num_elements();
  switch (in.type) {
    case dtype::float32:
      for (int64_t i = 0; i < n; ++i)
        t.mutable_data<float>()[i] = static_cast<float>(value(i));
      break;
    case dtype::float64:
      for (int64_t i = 0; i < n; ++i)
        t.mutable_data<double>()[i] = value(i);
      break;
    case dtype::float16:
      for (int64_t i = 0; i < n; ++i)
        t.mutable_data<Eigen::half>()[i] = Eigen::half(value(i));
      break;
    case dtype::bfloat16:
      for (int64_t i = 0; i < n; ++i)
        t.mutable_data<Eigen::bfloat16>()[i] = Eigen::bfloat16(value(i));
      break;
    case dtype::int32:
      for (int64_t i = 0; i < n; ++i)
        t.mutable_data<int32_t>()[i] = static_cast<int32_t>(rng() % 10);
      break;
    case dtype::int64:
      for (int64_t i = 0; i < n; ++i)
        t.mutable_data<int64_t>()[i] = static_cast<int64_t>(rng() % 10);
      break;
    case dtype::bool_:
      for (int64_t i = 0; i < n; ++i)
        t.mutable_data<bool>()[i] = rng() % 2 == 0;
      break;
    case dtype::uint8:
      for (int64_t i = 0; i < n; ++i)
        t.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(rng() % 256);
      break;
    default: break;
  }
  return t;
}

/// Element `i` of `t` as a double.
double at(const tensor& t, int64_t i) {
  switch (t.dtype()) {
    case dtype::float32: return t.data<float>()[i];
    case dtype::float64: return t.data<double>()[i];
    case dtype::float16: return static_cast<double>(t.data<Eigen::half>()[i]);
    case dtype::bfloat16:
      return static_cast<double>(t.data<Eigen::bfloat16>()[i]);
    case dtype::int32: return t.data<int32_t>()[i];
    case dtype::int64: return static_cast<double>(t.data<int64_t>()[i]);
    case dtype::bool_: return t.data<bool>()[i] ? 1 : 0;
    case dtype::uint8: return t.data<uint8_t>()[i];
    default: return std::nan("");
  }
}

class gpu_kernels : public ::testing::Test {
protected:
  void SetUp() override {
    if (devices::visible_gpus() == 0)
      GTEST_SKIP() << "no GPU here (CUDA build: "
                   << (devices::cuda_enabled() ? "yes" : "no")
                   << "): the GPU kernels are checked where one is";
  }

  /// Runs `c` on both devices and compares.
  void check(const kernel_case& c, std::mt19937& rng) {
    SCOPED_TRACE(c.op + " " + std::string{core::to_string(c.type)});
    graph::graph g;
    actors::feed_list feeds;
    std::vector<std::string> names;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const auto& in = c.inputs[i];
      core::node_def n;
      n.name = "in" + std::to_string(i);
      n.device = "cpu:0";
      auto value = random_tensor(in, rng);
      if (in.host_const) {
        n.op = "Const";
        n.attrs = {{"value", value}, {"dtype", in.type}};
      } else {
        n.op = "Placeholder";
        n.attrs = {{"dtype", in.type}, {"shape", in.dims}};
        feeds.emplace_back(n.name, value);
      }
      names.push_back(n.name);
      ASSERT_TRUE(g.add(std::move(n)).is_ok());
    }
    std::vector<std::string> fetches;
    core::node_def n;
    n.name = "op_g";
    n.op = c.op;
    n.device = "gpu:0";
    n.inputs = names;
    n.attrs = c.attrs;
    for (int k = 0; k < c.outputs; ++k)
      fetches.push_back(n.name + ":" + std::to_string(k));
    ASSERT_TRUE(g.add(n).is_ok());
    n.name = "op_c";
    n.device = "cpu:0";
    if (e_.context().kernels().supports(n, "cpu")) {
      for (int k = 0; k < c.outputs; ++k)
        fetches.push_back(n.name + ":" + std::to_string(k));
      ASSERT_TRUE(g.add(n).is_ok());
    } else {
      // No CPU kernel of this dtype (half, bfloat16): the reference is the
      // float32 kernel between casts.
      auto cast = [&](const std::string& in, dtype from, dtype to,
                      const std::string& name) {
        core::node_def k;
        k.name = name;
        k.op = "Cast";
        k.device = "cpu:0";
        k.inputs = {in};
        k.attrs = {{"SrcT", from}, {"DstT", to}};
        return g.add(std::move(k));
      };
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (c.inputs[i].type == c.type) {
          auto name = "up" + std::to_string(i);
          ASSERT_TRUE(cast(n.inputs[i], c.type, dtype::float32, name).is_ok());
          n.inputs[i] = name;
        }
      for (auto& [key, value] : n.attrs)
        if (std::holds_alternative<dtype>(value)
            && std::get<dtype>(value) == c.type)
          value = dtype::float32;
      ASSERT_TRUE(g.add(n).is_ok());
      for (int k = 0; k < c.outputs; ++k) {
        auto name = "down" + std::to_string(k);
        ASSERT_TRUE(
          cast("op_c:" + std::to_string(k), dtype::float32, c.type, name)
            .is_ok());
        fetches.push_back(name);
      }
    }
    actors::session sess{e_};
    auto st = sess.extend(g);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    std::vector<tensor> out;
    actors::run_options ro;
    ro.output_partition_graphs = true;
    actors::run_metadata md;
    st = sess.run(ro, feeds, fetches, {}, &out, &md);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    // The GPU's node really ran on the GPU.
    bool on_gpu = false;
    for (const auto& part : md.partition_graphs)
      for (const auto& node : part.nodes())
        on_gpu = on_gpu
                 || (node.name == "op_g"
                     && node.device.find("gpu:0") != std::string::npos);
    EXPECT_TRUE(on_gpu) << c.op << " did not run on the GPU";
    for (int k = 0; k < c.outputs; ++k) {
      const auto& gpu = out[static_cast<size_t>(k)];
      const auto& cpu = out[static_cast<size_t>(c.outputs + k)];
      ASSERT_EQ(gpu.dtype(), cpu.dtype());
      ASSERT_EQ(gpu.shape(), cpu.shape()) << "output " << k;
      double worst = 0;
      for (int64_t i = 0; i < cpu.num_elements(); ++i) {
        double a = at(gpu, i);
        double b = at(cpu, i);
        ASSERT_FALSE(std::isnan(a) != std::isnan(b))
          << "output " << k << " element " << i << ": " << a << " vs " << b;
        if (!std::isnan(a))
          worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
      }
      EXPECT_LE(worst, c.tolerance) << "output " << k;
    }
  }

  actors::engine e_;
};

/// A host-memory int32 vector input (axes, sizes, permutations).
input_spec ints(std::vector<int64_t> values) {
  auto n = static_cast<int64_t>(values.size());
  return {{n}, dtype::int32, values::small_int, true, std::move(values)};
}

/// Tolerance of half and bfloat16 products against float32 ones.
double product_tolerance(dtype t) {
  return t == dtype::float16 || t == dtype::bfloat16 ? 3e-2 : 1e-5;
}

void add_array_cases(std::vector<kernel_case>& cases,
                     const std::vector<dtype>& types) {
  for (auto t : types) {
    core::attr_map a{{"T", t}, {"Tperm", dtype::int32}};
    cases.push_back({"Transpose", t, {{{2, 3, 4}, t}, ints({2, 0, 1})}, a});
    cases.push_back({"Transpose", t, {{{3, 5}, t}, ints({0, 1})}, a});
    cases.push_back({"Transpose", t, {{{0, 3}, t}, ints({1, 0})}, a});
    cases.push_back(
      {"Transpose", t, {{{2, 1, 3, 2, 2}, t}, ints({4, 3, 2, 1, 0})}, a});
    core::attr_map tile{{"T", t}, {"Tmultiples", dtype::int32}};
    cases.push_back({"Tile", t, {{{1}, t}, ints({128})}, tile});
    cases.push_back({"Tile", t, {{{2, 3}, t}, ints({3, 2})}, tile});
    cases.push_back({"Tile", t, {{{2, 1, 3}, t}, ints({1, 4, 1})}, tile});
    cases.push_back({"Tile", t, {{{2, 3}, t}, ints({0, 2})}, tile});
  }
}

void add_batch_matmul_cases(std::vector<kernel_case>& cases,
                            const std::vector<dtype>& types) {
  struct shapes {
    shape x;
    shape y;
  };
  // Equal batches (one strided call), a single matrix against a batch
  // (stride 0), batches that broadcast both ways (one call per matrix),
  // an empty batch, an empty inner dimension.
  const std::vector<shapes> plain{
    {{2, 3, 4}, {2, 4, 5}}, {{0, 3, 4}, {0, 4, 2}}, {{2, 3, 0}, {2, 0, 5}}};
  const std::vector<shapes> broadcast{
    {{3, 4}, {2, 4, 5}}, {{2, 1, 3, 4}, {3, 4, 5}}, {{2, 3, 4}, {1, 4, 5}}};
  for (const char* op : {"BatchMatMul", "BatchMatMulV2"})
    for (auto t : types) {
      auto all = plain;
      if (std::string{op} == "BatchMatMulV2")
        all.insert(all.end(), broadcast.begin(), broadcast.end());
      for (const auto& s : all)
        cases.push_back({op,
                         t,
                         {{s.x, t}, {s.y, t}},
                         {{"T", t}, {"adj_x", false}, {"adj_y", false}},
                         product_tolerance(t)});
      // The adjoints, transposed operands read in place.
      for (bool ax : {false, true})
        for (bool ay : {false, true})
          cases.push_back({op,
                           t,
                           {{ax ? shape{2, 4, 3} : shape{2, 3, 4}, t},
                            {ay ? shape{2, 5, 4} : shape{2, 4, 5}, t}},
                           {{"T", t}, {"adj_x", ax}, {"adj_y", ay}},
                           product_tolerance(t)});
    }
}

/// A windowed op's attrs: [1, h, w, 1] strides (and ksize) and padding.
core::attr_map window_attrs(dtype t, int64_t stride, const std::string& pad,
                            int64_t k = 0, int64_t dilation = 1) {
  core::attr_map a{{"T", t},
                   {"strides", std::vector<int64_t>{1, stride, stride, 1}},
                   {"padding", pad}};
  if (k > 0)
    a["ksize"] = std::vector<int64_t>{1, k, k, 1};
  if (dilation > 1)
    a["dilations"] = std::vector<int64_t>{1, dilation, dilation, 1};
  return a;
}

void add_conv_cases(std::vector<kernel_case>& cases) {
  const auto t = dtype::float32;
  struct conv {
    shape x;
    shape f;
    int64_t stride;
    std::string pad;
    int64_t dilation;
  };
  // Symmetric SAME padding, SAME with one more row or column after (7x6
  // at stride 2; a 2x2 filter), VALID with rows left over, dilation, one
  // input channel, an empty batch.
  const std::vector<conv> convs{
    {{2, 7, 6, 3}, {3, 3, 3, 4}, 1, "SAME", 1},
    {{2, 7, 6, 3}, {3, 3, 3, 4}, 2, "SAME", 1},
    {{2, 7, 6, 3}, {2, 2, 3, 5}, 1, "SAME", 1},
    {{2, 7, 6, 3}, {3, 3, 3, 4}, 2, "VALID", 1},
    {{1, 9, 8, 2}, {3, 3, 2, 3}, 1, "SAME", 2},
    {{3, 8, 8, 1}, {5, 5, 1, 6}, 1, "SAME", 1},
    {{0, 5, 5, 2}, {3, 3, 2, 2}, 1, "SAME", 1},
  };
  // The output's shape, as the CPU plans it.
  auto out_of = [](const conv& c) {
    auto dim = [&](int d, int64_t k) {
      auto eff = (k - 1) * c.dilation + 1;
      return c.pad == "SAME" ? (c.x.dim(d) + c.stride - 1) / c.stride
                             : (c.x.dim(d) - eff) / c.stride + 1;
    };
    return shape{c.x.dim(0), dim(1, c.f.dim(0)), dim(2, c.f.dim(1)),
                 c.f.dim(3)};
  };
  for (const auto& c : convs) {
    auto a = window_attrs(t, c.stride, c.pad, 0, c.dilation);
    cases.push_back({"Conv2D", t, {{c.x, t}, {c.f, t}}, a, 1e-4});
    cases.push_back({"Conv2DBackpropInput",
                     t,
                     {ints(c.x.dims()), {c.f, t}, {out_of(c), t}},
                     a,
                     1e-4});
    cases.push_back({"Conv2DBackpropFilter",
                     t,
                     {{c.x, t}, ints(c.f.dims()), {out_of(c), t}},
                     a,
                     1e-4});
  }
  for (bool relu : {false, true}) {
    auto a = window_attrs(t, 1, "SAME");
    a["fused_ops"] = relu ? std::vector<std::string>{"BiasAdd", "Relu"}
                          : std::vector<std::string>{"BiasAdd"};
    cases.push_back({"_FusedConv2D",
                     t,
                     {{{2, 6, 5, 3}, t}, {{3, 3, 3, 4}, t}, {{4}, t}},
                     a,
                     1e-4});
  }
}

void add_pool_cases(std::vector<kernel_case>& cases) {
  struct pool {
    int64_t k;
    int64_t stride;
    std::string pad;
    shape out; ///< For [2, 7, 6, 3] images.
  };
  // Overlapping SAME windows with one more row after (7 rows at stride 2),
  // VALID windows that tile, a window as large as the image.
  const std::vector<pool> pools{{3, 2, "SAME", {2, 4, 3, 3}},
                                {2, 2, "VALID", {2, 3, 3, 3}},
                                {3, 1, "SAME", {2, 7, 6, 3}},
                                {6, 1, "VALID", {2, 2, 1, 3}}};
  const shape x{2, 7, 6, 3};
  for (auto t : {dtype::float32, dtype::float64})
    for (const auto& p : pools) {
      auto a = window_attrs(t, p.stride, p.pad, p.k);
      cases.push_back({"MaxPool", t, {{x, t}}, a});
      cases.push_back({"AvgPool", t, {{x, t}}, a});
      cases.push_back({"MaxPoolGrad", t, {{x, t}, {p.out, t}, {p.out, t}}, a});
      cases.push_back({"AvgPoolGrad", t, {ints(x.dims()), {p.out, t}}, a});
    }
}

void add_batch_norm_cases(std::vector<kernel_case>& cases) {
  const auto t = dtype::float32;
  const shape x{2, 5, 4, 3};
  const input_spec c{{3}, t};
  const input_spec var{{3}, t, values::positive};
  for (bool training : {true, false})
    for (double factor : {1.0, 0.25}) {
      core::attr_map a{{"T", t},
                       {"epsilon", 0.001},
                       {"is_training", training},
                       {"exponential_avg_factor", factor}};
      cases.push_back(
        {"FusedBatchNorm", t, {{x, t}, c, c, c, var}, a, 1e-4, 5});
      cases.push_back(
        {"FusedBatchNormGrad",
         t,
         {{x, t}, {x, t}, c, c, var},
         {{"T", t}, {"epsilon", 0.001}, {"is_training", training}},
         1e-4,
         5});
    }
  // Training without running statistics; one row (no Bessel correction).
  const input_spec none{{0}, t};
  core::attr_map train{{"T", t}, {"is_training", true}};
  cases.push_back(
    {"FusedBatchNorm", t, {{x, t}, c, c, none, none}, train, 1e-4, 5});
  cases.push_back(
    {"FusedBatchNorm", t, {{{1, 1, 1, 3}, t}, c, c, c, var}, train, 1e-4, 5});
}

/// The cases: every registered GPU kernel that computes, over its dtypes,
/// with broadcasting, scalars and empty tensors where the op allows them.
std::vector<kernel_case> all_cases() {
  std::vector<kernel_case> cases;
  const std::vector<dtype> floats{dtype::float16, dtype::bfloat16,
                                  dtype::float32, dtype::float64};
  auto tol = [](dtype t) {
    return t == dtype::float16 ? 2e-3 : t == dtype::bfloat16 ? 2e-2 : 1e-5;
  };
  const std::set<std::string> with_halves{"Add", "AddV2", "Sub", "Mul"};
  auto types_of = [&](const std::string& op) {
    return with_halves.count(op) != 0
             ? floats
             : std::vector<dtype>{dtype::float32, dtype::float64};
  };
  for (const char* op :
       {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum",
        "Pow", "Less", "LessEqual", "Greater", "GreaterEqual", "Equal",
        "NotEqual", "ReluGrad", "TanhGrad", "SigmoidGrad"}) {
    std::string name = op;
    bool positive = name == "Pow" || name == "RealDiv" || name == "Div";
    bool broadcasts = name.find("Grad") == std::string::npos;
    auto k = positive ? values::positive : values::signed_unit;
    for (auto t : types_of(name)) {
      core::attr_map a{{"T", t}};
      // Same shapes, broadcasting both ways, a scalar, an empty tensor.
      cases.push_back({op, t, {{{4, 5}, t, k}, {{4, 5}, t, k}}, a, tol(t)});
      cases.push_back({op, t, {{{0, 3}, t, k}, {{0, 3}, t, k}}, a, tol(t)});
      if (!broadcasts)
        continue;
      cases.push_back({op, t, {{{3, 1, 5}, t, k}, {{4, 1}, t, k}}, a, tol(t)});
      cases.push_back({op, t, {{{}, t, k}, {{2, 3}, t, k}}, a, tol(t)});
      cases.push_back({op, t, {{{0, 3}, t, k}, {{3}, t, k}}, a, tol(t)});
    }
  }
  for (const char* op :
       {"Neg", "Abs", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Tanh",
        "Sigmoid", "Relu", "Relu6", "Sign", "Floor", "Ceil", "Log1p"}) {
    std::string name = op;
    bool positive = name == "Log" || name == "Sqrt" || name == "Rsqrt";
    auto k = positive ? values::positive : values::signed_unit;
    for (auto t : types_of(name)) {
      core::attr_map a{{"T", t}};
      cases.push_back({op, t, {{{3, 7}, t, k}}, a, tol(t)});
      cases.push_back({op, t, {{{}, t, k}}, a, tol(t)});
      cases.push_back({op, t, {{{0}, t, k}}, a, tol(t)});
    }
  }
  const std::vector<dtype> cast_types{
    dtype::float16, dtype::bfloat16, dtype::float32, dtype::float64,
    dtype::int32,   dtype::int64,    dtype::bool_,   dtype::uint8};
  for (auto from : cast_types)
    for (auto to : cast_types)
      cases.push_back(
        {"Cast", from, {{{2, 9}, from}}, {{"SrcT", from}, {"DstT", to}}, 2e-2});
  for (auto t : floats) {
    cases.push_back({"Fill",
                     t,
                     {{{2}, dtype::int32, {}, true, {3, 4}}, {{}, t}},
                     {{"T", t}, {"index_type", dtype::int32}}});
    cases.push_back({"ZerosLike", t, {{{3, 2}, t}}, {{"T", t}}});
    cases.push_back({"OnesLike", t, {{{3, 2}, t}}, {{"T", t}}});
  }
  for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"})
    for (auto t : {dtype::float32, dtype::float64})
      for (auto axes : std::vector<std::vector<int64_t>>{
             {1}, {0}, {0, 2}, {-1}, {0, 1, 2}, {}})
        for (bool keep : {false, true}) {
          auto n = static_cast<int64_t>(axes.size());
          cases.push_back(
            {op,
             t,
             {{{6, 300, 5}, t}, {{n}, dtype::int32, {}, true, axes}},
             {{"T", t}, {"keep_dims", keep}},
             1e-4});
        }
  // Long columns (plan_reduce's tiles): one slice, several slices and a
  // second pass, a last tile of fewer than 32 columns, several outer rows.
  for (const char* op : {"Sum", "Mean", "Max"})
    for (auto t : {dtype::float32, dtype::float64})
      for (auto [dims, axis] : std::vector<std::pair<shape, int64_t>>{
             {{70, 40}, 0}, {{5000, 37}, 0}, {{3, 700, 45}, 1}})
        cases.push_back({op,
                         t,
                         {{dims, t}, {{1}, dtype::int32, {}, true, {axis}}},
                         {{"T", t}, {"keep_dims", false}},
                         1e-4});
  for (auto t : floats)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        shape a = ta ? shape{7, 5} : shape{5, 7};
        shape b = tb ? shape{3, 7} : shape{7, 3};
        cases.push_back(
          {"MatMul",
           t,
           {{a, t}, {b, t}},
           {{"T", t}, {"transpose_a", ta}, {"transpose_b", tb}},
           t == dtype::float16 || t == dtype::bfloat16 ? 3e-2 : 1e-5});
      }
  for (auto t : {dtype::float32, dtype::float64}) {
    for (bool relu : {false, true}) {
      std::vector<std::string> fused{"BiasAdd"};
      if (relu)
        fused.push_back("Relu");
      cases.push_back({"_FusedMatMul",
                       t,
                       {{{4, 6}, t}, {{6, 3}, t}, {{3}, t}},
                       {{"T", t},
                        {"transpose_a", false},
                        {"transpose_b", false},
                        {"fused_ops", fused}}});
    }
    cases.push_back({"BiasAdd", t, {{{2, 3, 4}, t}, {{4}, t}}, {{"T", t}}});
    cases.push_back({"BiasAddGrad", t, {{{300, 4}, t}}, {{"T", t}}, 1e-4});
    cases.push_back(
      {"BiasAddGrad", t, {{{8, 30, 30, 19}, t}}, {{"T", t}}, 1e-4});
    cases.push_back({"Softmax", t, {{{5, 300}, t}}, {{"T", t}}});
    cases.push_back({"LogSoftmax", t, {{{5, 10}, t}}, {{"T", t}}});
    for (auto label : {dtype::int32, dtype::int64})
      cases.push_back({"SparseSoftmaxCrossEntropyWithLogits",
                       t,
                       {{{4, 10}, t}, {{4}, label, {}, false, {0, 9, 3, 3}}},
                       {{"T", t}, {"Tlabels", label}},
                       1e-5,
                       2});
    cases.push_back({"SoftmaxCrossEntropyWithLogits",
                     t,
                     {{{4, 10}, t}, {{4, 10}, t, values::positive}},
                     {{"T", t}},
                     1e-5,
                     2});
  }
  add_array_cases(cases, floats);
  add_batch_matmul_cases(cases, floats);
  add_conv_cases(cases);
  add_pool_cases(cases);
  add_batch_norm_cases(cases);
  return cases;
}

TEST_F(gpu_kernels, every_kernel_matches_the_cpu) {
  std::mt19937 rng{17};
  for (const auto& c : all_cases())
    check(c, rng);
}

// Registration touches no GPU: this one runs everywhere, CI included.
TEST(gpu_kernel_cases, every_kernel_has_a_case) {
  ops::kernel_registry kernels;
  ops::register_gpu_kernels(kernels);
  std::set<std::pair<std::string, dtype>> covered;
  for (const auto& c : all_cases())
    covered.emplace(c.op, c.type);
  std::set<std::string> covered_ops;
  for (const auto& c : all_cases())
    covered_ops.insert(c.op);
  for (const auto& [op, type] : kernels.registered("gpu")) {
    if (handle_ops.count(op) != 0)
      continue;
    EXPECT_TRUE(type == dtype::invalid ? covered_ops.count(op) != 0
                                       : covered.count({op, type}) != 0)
      << "GPU kernel " << op << " (" << core::to_string(type)
      << ") has no case in the harness";
  }
}

} // namespace
