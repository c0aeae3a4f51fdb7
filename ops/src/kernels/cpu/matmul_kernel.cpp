#include "kernels.hpp"

#include <unsupported/Eigen/CXX11/Tensor>

namespace actorflow::ops::cpu {

namespace {

/// C = op(A) * op(B) with Eigen's tensor contraction on the device's thread
/// pool (the path TensorFlow's CPU MatMul takes).
template <class T>
class matmul_kernel : public basic_kernel {
public:
  explicit matmul_kernel(kernel_construction& ctx) {
    init_ = ctx.get_attr("transpose_a", &transpose_a_);
    if (init_.is_ok())
      init_ = ctx.get_attr("transpose_b", &transpose_b_);
  }

  void compute(kernel_context& ctx) override {
    const auto& a = ctx.input(0);
    const auto& b = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, a.shape().rank() == 2 && b.shape().rank() == 2,
      core::invalid_argument_error("MatMul needs rank-2 inputs, got ",
                                   a.shape().to_string(), " and ",
                                   b.shape().to_string()));
    auto m = a.shape().dim(transpose_a_ ? 1 : 0);
    auto k = a.shape().dim(transpose_a_ ? 0 : 1);
    auto k2 = b.shape().dim(transpose_b_ ? 1 : 0);
    auto n = b.shape().dim(transpose_b_ ? 0 : 1);
    ACTORFLOW_OP_REQUIRES(
      ctx, k == k2,
      core::invalid_argument_error(
        "MatMul inner dimensions differ: ", a.shape().to_string(), " times ",
        b.shape().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, {m, n}, &out));
    auto z = out->mutable_matrix<T>();
    if (k == 0) {
      z.setZero();
      return;
    }
    Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims{
      {Eigen::IndexPair<Eigen::DenseIndex>(transpose_a_ ? 0 : 1,
                                           transpose_b_ ? 1 : 0)}};
    z.device(eigen_device(ctx)) = a.matrix<T>().contract(b.matrix<T>(), dims);
  }

private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

} // namespace

void register_matmul_kernels(kernel_registry& r) {
  r.add_typed<matmul_kernel, float, double, int32_t, int64_t>("MatMul",
                                                              device_type);
}

} // namespace actorflow::ops::cpu
