#pragma once

// Internal: between the engine's graph IR and TensorFlow's protocol
// buffers (ops/proto), for GraphDef files and event files.

#include "actorflow/core/attr_value.hpp"
#include "actorflow/core/status.hpp"
#include "graph.pb.h"
#include "tf_types.hpp"

namespace actorflow::interop::tensorflow::detail {

using ops::detail::to_proto;

void to_proto(const core::shape& x, tfproto::TensorShapeProto* out);

void to_proto(const core::tensor& x, tfproto::TensorProto* out);

void to_proto(const core::attr_value& x, tfproto::AttrValue* out);

} // namespace actorflow::interop::tensorflow::detail

namespace actorflow::interop::tensorflow::detail {

using ops::detail::from_proto;

core::status from_proto(const tfproto::TensorShapeProto& x, core::shape* out);

/// A tensor from `tensor_content` or the typed value fields (fewer values
/// than the shape holds repeat the last, TensorFlow's splat).
core::status from_proto(const tfproto::TensorProto& x, core::tensor* out);

/// An attr value of the type `type` (an op spec's: "int", "list(type)",
/// ...): the spec decides what an empty list holds.
core::status from_proto(const tfproto::AttrValue& x, const std::string& type,
                        core::attr_value* out);

} // namespace actorflow::interop::tensorflow::detail
