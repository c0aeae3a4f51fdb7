"""``tf.compat.v1.nn.rnn_cell``: BasicRNNCell, LSTMCell, BasicLSTMCell,
GRUCell, MultiRNNCell and DropoutWrapper over the engine's cells. A cell's
weights are made by ``get_variable`` at its first use, in the variable
scope around it (``rnn/lstm_cell/kernel``), with the scope's initializer
if it has one, as TensorFlow makes them; a cell is called as
``output, state = cell(inputs, state)`` or run by ``dynamic_rnn``."""

import collections

from . import _core
from . import init_ops
from . import nest
from .graph import Tensor, convert_to_tensor
from .variable_scope import get_variable, variable_scope

__all__ = [
    "RNNCell", "BasicRNNCell", "LSTMCell", "BasicLSTMCell", "GRUCell",
    "MultiRNNCell", "DropoutWrapper", "LSTMStateTuple",
]

LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))
LSTMStateTuple.__doc__ = "An LSTM's state: the cell ``c`` and output ``h``."


def _tanh_only(activation, cell):
    if activation is None:
        return
    from .nn_ops import tanh
    from .math import tanh as math_tanh
    if activation not in (tanh, math_tanh):
        raise ValueError(f"{cell}: activation={activation!r} is not "
                         "supported by actorflow.compat.v1 (tanh only)")


class RNNCell:
    """What every cell has: ``state_size``, ``output_size``,
    ``zero_state``, ``__call__`` and its weights (``variables``)."""

    def __call__(self, inputs, state, scope=None):
        """One step: (output, next state), the state in the cell's
        structure."""
        inputs = convert_to_tensor(inputs)
        graph = inputs.graph
        core = self._built(graph, inputs, scope)
        parts = [convert_to_tensor(s, graph=graph)._out
                 for s in nest.flatten(state)]
        with graph._lock:
            out, nxt = _core.cell_step(graph._scope, core, inputs._out, parts)
        return Tensor(graph, out), self._state(
            tuple(Tensor(graph, p) for p in nxt))

    def _built(self, graph, inputs, scope=None):
        """The engine's cell, its weights made when first needed: in a
        variable scope of ``scope`` or the cell's own name, inside the
        current one."""
        if self._core is None:
            depth = inputs.shape[-1].value if inputs.shape.ndims else None
            if depth is None:
                raise ValueError(f"{type(self).__name__}: the inputs' depth "
                                 "(last dimension) must be known")
            with graph.as_default():
                self._core = self._build_at(depth, inputs.dtype, scope)
        return self._core

    def _build_at(self, depth, dtype, scope=None):
        if self._core is None:
            with variable_scope(scope, default_name=self._name):
                self._core = self._build(depth, dtype)
        return self._core

    def zero_state(self, batch_size, dtype):
        """The state of zeros, [batch_size, width] each part."""
        from .array_ops import zeros
        sizes = nest.flatten(self.state_size)
        parts = [zeros([batch_size, n] if not isinstance(batch_size, Tensor)
                       else _stack_shape(batch_size, n), dtype)
                 for n in sizes]
        return self._state(tuple(parts))

    @property
    def weights(self):
        """The cell's variables (after its first use), for var_list."""
        return list(self._weights)

    trainable_variables = weights
    variables = weights
    trainable_weights = weights


def _stack_shape(batch, n):
    from . import ops as _ops
    return _ops.pack([batch, convert_to_tensor(n, batch.dtype)])


class _EngineCell(RNNCell):
    """A cell the engine computes; its weights come at its first use."""

    kind = None
    default_name = None

    def __init__(self, num_units, activation=None, reuse=None, name=None,
                 dtype=None, seed=None):
        _tanh_only(activation, type(self).__name__)
        self.num_units = num_units
        self._name = name or self.default_name
        self._seed = seed
        self._core = None
        self._weights = []

    def _kernel_initializer(self):
        """None (the scope's, else Glorot uniform), or Glorot uniform with
        actorflow's ``seed`` argument."""
        if self._seed is None:
            return None
        return init_ops.glorot_uniform_initializer(seed=self._seed)

    def _variable(self, name, shape, dtype, initializer):
        v = get_variable(name, shape, dtype, initializer)
        self._weights.append(v)
        return v

    @property
    def output_size(self):
        return self.num_units

    @property
    def state_size(self):
        return self.num_units

    def _state(self, parts):
        """The cell's state structure from its flat parts."""
        return parts[0]

    def _forget_bias(self):
        return 1.0

    def _build(self, depth, dtype):
        units = self.num_units
        weights = [
            self._variable("kernel", [depth + units, units * self._gates],
                           dtype, self._kernel_initializer()),
            self._variable("bias", [units * self._gates], dtype,
                           init_ops.zeros_initializer())]
        return _core.cell_of(self.kind, [w._out for w in weights],
                             self._forget_bias())


class BasicRNNCell(_EngineCell):
    """h' = tanh([x, h] @ kernel + bias)."""
    kind = "basic"
    default_name = "basic_rnn_cell"
    _gates = 1


