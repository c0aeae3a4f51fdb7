#include "onednn_matmul.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "onednn_common.hpp"
#include "parallel_split.hpp"

namespace actorflow::ops::cpu {

namespace {

using dnnl::memory;

/// Multiply-adds below which a product runs on the calling thread.
constexpr int64_t split_threshold = int64_t{1} << 20;

/// One block's product: its primitive and the scratch it needs.
struct plan {
  dnnl::matmul primitive;
  memory::desc a, b, c, bias;
  memory::desc scratchpad;
};

/// The shape of one block's product: op(A) [m, k] op(B) [k, n] into C.
struct block {
  bool trans_a, trans_b;
  int64_t m, n, k, lda, ldb, ldc;
  bool bias = false, relu = false;
  bool accumulate = false; ///< C += alpha op(A) op(B), alpha at run time.

  std::vector<int64_t> key() const {
    return {trans_a, trans_b, m, n, k, lda, ldb, ldc, bias, relu, accumulate};
  }
};

/// A row-major [rows, cols] matrix with leading dimension `ld`, stored
/// transposed if `trans`.
memory::desc matrix(int64_t rows, int64_t cols, int64_t ld, bool trans) {
  return {{rows, cols},
          memory::data_type::f32,
          trans ? memory::dims{1, ld} : memory::dims{ld, 1}};
}

/// Whether the matrix `matrix(rows, cols, ld, trans)` describes is dense.
bool dense(int64_t rows, int64_t cols, int64_t ld, bool trans) {
  return ld == (trans ? rows : cols);
}

/// Makes the primitive of block `s` (bias and Relu as post-ops).
std::shared_ptr<const plan> make(const dnnl::engine& engine, const block& s) {
  onednn::one_omp_thread();
  auto result = std::make_shared<plan>();
  result->a = matrix(s.m, s.k, s.lda, s.trans_a);
  result->b = matrix(s.k, s.n, s.ldb, s.trans_b);
  result->c = matrix(s.m, s.n, s.ldc, false);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (s.relu) {
    dnnl::post_ops relu;
    relu.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(relu);
  }
  if (s.accumulate) {
    attr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
    dnnl::post_ops sum;
    sum.append_sum(1.0f);
    attr.set_post_ops(sum);
  }
  dnnl::matmul::primitive_desc pd;
  if (s.bias) {
    result->bias = matrix(1, s.n, s.n, false);
    pd = {{result->a, result->b, result->bias, result->c}, attr, engine};
  } else {
    pd = {{result->a, result->b, result->c}, attr, engine};
  }
  result->primitive = dnnl::matmul{pd};
  result->scratchpad = pd.scratchpad_desc();
  return result;
}

/// out = g where features > 0, else 0, over [m, n] matrices with leading
/// dimensions ldg and ldo (features: ldo); `out` may be `g`.
void relu_grad_rows(int64_t m, int64_t n, const float* g, int64_t ldg,
                    const float* features, float* out, int64_t ldo) {
  for (int64_t row = 0; row < m; ++row) {
    const auto* gr = g + row * ldg;
    const auto* fr = features + row * ldo;
    auto* o = out + row * ldo;
    for (int64_t j = 0; j < n; ++j) {
      auto value = gr[j]; // read either way: the loop then vectorizes
      o[j] = fr[j] > 0.0f ? value : 0.0f;
    }
  }
}

} // namespace

struct onednn_matmul::impl {
  onednn::plan_cache<plan> plans;

  /// Runs one block; pointers are the block's own corners.
  core::status run(kernel_context& ctx, const block& s, const float* a,
                   const float* b, const float* bias, const float* scale,
                   float* c) {
    return onednn::guarded("MatMul", [&] {
      auto pl = plans.get(
        s.key(), [&](const dnnl::engine& engine) { return make(engine, s); });
      const auto& engine = plans.engine();
      onednn::one_omp_thread();
      core::tensor scratchpad;
      ACTORFLOW_RETURN_IF_ERROR(
        onednn::scratch(ctx, pl->scratchpad.get_size(), &scratchpad));
      // oneDNN's memory objects take non-const handles; A, B and the bias
      // are only read.
      memory ma{pl->a, engine, const_cast<float*>(a)};
      memory mb{pl->b, engine, const_cast<float*>(b)};
      memory mc{pl->c, engine, c};
      memory pad{pl->scratchpad, engine, scratchpad.mutable_data<uint8_t>()};
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, ma},
                                           {DNNL_ARG_WEIGHTS, mb},
                                           {DNNL_ARG_DST, mc},
                                           {DNNL_ARG_SCRATCHPAD, pad}};
      if (s.bias)
        args.emplace(DNNL_ARG_BIAS,
                     memory{pl->bias, engine, const_cast<float*>(bias)});
      if (s.accumulate)
        args.emplace(DNNL_ARG_ATTR_OUTPUT_SCALES,
                     memory{{{1}, memory::data_type::f32, memory::dims{1}},
                            engine,
                            const_cast<float*>(scale)});
      dnnl::stream stream{engine};
      pl->primitive.execute(stream, args);
      stream.wait();
      return core::status::ok();
    });
  }
};

