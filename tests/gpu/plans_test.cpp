// What the GPU's layout and pooling kernels compute, checked on any
// machine: the host-side plans (ops/src/kernels/cuda/plans.hpp) and the
// per-element index arithmetic (index_math.hpp) that the CUDA kernels
// call, run here on the host, against the CPU's kernels bit for bit.

#include <gtest/gtest.h>

#include <random>

#include "common/kernel_runner.hpp"
#include "cuda/index_math.hpp"
#include "cuda/plans.hpp"

using namespace actorflow;
using core::dtype;
using core::shape;
using core::tensor;

namespace {

/// What copy_box_kernel does with `copy`, on the host.
void apply(const ops::gpu::strided_copy& copy, const tensor& src, tensor* dst) {
  ops::gpu::box_index box;
  ASSERT_TRUE(ops::gpu::to_box(copy, &box).is_ok());
  int64_t n = 1;
  for (auto d : copy.dims)
    n *= d;
  for (int64_t i = 0; i < n; ++i) {
    int64_t from = 0;
    int64_t to = 0;
    ops::gpu::box_offsets(box, i, &from, &to);
    ASSERT_LT(from, src.num_elements());
    ASSERT_LT(to, dst->num_elements());
    dst->mutable_data<float>()[to] = src.data<float>()[from];
  }
}

tensor random_floats(const shape& s, std::mt19937& rng, bool ties = false) {
  tensor t{dtype::float32, s};
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    auto v = unit(rng);
    // Ties: values in steps of 0.5, so windows often hold equal maxima.
    t.mutable_data<float>()[i] = ties ? std::round(v * 2) / 2 : v;
  }
  return t;
}

tensor ints(const std::vector<int64_t>& v) {
  tensor t{dtype::int32, shape{static_cast<int64_t>(v.size())}};
  for (size_t i = 0; i < v.size(); ++i)
    t.mutable_data<int32_t>()[i] = static_cast<int32_t>(v[i]);
  return t;
}

/// Runs CPU kernel `op` on `inputs`; returns output 0.
tensor cpu_kernel(test::kernel_runner& runner, const std::string& op,
                  core::attr_map attrs, const std::vector<tensor>& inputs) {
  std::unique_ptr<test::kernel_runner::prepared> k;
  auto st = runner.prepare(op, std::move(attrs), inputs.size(), &k);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  std::vector<tensor> out;
  st = k->run(inputs, &out);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  return out[0];
}

void expect_same(const tensor& ours, const tensor& cpu) {
  ASSERT_EQ(ours.shape(), cpu.shape());
  for (int64_t i = 0; i < cpu.num_elements(); ++i)
    ASSERT_EQ(ours.data<float>()[i], cpu.data<float>()[i]) << "element " << i;
}

TEST(gpu_plans, tile_and_transpose_copy_what_the_cpu_kernels_do) {
  test::kernel_runner runner;
  std::mt19937 rng{5};
  struct tiling {
    shape x;
    std::vector<int64_t> multiples;
  };
  for (const auto& c : std::vector<tiling>{{{1}, {128}},
                                           {{2, 3}, {3, 2}},
                                           {{2, 1, 3}, {1, 4, 1}},
                                           {{3, 2}, {1, 1}},
                                           {{2, 3}, {0, 2}}}) {
    auto x = random_floats(c.x, rng);
    auto cpu = cpu_kernel(runner, "Tile",
                          {{"T", dtype::float32}, {"Tmultiples", dtype::int32}},
                          {x, ints(c.multiples)});
    tensor ours{dtype::float32, cpu.shape()};
    apply(ops::gpu::tile_copy(x.shape(), c.multiples), x, &ours);
    expect_same(ours, cpu);
  }
  struct permuting {
    shape x;
    std::vector<int64_t> perm;
  };
  for (const auto& c :
       std::vector<permuting>{{{2, 3, 4}, {2, 0, 1}},
                              {{3, 5}, {1, 0}},
                              {{2, 1, 3, 2, 2}, {4, 3, 2, 1, 0}},
                              {{4}, {0}}}) {
    auto x = random_floats(c.x, rng);
    auto cpu = cpu_kernel(runner, "Transpose",
                          {{"T", dtype::float32}, {"Tperm", dtype::int32}},
                          {x, ints(c.perm)});
    tensor ours{dtype::float32, cpu.shape()};
    apply(ops::gpu::transpose_copy(x.shape(), c.perm), x, &ours);
    expect_same(ours, cpu);
  }
}