class LSTMCell(_EngineCell):
    """TensorFlow's LSTMCell without peepholes or projection; the state is
    an ``LSTMStateTuple(c, h)``."""
    kind = "lstm"
    default_name = "lstm_cell"
    _gates = 4

    def __init__(self, num_units, use_peepholes=False, cell_clip=None,
                 initializer=None, num_proj=None, proj_clip=None,
                 num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, seed=None):
        for arg, value, plain in (("use_peepholes", use_peepholes, False),
                                  ("cell_clip", cell_clip, None),
                                  ("num_proj", num_proj, None),
                                  ("proj_clip", proj_clip, None),
                                  ("state_is_tuple", state_is_tuple, True)):
            if value != plain:
                raise ValueError(f"LSTMCell: {arg}={value!r} is not "
                                 "supported by actorflow.compat.v1")
        super().__init__(num_units, activation, reuse, name, dtype, seed)
        self._initializer = initializer
        self.forget_bias = forget_bias

    def _kernel_initializer(self):
        return self._initializer or super()._kernel_initializer()

    def _forget_bias(self):
        return self.forget_bias

    @property
    def state_size(self):
        return LSTMStateTuple(self.num_units, self.num_units)

    def _state(self, parts):
        return LSTMStateTuple(*parts)


class BasicLSTMCell(LSTMCell):
    """TensorFlow's BasicLSTMCell: LSTMCell's computation, its own name."""
    default_name = "basic_lstm_cell"

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None,
                 seed=None):
        super().__init__(num_units, forget_bias=forget_bias,
                         state_is_tuple=state_is_tuple, activation=activation,
                         reuse=reuse, name=name, dtype=dtype, seed=seed)


class GRUCell(_EngineCell):
    """TensorFlow's GRUCell: gates (their bias 1 by default) and a
    candidate."""
    kind = "gru"
    default_name = "gru_cell"

    def __init__(self, num_units, activation=None, reuse=None,
                 kernel_initializer=None, bias_initializer=None, name=None,
                 dtype=None, seed=None):
        super().__init__(num_units, activation, reuse, name, dtype, seed)
        self._kernel_init = kernel_initializer
        self._bias_init = bias_initializer

    def _kernel_initializer(self):
        return self._kernel_init or super()._kernel_initializer()

    def _build(self, depth, dtype):
        units = self.num_units
        weights = []
        for part, width, bias in (
                ("gates", 2 * units, init_ops.constant_initializer(1.0)),
                ("candidate", units, init_ops.zeros_initializer())):
            with variable_scope(part):
                weights.append(self._variable(
                    "kernel", [depth + units, width], dtype,
                    self._kernel_initializer()))
                weights.append(self._variable(
                    "bias", [width], dtype, self._bias_init or bias))
        return _core.cell_of("gru", [w._out for w in weights])


def _num_parts(cell):
    """How many tensors a cell's state has when flat."""
    return len(nest.flatten(cell.state_size))


class MultiRNNCell(RNNCell):
    """``cells`` stacked: each one's output is the next one's input; the
    state is a tuple of the cells' states."""

    def __init__(self, cells, state_is_tuple=True):
        if not state_is_tuple:
            raise ValueError("MultiRNNCell: state_is_tuple=False is not "
                             "supported by actorflow.compat.v1")
        self.cells = list(cells)
        self._name = "multi_rnn_cell"
        self._core = None

    def _build(self, depth, dtype):
        built = []
        for k, c in enumerate(self.cells):
            with variable_scope(f"cell_{k}"):
                built.append(c._build_at(depth, dtype))
            depth = c.output_size
        return _core.multi_cell(built)

    @property
    def output_size(self):
        return self.cells[-1].output_size

    @property
    def state_size(self):
        return tuple(c.state_size for c in self.cells)

    def _state(self, parts):
        out, at = [], 0
        for c in self.cells:
            n = _num_parts(c)
            out.append(c._state(parts[at:at + n]))
            at += n
        return tuple(out)

    @property
    def weights(self):
        return [w for c in self.cells for w in c.weights]

    trainable_variables = weights
    variables = weights
    trainable_weights = weights


class DropoutWrapper:
    """Kept for programs that wrap cells: with keep probabilities of 1 (the
    only ones supported: dropout between steps is not) it is the cell
    itself."""

    def __new__(cls, cell, input_keep_prob=1.0, output_keep_prob=1.0,
                state_keep_prob=1.0, variational_recurrent=False,
                input_size=None, dtype=None, seed=None):
        for arg, value in (("input_keep_prob", input_keep_prob),
                           ("output_keep_prob", output_keep_prob),
                           ("state_keep_prob", state_keep_prob)):
            if isinstance(value, Tensor) or value != 1.0:
                raise ValueError(f"DropoutWrapper: {arg} other than 1.0 is "
                                 "not supported by actorflow.compat.v1")
        return cell
