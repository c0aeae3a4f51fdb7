// P9a: MatMul on gpu:0 through session steps, float32 and bfloat16,
// n = 4096 and 8192. Each step runs one product of two variables held on
// the GPU (the product stays there); steps queue their work and return, so
// a round is R steps and then a step that fetches a one-element variable,
// whose copy to the host waits for every product before it. Peer:
// tests/bench/peers/matmul_torch_gpu.py (torch.matmul, R products, then
// torch.cuda.synchronize) on the same GPU.
//
//   bench_gpu_matmul [--sizes 4096,8192] [--steps 50] [--rounds 3]
//                    [--device gpu:0]   (cpu:0 checks the graph here)
//
// Last output line: {"n4096_float_tflops": ..., "n4096_bfloat16_tflops":
// ..., "n8192_float_tflops": ..., "n8192_bfloat16_tflops": ...}

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/devices/gpu.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "json_line.hpp"

using namespace actorflow;

namespace {

void check(const core::status& st) {
  if (!st.is_ok()) {
    std::fprintf(stderr, "bench_gpu_matmul: %s\n", st.to_string().c_str());
    std::exit(1);
  }
}

/// Best seconds per product of n x n matrices of `type` on gpu:0.
double seconds_per_product(actors::engine& e, const std::string& device,
                           int64_t n, core::dtype type, int steps, int rounds) {
  // Variables outlive their session in the engine: names of their own.
  graph::scope root{e.context().ops()};
  auto s = root.sub("n" + std::to_string(n) + "_"
                    + std::string{core::to_string(type)});
  auto gpu = s.with_device(device);
  auto operand = [&](const char* name, int seed) {
    auto values = graph::random_uniform(s.sub(name).sub("init"), {n, n},
                                        core::dtype::float32, {seed, seed});
    if (type != core::dtype::float32)
      values = graph::cast(gpu.sub(name).sub("cast"), values, type);
    return graph::variable(gpu.sub(name), values);
  };
  auto a = operand("a", 1);
  auto b = operand("b", 2);
  auto product = graph::matmul(gpu.sub("product"), a, b);
  auto flag = graph::variable(gpu.sub("flag"),
                              graph::random_uniform(s.sub("flag_init"), {1}));
  auto sync = graph::identity(gpu.sub("sync"), flag);
  auto init = root.initializer().name;
  check(root.status());
  actors::session sess{e};
  check(sess.extend(root.graph_def()));
  std::vector<core::tensor> out;
  check(sess.run({}, {}, {init}, &out));
  auto round = [&] {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
      check(sess.run({}, {}, {product.node_name()}, &out));
    check(sess.run({}, {sync.name()}, {}, &out));
    return std::chrono::duration<double>(std::chrono::steady_clock::now()
                                         - start)
             .count()
           / steps;
  };
  round(); // warm-up: cuBLAS's first call, the caching allocator
  double best = 1e30;
  for (int r = 0; r < rounds; ++r)
    best = std::min(best, round());
  return best;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes{4096, 8192};
  int steps = 50;
  int rounds = 3;
  CLI::App app{"P9a: TFLOP/s of MatMul on gpu:0 through session steps"};
  app.add_option("--sizes", sizes, "Matrix sizes n (n x n times n x n)")
    ->delimiter(',')
    ->capture_default_str();
  app.add_option("--steps", steps, "Products per round")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "Rounds; the best counts")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  std::string device = "gpu:0";
  app.add_option("--device", device, "Where the products run")
    ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (device.rfind("gpu", 0) == 0 && devices::visible_gpus() == 0) {
    std::fprintf(stderr, "bench_gpu_matmul: %s\n",
                 devices::cuda_enabled()
                   ? "no GPU is visible to CUDA"
                   : "built without CUDA (configure with nvcc on PATH)");
    return 2;
  }
  actors::engine e;
  check(e.init_status());
  nlohmann::ordered_json result;
  for (auto n : sizes)
    for (auto type : {core::dtype::float32, core::dtype::bfloat16}) {
      auto t = seconds_per_product(e, device, n, type, steps, rounds);
      auto tflops = 2.0 * double(n) * double(n) * double(n) / t / 1e12;
      std::string key = "n" + std::to_string(n) + "_"
                        + std::string{core::to_string(type)} + "_tflops";
      std::printf("n=%lld %s: %.3f ms per product, %.1f TFLOP/s\n",
                  static_cast<long long>(n),
                  std::string{core::to_string(type)}.c_str(), t * 1e3, tflops);
      result[key] = bench::rounded(tflops, 1);
    }
  bench::print_json_line(result);
  return 0;
}
