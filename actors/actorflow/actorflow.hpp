#pragma once

/// The umbrella header: everything an application needs to build graphs
/// (every builder: control flow, RNNs, TensorArrays, mixtures of experts,
/// pipelines, RBMs, optimizers, collectives), differentiate and train
/// them, save and load them (graph files, GraphDefs, SavedModels), and run
/// them in sessions, in one process or a cluster (placing replicas and
/// compiling runs by hand included); and what a team with its
/// own CAF actor system needs to talk to a session actor (the typed
/// protocol and its messages in `actorflow/actors/protocol.hpp`,
/// `core::from_error` for the errors it answers). tests/umbrella_header.cmake
/// checks that it leaves none of the public headers out.
///
/// ~~~
/// #include "actorflow/actorflow.hpp"
/// ~~~

#include "actorflow/actors/cancellation.hpp"
#include "actorflow/actors/checkpoint_manager.hpp"
#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/metrics.hpp"
#include "actorflow/actors/protocol.hpp"
#include "actorflow/actors/queue_runner.hpp"
#include "actorflow/actors/runtime_context.hpp"
#include "actorflow/actors/saved_model_session.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/actors/session_options.hpp"
#include "actorflow/actors/slurm_cluster.hpp"
#include "actorflow/actors/step_stats.hpp"
#include "actorflow/actors/tf_config.hpp"
#include "actorflow/actors/tls_files.hpp"
#include "actorflow/actors/worker_ref.hpp"
#include "actorflow/core/build_info.hpp"
#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/collective_ops.hpp"
#include "actorflow/graph/compile_run.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/dispatch_ops.hpp"
#include "actorflow/graph/dot.hpp"
#include "actorflow/graph/functional_ops.hpp"
#include "actorflow/graph/gradient_registry.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/graph_passes.hpp"
#include "actorflow/graph/io_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/moe.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/pipeline.hpp"
#include "actorflow/graph/placement.hpp"
#include "actorflow/graph/queue.hpp"
#include "actorflow/graph/rbm.hpp"
#include "actorflow/graph/rnn.hpp"
#include "actorflow/graph/scope.hpp"
#include "actorflow/graph/scope_guard.hpp"
#include "actorflow/graph/summary_ops.hpp"
#include "actorflow/graph/tensor_array.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "actorflow/graph/validate.hpp"
#include "actorflow/interop/any_graph.hpp"
#include "actorflow/interop/npy.hpp"
#include "actorflow/interop/summary_writer.hpp"
#include "actorflow/interop/tensorflow/graph_def.hpp"
#include "actorflow/interop/tensorflow/saved_model.hpp"
#include "actorflow/net/graph_codec.hpp"
