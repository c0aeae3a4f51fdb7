// Runs CPU kernels directly, without actors, against numpy golden data.

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "actorflow/devices/device_set.hpp"
#include "actorflow/ops/kernel_context.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/registration.hpp"
#include "actorflow/ops/resource_manager.hpp"
#include "common/golden.hpp"
#include "common/kernel_runner.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

class kernels : public ::testing::Test {
protected:
  kernels() : devs(devices::device_set::make_local(1, 2)) {
    EXPECT_TRUE(ops::register_ops(op_reg).is_ok());
    ops::register_cpu_kernels(kernel_reg);
  }

  /// Builds and runs `op` once; returns the context's status.
  core::status run(const std::string& op, core::attr_map attrs,
                   std::vector<ops::entry> inputs,
                   std::vector<ops::entry>* outputs) {
    core::node_def node{"n", op, {}, "", std::move(attrs)};
    const auto* def = op_reg.find(op);
    EXPECT_NE(def, nullptr);
    ACTORFLOW_RETURN_IF_ERROR(def->check_attrs(node.attrs));
    ACTORFLOW_RETURN_IF_ERROR(def->resolve_types(node.attrs, &in, &out));
    ops::kernel_construction ctx{node,      *def, *devs.all()[0],
                                 resources, in,   out};
    std::unique_ptr<ops::kernel> k;
    ACTORFLOW_RETURN_IF_ERROR(kernel_reg.create(ctx, &k));
    ops::kernel_context kctx{*devs.all()[0], out, 1};
    kctx.inputs() = std::move(inputs);
    k->compute(kctx);
    if (outputs != nullptr)
      *outputs = kctx.outputs();
    return kctx.status();
  }

  tensor run1(const std::string& op, core::attr_map attrs,
              std::vector<tensor> inputs) {
    std::vector<ops::entry> ins, outs;
    for (auto& t : inputs)
      ins.push_back(ops::entry{t, nullptr});
    auto st = run(op, std::move(attrs), std::move(ins), &outs);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return outs.empty() ? tensor{} : outs[0].value;
  }

  /// A tensor of `type` with values uniform in [-1, 1), drawn as float64
  /// (the same values, rounded, in every dtype).
  tensor random(const std::vector<int64_t>& dims, dtype type,
                std::mt19937& gen) {
    tensor t{dtype::float64, core::shape{dims}};
    std::uniform_real_distribution<double> u{-1.0, 1.0};
    for (int64_t i = 0; i < t.num_elements(); ++i)
      t.mutable_data<double>()[i] = u(gen);
    return cast(t, type);
  }

  tensor cast(const tensor& t, dtype type) {
    if (t.dtype() == type)
      return t;
    return run1("Cast", {{"SrcT", t.dtype()}, {"DstT", type}}, {t});
  }

  ops::op_registry op_reg;
  ops::kernel_registry kernel_reg;
  devices::device_set devs;
  ops::resource_manager resources;
  std::vector<ops::arg_type> in, out;
  std::map<std::string, tensor> golden = test::load_golden("spine.txt");
};

} // namespace

TEST_F(kernels, matmul_matches_numpy_with_and_without_transposes) {
  core::attr_map f32{{"T", dtype::float32}};
  test::expect_near(run1("MatMul", f32, {golden["mm_a"], golden["mm_b"]}),
                    golden["mm_ab"]);
  core::attr_map ta{{"T", dtype::float32}, {"transpose_a", true}};
  test::expect_near(run1("MatMul", ta, {golden["mm_at"], golden["mm_b"]}),
                    golden["mm_ab"]);
  core::attr_map tb{
    {"T", dtype::float32}, {"transpose_a", true}, {"transpose_b", true}};
  test::expect_near(run1("MatMul", tb, {golden["mm_at"], golden["mm_bt"]}),
                    golden["mm_ab"]);
}

