#pragma once

/// Deprecated: moved to actorflow/interop/tensorflow/graph_def.hpp
/// (namespace `actorflow::interop::tensorflow`; `load_any_graph` to
/// actorflow/interop/any_graph.hpp). This forwarding header keeps the old
/// names compiling for one release and then goes.

#include "actorflow/interop/any_graph.hpp"
#include "actorflow/interop/tensorflow/graph_def.hpp"

namespace actorflow::net {

using interop::load_any_graph;
using interop::tensorflow::describe_missing_ops;
using interop::tensorflow::find_missing_ops;
using interop::tensorflow::from_graph_def;
using interop::tensorflow::graph_def_format;
using interop::tensorflow::is_graph_def_path;
using interop::tensorflow::load_graph_def;
using interop::tensorflow::missing_op;
using interop::tensorflow::save_graph_def;
using interop::tensorflow::to_graph_def;

} // namespace actorflow::net
