#pragma once

// Internal: restores the variables a SavedModel's own restore function
// leaves out, by their paths in its object graph.

#include "actorflow/core/status.hpp"
#include "actorflow/interop/tensorflow/saved_model.hpp"

namespace actorflow::tfproto {
class MetaGraphDef;
} // namespace actorflow::tfproto

namespace actorflow::interop::tensorflow::detail {

/// Adds to `m` the restore of every variable that the signatures read but
/// the meta graph's restore function (its saver_def) does not assign, and
/// makes `m->restore_op` run both. Keras 3 saves a layer's variables that
/// way when a `tf.Module` tracks them: the restore function assigns copies
/// of them, and TensorFlow's own loader restores the originals through the
/// object graph. Each such variable (a VarHandleOp whose shared name is a
/// saved variable's name, one of that name) is read from the bundle under
/// its object path (`dense/_kernel/.ATTRIBUTES/VARIABLE_VALUE`).
core::status add_object_graph_restores(const tfproto::MetaGraphDef& mg,
                                       saved_model* m);

} // namespace actorflow::interop::tensorflow::detail
