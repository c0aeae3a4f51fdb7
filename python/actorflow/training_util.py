"""The global step and learning-rate schedules of ``tf.compat.v1.train``:
``get_or_create_global_step``, ``exponential_decay``,
``piecewise_constant``, ``polynomial_decay``, ``inverse_time_decay``,
``natural_exp_decay`` (not cosine_decay: the engine has no Cos op)."""

from . import ops as _ops
from .array_ops import cast
from .graph import GraphKeys, Tensor, convert_to_tensor as _t
from .graph import get_default_graph
from .variable_scope import get_variable
from . import init_ops

__all__ = [
    "global_step", "get_global_step", "create_global_step",
    "get_or_create_global_step", "assert_global_step", "exponential_decay",
    "piecewise_constant", "polynomial_decay", "inverse_time_decay",
    "natural_exp_decay",
]


def get_global_step(graph=None):
    """The graph's global step variable, or None."""
    steps = (graph or get_default_graph()).get_collection(
        GraphKeys.GLOBAL_STEP)
    if len(steps) > 1:
        raise TypeError("more than one variable in the GLOBAL_STEP "
                        "collection")
    return steps[0] if steps else None


def create_global_step(graph=None):
    """Makes the global step: an int64 scalar variable ``global_step``,
    not trainable, in ``GLOBAL_STEP``."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default():
        return get_variable(
            GraphKeys.GLOBAL_STEP, [], "int64", init_ops.zeros_initializer(),
            trainable=False, collections=[GraphKeys.GLOBAL_VARIABLES,
                                          GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    return get_global_step(graph) or create_global_step(graph)


def assert_global_step(global_step_tensor):
    if not isinstance(global_step_tensor, Tensor) or \
            not global_step_tensor.dtype.is_integer or \
            global_step_tensor.shape.ndims != 0:
        raise TypeError(f"{global_step_tensor!r} is not an integer scalar "
                        "global step")


def global_step(sess, global_step_tensor):
    """The global step's value, an int."""
    return int(sess.run(global_step_tensor))


def _float(x, dtype="float32"):
    return cast(x, dtype) if isinstance(x, Tensor) else _t(float(x), dtype)


def _check_step(global_step):
    if global_step is None:
        raise ValueError("global_step is required for a learning-rate "
                         "schedule")


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate,
                      staircase=False, name=None):
    """learning_rate * decay_rate ** (global_step / decay_steps) (the
    exponent floored with ``staircase``)."""
    _check_step(global_step)
    graph = get_default_graph()
    with graph.name_scope(name or "ExponentialDecay"):
        lr = _float(learning_rate)
        p = _ops.real_div(_float(global_step), _float(decay_steps))
        if staircase:
            p = _ops.floor(p)
        return _ops.mul(lr, _ops.pow(_float(decay_rate), p), name="")


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate,
                       staircase=False, name=None):
    _check_step(global_step)
    graph = get_default_graph()
    with graph.name_scope(name or "InverseTimeDecay"):
        p = _ops.real_div(_float(global_step), _float(decay_steps))
        if staircase:
            p = _ops.floor(p)
        denom = _ops.add_v2(_t(1.0), _ops.mul(_float(decay_rate), p))
        return _ops.real_div(_float(learning_rate), denom, name="")


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate,
                      staircase=False, name=None):
    _check_step(global_step)
    graph = get_default_graph()
    with graph.name_scope(name or "NaturalExpDecay"):
        p = _ops.real_div(_float(global_step), _float(decay_steps))
        if staircase:
            p = _ops.floor(p)
        return _ops.mul(_float(learning_rate), _ops.exp(
            _ops.neg(_ops.mul(_float(decay_rate), p))), name="")


def polynomial_decay(learning_rate, global_step, decay_steps,
                     end_learning_rate=0.0001, power=1.0, cycle=False,
                     name=None):
    _check_step(global_step)
    graph = get_default_graph()
    with graph.name_scope(name or "PolynomialDecay"):
        step = _float(global_step)
        steps = _float(decay_steps)
        if cycle:
            ratio = _ops.ceil(_ops.real_div(step, steps))
            ratio = _ops.select_v2(_ops.equal(step, _t(0.0)), _t(1.0), ratio)
            steps = _ops.mul(steps, ratio)
        else:
            step = _ops.minimum(step, steps)
        fraction = _ops.sub(_t(1.0), _ops.real_div(step, steps))
        lr, end = _float(learning_rate), _float(end_learning_rate)
        return _ops.add_v2(
            _ops.mul(_ops.sub(lr, end), _ops.pow(fraction, _float(power))),
            end, name="")


def piecewise_constant(x, boundaries, values, name=None):
    """values[i] where boundaries[i-1] < x <= boundaries[i]."""
    if len(values) != len(boundaries) + 1:
        raise ValueError("piecewise_constant: values must have one more "
                         "element than boundaries")
    graph = get_default_graph()
    with graph.name_scope(name or "PiecewiseConstant"):
        x = _t(x)
        dtype = values[0].dtype if isinstance(values[0], Tensor) else (
            "float32" if isinstance(values[0], float) else "int32")
        out = _t(values[-1], dtype)
        for b, v in reversed(list(zip(boundaries, values[:-1]))):
            below = _ops.less_equal(x, cast(b, x.dtype) if isinstance(
                b, Tensor) else _t(b, x.dtype))
            out = _ops.select_v2(below, _t(v, dtype) if not isinstance(
                v, Tensor) else v, out)
        return _ops.identity(out, name="")
