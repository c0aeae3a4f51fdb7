#pragma once

/// Deprecated: moved to actorflow/interop/tensorflow/saved_model.hpp
/// (namespace `actorflow::interop::tensorflow`). This forwarding header
/// keeps the old names compiling for one release and then goes.

#include "actorflow/interop/tensorflow/saved_model.hpp"
#include "actorflow/net/graph_def.hpp"

namespace actorflow::net {

using interop::tensorflow::describe_saved_model;
using interop::tensorflow::load_saved_model;
using interop::tensorflow::saved_model;
using interop::tensorflow::signature;
using interop::tensorflow::signature_tensor;

} // namespace actorflow::net
