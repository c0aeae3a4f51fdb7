"""The functions people call most, by TensorFlow's names (``af.matmul``,
``af.add``, ``af.nn``-style activations), over the generated op functions;
the ``Tensor`` operators use them."""

from . import graph as _graph
from . import ops as _ops

__all__ = [
    "add", "subtract", "multiply", "divide", "matmul", "negative", "pow",
    "square", "sqrt", "exp", "log", "tanh", "sigmoid", "relu", "softmax",
    "reduce_sum", "reduce_mean", "reduce_max", "reshape", "identity",
    "less", "less_equal", "greater", "greater_equal", "equal",
    "logical_and", "logical_or", "logical_not", "cast", "zeros", "ones",
    "fill", "shape", "concat", "stack", "zeros_like", "ones_like",
]


def add(x, y, name=None):
    return _ops.add_v2(x, y, name=name)


def subtract(x, y, name=None):
    return _ops.sub(x, y, name=name)


def multiply(x, y, name=None):
    return _ops.mul(x, y, name=name)


def divide(x, y, name=None):
    return _ops.real_div(x, y, name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    return _ops.mat_mul(a, b, transpose_a=transpose_a,
                        transpose_b=transpose_b, name=name)


def negative(x, name=None):
    return _ops.neg(x, name=name)


def pow(x, y, name=None):  # noqa: A001 (tf.pow)
    return _ops.pow(x, y, name=name)


def square(x, name=None):
    return _ops.square(x, name=name)


def sqrt(x, name=None):
    return _ops.sqrt(x, name=name)


def exp(x, name=None):
    return _ops.exp(x, name=name)


def log(x, name=None):
    return _ops.log(x, name=name)


def tanh(x, name=None):
    return _ops.tanh(x, name=name)


def sigmoid(x, name=None):
    return _ops.sigmoid(x, name=name)


def relu(x, name=None):
    return _ops.relu(x, name=name)


def softmax(logits, name=None):
    return _ops.softmax(logits, name=name)


def _axes(x, axis):
    if axis is None:
        rank = len(_graph.convert_to_tensor(x).shape or ())
        return list(range(rank))
    return axis


def reduce_sum(x, axis=None, keepdims=False, name=None):
    x = _graph.convert_to_tensor(x)
    return _ops.sum(x, _graph.convert_to_tensor(_axes(x, axis), "int32"),
                    keep_dims=keepdims, name=name)


def reduce_mean(x, axis=None, keepdims=False, name=None):
    x = _graph.convert_to_tensor(x)
    return _ops.mean(x, _graph.convert_to_tensor(_axes(x, axis), "int32"),
                     keep_dims=keepdims, name=name)


def reduce_max(x, axis=None, keepdims=False, name=None):
    x = _graph.convert_to_tensor(x)
    return _ops.max(x, _graph.convert_to_tensor(_axes(x, axis), "int32"),
                    keep_dims=keepdims, name=name)


def reshape(x, shape, name=None):
    return _ops.reshape(x, _graph.convert_to_tensor(shape, "int32"),
                        name=name)


def identity(x, name=None):
    return _ops.identity(x, name=name)


def less(x, y, name=None):
    return _ops.less(x, y, name=name)


def less_equal(x, y, name=None):
    return _ops.less_equal(x, y, name=name)


def greater(x, y, name=None):
    return _ops.greater(x, y, name=name)


def greater_equal(x, y, name=None):
    return _ops.greater_equal(x, y, name=name)


def equal(x, y, name=None):
    return _ops.equal(x, y, name=name)


def logical_and(x, y, name=None):
    return _ops.logical_and(x, y, name=name)


def logical_or(x, y, name=None):
    return _ops.logical_or(x, y, name=name)


def logical_not(x, name=None):
    return _ops.logical_not(x, name=name)


def cast(x, dtype, name=None):
    from .dtypes import as_dtype
    return _ops.cast(x, DstT=as_dtype(dtype).name, name=name)


def fill(dims, value, name=None):
    return _ops.fill(_graph.convert_to_tensor(dims, "int32"), value,
                     name=name)


def zeros(shape, dtype="float32", name=None):
    from .dtypes import as_dtype
    return fill(shape, _graph.convert_to_tensor(0, as_dtype(dtype)),
                name=name)


def ones(shape, dtype="float32", name=None):
    from .dtypes import as_dtype
    return fill(shape, _graph.convert_to_tensor(1, as_dtype(dtype)),
                name=name)


def zeros_like(x, name=None):
    return _ops.zeros_like(x, name=name)


def ones_like(x, name=None):
    return _ops.ones_like(x, name=name)


def shape(x, name=None):
    return _ops.shape(x, name=name)


def concat(values, axis, name=None):
    return _ops.concat_v2(list(values), _graph.convert_to_tensor(axis,
                                                                 "int32"),
                          name=name)


def stack(values, axis=0, name=None):
    return _ops.pack(list(values), axis=axis, name=name)


_graph._operators.update(
    add=add, sub=subtract, mul=multiply, div=divide, matmul=matmul,
    neg=negative, pow=pow, less=less, less_equal=less_equal,
    greater=greater, greater_equal=greater_equal, logical_and=logical_and,
    logical_or=logical_or, logical_not=logical_not)