TEST_F(kernels, float32_products_match_the_float64_path) {
  // float32 MatMul, _FusedMatMul and _MatMulReluGrad run oneDNN's matmul, a
  // large product cut over the device's two threads by rows or columns of
  // C (odd sizes in unequal blocks; a block written in place or through
  // dense scratch); float64 runs OpenBLAS, checked against numpy by the
  // golden cases. Both on the same random values, every transpose.
  // ReluGrad only selects, so _MatMulReluGrad gives the very bits of
  // MatMul then ReluGrad in each dtype.
  struct product {
    int64_t m, k, n;
  };
  const product cases[] = {{3, 5, 4}, {131, 97, 85}, {45, 300, 151}};
  std::mt19937 gen{5};
  for (const auto& p : cases)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        auto a = random(ta ? std::vector<int64_t>{p.k, p.m}
                           : std::vector<int64_t>{p.m, p.k},
                        dtype::float64, gen);
        auto b = random(tb ? std::vector<int64_t>{p.n, p.k}
                           : std::vector<int64_t>{p.k, p.n},
                        dtype::float64, gen);
        auto bias = random({p.n}, dtype::float64, gen);
        auto attrs = [&](dtype type) {
          return core::attr_map{
            {"T", type}, {"transpose_a", ta}, {"transpose_b", tb}};
        };
        auto what = std::to_string(p.m) + "x" + std::to_string(p.k) + "x"
                    + std::to_string(p.n) + (ta ? " ta" : "")
                    + (tb ? " tb" : "");
        auto y = run1("MatMul", attrs(dtype::float64), {a, b});
        auto biased = run1("BiasAdd", {{"T", dtype::float64}}, {y, bias});
        auto relu = run1("Relu", {{"T", dtype::float64}}, {biased});
        auto features = random({p.m, p.n}, dtype::float64, gen);
        test::expect_all_near(
          run1("_MatMulReluGrad", attrs(dtype::float64), {a, b, features}),
          run1("ReluGrad", {{"T", dtype::float64}}, {y, features}), 0.0,
          "_MatMulReluGrad float64 " + what);
        auto a32 = cast(a, dtype::float32), b32 = cast(b, dtype::float32),
             bias32 = cast(bias, dtype::float32),
             features32 = cast(features, dtype::float32);
        auto y32 = run1("MatMul", attrs(dtype::float32), {a32, b32});
        test::expect_all_near(y32, cast(y, dtype::float32), 1e-4,
                              "MatMul " + what);
        test::expect_all_near(
          run1("_MatMulReluGrad", attrs(dtype::float32),
               {a32, b32, features32}),
          run1("ReluGrad", {{"T", dtype::float32}}, {y32, features32}), 0.0,
          "_MatMulReluGrad float32 " + what);
        auto fused = attrs(dtype::float32);
        fused["fused_ops"] = std::vector<std::string>{"BiasAdd"};
        test::expect_all_near(run1("_FusedMatMul", fused, {a32, b32, bias32}),
                              cast(biased, dtype::float32), 1e-4,
                              "_FusedMatMul BiasAdd " + what);
        fused["fused_ops"] = std::vector<std::string>{"BiasAdd", "Relu"};
        test::expect_all_near(run1("_FusedMatMul", fused, {a32, b32, bias32}),
                              cast(relu, dtype::float32), 1e-4,
                              "_FusedMatMul BiasAdd, Relu " + what);
      }
}

TEST_F(kernels, matmul_rejects_mismatched_inner_dimensions) {
  std::vector<ops::entry> outs;
  auto st = run("MatMul", {{"T", dtype::float32}},
                {{golden["mm_a"], nullptr}, {golden["mm_a"], nullptr}}, &outs);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("inner dimensions"), std::string::npos);
}

TEST_F(kernels, matmul_relu_grad_rejects_features_of_another_shape) {
  std::vector<ops::entry> outs;
  auto a = tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = tensor::from_vector<float>({3, 2}, {1, 0, 0, 1, 1, 1});
  auto features = tensor::from_vector<float>({2, 3}, {1, 1, 1, 1, 1, 1});
  auto st = run("_MatMulReluGrad", {{"T", dtype::float32}},
                {{a, nullptr}, {b, nullptr}, {features, nullptr}}, &outs);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("features of the product's shape [2,2]"),
            std::string::npos)
    << st.to_string();
}

TEST_F(kernels, large_elementwise_ops_cover_every_element) {
  // 100,003 elements: above the size from which element-wise kernels cut
  // their work over the device's two threads, odd, so the blocks differ.
  // Each element against the same arithmetic done here, exactly.
  const int64_t n = 100003;
  auto ramp = [&](dtype type, double scale, double offset) {
    tensor t{dtype::float64, core::shape{n}};
    for (int64_t i = 0; i < n; ++i)
      t.mutable_data<double>()[i]
        = std::fmod(scale * double(i) + offset, 251.0);
    return cast(t, type);
  };
  auto x = ramp(dtype::float32, 0.37, 0.5), y = ramp(dtype::float32, 1.9, 3.0),
       w = ramp(dtype::float32, 0.11, 7.0);
  auto two = tensor::from_vector<float>({}, {2.0f});
  auto pixels = ramp(dtype::uint8, 1.0, 0.0);
  core::attr_map f32{{"T", dtype::float32}};
  auto add = run1("Add", f32, {x, y});
  auto times_two = run1("Mul", f32, {x, two});
  auto two_minus = run1("Sub", f32, {two, y});
  auto neg = run1("Neg", f32, {x});
  auto sum
    = run1("AddN", {{"T", dtype::float32}, {"N", int64_t{3}}}, {x, y, w});
  auto floats = cast(pixels, dtype::float32);
  const auto* xp = x.data<float>();
  const auto* yp = y.data<float>();
  const auto* wp = w.data<float>();
  int wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    wrong += add.data<float>()[i] != xp[i] + yp[i];
    wrong += times_two.data<float>()[i] != xp[i] * 2.0f;
    wrong += two_minus.data<float>()[i] != 2.0f - yp[i];
    wrong += neg.data<float>()[i] != -xp[i];
    wrong += sum.data<float>()[i] != (xp[i] + yp[i]) + wp[i];
    wrong += floats.data<float>()[i] != float(pixels.data<uint8_t>()[i]);
  }
  EXPECT_EQ(wrong, 0);
}

