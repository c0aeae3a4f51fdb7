// The kernels that trade the C library's one-element-at-a-time math or a
// copy for vectorised, oneDNN or in-place work -- Exp, Tanh, Sigmoid, Erf,
// Erfc, Softmax, Einsum -- against the same functions computed here in
// float64, element by element.

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "common/kernel_runner.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

/// Element `i` of a float32 or float64 tensor.
double at(const tensor& t, int64_t i) {
  return t.dtype() == dtype::float32 ? t.data<float>()[i] : t.data<double>()[i];
}

class vectorised_kernels : public ::testing::Test {
protected:
  tensor run1(const std::string& op, core::attr_map attrs,
              std::vector<tensor> inputs) {
    std::vector<tensor> outs;
    auto st = runner.run(op, std::move(attrs), inputs, &outs);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return outs.empty() ? tensor{} : outs[0];
  }

  /// Values uniform in [lo, hi) of `type`.
  tensor uniform(const std::vector<int64_t>& dims, dtype type, double lo,
                 double hi) {
    tensor t{type, core::shape{dims}};
    std::uniform_real_distribution<double> u{lo, hi};
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      if (type == dtype::float32)
        t.mutable_data<float>()[i] = static_cast<float>(u(gen));
      else
        t.mutable_data<double>()[i] = u(gen);
    }
    return t;
  }

  test::kernel_runner runner;
  std::mt19937 gen{7};
};

/// Einsum of two operands by its definition: every assignment of values to
/// the labels, the product added to the output element it names.
std::vector<double> einsum_by_definition(const std::string& x_labels,
                                         const tensor& x,
                                         const std::string& y_labels,
                                         const tensor& y,
                                         const std::string& out_labels) {
  std::map<char, int64_t> size;
  for (size_t d = 0; d < x_labels.size(); ++d)
    size[x_labels[d]] = x.shape().dim(static_cast<int>(d));
  for (size_t d = 0; d < y_labels.size(); ++d)
    size[y_labels[d]]
      = std::max(size[y_labels[d]], y.shape().dim(static_cast<int>(d)));
  std::string all;
  for (const auto& [label, n] : size)
    all += label;
  // The flat index of `t` (labels `labels`) at `value`, broadcasting
  // size-1 dimensions.
  auto index = [&](const std::string& labels, const core::shape& dims,
                   const std::map<char, int64_t>& value) {
    int64_t i = 0;
    for (size_t d = 0; d < labels.size(); ++d) {
      auto n = dims.dim(static_cast<int>(d));
      i = i * n + (n == 1 ? 0 : value.at(labels[d]));
    }
    return i;
  };
  std::vector<int64_t> out_dims;
  int64_t out_count = 1;
  for (char c : out_labels) {
    out_dims.push_back(size[c]);
    out_count *= size[c];
  }
  core::shape out_shape{out_dims};
  std::vector<double> out(static_cast<size_t>(out_count), 0.0);
  std::map<char, int64_t> value;
  for (char c : all)
    value[c] = 0;
  for (;;) {
    out[static_cast<size_t>(index(out_labels, out_shape, value))]
      += at(x, index(x_labels, x.shape(), value))
         * at(y, index(y_labels, y.shape(), value));
    size_t d = all.size();
    while (d > 0 && ++value[all[d - 1]] == size[all[d - 1]])
      value[all[--d]] = 0;
    if (d == 0)
      return out;
  }
}

} // namespace

