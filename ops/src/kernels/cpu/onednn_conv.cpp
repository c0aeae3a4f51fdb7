#include "onednn_conv.hpp"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "onednn_common.hpp"
#include "parallel_split.hpp"

namespace actorflow::ops::cpu {

namespace {

using dnnl::memory;
using tag = memory::format_tag;

/// Which computation.
enum class pass : int64_t { forward, backward_input, backward_filter };

bool is_forward(pass p) {
  return p == pass::forward;
}

/// The epilogue of a pass that is not forward: none.
const conv_epilogue no_epilogue;

/// Multiply-adds below which a convolution runs on the calling thread.
constexpr int64_t split_threshold = int64_t{1} << 22;

/// A primitive for one pass over a slice of the batch, and the layouts it
/// wants: the filter (or its gradient) in oneDNN's blocked layout, which
/// the user's HWIO filter is reordered to and from.
struct plan {
  dnnl::primitive primitive;
  memory::desc weights;      ///< The primitive's.
  memory::desc user_weights; ///< HWIO (grouped: H, W, I, G, O / G).
  /// The primitive's layouts of the image (x or dx) and the grid (y or
  /// dy): NHWC, or blocked for a Winograd primitive, which the slice is
  /// reordered to and from.
  memory::desc image, grid;
  memory::desc scratchpad;
};

/// Whether oneDNN may choose Winograd for `s`: 3x3, stride 1, no dilation
/// (its F(4x4, 3x3) kernels for AVX-512).
bool winograd_shape(const conv_shape& s) {
  return s.groups == 1 && s.kh == 3 && s.kw == 3 && s.stride_h == 1
         && s.stride_w == 1 && s.dilation_h == 1 && s.dilation_w == 1;
}

/// The floats of scratch made by `onednn::scratch`.
float* floats(core::tensor& t) {
  return reinterpret_cast<float*>(t.mutable_data<uint8_t>());
}

} // namespace

struct onednn_conv::impl {
  onednn::plan_cache<plan> plans;
  /// A constant filter in the blocked layouts the forward plans want,
  /// each reordered on its first use (TensorFlow keeps them too). By
  /// layout, not by plan: the plan cache may drop and remake plans.
  std::mutex constant_mtx;
  std::vector<std::pair<memory::desc, core::tensor>> constant_weights;

  /// The plan of `p` over `batch` images of shape `s`, then `post`, made
  /// on first use.
  std::shared_ptr<const plan> get(pass p, const conv_shape& s, int64_t batch,
                                  const conv_epilogue& post) {
    std::vector<int64_t> key{static_cast<int64_t>(p),
                             post.bias != nullptr,
                             post.scale != nullptr,
                             static_cast<int64_t>(post.act),
                             batch,
                             s.in_h,
                             s.in_w,
                             s.cin,
                             s.kh,
                             s.kw,
                             s.cout,
                             s.out_h,
                             s.out_w,
                             s.stride_h,
                             s.stride_w,
                             s.dilation_h,
                             s.dilation_w,
                             s.pad_top,
                             s.pad_left,
                             s.pad_bottom,
                             s.pad_right,
                             s.groups};
    return plans.get(std::move(key), [&](const dnnl::engine& engine) {
      return make(engine, p, s, batch, post);
    });
  }

  /// Forward, Winograd where oneDNN's own choice (`convolution_auto`,
  /// layouts its own) is Winograd -- 3x3 convolutions of enough images and
  /// channels: its F(4x4, 3x3) kernels do 2.25x fewer multiplications, and
  /// the slice of 16 images of 32x32x64 in bench_conv2d runs 2.21 ms so
  /// (0.29 ms of it the reorders to and from NHWC) against 4.65 direct, on
  /// one thread, its error beside a float64 reference as the direct one's.
  /// Not for the gradients: oneDNN picks Winograd for the filter's too, and
  /// on ResNet50's small late images (4x4 to 14x14, 512 channels) it took
  /// 10-22 ms a slice where the direct kernel takes 2-4 (P16's training
  /// step: 590 ms with it, 430-470 without). Else the direct convolution
  /// on NHWC, which needs no reorder.
  static std::shared_ptr<const plan> make(const dnnl::engine& engine, pass p,
                                          const conv_shape& s, int64_t batch,
                                          const conv_epilogue& post) {
    onednn::one_omp_thread();
    if (is_forward(p) && winograd_shape(s)) {
      try {
        auto chosen = make_with(engine, p, s, batch, post,
                                dnnl::algorithm::convolution_auto, tag::any);
        if (chosen.second.find("wino") != std::string::npos)
          return chosen.first;
      } catch (const dnnl::error&) {
        // none for this shape or pass: direct
      }
    }
    return make_with(engine, p, s, batch, post,
                     dnnl::algorithm::convolution_direct, tag::nhwc)
      .first;
  }