TEST_F(kernels, binary_ops_broadcast_like_numpy) {
  core::attr_map f32{{"T", dtype::float32}};
  test::expect_near(run1("Add", f32, {golden["bc_p"], golden["bc_q"]}),
                    golden["bc_add_pq"]);
  test::expect_near(run1("Sub", f32, {golden["bc_p"], golden["bc_q"]}),
                    golden["bc_sub_pq"]);
  test::expect_near(run1("Mul", f32, {golden["bc_r"], golden["bc_s"]}),
                    golden["bc_mul_rs"]);
  test::expect_near(run1("Sub", f32, {golden["bc_s"], golden["bc_r"]}),
                    golden["bc_sub_sr"]);
  auto scalar
    = run1("Mul", f32,
           {tensor::from_vector<float>({3}, {1, 2, 3}), tensor::scalar(2.0f)});
  EXPECT_EQ(scalar.flat<float>()(2), 6.0f);
  auto ints = run1("Add", {{"T", dtype::int64}},
                   {tensor::from_vector<int64_t>({2}, {INT64_MAX - 1, -5}),
                    tensor::from_vector<int64_t>({2}, {1, 5})});
  EXPECT_EQ(ints.flat<int64_t>()(0), INT64_MAX);
  EXPECT_EQ(ints.flat<int64_t>()(1), 0);
}

TEST_F(kernels, incompatible_broadcast_is_an_error_not_a_crash) {
  std::vector<ops::entry> outs;
  auto st = run("Add", {{"T", dtype::float32}},
                {{tensor{dtype::float32, {2, 3}}, nullptr},
                 {tensor{dtype::float32, {4}}, nullptr}},
                &outs);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
}

TEST_F(kernels, unary_ops_match_numpy_for_every_dtype) {
  // Per-op tolerance: exact where the result is exact, a few ulps for
  // Eigen's vectorised transcendental functions.
  const std::map<std::string, std::pair<double, double>> tolerance{
    {"Neg", {0, 0}},         {"Abs", {0, 0}},
    {"Sign", {0, 0}},        {"Square", {0, 0}},
    {"Floor", {0, 0}},       {"Ceil", {0, 0}},
    {"Round", {0, 0}},       {"Exp", {2e-6, 1e-14}},
    {"Log", {2e-6, 1e-14}},  {"Log1p", {2e-6, 1e-14}},
    {"Sqrt", {1e-7, 1e-15}}, {"Rsqrt", {2e-6, 1e-14}},
    {"Tanh", {2e-6, 1e-14}}, {"Sigmoid", {2e-6, 1e-14}},
  };
  auto golden = test::load_golden("unary.txt");
  auto checked = test::for_each_case(
    golden, "", [&](const std::string& stem, const tensor& x) {
      auto op = stem.substr(0, stem.find('_'));
      auto y = run1(op, {{"T", x.dtype()}}, {x});
      auto tol = tolerance.at(op);
      bool is_float = x.dtype() == dtype::float32;
      test::expect_all_near(y, golden.at(stem + "_y"),
                            is_float ? tol.first : tol.second, stem);
    });
  EXPECT_EQ(checked, 14 * 2 + 4 * 2); // 14 ops in float and double, 4 in ints
}

TEST_F(kernels, binary_ops_broadcast_and_match_numpy_for_every_dtype) {
  auto golden = test::load_golden("binary.txt");
  auto checked = test::for_each_case(
    golden, "", [&](const std::string& stem, const tensor& x) {
      auto op = stem.substr(0, stem.find('_'));
      core::attr_map attrs;
      if (op != "LogicalAnd" && op != "LogicalOr")
        attrs["T"] = x.dtype();
      auto z = run1(op, attrs, {x, golden.at(stem + "_y")});
      // Pow goes through std::pow; the rest is exact.
      double rtol
        = op == "Pow" ? (x.dtype() == dtype::float32 ? 1e-6 : 1e-14) : 0.0;
      test::expect_all_near(z, golden.at(stem + "_z"), rtol, stem);
    });
  EXPECT_EQ(checked, 2 * 2 + 8 * 4 + 2 + 2); // float-only, numeric, bool
}

