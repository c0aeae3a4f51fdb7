// The string ops a SavedModel's save function uses to name its files:
// StringJoin, StaticRegexFullMatch and ShardedFilename.

#include "kernels.hpp"

#include <cstdio>
#include <regex>

namespace actorflow::ops::cpu {

namespace {

/// StringJoin: the inputs (scalars, or tensors of one shape, scalars
/// broadcast) joined element by element with `separator`.
class string_join_kernel : public basic_kernel {
public:
  explicit string_join_kernel(kernel_construction& ctx) {
    separator_ = ctx.attr_or("separator", std::string{});
  }

  void compute(kernel_context& ctx) override {
    core::shape shape;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const auto& t = ctx.input(i);
      if (t.shape().rank() == 0)
        continue;
      ACTORFLOW_OP_REQUIRES(
        ctx, shape.rank() == 0 || t.shape() == shape,
        core::invalid_argument_error("StringJoin of shapes ", shape.to_string(),
                                     " and ", t.shape().to_string()));
      shape = t.shape();
    }
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, shape, &out));
    auto* z = out->mutable_data<std::string>();
    for (int64_t k = 0; k < out->num_elements(); ++k)
      for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        const auto& t = ctx.input(i);
        if (i > 0)
          z[k] += separator_;
        z[k] += t.data<std::string>()[t.shape().rank() == 0 ? 0 : k];
      }
  }

private:
  std::string separator_;
};

/// Whether each string matches `pattern` as a whole (RE2's syntax, of
/// which what SavedModels use -- `^s3://.*` -- is ECMAScript's too).
class static_regex_full_match_kernel : public basic_kernel {
public:
  explicit static_regex_full_match_kernel(kernel_construction& ctx) {
    std::string pattern;
    init_ = ctx.get_attr("pattern", &pattern);
    if (!init_.is_ok())
      return;
    try {
      regex_ = std::regex{pattern};
    } catch (const std::regex_error& e) {
      init_ = core::invalid_argument_error("pattern '", pattern,
                                           "' is not a regular expression "
                                           "actorflow reads: ",
                                           e.what());
    }
  }

  void compute(kernel_context& ctx) override {
    const auto& in = ctx.input(0);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.num_elements(); ++i)
      out->mutable_data<bool>()[i]
        = std::regex_match(in.data<std::string>()[i], regex_);
  }

private:
  std::regex regex_;
};

/// `basename-SSSSS-of-NNNNN`: a bundle shard's prefix.
class sharded_filename_kernel : public basic_kernel {
public:
  explicit sharded_filename_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    std::string base;
    int64_t shard = 0, shards = 0;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_string(ctx.input(0), "basename", &base));
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             read_scalar_int(ctx.input(1), "shard", &shard));
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_int(ctx.input(2), "num_shards", &shards));
    ACTORFLOW_OP_REQUIRES(
      ctx, shard >= 0 && shard < shards,
      core::invalid_argument_error("shard ", shard, " of ", shards));
    char suffix[48];
    std::snprintf(suffix, sizeof(suffix), "-%05lld-of-%05lld",
                  static_cast<long long>(shard),
                  static_cast<long long>(shards));
    ctx.set_output(0, core::tensor::scalar(base + suffix));
  }
};

} // namespace

void register_string_kernels(kernel_registry& r) {
  r.add_any<string_join_kernel>("StringJoin", device_type);
  r.add_any<static_regex_full_match_kernel>("StaticRegexFullMatch",
                                            device_type);
  r.add_any<sharded_filename_kernel>("ShardedFilename", device_type);
}

} // namespace actorflow::ops::cpu