onednn_matmul::onednn_matmul() : impl_(std::make_unique<impl>()) {
}

onednn_matmul::~onednn_matmul() = default;

core::status onednn_matmul::multiply(kernel_context& ctx, bool trans_a,
                                     bool trans_b, int64_t m, int64_t n,
                                     int64_t k, const float* a, int64_t lda,
                                     const float* b, int64_t ldb,
                                     const epilogue& after, float* c,
                                     int64_t ldc, bool split) {
  return run(ctx, trans_a, trans_b, m, n, k, a, lda, b, ldb, after, nullptr, c,
             ldc, split);
}

core::status onednn_matmul::accumulate(kernel_context& ctx, bool trans_a,
                                       bool trans_b, int64_t m, int64_t n,
                                       int64_t k, const float* a, int64_t lda,
                                       const float* b, int64_t ldb, float alpha,
                                       float* c, int64_t ldc) {
  return run(ctx, trans_a, trans_b, m, n, k, a, lda, b, ldb, epilogue{}, &alpha,
             c, ldc, true);
}

core::status onednn_matmul::run(kernel_context& ctx, bool trans_a, bool trans_b,
                                int64_t m, int64_t n, int64_t k, const float* a,
                                int64_t lda, const float* b, int64_t ldb,
                                const epilogue& after, const float* scale,
                                float* c, int64_t ldc, bool may_split) {
  parallel_split split{&ctx, may_split && m * n * k >= split_threshold};
  // Cut the longer side of C into blocks of whole rows or columns; on a
  // tie, columns (oneDNN's kernels like long rows of C: 128 x 512 x 784
  // in two column blocks runs 0.52 ms here, in two row blocks 0.70).
  bool by_rows = m > n;
  auto side = by_rows ? m : n;
  auto parts = static_cast<int>(std::min<int64_t>(split.threads(), side / 16));
  parts = std::max(parts, 1);
  std::vector<core::status> failed(static_cast<size_t>(parts));
  split.run(parts, [&](int part) {
    auto first = side * part / parts;
    auto size = side * (part + 1) / parts - first;
    block s{trans_a, trans_b, m, n, k, lda, ldb, ldc};
    s.bias = after.bias != nullptr;
    s.relu = after.relu;
    s.accumulate = scale != nullptr;
    const float* pa = a;
    const float* pb = b;
    const float* pbias = after.bias;
    auto c_offset = by_rows ? first * ldc : first;
    float* pc = c + c_offset;
    const float* features = after.relu_features;
    if (features != nullptr)
      features += c_offset;
    if (by_rows) { // rows of op(A): A's rows, or its columns when transposed
      s.m = size;
      pa += first * (trans_a ? 1 : lda);
    } else { // columns of op(B)
      s.n = size;
      pb += first * (trans_b ? ldb : 1);
      if (pbias != nullptr)
        pbias += first;
    }
    // oneDNN 2.x runs its brgemm kernels on dense matrices only, and a
    // column block of C is not dense. Where A's and B's blocks are, the
    // block goes to dense scratch, copied into C after: dx = dy W^T of the
    // CNN's dense layer, 128 x 1024 x 1568 a block, takes 1.68 ms so and
    // 1.94 ms with gemm:jit writing C in place (one thread). A block that
    // adds to C writes C itself. ReluGrad goes with the copy, or over the
    // block in place.
    auto& st = failed[static_cast<size_t>(part)];
    if (s.ldc == s.n || s.accumulate || !dense(s.m, s.k, s.lda, s.trans_a)
        || !dense(s.k, s.n, s.ldb, s.trans_b)) {
      st = impl_->run(ctx, s, pa, pb, pbias, scale, pc);
      if (st.is_ok() && features != nullptr)
        relu_grad_rows(s.m, s.n, pc, ldc, features, pc, ldc);
      return;
    }
    core::tensor block_c;
    st = onednn::scratch(ctx, static_cast<size_t>(s.m * s.n) * sizeof(float),
                         &block_c);
    if (!st.is_ok())
      return;
    auto* dense_c = reinterpret_cast<float*>(block_c.mutable_data<uint8_t>());
    auto ldc = s.ldc;
    s.ldc = s.n;
    st = impl_->run(ctx, s, pa, pb, pbias, nullptr, dense_c);
    if (!st.is_ok())
      return;
    if (features != nullptr) {
      relu_grad_rows(s.m, s.n, dense_c, s.n, features, pc, ldc);
      return;
    }
    for (int64_t row = 0; row < s.m; ++row)
      std::copy_n(dense_c + row * s.n, s.n, pc + row * ldc);
  });
  for (const auto& st : failed)
    ACTORFLOW_RETURN_IF_ERROR(st);
  return core::status::ok();
}

} // namespace actorflow::ops::cpu
