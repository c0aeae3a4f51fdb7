"""Optimizers, as ``tf.compat.v1.train`` has them: each builds one
training step's updates with the engine's Apply* kernels."""

from . import _core
from .builders import gradients, trainable_variables
from .graph import Operation

__all__ = [
    "Optimizer", "GradientDescentOptimizer", "MomentumOptimizer",
    "AdagradOptimizer", "RMSPropOptimizer", "AdamOptimizer",
]


class Optimizer:
    """An update rule (``kind``: sgd, momentum, nesterov, adagrad, rmsprop,
    adam) and its hyper-parameters."""

    def __init__(self, kind, name, **options):
        self._kind = kind
        self._name = name
        self._options = {k: float(v) for k, v in options.items()}

    def compute_gradients(self, loss, var_list=None):
        """[(gradient or None, variable)] for ``var_list`` (default: the
        graph's trainable variables)."""
        var_list = self._vars(loss, var_list)
        return list(zip(gradients(loss, var_list), var_list))

    def apply_gradients(self, grads_and_vars, name=None):
        """The Operation that applies ``grads_and_vars``."""
        grads_and_vars = list(grads_and_vars)
        graph = grads_and_vars[0][1].graph
        with graph._lock:
            node = _core.apply_gradients(
                graph._scope.sub(name or self._name),
                [None if g is None else g._out for g, _ in grads_and_vars],
                [v._out for _, v in grads_and_vars], self._kind,
                self._options)
        return Operation(graph, node)

    def minimize(self, loss, var_list=None, name=None):
        """The Operation that runs one training step on ``loss``."""
        var_list = self._vars(loss, var_list)
        graph = loss.graph
        with graph._lock:
            node = _core.minimize(graph._scope.sub(name or self._name),
                                  loss._out, [v._out for v in var_list],
                                  self._kind, self._options)
        return Operation(graph, node)

    @staticmethod
    def _vars(loss, var_list):
        var_list = list(var_list) if var_list is not None else \
            trainable_variables(loss.graph)
        if not var_list:
            raise ValueError("no variables to optimize")
        return var_list


class GradientDescentOptimizer(Optimizer):
    def __init__(self, learning_rate, name="GradientDescent"):
        super().__init__("sgd", name, learning_rate=learning_rate)


class MomentumOptimizer(Optimizer):
    def __init__(self, learning_rate, momentum, use_nesterov=False,
                 name="Momentum"):
        super().__init__("nesterov" if use_nesterov else "momentum", name,
                         learning_rate=learning_rate, momentum=momentum)


class AdagradOptimizer(Optimizer):
    def __init__(self, learning_rate, initial_accumulator_value=0.1,
                 name="Adagrad"):
        super().__init__("adagrad", name, learning_rate=learning_rate,
                         initial_accumulator_value=initial_accumulator_value)


class RMSPropOptimizer(Optimizer):
    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 name="RMSProp"):
        super().__init__("rmsprop", name, learning_rate=learning_rate,
                         rho=decay, momentum=momentum, epsilon=epsilon)


class AdamOptimizer(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, name="Adam"):
        super().__init__("adam", name, learning_rate=learning_rate,
                         beta1=beta1, beta2=beta2, epsilon=epsilon)
