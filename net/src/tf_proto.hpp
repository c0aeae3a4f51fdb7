#pragma once

// Internal: between the engine's graph IR and TensorFlow's protocol
// buffers (ops/proto), for GraphDef files and event files.

#include "actorflow/core/attr_value.hpp"
#include "actorflow/core/status.hpp"
#include "graph.pb.h"

namespace actorflow::net::detail {

/// TensorFlow's DataType of `x`; DT_INVALID for `invalid`.
tfproto::DataType to_proto(core::dtype x);

void to_proto(const core::shape& x, tfproto::TensorShapeProto* out);

void to_proto(const core::tensor& x, tfproto::TensorProto* out);

void to_proto(const core::attr_value& x, tfproto::AttrValue* out);

} // namespace actorflow::net::detail