TEST_F(kernels, cast_matches_numpy_between_dtypes) {
  auto golden = test::load_golden("cast.txt");
  auto checked = test::for_each_case(
    golden, "cast_", [&](const std::string& stem, const tensor& x) {
      const auto& want = golden.at(stem + "_y");
      tensor y;
      if (stem == "cast_f32_f16_f32") {
        auto half = run1(
          "Cast", {{"SrcT", dtype::float32}, {"DstT", dtype::float16}}, {x});
        EXPECT_EQ(half.dtype(), dtype::float16);
        y = run1("Cast", {{"SrcT", dtype::float16}, {"DstT", dtype::float32}},
                 {half});
      } else {
        y = run1("Cast", {{"SrcT", x.dtype()}, {"DstT", want.dtype()}}, {x});
      }
      test::expect_all_near(y, want, 0.0, stem);
    });
  EXPECT_EQ(checked, 8);
  // bfloat16 keeps 8 bits of mantissa: exact for these values.
  auto bf
    = run1("Cast", {{"SrcT", dtype::float32}, {"DstT", dtype::bfloat16}},
           {tensor::from_vector<float>({3}, {1.5f, -256.0f, 0.0078125f})});
  auto back
    = run1("Cast", {{"SrcT", dtype::bfloat16}, {"DstT", dtype::float32}}, {bf});
  EXPECT_EQ(back.flat<float>()(1), -256.0f);
  EXPECT_EQ(back.flat<float>()(2), 0.0078125f);
}

TEST_F(kernels, select_picks_per_element_or_whole) {
  auto golden = test::load_golden("cast.txt");
  const auto& c = golden.at("select_c");
  const auto& t = golden.at("select_t");
  const auto& e = golden.at("select_e");
  test::expect_all_near(run1("Select", {{"T", dtype::float32}}, {c, t, e}),
                        golden.at("select_out"), 0.0, "select");
  auto whole
    = run1("Select", {{"T", dtype::float32}}, {tensor::scalar(false), t, e});
  EXPECT_TRUE(whole.equals(e));
  std::vector<ops::entry> outs;
  auto st = run("Select", {{"T", dtype::float32}},
                {{tensor::from_vector<bool>({2}, {true, false}), nullptr},
                 {t, nullptr},
                 {e, nullptr}},
                &outs);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
}

TEST_F(kernels, reductions_match_numpy_over_axes_with_and_without_keep_dims) {
  auto golden = test::load_golden("reduce.txt");
  auto checked = test::for_each_case(
    golden, "red_", [&](const std::string& stem, const tensor& x) {
      auto op = stem.substr(4, stem.find('_', 4) - 4);
      bool keep = stem.substr(stem.size() - 2) == "k1";
      auto y = run1(op, {{"T", x.dtype()}, {"keep_dims", keep}},
                    {x, golden.at(stem + "_axes")});
      test::expect_all_near(y, golden.at(stem + "_y"),
                            op == "Mean" ? 1e-6 : 0.0, stem);
    });
  EXPECT_EQ(checked, 5 * 4 * 5 * 2); // ops x dtypes x axis sets x keep_dims
}

TEST_F(kernels, reductions_reject_axes_out_of_range) {
  std::vector<ops::entry> outs;
  auto st = run("Sum", {{"T", dtype::float32}},
                {{tensor{dtype::float32, {2, 3}}, nullptr},
                 {tensor::from_vector<int32_t>({1}, {2}), nullptr}},
                &outs);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("out of range"), std::string::npos);
}

TEST_F(kernels, logical_not_inverts) {
  auto y = run1("LogicalNot", {},
                {tensor::from_vector<bool>({3}, {true, false, true})});
  EXPECT_FALSE(y.data<bool>()[0]);
  EXPECT_TRUE(y.data<bool>()[1]);
}

TEST_F(kernels, relu_clamps_negatives) {
  auto y = run1("Relu", {{"T", dtype::float32}},
                {tensor::from_vector<float>({4}, {-1.5f, 0.0f, 2.0f, -0.0f})});
  EXPECT_EQ(y.flat<float>()(0), 0.0f);
  EXPECT_EQ(y.flat<float>()(2), 2.0f);
}

TEST_F(kernels, assign_add_copies_on_write_so_readers_never_see_a_change) {
  std::vector<ops::entry> outs;
  ASSERT_TRUE(run("VariableV2",
                  {{"dtype", dtype::float32}, {"shape", core::shape{2}}}, {},
                  &outs)
                .is_ok());
  auto var = outs[0].ref;
  ASSERT_NE(var, nullptr);
  tensor value;
  EXPECT_EQ(var->read(&value).code(), core::errc::failed_precondition);
  auto init = tensor::from_vector<float>({2}, {1, 2});
  ASSERT_TRUE(
    run("Assign", {{"T", dtype::float32}}, {{{}, var}, {init, nullptr}}, &outs)
      .is_ok());
  tensor snapshot;
  ASSERT_TRUE(var->read(&snapshot).is_ok());
  EXPECT_TRUE(snapshot.shares_buffer_with(init));
  auto delta = tensor::from_vector<float>({2}, {10, 20});
  ASSERT_TRUE(run("AssignAdd", {{"T", dtype::float32}, {"use_locking", true}},
                  {{{}, var}, {delta, nullptr}}, &outs)
                .is_ok());
  tensor after;
  ASSERT_TRUE(var->read(&after).is_ok());
  EXPECT_EQ(after.flat<float>()(1), 22.0f);
  // The snapshot and the assigned tensor are unchanged.
  EXPECT_EQ(snapshot.flat<float>()(1), 2.0f);
  EXPECT_EQ(init.flat<float>()(0), 1.0f);
  ASSERT_TRUE(run("AssignSub", {{"T", dtype::float32}},
                  {{{}, var}, {delta, nullptr}}, &outs)
                .is_ok());
  ASSERT_TRUE(var->read(&after).is_ok());
  EXPECT_EQ(after.flat<float>()(0), 1.0f);
  EXPECT_EQ(after.flat<float>()(1), 2.0f);
}

