#pragma once

// The Cap'n Proto form of a tensor (ops/schema/tensor.capnp), shared by
// checkpoints, graph files and the messages between processes. Internal:
// Cap'n Proto never appears in public headers.

#include <capnp/orphan.h>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "tensor.capnp.h"

namespace actorflow::ops::detail {

/// Encodes `t`. With `zero_copy`, a numeric tensor's bytes are referenced
/// rather than copied: they must outlive the message builder.
void encode_tensor(const core::tensor& t, schema::Tensor::Builder out,
                   capnp::Orphanage* zero_copy = nullptr);

/// Checks a dtype code.
core::status decode_dtype(uint8_t raw, core::dtype* out);

/// Refuses a `what` (shape or tensor) of more dims than a shape may have,
/// before any is read.
core::status check_rank(const char* what, size_t rank);

/// Decodes a tensor's dtype and shape (not its elements), checking the
/// dtype code, the rank and that the element count stays below 2^40.
core::status decode_tensor_header(schema::Tensor::Reader in, core::dtype* type,
                                  core::shape* shape);

/// Decodes a tensor, checking dtype, rank, dimensions and the byte count
/// before allocating.
core::status decode_tensor(schema::Tensor::Reader in, core::tensor* out);

} // namespace actorflow::ops::detail