TEST(gpu_plans, filters_go_to_ohwi_and_back) {
  std::mt19937 rng{6};
  const int64_t kh = 3, kw = 2, ci = 4, co = 5;
  auto f = random_floats({kh, kw, ci, co}, rng);
  tensor ohwi{dtype::float32, {co, kh, kw, ci}};
  apply(ops::gpu::hwio_to_ohwi(f.shape()), f, &ohwi);
  for (int64_t h = 0; h < kh; ++h)
    for (int64_t w = 0; w < kw; ++w)
      for (int64_t i = 0; i < ci; ++i)
        for (int64_t o = 0; o < co; ++o)
          ASSERT_EQ(ohwi.data<float>()[((o * kh + h) * kw + w) * ci + i],
                    f.data<float>()[((h * kw + w) * ci + i) * co + o]);
  tensor back{dtype::float32, f.shape()};
  apply(ops::gpu::ohwi_to_hwio(ohwi.shape()), ohwi, &back);
  expect_same(back, f);
}

TEST(gpu_plans, appended_zeros_make_cudnn_compute_tensorflows_windows) {
  // For every size, window, stride and dilation, SAME and VALID: cuDNN's
  // symmetric padding over the image with the appended rows gives
  // TensorFlow's output size, and at most one row is appended.
  for (int64_t in = 1; in <= 12; ++in)
    for (int64_t k = 1; k <= 5; ++k)
      for (int64_t stride = 1; stride <= 3; ++stride)
        for (int64_t dilation = 1; dilation <= 2; ++dilation)
          for (bool same : {false, true}) {
            ops::common::window_attrs attrs;
            attrs.strides = {1, stride, stride, 1};
            attrs.dilations = {1, dilation, dilation, 1};
            attrs.same = same;
            ops::gpu::conv_geometry g;
            ASSERT_TRUE(
              ops::gpu::plan_conv(attrs, {1, in, in + 1, 2}, {k, k, 2, 3}, &g)
                .is_ok());
            SCOPED_TRACE(::testing::Message()
                         << "in " << in << " k " << k << " stride " << stride
                         << " dilation " << dilation << " same " << same);
            if (g.h.out > 0) {
              EXPECT_EQ(ops::gpu::cudnn_output_size(g.h, g.extra_h), g.h.out);
              EXPECT_LE(g.extra_h, 1);
            }
            if (g.w.out > 0) {
              EXPECT_EQ(ops::gpu::cudnn_output_size(g.w, g.extra_w), g.w.out);
              EXPECT_LE(g.extra_w, 1);
            }
          }
}

TEST(gpu_plans, images_padded_and_cropped_come_back) {
  std::mt19937 rng{7};
  auto x = random_floats({2, 3, 4, 2}, rng);
  shape padded{2, 4, 5, 2};
  tensor big{dtype::float32, padded};
  std::fill_n(big.mutable_data<float>(), big.num_elements(), 0.0f);
  apply(ops::gpu::into_padded(x.shape(), padded), x, &big);
  // The appended row and column are zeros; the image is where it was.
  EXPECT_EQ(big.data<float>()[((1 * 4 + 3) * 5 + 2) * 2 + 1], 0.0f);
  EXPECT_EQ(big.data<float>()[((0 * 4 + 1) * 5 + 4) * 2 + 0], 0.0f);
  EXPECT_EQ(big.data<float>()[((1 * 4 + 2) * 5 + 3) * 2 + 1],
            x.data<float>()[((1 * 3 + 2) * 4 + 3) * 2 + 1]);
  tensor back{dtype::float32, x.shape()};
  apply(ops::gpu::out_of_padded(padded, x.shape()), big, &back);
  expect_same(back, x);
}

