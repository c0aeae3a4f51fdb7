// The energy models' common job: the engine, the data fed as floats, the
// epochs with a progress line, and the files and JSON line they end with.

#include "models/energy/energy_job.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "actorflow/actors/session.hpp"
#include "actorflow/interop/npy.hpp"
#include "common/flags.hpp"
#include "training/progress_line.hpp"

namespace actorflow::apps {

using core::dtype;
using core::tensor;
using graph::output;

tensor pixels(const tensor& images, int64_t begin, int64_t n) {
  auto width = images.shape().dim(1);
  tensor out{dtype::float32, core::shape{n, width}};
  const auto* src = images.data<uint8_t>() + begin * width;
  auto* dst = out.mutable_data<float>();
  for (int64_t i = 0; i < n * width; ++i)
    dst[i] = static_cast<float>(src[i]) / 255.0f;
  return out;
}

double rounded(double x) {
  return std::round(x * 1e5) / 1e5;
}

energy_job::energy_job(const energy_options& o)
  : o_(o), engine_(with_threads({}, o.threads)),
    scope_(engine_.context().ops()) {
}

core::status energy_job::load() {
  ACTORFLOW_RETURN_IF_ERROR(engine_.init_status());
  ACTORFLOW_RETURN_IF_ERROR(load_fashion_mnist(engine_, o_.data_dir, &data_));
  test_ = pixels(data_.test_images, 0, data_.test_images.shape().dim(0));
  std::error_code ec;
  std::filesystem::create_directories(o_.out, ec);
  if (ec)
    return core::status{core::errc::invalid_argument,
                        "--out " + o_.out + ": " + ec.message()};
  return core::status::ok();
}

core::status energy_job::start() {
  auto init = scope_.initializer();
  ACTORFLOW_RETURN_IF_ERROR(scope_.status());
  session_ = std::make_unique<actors::session>(engine_);
  ACTORFLOW_RETURN_IF_ERROR(session_->extend(scope_.graph_def()));
  return run({}, {}, {init.name});
}

core::status energy_job::run(const actors::feed_list& feeds,
                             const std::vector<std::string>& fetches,
                             const std::vector<std::string>& targets,
                             std::vector<tensor>* out) {
  std::vector<tensor> ignored;
  return session_->run(feeds, fetches, targets, out ? out : &ignored);
}

core::status energy_job::epoch(const std::string& what, int epoch, int epochs,
                               const output& x, const std::string& target,
                               const output& value, double* mean) {
  auto n = data_.train_images.shape().dim(0);
  auto steps = n / o_.batch;
  progress_line progress{!o_.quiet, isatty(STDERR_FILENO) != 0, "images/s"};
  auto start = std::chrono::steady_clock::now();
  double sum = 0;
  std::vector<tensor> out;
  for (int64_t k = 0; k < steps; ++k) {
    ACTORFLOW_RETURN_IF_ERROR(
      run({{x.name(), pixels(data_.train_images, k * o_.batch, o_.batch)}},
          {value.name()}, {target}, &out));
    auto v = out[0].scalar_value<float>();
    sum += v;
    auto rate = static_cast<double>(k + 1) / seconds_since(start);
    progress.show(epoch, epochs, k + 1, steps, v, rate * o_.batch,
                  static_cast<double>(steps - k - 1) / rate);
  }
  progress.end_line();
  if (!o_.quiet)
    std::fprintf(stderr, "%s epoch %d/%d: %.1f s\n", what.c_str(), epoch,
                 epochs, seconds_since(start));
  *mean = sum / static_cast<double>(steps);
  return core::status::ok();
}

core::status energy_job::on_test(const output& x, const output& value,
                                 double* out) {
  std::vector<tensor> t;
  ACTORFLOW_RETURN_IF_ERROR(run({{x.name(), test_}}, {value.name()}, {}, &t));
  *out = t[0].scalar_value<float>();
  return core::status::ok();
}

core::status energy_job::save(const std::string& name, const tensor& t) {
  return interop::save_npy(t, o_.out + "/" + name + ".npy");
}

core::status energy_job::save_reconstructions(const tensor& rebuilt) {
  auto first = pixels(data_.test_images, 0, 10);
  tensor both{dtype::float32, core::shape{2, 10, 784}};
  std::copy_n(first.data<float>(), 7840, both.mutable_data<float>());
  std::copy_n(rebuilt.data<float>(), 7840, both.mutable_data<float>() + 7840);
  return save("reconstructions", both);
}

void energy_job::print_line(nlohmann::ordered_json line) const {
  line["out"] = o_.out;
  std::printf("%s\n", line.dump().c_str());
}

} // namespace actorflow::apps