  /// oneDNN's post-ops for `post` after the bias: a per-channel multiply
  /// and add (binary post-ops 0 and 1), then the activation.
  static dnnl::post_ops post_ops_of(const conv_epilogue& post,
                                    int64_t channels) {
    dnnl::post_ops ops;
    if (post.scale != nullptr) {
      memory::desc per_channel{
        {1, channels, 1, 1}, memory::data_type::f32, tag::nchw};
      ops.append_binary(dnnl::algorithm::binary_mul, per_channel);
      ops.append_binary(dnnl::algorithm::binary_add, per_channel);
    }
    if (post.act == conv_epilogue::activation::relu)
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    else if (post.act == conv_epilogue::activation::relu6)
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, 6.0f);
    return ops;
  }

  /// The plan of `p` with algorithm `algo` on images in `layout` (nhwc,
  /// or any: the primitive's choice), and the implementation's name.
  static std::pair<std::shared_ptr<const plan>, std::string>
  make_with(const dnnl::engine& engine, pass p, const conv_shape& s,
            int64_t batch, const conv_epilogue& post, dnnl::algorithm algo,
            tag layout) {
    auto f32 = memory::data_type::f32;
    memory::desc src{{batch, s.cin, s.in_h, s.in_w}, f32, layout};
    memory::desc dst{{batch, s.cout, s.out_h, s.out_w}, f32, layout};
    auto grouped = s.groups > 1;
    auto wdims = grouped ? memory::dims{s.groups, s.cout / s.groups,
                                        s.cin / s.groups, s.kh, s.kw}
                         : memory::dims{s.cout, s.cin, s.kh, s.kw};
    memory::desc any_weights{wdims, f32, tag::any};
    memory::dims strides{s.stride_h, s.stride_w};
    memory::dims dilates{s.dilation_h - 1, s.dilation_w - 1};
    memory::dims pad_l{s.pad_top, s.pad_left};
    memory::dims pad_r{s.pad_bottom, s.pad_right};
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    auto training = dnnl::prop_kind::forward_training;
    // The gradients' primitives take the plain forward's as a hint.
    dnnl::convolution_forward::primitive_desc fwd;
    auto fused = attr;
    fused.set_post_ops(post_ops_of(post, s.cout));
    if (post.bias == nullptr) {
      fwd = {
        {training, algo, src, any_weights, dst, strides, dilates, pad_l, pad_r},
        fused,
        engine};
    } else {
      memory::desc bias{{s.cout}, f32, tag::a};
      fwd = {{training, algo, src, any_weights, bias, dst, strides, dilates,
              pad_l, pad_r},
             fused,
             engine};
    }
    auto result = std::make_shared<plan>();
    result->user_weights
      = memory::desc{wdims, f32, grouped ? tag::hwigo : tag::hwio};
    std::string impl;
    switch (p) {
      case pass::forward:
        result->primitive = dnnl::convolution_forward{fwd};
        result->weights = fwd.weights_desc();
        result->image = fwd.src_desc();
        result->grid = fwd.dst_desc();
        result->scratchpad = fwd.scratchpad_desc();
        impl = fwd.impl_info_str();
        break;
      case pass::backward_input: {
        dnnl::convolution_backward_data::primitive_desc bwd{
          {algo, src, any_weights, dst, strides, dilates, pad_l, pad_r},
          attr,
          engine,
          fwd};
        result->primitive = dnnl::convolution_backward_data{bwd};
        result->weights = bwd.weights_desc();
        result->image = bwd.diff_src_desc();
        result->grid = bwd.diff_dst_desc();
        result->scratchpad = bwd.scratchpad_desc();
        impl = bwd.impl_info_str();
        break;
      }
      case pass::backward_filter: {
        dnnl::convolution_backward_weights::primitive_desc bwd{
          {algo, src, any_weights, dst, strides, dilates, pad_l, pad_r},
          attr,
          engine,
          fwd};
        result->primitive = dnnl::convolution_backward_weights{bwd};
        result->weights = bwd.diff_weights_desc();
        result->image = bwd.src_desc();
        result->grid = bwd.diff_dst_desc();
        result->scratchpad = bwd.scratchpad_desc();
        impl = bwd.impl_info_str();
        break;
      }
    }
    return {std::move(result), std::move(impl)};
  }

