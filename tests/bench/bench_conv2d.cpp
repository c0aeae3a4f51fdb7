// Conv2D 3x3, 64 -> 64 channels, 32x32, batch 32, SAME, float32 on the CPU
// device. Run tests/bench/peers/conv2d_torch.py and conv2d_tf1.py on the
// same machine for PyTorch's and TensorFlow's on the same shapes. Other
// shapes (the CNN's second layer: --batch 128 --size 14 --in 32 --k 5)
// and the gradients' ops (--op Conv2DBackpropInput|Conv2DBackpropFilter)
// for a closer look; --op MaxPool|MaxPoolGrad times the CNN's 2x2 max
// pooling of stride 2 (VALID) over --in channels instead, in GB/s of the
// tensors it reads and writes.
//
//   bench_conv2d [--threads T] [--seconds S] [--batch B] [--size HW]
//                [--in C] [--out C] [--k K] [--op OP]
//
// Last output line: {"op": ..., "batch": ..., "ms": ..., "gflops": ...}
// ("gbps" for pooling)

#include <random>

#include <cblas.h>

#include "bench_util.hpp"
#include "json_line.hpp"

using namespace actorflow;

namespace {

/// Random values in [-1, 1).
void fill_random(core::tensor& t, std::mt19937& gen) {
  std::uniform_real_distribution<float> dist{-1.0f, 1.0f};
  for (int64_t i = 0; i < t.num_elements(); ++i)
    t.mutable_data<float>()[i] = dist(gen);
}

/// Times 2x2 max pooling of stride 2 (`op`: MaxPool or MaxPoolGrad) over
/// [batch, hw, hw, c]; prints its line and returns main's exit code.
int time_pooling(const std::string& op, int threads, double seconds,
                 int64_t batch, int64_t hw, int64_t c) {
  test::kernel_runner runner{threads};
  core::attr_map attrs{{"T", core::dtype::float32},
                       {"ksize", std::vector<int64_t>{1, 2, 2, 1}},
                       {"strides", std::vector<int64_t>{1, 2, 2, 1}},
                       {"padding", std::string{"VALID"}}};
  auto pool = bench::prepare_or_exit(runner, "MaxPool", attrs, 1);
  auto grad = bench::prepare_or_exit(runner, "MaxPoolGrad", attrs, 3);
  core::tensor x{core::dtype::float32, {batch, hw, hw, c}};
  std::mt19937 gen{1};
  fill_random(x, gen);
  std::vector<core::tensor> outs;
  auto st = pool->run({x}, &outs);
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  auto y = outs[0];
  core::tensor g{core::dtype::float32, y.shape()};
  fill_random(g, gen);
  // What each op reads and writes: MaxPool x and y; MaxPoolGrad x, y, g
  // and its output, as large as x.
  double bytes = double(x.bytes() + y.bytes());
  auto t = bench::best_time(
    [&] {
      st
        = op == "MaxPool" ? pool->run({x}, &outs) : grad->run({x, y, g}, &outs);
    },
    seconds);
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  if (op == "MaxPoolGrad")
    bytes += double(g.bytes() + x.bytes());
  std::printf("%s 2x2/2 of %lldx%lldx%lldx%lld: %.3f ms, %.1f GB/s\n",
              op.c_str(), static_cast<long long>(batch),
              static_cast<long long>(hw), static_cast<long long>(hw),
              static_cast<long long>(c), t * 1e3, bytes / t / 1e9);
  bench::print_json_line({{"op", op},
                          {"batch", batch},
                          {"ms", bench::rounded(t * 1e3, 3)},
                          {"gbps", bench::rounded(bytes / t / 1e9, 1)}});
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  int threads = 2;
  int64_t batch = 32;
  double seconds = 2.0;
  CLI::App app{"Time of Conv2D (default 3x3, 64->64 channels, 32x32), SAME, "
               "NHWC, float32"};
  bench::add_common_options(app, &threads, &seconds);
  app.add_option("--batch", batch, "Images per call")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  int64_t hw = 32, cin = 64, c = 64, k = 3;
  std::string op = "Conv2D";
  app.add_option("--size", hw, "Image height and width")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--in", cin, "Input channels")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--out", c, "Output channels")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--k", k, "Filter height and width")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--op", op, "The op to time")
    ->capture_default_str()
    ->check(CLI::IsMember({"Conv2D", "Conv2DBackpropInput",
                           "Conv2DBackpropFilter", "MaxPool", "MaxPoolGrad"}));
  CLI11_PARSE(app, argc, argv);
  if (op == "MaxPool" || op == "MaxPoolGrad")
    return time_pooling(op, threads, seconds, batch, hw, cin);
  openblas_set_num_threads(threads);
  test::kernel_runner runner{threads};
  auto conv
    = bench::prepare_or_exit(runner, op,
                             {{"T", core::dtype::float32},
                              {"strides", std::vector<int64_t>{1, 1, 1, 1}},
                              {"padding", std::string{"SAME"}}},
                             op == "Conv2D" ? 2 : 3);
  core::tensor x{core::dtype::float32, {batch, hw, hw, cin}};
  core::tensor f{core::dtype::float32, {k, k, cin, c}};
  core::tensor dy{core::dtype::float32, {batch, hw, hw, c}};
  std::mt19937 gen{1};
  std::uniform_real_distribution<float> dist{-1.0f, 1.0f};
  for (auto* t : {&x, &f, &dy})
    for (int64_t i = 0; i < t->num_elements(); ++i)
      t->mutable_data<float>()[i] = dist(gen);
  auto sizes = [](const core::tensor& t) {
    std::vector<int32_t> v;
    for (auto d : t.shape().dims())
      v.push_back(static_cast<int32_t>(d));
    return core::tensor::from_vector<int32_t>({4}, v);
  };
  std::vector<core::tensor> inputs{x, f};
  if (op == "Conv2DBackpropInput")
    inputs = {sizes(x), f, dy};
  else if (op == "Conv2DBackpropFilter")
    inputs = {x, sizes(f), dy};
  std::vector<core::tensor> outs;
  core::status st;
  auto t = bench::best_time([&] { st = conv->run(inputs, &outs); }, seconds);
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  double flop = 2.0 * double(batch * hw * hw) * double(k * k * cin) * double(c);
  std::printf("%s %lldx%lldx%lldx%lld * %lldx%lldx%lldx%lld: %.2f ms, %.1f "
              "GFLOP/s\n",
              op.c_str(), static_cast<long long>(batch),
              static_cast<long long>(hw), static_cast<long long>(hw),
              static_cast<long long>(cin), static_cast<long long>(k),
              static_cast<long long>(k), static_cast<long long>(cin),
              static_cast<long long>(c), t * 1e3, flop / t / 1e9);
  bench::print_json_line({{"op", op},
                          {"batch", batch},
                          {"ms", bench::rounded(t * 1e3, 3)},
                          {"gflops", bench::rounded(flop / t / 1e9, 1)}});
  return 0;
}
