#include "onednn_eltwise.hpp"

#include <mutex>
#include <vector>

#include "elementwise.hpp"
#include "onednn_common.hpp"

namespace actorflow::ops::cpu {

namespace {

using dnnl::memory;

/// One length's primitive.
struct plan {
  dnnl::eltwise_forward primitive;
  memory::desc data;
};

dnnl::algorithm algorithm_of(onednn_eltwise::function f) {
  switch (f) {
    case onednn_eltwise::function::exp: return dnnl::algorithm::eltwise_exp;
    case onednn_eltwise::function::tanh: return dnnl::algorithm::eltwise_tanh;
    case onednn_eltwise::function::gelu_erf:
      return dnnl::algorithm::eltwise_gelu_erf;
    case onednn_eltwise::function::logistic: break;
  }
  return dnnl::algorithm::eltwise_logistic;
}

} // namespace

struct onednn_eltwise::impl {
  dnnl::algorithm algorithm;
  onednn::plan_cache<plan> plans;

  /// Runs elements [0, n) of one block.
  core::status run(const float* x, float* y, int64_t n) {
    return onednn::guarded("eltwise", [&] {
      auto pl = plans.get({n}, [&](const dnnl::engine& engine) {
        onednn::one_omp_thread();
        auto made = std::make_shared<plan>();
        made->data
          = memory::desc{{n}, memory::data_type::f32, memory::format_tag::a};
        made->primitive
          = dnnl::eltwise_forward{{{dnnl::prop_kind::forward_inference,
                                    algorithm, made->data, 0.0f, 0.0f},
                                   engine}};
        return made;
      });
      const auto& engine = plans.engine();
      onednn::one_omp_thread();
      // oneDNN's memory objects take non-const handles; x is only read.
      memory src{pl->data, engine, const_cast<float*>(x)};
      memory dst{pl->data, engine, y};
      dnnl::stream stream{engine};
      pl->primitive.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
      stream.wait();
      return core::status::ok();
    });
  }
};

onednn_eltwise::onednn_eltwise(function f) : impl_(std::make_unique<impl>()) {
  impl_->algorithm = algorithm_of(f);
}

onednn_eltwise::~onednn_eltwise() = default;

core::status onednn_eltwise::apply(kernel_context& ctx, const float* x,
                                   float* y, int64_t n) {
  std::vector<core::status> failed;
  std::mutex mtx;
  for_elements(ctx, n, [&](int64_t begin, int64_t end) {
    auto st = impl_->run(x + begin, y + begin, end - begin);
    if (!st.is_ok()) {
      std::lock_guard<std::mutex> guard{mtx};
      failed.push_back(std::move(st));
    }
  });
  return failed.empty() ? core::status::ok() : failed.front();
}

} // namespace actorflow::ops::cpu