TEST(gpu_plans, pooling_element_by_element_is_the_cpu_kernels) {
  test::kernel_runner runner;
  std::mt19937 rng{8};
  struct pooling {
    int64_t k;
    int64_t stride;
    std::string padding;
  };
  // Overlapping SAME windows with one row more after (7 rows at stride 2),
  // windows that tile, that overlap, that skip rows, one as large as the
  // image; and random values with and without ties for the maximum.
  const std::vector<pooling> poolings{
    {3, 2, "SAME"},  {2, 2, "VALID"}, {3, 1, "SAME"}, {2, 3, "VALID"},
    {3, 2, "VALID"}, {6, 1, "VALID"}, {2, 2, "SAME"}};
  const shape xs{2, 7, 6, 3};
  for (const auto& p : poolings)
    for (bool ties : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << "k " << p.k << " stride " << p.stride << " " << p.padding
                   << " ties " << ties);
      core::attr_map attrs{
        {"T", dtype::float32},
        {"ksize", std::vector<int64_t>{1, p.k, p.k, 1}},
        {"strides", std::vector<int64_t>{1, p.stride, p.stride, 1}},
        {"padding", p.padding}};
      ops::common::window_attrs window;
      window.strides = {1, p.stride, p.stride, 1};
      window.ksize = {1, p.k, p.k, 1};
      window.same = p.padding == "SAME";
      ops::gpu::pool_geometry g;
      ASSERT_TRUE(ops::gpu::plan_pool(window, xs, &g).is_ok());
      auto x = random_floats(xs, rng, ties);
      for (bool max : {true, false}) {
        auto y = cpu_kernel(runner, max ? "MaxPool" : "AvgPool", attrs, {x});
        ASSERT_EQ(y.shape(), shape({g.batch, g.out_h, g.out_w, g.channels}));
        tensor ours{dtype::float32, y.shape()};
        for (int64_t i = 0; i < y.num_elements(); ++i)
          ours.mutable_data<float>()[i]
            = ops::gpu::pool_at(x.data<float>(), g, i, max);
        expect_same(ours, y);
        auto dy = random_floats(y.shape(), rng);
        auto dx = max ? cpu_kernel(runner, "MaxPoolGrad", attrs, {x, y, dy})
                      : cpu_kernel(runner, "AvgPoolGrad", attrs,
                                   {ints(xs.dims()), dy});
        tensor grad{dtype::float32, xs};
        for (int64_t i = 0; i < grad.num_elements(); ++i)
          grad.mutable_data<float>()[i] = ops::gpu::pool_grad_at(
            x.data<float>(), dy.data<float>(), g, i, max);
        expect_same(grad, dx);
      }
    }
}

TEST(gpu_plans, a_reduction_plan_covers_every_row_once_within_the_grid) {
  // BiasAddGrad of the CNN's convolutions, a bias of 512 over 128 rows,
  // short columns, one column, more outer indices than a grid has.
  struct dims {
    int64_t outer, mid, inner;
  };
  for (auto d : std::vector<dims>{{1, 100352, 32},
                                  {1, 25088, 64},
                                  {1, 128, 512},
                                  {3, 700, 45},
                                  {1, 70, 40},
                                  {1, 255, 40},
                                  {1, 63, 40},
                                  {6, 300, 1},
                                  {70000, 100, 5},
                                  {1, 1 << 30, 2}}) {
    SCOPED_TRACE(std::to_string(d.outer) + "x" + std::to_string(d.mid) + "x"
                 + std::to_string(d.inner));
    auto p = ops::gpu::plan_reduce(d.outer, d.mid, d.inner);
    bool long_columns = d.inner > 1 && d.mid >= 64 && d.outer <= 65535;
    ASSERT_EQ(p.tiles > 0, long_columns);
    if (!long_columns) {
      EXPECT_EQ(p.partial_elements(), 0);
      continue;
    }
    EXPECT_EQ(p.tiles * 32 - d.inner, (32 - d.inner % 32) % 32);
    // Slices of rows_per_chunk rows: together every row, none empty.
    EXPECT_GE(p.chunks * p.rows_per_chunk, d.mid);
    EXPECT_LT((p.chunks - 1) * p.rows_per_chunk, d.mid);
    EXPECT_LE(p.chunks, 65535);
    EXPECT_GE(p.chunks, 1);
    EXPECT_EQ(p.partial_elements(),
              p.chunks > 1 ? d.outer * p.chunks * d.inner : 0);
    // Enough blocks for a GPU where the rows allow it, and a second pass
    // of at most 1024 partial rows.
    EXPECT_LE(p.chunks, 1024);
    if (d.mid < 256) {
      EXPECT_EQ(p.chunks, 1); // one launch
    }
    if (d.mid >= 128 * 1024 / (p.tiles * d.outer)) {
      EXPECT_GE(p.tiles * p.chunks * d.outer, 512);
    }
  }
}

} // namespace
