#pragma once

// Internal: an Einsum equation ("bqhd,bkhd->bhqk", "...ij,jk->...ik")
// parsed and resolved against its operands' ranks, for the op's shape
// function and its CPU kernel.

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::ops::detail {

/// An Einsum equation with its ellipses spelled out: one label per
/// dimension of each operand and of the output.
///
/// Labels are the equation's letters; the dimensions an ellipsis stands
/// for get the labels '0', '1', ... (right-aligned, as NumPy broadcasts
/// them). Without "->" the output is the ellipsis, then the labels that
/// appear once, in alphabetical order (NumPy's implicit mode).
struct einsum_equation {
  std::vector<std::string> inputs;
  std::string output;

  /// Parses `equation` for operands of `ranks`; an equation that is
  /// malformed, has another number of operands, labels other than
  /// letters, a label twice in one operand or the output (a diagonal), or
  /// an output label no operand has is `invalid_argument` (a diagonal:
  /// `unimplemented`).
  static core::status parse(const std::string& equation,
                            const std::vector<int>& ranks,
                            einsum_equation* out);

  /// The output's shape for operands of `shapes` (of the ranks parsed);
  /// unknown sizes stay unknown. Sizes of one label that differ are
  /// `invalid_argument`, but for an ellipsis label, where 1 broadcasts.
  core::status output_shape(const std::vector<core::shape>& shapes,
                            core::shape* out) const;
};

/// Whether `label` stands for a dimension of an ellipsis.
inline bool is_ellipsis_label(char label) noexcept {
  return label >= '0' && label <= '9';
}

} // namespace actorflow::ops::detail
