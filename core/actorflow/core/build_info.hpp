#pragma once

#include <string>

#include <Eigen/Core>

namespace actorflow::core {

/// How code that includes actorflow's headers was compiled: what Eigen,
/// inside `tensor.hpp`, makes of the compiler's flags. A program and the
/// library must agree, or Eigen's types differ between them.
///
/// ~~~
/// if (core::library_build_info() != core::header_build_info())
///   std::puts("compile with the flags actorflow was built with");
/// ~~~
struct build_info {
  /// Eigen's EIGEN_MAX_ALIGN_BYTES: the alignment of its fixed-size types.
  int eigen_max_align_bytes = 0;
  /// Eigen's SIMD instruction sets, e.g. "SSE, SSE2".
  std::string eigen_simd;

  bool operator==(const build_info& other) const {
    return eigen_max_align_bytes == other.eigen_max_align_bytes
           && eigen_simd == other.eigen_simd;
  }

  bool operator!=(const build_info& other) const {
    return !(*this == other);
  }

  /// E.g. "Eigen align 16, SSE, SSE2".
  std::string to_string() const {
    return "Eigen align " + std::to_string(eigen_max_align_bytes) + ", "
           + eigen_simd;
  }
};

/// How the library itself was compiled.
build_info library_build_info();

/// How the code calling this is compiled.
inline build_info header_build_info() {
  return {EIGEN_MAX_ALIGN_BYTES, Eigen::SimdInstructionSetsInUse()};
}

} // namespace actorflow::core
