#pragma once

/// The umbrella header: everything an application needs to build graphs,
/// differentiate and train them, save and load them, and run them in
/// sessions; and what a team with its own CAF actor system needs to talk to
/// a session actor (the typed protocol and its messages in
/// `actors/protocol.hpp`, `core::from_error` for the errors it answers).
///
/// ~~~
/// #include "actorflow/actorflow.hpp"
/// ~~~

#include "actorflow/actors/cancellation.hpp"
#include "actorflow/actors/checkpoint_manager.hpp"
#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/protocol.hpp"
#include "actorflow/actors/queue_runner.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/core/build_info.hpp"
#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/dot.hpp"
#include "actorflow/graph/gradient_registry.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/io_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/queue.hpp"
#include "actorflow/graph/scope.hpp"
#include "actorflow/graph/scope_guard.hpp"
#include "actorflow/graph/summary_ops.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "actorflow/net/graph_codec.hpp"
#include "actorflow/net/graph_def.hpp"
#include "actorflow/net/summary_writer.hpp"
