// cuBLAS and cuDNN are loaded when a GPU first needs them, not when the
// process starts (devices/src/cuda/cuda_libraries.cpp). These tests need
// CUDA's libraries installed, not a GPU: they run wherever the build has
// CUDA on.

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/devices/gpu.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "cuda/cuda_libraries.hpp"

using namespace actorflow;

namespace {

/// Whether this process has mapped a file whose name holds `name`.
bool mapped(const std::string& name) {
  std::ifstream maps{"/proc/self/maps"};
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST(cuda_libraries, a_run_on_the_cpu_loads_neither) {
  if (devices::visible_gpus() > 0)
    GTEST_SKIP() << "a GPU is visible: the engine makes its device, which "
                    "loads cuBLAS";
  // Loading cuBLAS touches ~210 MB: a process that never uses a GPU must
  // not pay that. (First in this file: ctest runs each test in a process
  // of its own, the binary run whole runs them in this order.)
  actors::engine e;
  actors::session sess{e};
  graph::scope s;
  auto sum = graph::add(s, graph::constant(s, 1.0f), graph::constant(s, 2.0f));
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<core::tensor> out;
  ASSERT_TRUE(sess.run({}, {sum.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].scalar_value<float>(), 3.0f);
  EXPECT_FALSE(mapped("libcublas"));
  EXPECT_FALSE(mapped("libcudnn"));
}

TEST(cuda_libraries, cublas_and_cudnn_load_with_every_function) {
  const devices::cuda::cublas_functions* blas = nullptr;
  auto st = devices::cuda::load_cublas(&blas);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_NE(blas->create, nullptr);
  EXPECT_NE(blas->destroy, nullptr);
  EXPECT_NE(blas->set_stream, nullptr);
  EXPECT_NE(blas->gemm_ex, nullptr);
  ASSERT_NE(blas->status_string, nullptr);
  EXPECT_NE(std::string{blas->status_string(CUBLAS_STATUS_NOT_INITIALIZED)},
            "");
  const devices::cuda::cudnn_functions* dnn = nullptr;
  st = devices::cuda::load_cudnn(&dnn);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_NE(dnn->create, nullptr);
  EXPECT_NE(dnn->destroy, nullptr);
  EXPECT_NE(dnn->set_stream, nullptr);
  ASSERT_NE(dnn->error_string, nullptr);
  EXPECT_STREQ(dnn->error_string(CUDNN_STATUS_SUCCESS), "CUDNN_STATUS_SUCCESS");
  EXPECT_NE(blas->gemm_strided_batched_ex, nullptr);
  EXPECT_NE(dnn->convolution_forward, nullptr);
  EXPECT_NE(dnn->batch_norm_backward, nullptr);
  // Descriptors are host objects: they are made, set and checked without
  // a GPU (a tensor without channels is refused).
  cudnnTensorDescriptor_t x = nullptr;
  ASSERT_EQ(dnn->create_tensor(&x), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(
    dnn->set_tensor_4d(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 2, 3, 7, 6),
    CUDNN_STATUS_SUCCESS);
  EXPECT_NE(
    dnn->set_tensor_4d(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 2, 0, 7, 6),
    CUDNN_STATUS_SUCCESS);
  cudnnFilterDescriptor_t f = nullptr;
  ASSERT_EQ(dnn->create_filter(&f), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(
    dnn->set_filter_4d(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 4, 3, 3, 3),
    CUDNN_STATUS_SUCCESS);
  cudnnConvolutionDescriptor_t conv = nullptr;
  ASSERT_EQ(dnn->create_convolution(&conv), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dnn->set_convolution_2d(conv, 1, 1, 2, 2, 1, 1,
                                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dnn->set_convolution_math(conv, CUDNN_FMA_MATH),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dnn->destroy_convolution(conv), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dnn->destroy_filter(f), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dnn->destroy_tensor(x), CUDNN_STATUS_SUCCESS);
  // Loaded once: the same functions on every call.
  const devices::cuda::cublas_functions* again = nullptr;
  ASSERT_TRUE(devices::cuda::load_cublas(&again).is_ok());
  EXPECT_EQ(again, blas);
}