TEST_F(vectorised_kernels, erf_and_erfc_stay_within_a_few_ulps_of_float64) {
  // 200,001 points over [-10, 10] (cut over the device's threads), each
  // against the C library's float64 function of the same float32 input.
  const int64_t n = 200001;
  tensor x{dtype::float32, core::shape{n}};
  for (int64_t i = 0; i < n; ++i)
    x.mutable_data<float>()[i] = static_cast<float>(-10.0 + 20.0 * i / (n - 1));
  core::attr_map f32{{"T", dtype::float32}};
  auto erfc = run1("Erfc", f32, {x});
  auto erf = run1("Erf", f32, {x});
  double worst_erfc = 0, worst_erf = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = x.data<float>()[i];
    double want = std::erfc(v);
    double got = erfc.data<float>()[i];
    if (want >= std::numeric_limits<float>::min())
      worst_erfc = std::max(worst_erfc, std::abs(got - want) / want);
    else
      EXPECT_LE(got, 2 * std::numeric_limits<float>::min()) << v;
    worst_erf = std::max(worst_erf,
                         std::abs(double(erf.data<float>()[i]) - std::erf(v)));
  }
  // The relative error of erfc everywhere it is a normal float: 2.2e-7
  // measured, ~4 ulps.
  EXPECT_LT(worst_erfc, 1e-6);
  EXPECT_LT(worst_erf, 1e-6);
  // The edges: infinities, NaN, both zeros, either side of +-0.5.
  auto edges = tensor::from_vector<float>(
    {9}, {std::numeric_limits<float>::infinity(),
          -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN(), 0.0f, -0.0f, 0.5f, -0.5f,
          std::nextafter(0.5f, 0.0f), std::nextafter(-0.5f, 0.0f)});
  auto e = run1("Erfc", f32, {edges});
  EXPECT_EQ(e.data<float>()[0], 0.0f);
  EXPECT_EQ(e.data<float>()[1], 2.0f);
  EXPECT_TRUE(std::isnan(e.data<float>()[2]));
  for (int64_t i = 3; i < 9; ++i) {
    double v = edges.data<float>()[i];
    EXPECT_NEAR(e.data<float>()[i], std::erfc(v), 1e-6 * std::erfc(v)) << v;
  }
}

