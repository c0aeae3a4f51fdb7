// Conv2D 3x3, 64 -> 64 channels, 32x32, batch 32, SAME, float32 on the CPU
// device. Run tests/bench/peers/conv2d_torch.py on the same machine for
// PyTorch's conv2d on the same shapes.
//
//   bench_conv2d [--threads T] [--seconds S] [--batch B]
//
// Last output line: {"batch": ..., "ms": ..., "gflops": ...}

#include <random>

#include <cblas.h>

#include "bench_util.hpp"
#include "json_line.hpp"

using namespace actorflow;

int main(int argc, char** argv) {
  int threads = 2;
  int64_t batch = 32;
  double seconds = 2.0;
  CLI::App app{"Time of Conv2D 3x3, 64->64 channels, 32x32, SAME, NHWC, "
               "float32"};
  bench::add_common_options(app, &threads, &seconds);
  app.add_option("--batch", batch, "Images per call")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  openblas_set_num_threads(threads);
  const int64_t hw = 32, c = 64, k = 3;
  test::kernel_runner runner{threads};
  auto conv
    = bench::prepare_or_exit(runner, "Conv2D",
                             {{"T", core::dtype::float32},
                              {"strides", std::vector<int64_t>{1, 1, 1, 1}},
                              {"padding", std::string{"SAME"}}},
                             2);
  core::tensor x{core::dtype::float32, {batch, hw, hw, c}};
  core::tensor f{core::dtype::float32, {k, k, c, c}};
  std::mt19937 gen{1};
  std::uniform_real_distribution<float> dist{-1.0f, 1.0f};
  for (auto* t : {&x, &f})
    for (int64_t i = 0; i < t->num_elements(); ++i)
      t->mutable_data<float>()[i] = dist(gen);
  std::vector<core::tensor> outs;
  core::status st;
  auto t = bench::best_time([&] { st = conv->run({x, f}, &outs); }, seconds);
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  double flop = 2.0 * double(batch * hw * hw) * double(k * k * c) * double(c);
  std::printf("Conv2D %lldx%lldx%lldx%lld * 3x3x64x64: %.2f ms, %.1f "
              "GFLOP/s\n",
              static_cast<long long>(batch), static_cast<long long>(hw),
              static_cast<long long>(hw), static_cast<long long>(c), t * 1e3,
              flop / t / 1e9);
  bench::print_json_line({{"batch", batch},
                          {"ms", bench::rounded(t * 1e3, 3)},
                          {"gflops", bench::rounded(flop / t / 1e9, 1)}});
  return 0;
}