TEST_F(kernels, a_missing_kernel_is_not_found) {
  std::vector<ops::entry> outs;
  auto st = run("MatMul", {{"T", dtype::int32}},
                {{tensor::from_vector<int32_t>({1, 1}, {2}), nullptr},
                 {tensor::from_vector<int32_t>({1, 1}, {3}), nullptr}},
                &outs);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(outs[0].value.flat<int32_t>()(0), 6);
  core::node_def node{"n", "Relu", {}, "", {{"T", dtype::bfloat16}}};
  const auto* def = op_reg.find("MatMul");
  ops::kernel_construction ctx{node, *def, *devs.all()[0], resources, {}, {}};
  std::unique_ptr<ops::kernel> k;
  EXPECT_EQ(kernel_reg.create(ctx, &k).code(), core::errc::not_found);
}

TEST_F(kernels, bfloat16_add_mul_and_matmul_compute_in_float) {
  auto to_bf16 = [&](std::vector<float> v) {
    return run1("Cast", {{"SrcT", dtype::float32}, {"DstT", dtype::bfloat16}},
                {tensor::from_vector<float>({2, 2}, std::move(v))});
  };
  auto to_f32 = [&](const tensor& t) {
    return run1("Cast", {{"SrcT", dtype::bfloat16}, {"DstT", dtype::float32}},
                {t});
  };
  auto a = to_bf16({1, 2, 3, 4});
  auto b = to_bf16({0.5f, -1, 2, 0.25f});
  core::attr_map bf{{"T", dtype::bfloat16}};
  // Every result is exact in bfloat16's 8-bit mantissa.
  EXPECT_TRUE(
    to_f32(run1("MatMul", bf, {a, b}))
      .equals(tensor::from_vector<float>({2, 2}, {4.5f, -0.5f, 9.5f, -2.0f})));
  EXPECT_TRUE(
    to_f32(run1("Add", bf, {a, b}))
      .equals(tensor::from_vector<float>({2, 2}, {1.5f, 1, 5, 4.25f})));
  EXPECT_TRUE(to_f32(run1("Mul", bf, {a, b}))
                .equals(tensor::from_vector<float>({2, 2}, {0.5f, -2, 6, 1})));
}

TEST(control_flow_kernels, switch_merge_and_forwarders_move_values) {
  test::kernel_runner runner;
  auto x = tensor::from_vector<float>({2}, {1.5f, -2});
  std::vector<tensor> outs;
  core::attr_map f32{{"T", dtype::float32}};
  for (bool pred : {false, true}) {
    ASSERT_TRUE(
      runner.run("Switch", f32, {x, tensor::scalar(pred)}, &outs).is_ok());
    ASSERT_EQ(outs.size(), 2u);
    EXPECT_TRUE(outs[pred ? 1 : 0].equals(x));
    EXPECT_FALSE(outs[pred ? 0 : 1].valid()) << "the untaken port is dead";
  }
  EXPECT_EQ(runner
              .run("Switch", f32,
                   {x, tensor::from_vector<bool>({2}, {true, false})}, &outs)
              .code(),
            core::errc::invalid_argument);
  // Merge forwards the input that arrived and says which.
  ASSERT_TRUE(runner
                .run("Merge", {{"T", dtype::float32}, {"N", int64_t{3}}},
                     {tensor{}, x, tensor{}}, &outs)
                .is_ok());
  EXPECT_TRUE(outs[0].equals(x));
  EXPECT_EQ(outs[1].scalar_value<int32_t>(), 1);
  for (const char* op : {"Exit", "NextIteration"}) {
    ASSERT_TRUE(runner.run(op, f32, {x}, &outs).is_ok()) << op;
    EXPECT_TRUE(outs[0].equals(x)) << op;
  }
  ASSERT_TRUE(
    runner
      .run("Enter", {{"T", dtype::float32}, {"frame_name", "loop"}}, {x}, &outs)
      .is_ok());
  EXPECT_TRUE(outs[0].equals(x));
  ASSERT_TRUE(
    runner.run("LoopCond", {}, {tensor::scalar(true)}, &outs).is_ok());
  EXPECT_TRUE(outs[0].scalar_value<bool>());
}