  /// Runs `p` over the batch, cut into slices over the device's pool.
  /// `image` is x or dx (NHWC), `filter` f or df (HWIO), `grid` y or dy;
  /// the pass writes the one it computes.
  core::status run(kernel_context& ctx, pass p, const conv_shape& s,
                   float* image, float* filter, float* grid,
                   const conv_epilogue& post = no_epilogue,
                   bool constant = false) {
    auto macs = s.batch * s.out_h * s.out_w * s.filter_size();
    parallel_split split{&ctx, macs >= split_threshold};
    if (is_forward(p) && s.batch < split.threads())
      return run_rows(ctx, split, p, s, image, filter, grid, post, constant);
    auto parts = static_cast<int>(std::min<int64_t>(split.threads(), s.batch));
    auto filter_size = s.filter_size();
    // Each slice's part of the filter's gradient; the first slice writes
    // the output, the others add theirs after.
    std::vector<core::tensor> partial(static_cast<size_t>(parts));
    std::vector<core::status> failed(static_cast<size_t>(parts));
    for (int part = 1; part < parts && p == pass::backward_filter; ++part)
      ACTORFLOW_RETURN_IF_ERROR(
        onednn::scratch(ctx, static_cast<size_t>(filter_size) * sizeof(float),
                        &partial[static_cast<size_t>(part)]));
    split.run(parts, [&](int part) {
      auto first = s.batch * part / parts;
      auto size = s.batch * (part + 1) / parts - first;
      auto own = p == pass::backward_filter && part > 0;
      float* target = own ? floats(partial[static_cast<size_t>(part)]) : filter;
      failed[static_cast<size_t>(part)] = run_slice(
        ctx, p, s, size, image + first * s.in_h * s.in_w * s.cin, target,
        grid + first * s.out_h * s.out_w * s.cout, post, constant);
    });
    for (const auto& st : failed)
      ACTORFLOW_RETURN_IF_ERROR(st);
    for (int part = 1; part < parts && p == pass::backward_filter; ++part) {
      const float* add = floats(partial[static_cast<size_t>(part)]);
      for (int64_t i = 0; i < filter_size; ++i)
        filter[i] += add[i];
    }
    return core::status::ok();
  }

  /// A forward pass over fewer images than threads: each image's output
  /// rows cut into bands, each band a convolution of its own over the
  /// input rows it reads (NHWC keeps both contiguous: no copy), padded
  /// only where the image's edge is (at batch 1 a ResNet50 on 2 threads
  /// otherwise runs every convolution on one).
  core::status run_rows(kernel_context& ctx, const parallel_split& split,
                        pass p, const conv_shape& s, float* image,
                        float* filter, float* grid, const conv_epilogue& post,
                        bool constant) {
    auto bands
      = std::min<int64_t>((split.threads() + s.batch - 1) / s.batch, s.out_h);
    auto parts = static_cast<int>(s.batch * bands);
    std::vector<core::status> failed(static_cast<size_t>(parts));
    split.run(parts, [&](int part) {
      auto b = part / bands, band = part % bands;
      auto o0 = s.out_h * band / bands, o1 = s.out_h * (band + 1) / bands;
      // The input rows the band's windows cover, padding included.
      auto i0 = o0 * s.stride_h - s.pad_top;
      auto i1
        = (o1 - 1) * s.stride_h - s.pad_top + (s.kh - 1) * s.dilation_h + 1;
      auto t = s;
      t.batch = 1;
      t.out_h = o1 - o0;
      t.pad_top = std::max<int64_t>(-i0, 0);
      t.pad_bottom = std::max<int64_t>(i1 - s.in_h, 0);
      auto first = std::max<int64_t>(i0, 0);
      t.in_h = std::min(i1, s.in_h) - first;
      // SAME pads less than a window, VALID none: every band reads rows.
      failed[static_cast<size_t>(part)] = run_slice(
        ctx, p, t, 1, image + (b * s.in_h + first) * s.in_w * s.cin, filter,
        grid + (b * s.out_h + o0) * s.out_w * s.cout, post, constant);
    });
    for (const auto& st : failed)
      ACTORFLOW_RETURN_IF_ERROR(st);
    return core::status::ok();
  }

