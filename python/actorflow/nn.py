"""Recurrent networks, as ``tf.compat.v1.nn``: ``dynamic_rnn`` over the
cells of ``af.nn.rnn_cell`` (BasicRNNCell, LSTMCell, GRUCell,
MultiRNNCell), whose weights are made on first use, when the input's
depth is known."""

import types

from . import _core
from . import dtypes as _dtypes
from .graph import Tensor, convert_to_tensor

__all__ = ["dynamic_rnn", "rnn_cell", "moe_layer"]


class _Cell:
    """A cell of the engine's; its weights come at the first dynamic_rnn."""

    kind = None

    def __init__(self, num_units, seed=None, name=None, **options):
        self.num_units = num_units
        self._seed = seed or 0
        self._name = name or type(self).__name__.lower()
        self._options = options
        self._core = None
        self._graph = None

    def _build(self, graph, scope, input_depth, dtype, index):
        if self._core is None:
            self._graph = graph
            self._core = _core.make_cell(
                scope.sub(self._name), self.kind, input_depth, self.num_units,
                dtype, self._seed, index + 1,
                self._options.get("forget_bias", 1.0))
        return self._core

    @property
    def output_size(self):
        return self.num_units

    @property
    def weights(self):
        """The cell's variables (after its first use), for var_list."""
        if self._core is None:
            return []
        return [Tensor(self._graph, w) for w in self._core.weights]

    trainable_variables = weights


class BasicRNNCell(_Cell):
    """h' = tanh([x, h] @ kernel + bias)."""
    kind = "basic"


class LSTMCell(_Cell):
    """TensorFlow's LSTMCell without peepholes or projection; the state
    is (c, h)."""
    kind = "lstm"

    def __init__(self, num_units, forget_bias=1.0, seed=None, name=None):
        super().__init__(num_units, seed, name, forget_bias=forget_bias)


BasicLSTMCell = LSTMCell


class GRUCell(_Cell):
    """TensorFlow's GRUCell."""
    kind = "gru"


class MultiRNNCell:
    """``cells`` stacked: each one's output is the next one's input."""

    def __init__(self, cells):
        self.cells = list(cells)
        self._core = None

    def _build(self, graph, scope, input_depth, dtype, index):
        if self._core is None:
            built, depth = [], input_depth
            for k, c in enumerate(self.cells):
                built.append(c._build(graph, scope.sub(f"cell_{k}"), depth,
                                      dtype, index + k))
                depth = c.output_size
            self._core = _core.multi_cell(built)
        return self._core

    @property
    def output_size(self):
        return self.cells[-1].output_size

    @property
    def weights(self):
        return [w for c in self.cells for w in c.weights]


rnn_cell = types.SimpleNamespace(
    BasicRNNCell=BasicRNNCell, LSTMCell=LSTMCell, BasicLSTMCell=LSTMCell,
    GRUCell=GRUCell, MultiRNNCell=MultiRNNCell)


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None,
                dtype=None, parallel_iterations=None, swap_memory=False,
                time_major=False, scope=None):
    """Runs ``cell`` over ``inputs`` ([batch, time, depth], or time-major)
    in a while loop; returns (outputs, final state): the state is a Tensor,
    or a tuple of its parts (an LSTM's (c, h); a MultiRNNCell's, flat)."""
    inputs = convert_to_tensor(inputs)
    graph = inputs.graph
    if inputs.shape is None or inputs.shape[-1] is None:
        raise ValueError("dynamic_rnn needs the inputs' depth (last "
                         "dimension) known")
    dt = _dtypes.as_dtype(dtype or inputs.dtype).name
    with graph._lock:
        # The builder names its loop rnn/...; the cells' weights go there.
        s = graph._scope if scope is None else graph._scope.sub(scope)
        core_cell = cell._build(graph, s.sub("rnn"), inputs.shape[-1], dt,
                                0)
        lengths = None if sequence_length is None else convert_to_tensor(
            sequence_length, "int32", graph=graph)._out
        state = [] if initial_state is None else [
            convert_to_tensor(x, graph=graph)._out for x in (
                initial_state if isinstance(initial_state, (list, tuple))
                else [initial_state])]
        outputs, final = _core.dynamic_rnn(
            s, core_cell, inputs._out, lengths, state, time_major,
            parallel_iterations or 32)
    parts = tuple(Tensor(graph, p) for p in final)
    return Tensor(graph, outputs), parts[0] if len(parts) == 1 else parts


def moe_layer(x, num_experts, output_size, expert_fn, k=2, devices=None,
              noisy_gating=True, w_importance=0.1, w_load=0.1,
              noise_scale=None, seed=0, name="moe"):
    """The sparsely-gated mixture-of-experts layer (Shazeer et al.) on x
    [batch, depth]: each example goes to its top ``k`` experts;
    ``expert_fn(rows, index)`` builds expert ``index`` on its rows
    [m, depth] and returns [m, output_size] (make its variables before, on
    its device: it runs inside the expert's cond). Experts go to
    ``devices[i % len(devices)]``. The gating weights are made here (zero).
    Returns a dict: y, loss (add it to the model's), importance, load,
    gates, rows, and the gating ``weights``."""
    from .builders import Variable
    import numpy as np
    x = convert_to_tensor(x)
    graph = x.graph
    if x.shape is None or x.shape[-1] is None:
        raise ValueError("moe_layer needs x's depth (last dimension) known")
    depth = x.shape[-1]
    dt = x.dtype.numpy_dtype
    with graph.name_scope(name):
        w_gate = Variable(np.zeros((depth, num_experts), dt), name="w_gate")
        w_noise = Variable(np.zeros((depth, num_experts), dt),
                           name="w_noise")

    def build(scope, rows, index):
        with graph._push(scope):
            return convert_to_tensor(expert_fn(Tensor(graph, rows), index),
                                     graph=graph)._out

    scale = None if noise_scale is None else convert_to_tensor(
        noise_scale, x.dtype, graph=graph)._out
    with graph._lock:
        out = _core.moe_layer(graph._scope.sub(name), x._out, w_gate._out,
                              w_noise._out, num_experts, output_size, build,
                              list(devices or []), k, noisy_gating,
                              w_importance, w_load, scale, seed, 1)
    result = {key: Tensor(graph, v) for key, v in out.items()}
    result["weights"] = [w_gate, w_noise]
    return result
