// The parts of the extension module actorflow._core, each bound by its file.
#pragma once

#include <nanobind/nanobind.h>

namespace actorflow::python {

/// `_core.Output`, `_core.Scope` (graph building), `_core.GraphDef`
/// (imported graphs) and `_core.op_defs` (graph_bindings.cpp).
void bind_graph(nanobind::module_& m);

/// The builders that take Python functions or build many nodes: while
/// loops, conds, gradients, variables, optimizers, savers
/// (builder_bindings.cpp).
void bind_builders(nanobind::module_& m);

/// map_fn, scan, foldl, foldr and dynamic_rnn with its cells
/// (sequence_bindings.cpp).
void bind_sequences(nanobind::module_& m);

/// `_core.Session` (session_bindings.cpp).
void bind_session(nanobind::module_& m);

/// `_core.SavedModel` (saved_model_bindings.cpp).
void bind_saved_models(nanobind::module_& m);

/// `_core.EventWriter` (summary_bindings.cpp).
void bind_summaries(nanobind::module_& m);

} // namespace actorflow::python