  /// The filter in the blocked layout of `pl` (a forward plan) when it
  /// is constant: reordered from `user` on the first call, kept after;
  /// `out` shares its buffer.
  core::status constant_filter(kernel_context& ctx, const plan& pl,
                               dnnl::memory& user, dnnl::stream& stream,
                               core::tensor* out) {
    std::lock_guard<std::mutex> guard{constant_mtx};
    auto kept = std::find_if(
      constant_weights.begin(), constant_weights.end(),
      [&](const auto& entry) { return entry.first == pl.weights; });
    if (kept == constant_weights.end()) {
      if (constant_weights.size() >= 16) // layouts that keep changing
        constant_weights.clear();
      core::tensor t;
      ACTORFLOW_RETURN_IF_ERROR(
        onednn::scratch(ctx, pl.weights.get_size(), &t));
      dnnl::memory blocked{pl.weights, plans.engine(),
                           t.mutable_data<uint8_t>()};
      dnnl::reorder{user, blocked}.execute(stream, user, blocked);
      stream.wait();
      constant_weights.emplace_back(pl.weights, std::move(t));
      kept = std::prev(constant_weights.end());
    }
    // A handle: the buffer outlives a clear while the caller runs.
    *out = kept->second;
    return core::status::ok();
  }

  core::status run_slice(kernel_context& ctx, pass p, const conv_shape& s,
                         int64_t batch, float* image, float* filter,
                         float* grid, const conv_epilogue& post,
                         bool constant) {
    return onednn::guarded("convolution", [&] {
      auto pl = get(p, s, batch, post);
      const auto& engine = plans.engine();
      onednn::one_omp_thread();
      dnnl::stream stream{engine};
      memory user_weights{pl->user_weights, engine, filter};
      memory weights = user_weights;
      core::tensor blocked, scratchpad;
      if (pl->weights != pl->user_weights && constant && is_forward(p)) {
        ACTORFLOW_RETURN_IF_ERROR(
          constant_filter(ctx, *pl, user_weights, stream, &blocked));
        weights = memory{pl->weights, engine, blocked.mutable_data<uint8_t>()};
      } else if (pl->weights != pl->user_weights) {
        ACTORFLOW_RETURN_IF_ERROR(
          onednn::scratch(ctx, pl->weights.get_size(), &blocked));
        weights = memory{pl->weights, engine, blocked.mutable_data<uint8_t>()};
        if (p != pass::backward_filter)
          dnnl::reorder{user_weights, weights}.execute(stream, user_weights,
                                                       weights);
      }
      ACTORFLOW_RETURN_IF_ERROR(
        onednn::scratch(ctx, pl->scratchpad.get_size(), &scratchpad));
      memory pad{pl->scratchpad, engine, scratchpad.mutable_data<uint8_t>()};
      const auto& prim = pl->primitive;
      auto desc = [&](int64_t channels, int64_t h, int64_t w) {
        return memory::desc{
          {batch, channels, h, w}, memory::data_type::f32, tag::nhwc};
      };
      // The slice's image and grid in the primitive's layouts: the user's
      // (NHWC), or blocked copies the inputs are reordered into.
      memory user_x{desc(s.cin, s.in_h, s.in_w), engine, image};
      memory user_y{desc(s.cout, s.out_h, s.out_w), engine, grid};
      memory x = user_x, y = user_y;
      core::tensor x_copy, y_copy;
      auto in_layout = [&](const memory::desc& want, memory& user,
                           bool is_input, core::tensor* buffer, memory* out) {
        if (want == user.get_desc())
          return core::status::ok();
        ACTORFLOW_RETURN_IF_ERROR(
          onednn::scratch(ctx, want.get_size(), buffer));
        *out = memory{want, engine, buffer->mutable_data<uint8_t>()};
        if (is_input)
          dnnl::reorder{user, *out}.execute(stream, user, *out);
        return core::status::ok();
      };
      ACTORFLOW_RETURN_IF_ERROR(
        in_layout(pl->image, user_x, p != pass::backward_input, &x_copy, &x));
      ACTORFLOW_RETURN_IF_ERROR(
        in_layout(pl->grid, user_y, !is_forward(p), &y_copy, &y));
      switch (p) {
        case pass::forward: {
          std::unordered_map<int, memory> args{{DNNL_ARG_SRC, x},
                                               {DNNL_ARG_WEIGHTS, weights},
                                               {DNNL_ARG_DST, y},
                                               {DNNL_ARG_SCRATCHPAD, pad}};
          auto vector = [&](const float* v) {
            return memory{{{s.cout}, memory::data_type::f32, tag::a},
                          engine,
                          const_cast<float*>(v)};
          };
          if (post.bias != nullptr)
            args.emplace(DNNL_ARG_BIAS, vector(post.bias));
          if (post.scale != nullptr) {
            auto per_channel = [&](const float* v) {
              return memory{
                {{1, s.cout, 1, 1}, memory::data_type::f32, tag::nchw},
                engine,
                const_cast<float*>(v)};
            };
            args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                         per_channel(post.scale));
            args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1,
                         per_channel(post.shift));
          }
          prim.execute(stream, args);
          break;
        }
        case pass::backward_input:
          prim.execute(stream, {{DNNL_ARG_DIFF_DST, y},
                                {DNNL_ARG_WEIGHTS, weights},
                                {DNNL_ARG_DIFF_SRC, x},
                                {DNNL_ARG_SCRATCHPAD, pad}});
          break;
        case pass::backward_filter:
          prim.execute(stream, {{DNNL_ARG_SRC, x},
                                {DNNL_ARG_DIFF_DST, y},
                                {DNNL_ARG_DIFF_WEIGHTS, weights},
                                {DNNL_ARG_SCRATCHPAD, pad}});
          if (weights != user_weights)
            dnnl::reorder{weights, user_weights}.execute(stream, weights,
                                                         user_weights);
          break;
      }
      // What the pass wrote, back to NHWC.
      if (p == pass::backward_input && x != user_x)
        dnnl::reorder{x, user_x}.execute(stream, x, user_x);
      if (is_forward(p) && y != user_y)
        dnnl::reorder{y, user_y}.execute(stream, y, user_y);
      stream.wait();
      return core::status::ok();
    });
  }
};

