// P4: MatMul float32 on the CPU device (2 threads) beside OpenBLAS
// cblas_sgemm on the same matrices, in the same run.
//
//   bench_matmul [--threads T] [--seconds S]
//
// Last output line: {"n1024_gflops": ..., "n1024_openblas_gflops": ...,
// "n2048_gflops": ..., "n2048_openblas_gflops": ..., "min_ratio": ...}

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>

#include <cblas.h>

#include "actorflow/devices/device_set.hpp"
#include "actorflow/ops/kernel_context.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/registration.hpp"
#include "actorflow/ops/resource_manager.hpp"

using namespace actorflow;
using clock_type = std::chrono::steady_clock;

namespace {

/// Calls `f` until `seconds` have passed (at least 3 times); returns the
/// best time of one call in seconds.
template <class F>
double best_time(F&& f, double seconds) {
  f(); // warm-up
  double best = 1e30, total = 0;
  for (int i = 0; i < 3 || total < seconds; ++i) {
    auto t0 = clock_type::now();
    f();
    double dt = std::chrono::duration<double>(clock_type::now() - t0).count();
    best = std::min(best, dt);
    total += dt;
  }
  return best;
}

} // namespace

int main(int argc, char** argv) {
  int threads = 2;
  double seconds = 1.0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (arg == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else {
      std::printf("usage: bench_matmul [--threads T] [--seconds S]\n"
                  "P4: GFLOP/s of the CPU MatMul kernel beside OpenBLAS "
                  "cblas_sgemm, n = 256, 1024, 2048, T threads (default 2).\n");
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  openblas_set_num_threads(threads);
  ops::op_registry op_reg;
  ops::kernel_registry kernel_reg;
  if (auto st = ops::register_ops(op_reg); !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  ops::register_cpu_kernels(kernel_reg);
  auto devs = devices::device_set::make_local(1, threads);
  auto& dev = *devs.all()[0];
  ops::resource_manager resources;
  core::node_def node{"mm", "MatMul", {}, "", {{"T", core::dtype::float32}}};
  const auto* def = op_reg.find("MatMul");
  std::vector<ops::arg_type> in, out;
  if (!def->check_attrs(node.attrs).is_ok()
      || !def->resolve_types(node.attrs, &in, &out).is_ok())
    return 1;
  ops::kernel_construction kc{node, *def, dev, resources, in, out};
  std::unique_ptr<ops::kernel> k;
  if (auto st = kernel_reg.create(kc, &k); !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
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
    ops::kernel_context ctx{dev, out, 0};
    core::tensor ours;
    auto t_ours = best_time(
      [&] {
        ctx.reset(0);
        ctx.inputs() = {{a, nullptr}, {b, nullptr}};
        k->compute(ctx);
        ours = ctx.outputs()[0].value;
      },
      seconds);
    auto t_blas = best_time(
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
    if (!ctx.status().is_ok() || max_err > 1e-2) {
      std::fprintf(stderr, "results differ: %s, max error %g\n",
                   ctx.status().to_string().c_str(), max_err);
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
  std::printf("{\"n1024_gflops\": %.1f, \"n1024_openblas_gflops\": %.1f, "
              "\"n2048_gflops\": %.1f, \"n2048_openblas_gflops\": %.1f, "
              "\"min_ratio\": %.3f}\n",
              results[1024].first, results[1024].second, results[2048].first,
              results[2048].second, min_ratio);
  return 0;
}
