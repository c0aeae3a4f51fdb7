"""Optimizers, as ``tf.compat.v1.train`` has them: each builds one
training step's updates with the engine's Apply* kernels."""

from . import _core
from .builders import global_variables, gradients, trainable_variables
from .graph import Operation, get_default_graph

__all__ = [
    "Saver", "Optimizer", "GradientDescentOptimizer", "MomentumOptimizer",
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


class Saver:
    """Saves and restores variables in TensorFlow's checkpoint format (a
    tensor bundle), as ``tf.compat.v1.train.Saver``: ``var_list`` a list
    (saved by node name) or a dict (by the names given); default: every
    variable of the graph."""

    def __init__(self, var_list=None, name="save"):
        graph = get_default_graph()
        if var_list is None:
            var_list = global_variables(graph)
        if isinstance(var_list, dict):
            pairs = list(var_list.items())
        else:
            pairs = [(v.op.name, v) for v in var_list]
        if not pairs:
            raise ValueError("no variables to save")
        graph = pairs[0][1].graph
        with graph._lock:
            filename, save, restore = _core.make_saver(
                graph._scope.sub(name), [(n, v._out) for n, v in pairs])
        from .graph import Tensor
        self._filename = Tensor(graph, filename)
        self._save = Operation(graph, save)
        self._restore = Operation(graph, restore)

    def save(self, sess, save_path, global_step=None):
        """Writes the checkpoint ``save_path`` (``-<global_step>`` added
        when given); returns its path."""
        if global_step is not None:
            save_path = f"{save_path}-{int(global_step)}"
        sess.run(self._save, {self._filename: str(save_path)})
        return str(save_path)

    def restore(self, sess, save_path):
        """Assigns every variable its value in the checkpoint."""
        sess.run(self._restore, {self._filename: str(save_path)})