TEST_F(vectorised_kernels, exp_tanh_and_sigmoid_match_float64_large_or_small) {
  // float32 arrays of 100,001 elements (oneDNN's kernels, cut over the
  // threads), of 3,000 (oneDNN, one call) and of 1,000 (Eigen's) over
  // [-90, 90], each element against the C library's float64 function:
  // relative error; below 1e-37, within 16 smallest normals, as oneDNN
  // gives 0 below exp(-87) (1.6e-38), near where results turn denormal.
  struct function {
    const char* op;
    double (*f)(double);
  };
  for (const function& fn :
       {function{"Exp", [](double v) { return std::exp(v); }},
        function{"Tanh", [](double v) { return std::tanh(v); }},
        function{"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }}})
    for (int64_t n : {100001, 3000, 1000}) {
      tensor x{dtype::float32, core::shape{n}};
      for (int64_t i = 0; i < n; ++i)
        x.mutable_data<float>()[i]
          = static_cast<float>(-90.0 + 180.0 * i / (n - 1));
      auto y = run1(fn.op, {{"T", dtype::float32}}, {x});
      double worst = 0;
      for (int64_t i = 0; i < n; ++i) {
        double want = fn.f(x.data<float>()[i]);
        double got = y.data<float>()[i];
        if (std::abs(want) >= 1e-37
            && want <= std::numeric_limits<float>::max())
          worst = std::max(worst, std::abs(got - want) / std::abs(want));
        else if (want > std::numeric_limits<float>::max())
          EXPECT_EQ(got, std::numeric_limits<float>::infinity()) << fn.op;
        else
          EXPECT_LE(std::abs(got - want),
                    16 * std::numeric_limits<float>::min())
            << fn.op;
      }
      EXPECT_LT(worst, 1e-6) << fn.op << " of " << n;
    }
}

TEST_F(vectorised_kernels, softmax_gives_masked_logits_exactly_zero) {
  // 3,000 rows of 37 (cut over the device's threads), a quarter of the
  // logits masked as Keras and tensor2tensor mask them (-1e9, -inf).
  for (auto type : {dtype::float32, dtype::float64}) {
    auto x = uniform({3000, 37}, type, -20.0, 20.0);
    for (int64_t i = 0; i < x.num_elements(); i += 4) {
      double mask
        = i % 8 == 0 ? -1e9 : -std::numeric_limits<double>::infinity();
      if (type == dtype::float32)
        x.mutable_data<float>()[i] = static_cast<float>(mask);
      else
        x.mutable_data<double>()[i] = mask;
    }
    core::attr_map attrs{{"T", type}};
    auto soft = run1("Softmax", attrs, {x});
    auto log_soft = run1("LogSoftmax", attrs, {x});
    double tol = type == dtype::float32 ? 1e-5 : 1e-13;
    for (int64_t r = 0; r < 3000; ++r) {
      double max = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t j = 0; j < 37; ++j)
        max = std::max(max, at(x, r * 37 + j));
      for (int64_t j = 0; j < 37; ++j)
        sum += std::exp(at(x, r * 37 + j) - max);
      for (int64_t j = 0; j < 37; ++j) {
        auto i = r * 37 + j;
        double want = std::exp(at(x, i) - max) / sum;
        if (i % 4 == 0) {
          ASSERT_EQ(at(soft, i), 0.0) << i;
          continue;
        }
        ASSERT_NEAR(at(soft, i), want, tol * want + 1e-30) << i;
        ASSERT_NEAR(at(log_soft, i), at(x, i) - max - std::log(sum),
                    tol * std::max(1.0, std::abs(std::log(want))))
          << i;
      }
    }
  }
}

TEST_F(vectorised_kernels, einsum_reads_strided_operands_in_place_correctly) {
  // MultiHeadAttention's equations at sizes that cut the products over the
  // threads, transposed and strided reads, broadcast batches, and
  // equations that must gather first (contracted labels in another order
  // in each operand, a label summed alone): each against its definition.
  struct example {
    std::string x, y, out;
    std::vector<int64_t> x_dims, y_dims;
    std::string equation = ""; ///< When not x,y->out (ellipses).
  };
  std::vector<example> examples{
    {"abc", "cde", "abde", {2, 40, 48}, {48, 4, 16}},
    {"aecd", "abcd", "acbe", {2, 33, 4, 16}, {2, 35, 4, 16}},
    {"acbe", "aecd", "abcd", {2, 4, 35, 33}, {2, 33, 4, 16}},
    {"abcd", "cde", "abe", {2, 35, 4, 16}, {4, 16, 48}},
    {"bji", "bjk", "bik", {3, 64, 20}, {3, 64, 30}},
    {"bij", "bkj", "bki", {3, 20, 64}, {3, 30, 64}},
    {"xbij", "bjk", "xbik", {2, 1, 20, 33}, {5, 33, 7}, "...ij,...jk->...ik"},
    {"ijk", "ikj", "i", {6, 5, 7}, {6, 7, 5}},
    {"ijk", "jl", "il", {4, 6, 5}, {6, 9}},
  };
  for (auto type : {dtype::float32, dtype::float64})
    for (const auto& e : examples) {
      auto x = uniform(e.x_dims, type, -1.0, 1.0);
      auto y = uniform(e.y_dims, type, -1.0, 1.0);
      auto equation
        = e.equation.empty() ? e.x + "," + e.y + "->" + e.out : e.equation;
      auto got = run1("Einsum",
                      {{"T", type}, {"N", int64_t{2}}, {"equation", equation}},
                      {x, y});
      auto want = einsum_by_definition(e.x, x, e.y, y, e.out);
      ASSERT_EQ(got.num_elements(), static_cast<int64_t>(want.size()))
        << equation;
      double tol = type == dtype::float32 ? 1e-4 : 1e-12;
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(at(got, static_cast<int64_t>(i)), want[i], tol)
          << equation << " element " << i;
    }
}

TEST_F(vectorised_kernels, einsum_spreads_attention_heads_over_the_threads) {
  // Attention's scores for 2 x 4 heads of 64 x 64 x 128: small products,
  // a head to a thread (4M multiply-adds in all); against nested loops.
  const int64_t na = 2, ne = 64, nb = 64, nc = 4, nd = 128;
  for (auto type : {dtype::float32, dtype::float64}) {
    auto key = uniform({na, ne, nc, nd}, type, -1.0, 1.0);
    auto query = uniform({na, nb, nc, nd}, type, -1.0, 1.0);
    auto got = run1("Einsum",
                    {{"T", type},
                     {"N", int64_t{2}},
                     {"equation", std::string{"aecd,abcd->acbe"}}},
                    {key, query});
    ASSERT_EQ(got.num_elements(), na * nc * nb * ne);
    double worst = 0;
    for (int64_t a = 0; a < na; ++a)
      for (int64_t c = 0; c < nc; ++c)
        for (int64_t b = 0; b < nb; ++b)
          for (int64_t e = 0; e < ne; ++e) {
            double want = 0;
            for (int64_t d = 0; d < nd; ++d)
              want += at(key, ((a * ne + e) * nc + c) * nd + d)
                      * at(query, ((a * nb + b) * nc + c) * nd + d);
            worst = std::max(
              worst,
              std::abs(at(got, ((a * nc + c) * nb + b) * ne + e) - want));
          }
    EXPECT_LT(worst, type == dtype::float32 ? 1e-4 : 1e-12);
  }
}
