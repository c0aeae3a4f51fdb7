// Element-wise Add of 2^22 floats on the CPU device beside a memcpy of the
// same bytes, in the same run. Add reads two arrays and writes one (12
// bytes per element), memcpy reads one and writes one (8 bytes per
// element); the ratio compares bytes moved per second.
//
//   bench_elementwise [--threads T] [--seconds S] [--log2n N]
//
// Last output line: {"n": ..., "add_gbps": ..., "memcpy_gbps": ...,
// "ratio": ...}

#include <cstring>
#include <vector>

#include "bench_util.hpp"
#include "json_line.hpp"

using namespace actorflow;

int main(int argc, char** argv) {
  int threads = 2, log2n = 22;
  double seconds = 1.0;
  CLI::App app{"Bandwidth of the Add kernel (float32) beside memcpy of the "
               "same bytes"};
  bench::add_common_options(app, &threads, &seconds);
  app.add_option("--log2n", log2n, "log2 of the element count")
    ->capture_default_str()
    ->check(CLI::Range(10, 30));
  CLI11_PARSE(app, argc, argv);
  int64_t n = int64_t{1} << log2n;
  test::kernel_runner runner{threads};
  auto add
    = bench::prepare_or_exit(runner, "Add", {{"T", core::dtype::float32}}, 2);
  core::tensor x{core::dtype::float32, {n}}, y{core::dtype::float32, {n}};
  for (int64_t i = 0; i < n; ++i) {
    x.mutable_data<float>()[i] = static_cast<float>(i % 1000);
    y.mutable_data<float>()[i] = 0.5f;
  }
  std::vector<core::tensor> outs;
  core::status st;
  auto t_add = bench::best_time([&] { st = add->run({x, y}, &outs); }, seconds);
  if (!st.is_ok()
      || outs[0].data<float>()[n - 1]
           != static_cast<float>((n - 1) % 1000) + 0.5f) {
    std::fprintf(stderr, "Add failed or is wrong: %s\n",
                 st.to_string().c_str());
    return 1;
  }
  std::vector<float> dst(static_cast<size_t>(n));
  auto bytes = static_cast<size_t>(n) * sizeof(float);
  auto t_copy = bench::best_time(
    [&] { std::memcpy(dst.data(), x.data<float>(), bytes); }, seconds);
  double add_gbps = 3.0 * double(bytes) / t_add / 1e9;
  double copy_gbps = 2.0 * double(bytes) / t_copy / 1e9;
  std::printf("Add: %.3f ms (%.1f GB/s); memcpy: %.3f ms (%.1f GB/s)\n",
              t_add * 1e3, add_gbps, t_copy * 1e3, copy_gbps);
  bench::print_json_line({{"n", n},
                          {"add_gbps", bench::rounded(add_gbps, 2)},
                          {"memcpy_gbps", bench::rounded(copy_gbps, 2)},
                          {"ratio", bench::rounded(add_gbps / copy_gbps, 3)}});
  return 0;
}