conv_shape conv_shape_of(int64_t batch, int64_t cin, int64_t cout,
                         int64_t groups, const common::window& h,
                         const common::window& w) {
  conv_shape s;
  s.groups = groups;
  s.batch = batch;
  s.in_h = h.in;
  s.in_w = w.in;
  s.cin = cin;
  s.kh = h.k;
  s.kw = w.k;
  s.cout = cout;
  s.out_h = h.out;
  s.out_w = w.out;
  s.stride_h = h.stride;
  s.stride_w = w.stride;
  s.dilation_h = h.dilation;
  s.dilation_w = w.dilation;
  s.pad_top = h.pad;
  s.pad_left = w.pad;
  // Padding after: what the last window needs past the image. A VALID
  // window that leaves the last rows unread (fewer than a stride) needs
  // none, and oneDNN, which floors the output size, counts the same
  // outputs with none (a 1x1 stride-2 convolution of 56 rows: 28).
  s.pad_bottom = std::max<int64_t>(
    (h.out - 1) * h.stride + (h.k - 1) * h.dilation + 1 - h.in - h.pad, 0);
  s.pad_right = std::max<int64_t>(
    (w.out - 1) * w.stride + (w.k - 1) * w.dilation + 1 - w.in - w.pad, 0);
  return s;
}

onednn_conv::onednn_conv() : impl_(std::make_unique<impl>()) {
}

onednn_conv::~onednn_conv() = default;

bool onednn_conv::supports(const conv_shape& s) noexcept {
  return s.pad_bottom >= 0 && s.pad_right >= 0 && s.batch > 0 && s.out_h > 0
         && s.out_w > 0 && s.cin > 0 && s.cout > 0 && s.groups > 0
         && s.cin % s.groups == 0 && s.cout % s.groups == 0;
}

core::status onednn_conv::forward(kernel_context& ctx, const conv_shape& s,
                                  const float* x, const float* f,
                                  const conv_epilogue& post, float* y,
                                  bool constant_filter) {
  // oneDNN's memory objects take non-const handles; x and f are only read.
  return impl_->run(ctx, pass::forward, s, const_cast<float*>(x),
                    const_cast<float*>(f), y, post, constant_filter);
}

core::status onednn_conv::backward_input(kernel_context& ctx,
                                         const conv_shape& s, const float* dy,
                                         const float* f, float* dx) {
  return impl_->run(ctx, pass::backward_input, s, dx, const_cast<float*>(f),
                    const_cast<float*>(dy));
}

core::status onednn_conv::backward_filter(kernel_context& ctx,
                                          const conv_shape& s, const float* x,
                                          const float* dy, float* df) {
  return impl_->run(ctx, pass::backward_filter, s, const_cast<float*>(x), df,
                    const_cast<float*>(dy));
}

core::status onednn_conv::backward(kernel_context& ctx, const conv_shape& s,
                                   bool wrt_input, float* out) {
  const float* dy = ctx.input(2).data<float>();
  return wrt_input
           ? backward_input(ctx, s, dy, ctx.input(1).data<float>(), out)
           : backward_filter(ctx, s, ctx.input(0).data<float>(), dy, out);
}

} // namespace actorflow::ops::cpu
