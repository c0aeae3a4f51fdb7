// P4: MatMul float32 on the CPU device (2 threads) beside OpenBLAS
// cblas_sgemm on the same matrices, in the same run.
//
//   bench_matmul [--threads T] [--seconds S]
//
// Last output line: {"n1024_gflops": ..., "n1024_openblas_gflops": ...,
// "n2048_gflops": ..., "n2048_openblas_gflops": ..., "min_ratio": ...}

#include <cmath>
#include <map>
#include <random>

#include <cblas.h>

#include "bench_util.hpp"
#include "json_line.hpp"

using namespace actorflow;

int main(int argc, char** argv) {
  int threads = 2;
  double seconds = 1.0;
  CLI::App app{"P4: GFLOP/s of the CPU MatMul kernel beside OpenBLAS "
               "cblas_sgemm, n = 256, 1024, 2048"};
  bench::add_common_options(app, &threads, &seconds);
  CLI11_PARSE(app, argc, argv);
  openblas_set_num_threads(threads);
  test::kernel_runner runner{threads};
  auto k = bench::prepare_or_exit(runner, "MatMul",
                                  {{"T", core::dtype::float32}}, 2);
  std::map<int, std::pair<double, double>> results;
  std::mt19937 gen{1};
  std::uniform_real_distribution<float> dist{-1.0f, 1.0f};
  for (int n : {256, 1024, 2048}) {
    core::tensor a{core::dtype::float32, {n, n}},
      b{core::dtype::float32, {n, n}};
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      a.mutable_data<float>()[i] = dist(gen);
      b.mutable_data<float>()[i] = dist(gen);
    }
    core::tensor c{core::dtype::float32, {n, n}};
    std::vector<core::tensor> outs;
    core::status st;
    auto t_ours = bench::best_time(
      [&] {
        st = k->run({a, b}, &outs);
      },
      seconds);
    const auto& ours = outs[0];
    auto t_blas = bench::best_time(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                    a.data<float>(), n, b.data<float>(), n, 0.0f,
                    c.mutable_data<float>(), n);
      },
      seconds);
    // Both compute the same product.
    double max_err = 0;
    for (int64_t i = 0; i < c.num_elements(); ++i)
      max_err = std::max<double>(
        max_err, std::abs(ours.data<float>()[i] - c.data<float>()[i]));
    if (!st.is_ok() || max_err > 1e-2) {
      std::fprintf(stderr, "results differ: %s, max error %g\n",
                   st.to_string().c_str(), max_err);
      return 1;
    }
    double flop = 2.0 * n * n * double(n);
    results[n] = {flop / t_ours / 1e9, flop / t_blas / 1e9};
    std::printf("n=%d: actorflow %.1f GFLOP/s, OpenBLAS %.1f GFLOP/s, ratio "
                "%.3f\n",
                n, results[n].first, results[n].second,
                results[n].first / results[n].second);
  }
  double min_ratio = std::min(results[1024].first / results[1024].second,
                              results[2048].first / results[2048].second);
  bench::print_json_line(
    {{"n1024_gflops", bench::rounded(results[1024].first, 1)},
     {"n1024_openblas_gflops", bench::rounded(results[1024].second, 1)},
     {"n2048_gflops", bench::rounded(results[2048].first, 1)},
     {"n2048_openblas_gflops", bench::rounded(results[2048].second, 1)},
     {"min_ratio", bench::rounded(min_ratio, 3)}});
  return 0;
}
