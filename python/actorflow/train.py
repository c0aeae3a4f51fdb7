"""Optimizers, as ``tf.compat.v1.train`` has them: each builds one
training step's updates with the engine's Apply* kernels."""

from . import _core
from . import ops as _ops
from .array_ops import cast
from .builders import gradients
from .variables import trainable_variables
from .graph import Operation, Tensor
from .saver import (CheckpointState, Saver, checkpoint_exists,
                    get_checkpoint_state, latest_checkpoint,
                    update_checkpoint_state)
from .summary_iterator import summary_iterator
from .training_util import *  # noqa: F401,F403 (global step, decays)
from .training_util import __all__ as _util_names

__all__ = [
    "Saver", "Optimizer", "GradientDescentOptimizer", "MomentumOptimizer",
    "AdagradOptimizer", "RMSPropOptimizer", "AdamOptimizer",
    "latest_checkpoint", "get_checkpoint_state", "checkpoint_exists",
    "update_checkpoint_state", "CheckpointState", "summary_iterator",
] + _util_names


class Optimizer:
    """An update rule (``kind``: sgd, momentum, nesterov, adagrad, rmsprop,
    adam) and its hyper-parameters."""

    def __init__(self, kind, name, **options):
        self._kind = kind
        self._name = name
        self._slots = []
        self._options = {}
        for k, v in options.items():
            if isinstance(v, Tensor) and k != "learning_rate":
                raise ValueError(f"{type(self).__name__}: {k} as a Tensor "
                                 "is not supported by actorflow.compat.v1 "
                                 "(learning_rate is)")
            self._options[k] = v if isinstance(v, Tensor) else float(v)

    def _core_options(self, dtype):
        """The options as the extension module takes them: a learning-rate
        Tensor of the variables' dtype."""
        out = dict(self._options)
        lr = out.get("learning_rate")
        if isinstance(lr, Tensor):
            out["learning_rate"] = cast(lr, dtype)._out
        return out

    def compute_gradients(self, loss, var_list=None, gate_gradients=1,
                          aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        """[(gradient or None, variable)] for ``var_list`` (default: the
        graph's trainable variables)."""
        _refuse("aggregation_method", aggregation_method, None)
        var_list = self._vars(loss, var_list)
        grads = gradients(loss, var_list,
                          None if grad_loss is None else [grad_loss])
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The Operation that applies ``grads_and_vars`` (and adds one to
        ``global_step`` after, when given). The slots it makes
        (``var/Momentum``, ...) join the global variables."""
        grads_and_vars = list(grads_and_vars)
        if not any(g is not None for g, _ in grads_and_vars):
            raise ValueError("No gradients provided for any variable: "
                             f"{[v.name for _, v in grads_and_vars]}")
        graph = grads_and_vars[0][1].graph
        with graph._lock:
            start = graph.num_nodes
            node = _core.apply_gradients(
                graph._scope.sub(name or self._name),
                [None if g is None else g._out for g, _ in grads_and_vars],
                [v._out for _, v in grads_and_vars], self._kind,
                self._core_options(grads_and_vars[0][1].dtype))
            self._adopt_slots(graph, start)
        return self._count_step(Operation(graph, node), global_step, name)

    def minimize(self, loss, global_step=None, var_list=None,
                 gate_gradients=1, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None,
                 grad_loss=None):
        """The Operation that runs one training step on ``loss``."""
        _refuse("aggregation_method", aggregation_method, None)
        if grad_loss is not None:
            return self.apply_gradients(
                self.compute_gradients(loss, var_list, grad_loss=grad_loss),
                global_step, name)
        var_list = self._vars(loss, var_list)
        graph = loss.graph
        with graph._lock:
            start = graph.num_nodes
            node = _core.minimize(graph._scope.sub(name or self._name),
                                  loss._out, [v._out for v in var_list],
                                  self._kind,
                                  self._core_options(var_list[0].dtype))
            self._adopt_slots(graph, start)
        return self._count_step(Operation(graph, node), global_step, name)

    def get_slot_names(self):
        """The names of the slots this optimizer makes for a variable."""
        return list(_SLOTS[self._kind])

    def get_slot(self, var, name):
        """The slot ``name`` of ``var`` (None if none was made)."""
        for v in self._slots:
            if v.op.name == f"{var.op.name}/{_SLOT_NODES[self._kind][name]}":
                return v
        return None

    def variables(self):
        """The variables this optimizer made: slots and accumulators."""
        return list(self._slots)

    def _adopt_slots(self, graph, start):
        self._slots += graph._adopt_variables(start)

    def _count_step(self, train, global_step, name):
        if global_step is None:
            return train
        graph = train.graph
        with graph.control_dependencies([train]):
            step = _ops.assign_add(global_step,
                                   _ops.cast(1, DstT=global_step.dtype),
                                   name=name or self._name)
        return step.op

    @staticmethod
    def _vars(loss, var_list):
        if not isinstance(loss, Tensor):
            raise TypeError(f"loss must be a Tensor, got {loss!r}")
        var_list = list(var_list) if var_list is not None else \
            trainable_variables(graph=loss.graph)
        if not var_list:
            raise ValueError("no variables to optimize")
        return var_list


class GradientDescentOptimizer(Optimizer):
    def __init__(self, learning_rate, use_locking=False,
                 name="GradientDescent"):
        super().__init__("sgd", name, learning_rate=learning_rate)


class MomentumOptimizer(Optimizer):
    def __init__(self, learning_rate, momentum, use_locking=False,
                 name="Momentum", use_nesterov=False):
        super().__init__("nesterov" if use_nesterov else "momentum", name,
                         learning_rate=learning_rate, momentum=momentum)


class AdagradOptimizer(Optimizer):
    def __init__(self, learning_rate, initial_accumulator_value=0.1,
                 use_locking=False, name="Adagrad"):
        super().__init__("adagrad", name, learning_rate=learning_rate,
                         initial_accumulator_value=initial_accumulator_value)


class RMSPropOptimizer(Optimizer):
    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, name="RMSProp"):
        if centered:
            raise ValueError("RMSPropOptimizer: centered=True is not "
                             "supported by actorflow.compat.v1")
        super().__init__("rmsprop", name, learning_rate=learning_rate,
                         rho=decay, momentum=momentum, epsilon=epsilon)


class AdamOptimizer(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__("adam", name, learning_rate=learning_rate,
                         beta1=beta1, beta2=beta2, epsilon=epsilon)


def _refuse(name, value, supported):
    if value != supported:
        raise ValueError(f"{name}={value!r} is not supported by "
                         f"actorflow's optimizers (only {supported!r})")


# The slots each rule makes, by TensorFlow's slot names, and the node name
# each has under its variable (var/Momentum, var/RMSProp_1, ...).
_SLOT_NODES = {
    "sgd": {}, "momentum": {"momentum": "Momentum"},
    "nesterov": {"momentum": "Momentum"}, "adagrad": {"accumulator": "Adagrad"},
    "rmsprop": {"rms": "RMSProp", "momentum": "RMSProp_1"},
    "adam": {"m": "Adam", "v": "Adam_1"},
}
_SLOTS = {k: tuple(v) for k, v in _SLOT_NODES.items()}


def __getattr__(name):
    from ._missing import missing
    raise missing(__name__, "tf.train", name, globals())
