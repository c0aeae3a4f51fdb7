"""Recurrent networks, as ``tf.compat.v1.nn`` runs them: ``dynamic_rnn``
(one while loop of the engine's, many steps in flight),
``bidirectional_dynamic_rnn`` and ``static_rnn`` (the steps unrolled)."""

from . import _core
from . import dtypes as _dtypes
from . import nest
from . import ops as _ops
from .array_ops import reverse, reverse_sequence
from .graph import Tensor, convert_to_tensor
from .variable_scope import VariableScope, variable_scope

__all__ = ["dynamic_rnn", "bidirectional_dynamic_rnn", "static_rnn"]


def _scope_name(scope):
    return scope.name if isinstance(scope, VariableScope) else scope


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None,
                dtype=None, parallel_iterations=None, swap_memory=False,
                time_major=False, scope=None):
    """Runs ``cell`` over ``inputs`` ([batch, time, depth], or time-major)
    in a while loop; returns (outputs, final state in the cell's structure:
    an LSTMStateTuple for an LSTM, a tuple of the cells' for a
    MultiRNNCell). The cell's weights are made in the variable scope
    ``scope`` (default ``rnn``): ``rnn/lstm_cell/kernel``."""
    inputs = convert_to_tensor(inputs)
    graph = inputs.graph
    if inputs.shape.ndims is None or inputs.shape[-1].value is None:
        raise ValueError("dynamic_rnn needs the inputs' depth (last "
                         "dimension) known")
    dt = _dtypes.as_dtype(dtype or inputs.dtype).name
    with graph.as_default(), variable_scope(scope or "rnn"):
        core = cell._built(graph, inputs)
    with graph._lock:
        # The builder names its loop rnn/...; another scope goes in front.
        name = _scope_name(scope)
        s = graph._scope if name is None else graph._scope.sub(name)
        lengths = None if sequence_length is None else convert_to_tensor(
            sequence_length, "int32", graph=graph)._out
        state = [] if initial_state is None else [
            convert_to_tensor(x, dt, graph=graph)._out
            for x in nest.flatten(initial_state)]
        outputs, final = _core.dynamic_rnn(
            s, core, inputs._out, lengths, state, time_major,
            parallel_iterations or 32)
    # The static shapes TensorFlow infers: [batch, time, output] (or
    # time-major) and [batch, width] for each part of the state.
    batch, steps = (inputs.shape[1], inputs.shape[0]) if time_major else (
        inputs.shape[0], inputs.shape[1])
    out = Tensor(graph, outputs)
    out.set_shape([steps, batch, cell.output_size] if time_major
                  else [batch, steps, cell.output_size])
    parts = tuple(Tensor(graph, p) for p in final)
    for p, width in zip(parts, nest.flatten(cell.state_size)):
        p.set_shape([batch, width])
    return out, cell._state(parts)


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None,
                              dtype=None, parallel_iterations=None,
                              swap_memory=False, time_major=False,
                              scope=None):
    """((outputs forward, outputs backward), (state forward, state
    backward)): ``cell_bw`` runs over the sequences reversed (each to its
    length), its outputs put back in order. Weights in
    ``bidirectional_rnn/fw/...`` and ``.../bw/...``."""
    inputs = convert_to_tensor(inputs)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)

    def flipped(x):
        if sequence_length is None:
            return reverse(x, [time_axis])
        return reverse_sequence(x, sequence_length, seq_axis=time_axis,
                                batch_axis=batch_axis)

    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw:
            out_fw, state_fw = dynamic_rnn(
                cell_fw, inputs, sequence_length, initial_state_fw, dtype,
                parallel_iterations, swap_memory, time_major, scope=fw)
        with variable_scope("bw") as bw:
            out_bw, state_bw = dynamic_rnn(
                cell_bw, flipped(inputs), sequence_length, initial_state_bw,
                dtype, parallel_iterations, swap_memory, time_major,
                scope=bw)
    return (out_fw, flipped(out_bw)), (state_fw, state_bw)


def static_rnn(cell, inputs, initial_state=None, dtype=None,
               sequence_length=None, scope=None):
    """The cell unrolled over ``inputs``, a list of [batch, depth]
    Tensors: (the list of outputs, the final state)."""
    if sequence_length is not None:
        raise ValueError("static_rnn: sequence_length is not supported by "
                         "actorflow.compat.v1 (dynamic_rnn takes it)")
    inputs = [convert_to_tensor(x) for x in inputs]
    if not inputs:
        raise ValueError("static_rnn: inputs must not be empty")
    state = initial_state
    if state is None:
        if dtype is None:
            raise ValueError("static_rnn: give initial_state or dtype")
        batch = inputs[0].shape[0].value
        if batch is None:
            batch = _ops.strided_slice(
                _ops.shape(inputs[0]), convert_to_tensor([0], "int32"),
                convert_to_tensor([1], "int32"),
                convert_to_tensor([1], "int32"), shrink_axis_mask=1)
        state = cell.zero_state(batch, dtype)
    outputs = []
    with variable_scope(scope or "rnn"):
        for x in inputs:
            out, state = cell(x, state)
            outputs.append(out)
    return outputs, state
