// TensorFlow's tensor bundle ops, how SavedModels restore and save their
// variables: RestoreV2, SaveV2 and MergeV2Checkpoints (whole tensors; a
// slice spec is refused).

#include "kernels.hpp"

#include "../../tensor_bundle.hpp"
#include "../../tensor_bundle_writer.hpp"

namespace actorflow::ops::cpu {

namespace {

/// Checks the `tensor_names` and `shape_and_slices` inputs (1 and 2) of a
/// bundle op over `n` tensors: vectors of n strings, every slice empty.
core::status check_names(const kernel_context& ctx, int64_t n,
                         const char* verb) {
  const auto& names = ctx.input(1);
  const auto& slices = ctx.input(2);
  if (names.dtype() != core::dtype::string || names.shape() != core::shape{n}
      || slices.dtype() != core::dtype::string
      || slices.shape() != core::shape{n})
    return core::invalid_argument_error(
      "tensor_names and shape_and_slices must be vectors of ", n,
      " strings, one per tensor");
  for (int64_t i = 0; i < n; ++i)
    if (!slices.data<std::string>()[i].empty())
      return core::unimplemented_error(
        verb, " a slice ('", slices.data<std::string>()[i], "' of '",
        names.data<std::string>()[i], "'): actorflow ", verb, " whole tensors");
  return core::status::ok();
}

class restore_v2_kernel : public basic_kernel {
public:
  explicit restore_v2_kernel(kernel_construction& ctx) {
    init_ = ctx.get_attr("dtypes", &dtypes_);
  }

  void compute(kernel_context& ctx) override {
    std::string prefix;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_string(ctx.input(0), "prefix", &prefix));
    auto n = static_cast<int64_t>(dtypes_.size());
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_names(ctx, n, "restores"));
    tensor_bundle bundle;
    ACTORFLOW_OP_REQUIRES_OK(ctx, tensor_bundle::open(prefix, &bundle));
    const auto* names = ctx.input(1).data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      core::tensor t;
      ACTORFLOW_OP_REQUIRES_OK(ctx, bundle.read(names[i], dtypes_[i], &t));
      ctx.set_output(i, std::move(t));
    }
  }

private:
  std::vector<core::dtype> dtypes_;
};

/// SaveV2: the tensors (inputs 3 on) under `tensor_names`, as one bundle
/// shard at `prefix`.
class save_v2_kernel : public basic_kernel {
public:
  explicit save_v2_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    std::string prefix;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_string(ctx.input(0), "prefix", &prefix));
    auto n = static_cast<int64_t>(ctx.num_inputs()) - 3;
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_names(ctx, n, "saves"));
    const auto* names = ctx.input(1).data<std::string>();
    tensor_bundle_writer bundle;
    for (int64_t i = 0; i < n; ++i)
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, bundle.add(names[i], ctx.input(static_cast<size_t>(3 + i))));
    ACTORFLOW_OP_REQUIRES_OK(ctx, bundle.write(prefix));
  }
};

class merge_v2_kernel : public basic_kernel {
public:
  explicit merge_v2_kernel(kernel_construction& ctx) {
    delete_old_dirs_ = ctx.attr_or("delete_old_dirs", true);
    if (ctx.attr_or("allow_missing_files", false))
      init_ = core::unimplemented_error(
        "MergeV2Checkpoints with allow_missing_files");
  }

  void compute(kernel_context& ctx) override {
    const auto& prefixes = ctx.input(0);
    ACTORFLOW_OP_REQUIRES(
      ctx,
      prefixes.dtype() == core::dtype::string && prefixes.shape().rank() <= 1,
      core::invalid_argument_error("checkpoint_prefixes must be strings"));
    std::string destination;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      read_scalar_string(ctx.input(1), "destination_prefix", &destination));
    const auto* p = prefixes.data<std::string>();
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, merge_tensor_bundles({p, p + prefixes.num_elements()}, destination,
                                delete_old_dirs_));
  }

private:
  bool delete_old_dirs_ = true;
};

} // namespace

void register_bundle_kernels(kernel_registry& r) {
  r.add_any<restore_v2_kernel>("RestoreV2", device_type);
  r.add_any<save_v2_kernel>("SaveV2", device_type);
  r.add_any<merge_v2_kernel>("MergeV2Checkpoints", device_type);
}

} // namespace actorflow::ops::cpu