TEST_F(kernels, element_wise_results_go_over_inputs_nothing_else_holds) {
  // Add of a tensor only the kernel holds writes over it; a tensor someone
  // else still holds is left alone (its holder must see it unchanged).
  auto x = tensor::from_vector<float>({4}, {1, 2, 3, 4});
  auto y = tensor::from_vector<float>({4}, {10, 20, 30, 40});
  const float* x_data = x.data<float>();
  std::vector<ops::entry> outs;
  // Shared: x is also held here.
  ASSERT_TRUE(run("Add", {{"T", dtype::float32}},
                  {ops::entry{x, nullptr}, ops::entry{y, nullptr}}, &outs)
                .is_ok());
  EXPECT_NE(outs[0].value.data<float>(), x_data);
  test::expect_near(outs[0].value,
                    tensor::from_vector<float>({4}, {11, 22, 33, 44}));
  test::expect_near(x, tensor::from_vector<float>({4}, {1, 2, 3, 4}));
  // Only the kernel holds x now: the sum lands in x's buffer.
  std::vector<ops::entry> ins{ops::entry{std::move(x), nullptr},
                              ops::entry{y, nullptr}};
  ASSERT_TRUE(
    run("Add", {{"T", dtype::float32}}, std::move(ins), &outs).is_ok());
  EXPECT_EQ(outs[0].value.data<float>(), x_data);
  test::expect_near(outs[0].value,
                    tensor::from_vector<float>({4}, {11, 22, 33, 44}));
  // A broadcast input of another shape is never the output's buffer; a
  // comparison (bool output) never writes over float inputs.
  auto s = tensor::scalar(2.0f);
  const float* s_data = s.data<float>();
  ins = {ops::entry{std::move(s), nullptr}, ops::entry{y, nullptr}};
  ASSERT_TRUE(
    run("Mul", {{"T", dtype::float32}}, std::move(ins), &outs).is_ok());
  EXPECT_NE(outs[0].value.data<float>(), s_data);
  test::expect_near(outs[0].value,
                    tensor::from_vector<float>({4}, {20, 40, 60, 80}));
  auto z = tensor::from_vector<float>({4}, {1, 25, 3, 50});
  ins = {ops::entry{std::move(z), nullptr}, ops::entry{y, nullptr}};
  ASSERT_TRUE(
    run("Greater", {{"T", dtype::float32}}, std::move(ins), &outs).is_ok());
  EXPECT_EQ(outs[0].value.dtype(), dtype::bool_);
}

