#pragma once

/// Inlining TensorFlow's function calls and lowering its functional
/// control flow (While, If, Case) onto frames, for the importers.

#include <string>
#include <vector>

#include "actorflow/core/node_def.hpp"
#include "actorflow/core/status.hpp"
#include "tensorflow/function_library.hpp"

namespace actorflow::interop::tensorflow::detail {

/// Whether nodes of op `op` call functions of `lib`: TensorFlow's
/// PartitionedCall, StatefulPartitionedCall, While, StatelessWhile, If,
/// StatelessIf, Case, StatelessCase, or a function's own name.
bool calls_function(const std::string& op, const function_library& lib);

/// Replaces each node of `nodes` that calls a function of `lib` by the
/// function's body, as TensorFlow's function inlining and control-flow
/// lowering do, so that only ops with kernels remain:
///
/// - a call (`PartitionedCall`, `StatefulPartitionedCall` with attr `f`, or
///   a node whose op is a function's name) becomes the body, each argument
///   an Identity of the call's input;
/// - `While`/`StatelessWhile` (attrs `cond`, `body`, `parallel_iterations`)
///   becomes a loop of Enter, Merge, LoopCond, Switch, Exit and
///   NextIteration in a frame named after the node, `cond` and `body`
///   inlined into it, so iterations run in flight as any loop's;
/// - `If`/`StatelessIf` (`then_branch`, `else_branch`) switches its inputs
///   on the predicate, inlines each branch on its side and merges the
///   results; `Case`/`StatelessCase` (`branches`) is a chain of those, an
///   index out of range taking the last branch.
///
/// Each call keeps its name: a node of that name (an IdentityN of the
/// results, waiting for the control results) stands where it stood, so
/// `call:i` and `^call` mean what they meant. Calls inside bodies expand
/// too; a function that calls itself is `invalid_argument`, as is a call
/// of a function `lib` lacks or of the wrong number of inputs.
core::status expand_functions(const function_library& lib,
                              std::vector<core::node_def>* nodes);

} // namespace actorflow::interop::tensorflow::detail