TEST_F(kernels, float32_convolutions_match_the_float64_path) {
  // float32 Conv2D and its gradients run through oneDNN, the batch cut over
  // the device's two threads (odd batches in unequal slices); float64 runs
  // im2col and OpenBLAS, checked against numpy by the golden cases. Both
  // on the same random values, over strides, dilations and paddings (the
  // fourth case leaves columns unread: the float32 im2col path).
  struct geometry {
    std::vector<int64_t> x, f, strides, dilations;
    std::string padding;
  };
  const geometry cases[] = {
    {{5, 17, 19, 16}, {3, 3, 16, 32}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},
    {{4, 16, 15, 8}, {5, 3, 8, 24}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"},
    {{3, 20, 18, 8}, {3, 3, 8, 16}, {1, 1, 1, 1}, {1, 2, 2, 1}, "VALID"},
    {{6, 15, 16, 4}, {2, 3, 4, 8}, {1, 2, 3, 1}, {1, 1, 1, 1}, "VALID"},
    // Slices of 16 images: oneDNN picks Winograd for the forward and
    // input-gradient passes (DNNL_VERBOSE=1 shows jit_wino_4x3).
    {{32, 16, 16, 24}, {3, 3, 24, 32}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},
    {{32, 26, 26, 16}, {3, 3, 16, 16}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"},
    // One image: the forward pass cuts its output rows into a band per
    // thread, each reading the input rows its windows cover (padding only
    // at the image's edges): SAME, strided, dilated, VALID leaving rows
    // unread, and 7 rows (bands of 3 and 4).
    {{1, 28, 29, 32}, {3, 3, 32, 64}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},
    {{1, 33, 31, 16}, {5, 5, 16, 64}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"},
    {{1, 30, 30, 32}, {3, 3, 32, 32}, {1, 1, 1, 1}, {1, 2, 2, 1}, "VALID"},
    {{1, 41, 40, 32}, {2, 3, 32, 128}, {1, 2, 3, 1}, {1, 1, 1, 1}, "VALID"},
    {{1, 7, 9, 256}, {3, 3, 256, 256}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},
  };
  std::mt19937 gen{7};
  auto to = [&](const tensor& t, dtype type) { return cast(t, type); };
  auto sizes = [](const core::shape& s) {
    std::vector<int32_t> v;
    for (auto d : s.dims())
      v.push_back(static_cast<int32_t>(d));
    return tensor::from_vector<int32_t>({4}, v);
  };
  for (const auto& g : cases) {
    auto attrs = [&](dtype type) {
      return core::attr_map{{"T", type},
                            {"strides", g.strides},
                            {"dilations", g.dilations},
                            {"padding", g.padding}};
    };
    auto x = random(g.x, dtype::float64, gen),
         f = random(g.f, dtype::float64, gen);
    auto y = run1("Conv2D", attrs(dtype::float64), {x, f});
    ASSERT_TRUE(y.valid());
    auto dy = random(y.shape().dims(), dtype::float64, gen);
    auto dx = run1("Conv2DBackpropInput", attrs(dtype::float64),
                   {sizes(x.shape()), f, dy});
    auto df = run1("Conv2DBackpropFilter", attrs(dtype::float64),
                   {x, sizes(f.shape()), dy});
    auto x32 = to(x, dtype::float32), f32 = to(f, dtype::float32),
         dy32 = to(dy, dtype::float32);
    auto what = "x " + x.shape().to_string() + " f " + f.shape().to_string()
                + " " + g.padding;
    // float32 rounding grows with the number of products summed per result
    // (~sqrt(k) for values in [-1, 1]), in an order that depends on the
    // CPU's oneDNN kernels: a filter gradient sums n*oh*ow = 8,192-18,432
    // products (errors up to 2.4e-4 with AVX2 kernels, below 1e-4 with
    // AVX-512 ones).
    auto tol = [](int64_t k) {
      return std::max(1e-4, 4e-6 * std::sqrt(static_cast<double>(k)));
    };
    const auto& ys = y.shape();
    auto window = g.f[0] * g.f[1];
    test::expect_all_near(run1("Conv2D", attrs(dtype::float32), {x32, f32}),
                          to(y, dtype::float32), tol(window * g.f[2]),
                          "Conv2D " + what);
    test::expect_all_near(run1("Conv2DBackpropInput", attrs(dtype::float32),
                               {sizes(x.shape()), f32, dy32}),
                          to(dx, dtype::float32), tol(window * g.f[3]),
                          "Conv2DBackpropInput " + what);
    test::expect_all_near(run1("Conv2DBackpropFilter", attrs(dtype::float32),
                               {x32, sizes(f.shape()), dy32}),
                          to(df, dtype::float32),
                          tol(ys.dim(0) * ys.dim(1) * ys.dim(2)),
                          "Conv2DBackpropFilter " + what);
  }
}

TEST_F(kernels, one_image_depthwise_convolutions_in_row_bands_match_float64) {
  // DepthwiseConv2dNative of one image, float32 through oneDNN in a band
  // of output rows per thread, against the float64 kernel.
  struct geometry {
    std::vector<int64_t> x, f, strides;
  };
  const geometry cases[] = {{{1, 64, 60, 144}, {3, 3, 144, 1}, {1, 1, 1, 1}},
                            {{1, 130, 128, 64}, {3, 3, 64, 2}, {1, 2, 2, 1}}};
  std::mt19937 gen{13};
  for (const auto& g : cases) {
    core::attr_map attrs{{"strides", g.strides},
                         {"padding", std::string{"SAME"}}};
    auto x = random(g.x, dtype::float64, gen),
         f = random(g.f, dtype::float64, gen);
    attrs["T"] = dtype::float64;
    auto want = run1("DepthwiseConv2dNative", attrs, {x, f});
    attrs["T"] = dtype::float32;
    test::expect_all_near(
      run1("DepthwiseConv2dNative", attrs,
           {cast(x, dtype::float32), cast(f, dtype::float32)}),
      cast(want, dtype::float32), 1e-5, "x " + x.shape().to_string());
  }
}

TEST_F(kernels, fused_conv2d_is_conv2d_then_bias_add_then_relu) {
  // float32 through oneDNN's post-ops, float64 through im2col and a pass of
  // its own; against the three ops one after the other.
  // The second shape runs as Winograd in float32 (slices of 16 images).
  struct geometry {
    std::vector<int64_t> x, f, strides;
  };
  // The third, one image, in a band of output rows per thread.
  const geometry cases[] = {{{3, 9, 8, 5}, {3, 3, 5, 7}, {1, 2, 1, 1}},
                            {{32, 16, 16, 24}, {3, 3, 24, 32}, {1, 1, 1, 1}},
                            {{1, 25, 24, 64}, {3, 3, 64, 64}, {1, 2, 2, 1}}};
  std::mt19937 gen{11};
  for (const auto& g : cases) {
    for (auto type : {dtype::float32, dtype::float64}) {
      auto x = random(g.x, type, gen), f = random(g.f, type, gen),
           b = random({g.f[3]}, type, gen);
      core::attr_map conv{
        {"T", type}, {"strides", g.strides}, {"padding", std::string{"SAME"}}};
      auto biased
        = run1("BiasAdd", {{"T", type}}, {run1("Conv2D", conv, {x, f}), b});
      auto relu = run1("Relu", {{"T", type}}, {biased});
      auto fused = conv;
      fused["fused_ops"] = std::vector<std::string>{"BiasAdd"};
      test::expect_all_near(run1("_FusedConv2D", fused, {x, f, b}), biased,
                            1e-5, "BiasAdd");
      fused["fused_ops"] = std::vector<std::string>{"BiasAdd", "Relu"};
      test::expect_all_near(run1("_FusedConv2D", fused, {x, f, b}), relu, 1e-5,
                            "BiasAdd, Relu");
    }
  }
  // A bias of the wrong length is an error naming the op.
  auto x = tensor{dtype::float32, core::shape{1, 4, 4, 2}};
  auto f = tensor{dtype::float32, core::shape{3, 3, 2, 3}};
  auto b = tensor{dtype::float32, core::shape{2}};
  std::vector<ops::entry> outs;
  auto st = run(
    "_FusedConv2D",
    {{"T", dtype::float32},
     {"strides", std::vector<int64_t>{1, 1, 1, 1}},
     {"padding", std::string{"SAME"}},
     {"fused_ops", std::vector<std::string>{"BiasAdd"}}},
    {ops::entry{x, nullptr}, ops::entry{f, nullptr}, ops::entry{b, nullptr}},
    &outs);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("_FusedConv2D"), std::string::npos)
    << st.to_string();
}

// What TensorFlow's gradient graphs of dynamic_rnn use besides the ops of
// op_cases: offsets of a concatenation, inverted permutations, Assert,
// and Select choosing rows by a vector condition.
TEST(rnn_gradient_kernels, concat_offset_invert_permutation_assert_select) {
  test::kernel_runner runner;
  std::vector<tensor> outs;
  ASSERT_TRUE(runner
                .run("ConcatOffset", {{"N", int64_t{3}}},
                     {tensor::scalar(int32_t{1}),
                      tensor::from_vector<int32_t>({3}, {2, 3, 5}),
                      tensor::from_vector<int32_t>({3}, {2, 4, 5}),
                      tensor::from_vector<int32_t>({3}, {2, 1, 5})},
                     &outs)
                .is_ok());
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(outs[0], tensor::from_vector<int32_t>({3}, {0, 0, 0}));
  EXPECT_EQ(outs[1], tensor::from_vector<int32_t>({3}, {0, 3, 0}));
  EXPECT_EQ(outs[2], tensor::from_vector<int32_t>({3}, {0, 7, 0}));
  EXPECT_EQ(runner
              .run("ConcatOffset", {{"N", int64_t{2}}},
                   {tensor::scalar(int32_t{1}),
                    tensor::from_vector<int32_t>({2}, {2, 3}),
                    tensor::from_vector<int32_t>({2}, {4, 3})},
                   &outs)
              .code(),
            core::errc::invalid_argument); // differs off concat_dim
  ASSERT_TRUE(runner
                .run("InvertPermutation", {{"T", dtype::int32}},
                     {tensor::from_vector<int32_t>({4}, {2, 0, 3, 1})}, &outs)
                .is_ok());
  EXPECT_EQ(outs[0], tensor::from_vector<int32_t>({4}, {1, 3, 0, 2}));
  EXPECT_EQ(runner
              .run("InvertPermutation", {{"T", dtype::int32}},
                   {tensor::from_vector<int32_t>({3}, {0, 0, 1})}, &outs)
              .code(),
            core::errc::invalid_argument);
  core::attr_map assert_attrs{
    {"T", std::vector<dtype>{dtype::string, dtype::int32}}};
  auto what = tensor::scalar(std::string{"lengths must be >= 0, got"});
  auto data = tensor::from_vector<int32_t>({2}, {3, -1});
  EXPECT_TRUE(
    runner
      .run("Assert", assert_attrs, {tensor::scalar(true), what, data}, &outs)
      .is_ok());
  auto st = runner.run("Assert", assert_attrs,
                       {tensor::scalar(false), what, data}, &outs);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("assertion failed"), std::string::npos);
  EXPECT_NE(st.message().find("lengths must be"), std::string::npos)
    << st.to_string();
  ASSERT_TRUE(runner
                .run("Select", {{"T", dtype::float32}},
                     {tensor::from_vector<bool>({2}, {false, true}),
                      tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}),
                      tensor::from_vector<float>({2, 2}, {5, 6, 7, 8})},
                     &outs)
                .is_ok());
  EXPECT_EQ(outs[0], tensor::from_vector<float>({2, 2}, {5, 6, 3, 4}));
}
