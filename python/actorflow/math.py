"""The functions people call most, by TensorFlow's names (``af.matmul``,
``af.add``, ``af.relu``, ``af.reduce_sum``, ...), over the generated op
functions; the ``Tensor`` operators use them."""

from . import graph as _graph
from . import ops as _ops
from .dtypes import as_dtype as _as_dtype


def _alias(name, op, doc):
    """``name(*args, name=None)``: the op function ``op`` under
    TensorFlow's name."""
    fn = getattr(_ops, op)

    def alias(*args, name=None):
        return fn(*args, name=name)

    alias.__name__ = alias.__qualname__ = name
    alias.__doc__ = f"{doc} (op {_ops._function_ops[op]})."
    return alias


_ALIASES = {  # TensorFlow's name: (op function, what it computes)
    "add": ("add_v2", "x + y"), "subtract": ("sub", "x - y"),
    "multiply": ("mul", "x * y"), "divide": ("real_div", "x / y"),
    "pow": ("pow", "x ** y"), "negative": ("neg", "-x"),
    "square": ("square", "x * x"), "sqrt": ("sqrt", "the square root"),
    "exp": ("exp", "e ** x"), "log": ("log", "the natural logarithm"),
    "tanh": ("tanh", "tanh(x)"), "sigmoid": ("sigmoid", "1 / (1 + e ** -x)"),
    "relu": ("relu", "max(x, 0)"), "softmax": ("softmax", "softmax(logits)"),
    "identity": ("identity", "x itself"), "shape": ("shape", "x's shape"),
    "zeros_like": ("zeros_like", "zeros of x's shape and dtype"),
    "ones_like": ("ones_like", "ones of x's shape and dtype"),
    "less": ("less", "x < y"), "less_equal": ("less_equal", "x <= y"),
    "greater": ("greater", "x > y"),
    "greater_equal": ("greater_equal", "x >= y"),
    "equal": ("equal", "x == y"), "logical_and": ("logical_and", "x & y"),
    "logical_or": ("logical_or", "x | y"),
    "logical_not": ("logical_not", "~x"),
}
for _name, (_op, _doc) in _ALIASES.items():
    globals()[_name] = _alias(_name, _op, _doc)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    return _ops.mat_mul(a, b, transpose_a=transpose_a,
                        transpose_b=transpose_b, name=name)


def _reduction(name, op):
    """``name(x, axis=None, keepdims=False)``: the op over ``axis`` (every
    axis when None)."""
    fn = getattr(_ops, op)

    def reduce(x, axis=None, keepdims=False, name=None):
        x = _graph.convert_to_tensor(x)
        if axis is None:
            axis = list(range(len(x.shape or ())))
        return fn(x, _graph.convert_to_tensor(axis, "int32"),
                  keep_dims=keepdims, name=name)

    reduce.__name__ = reduce.__qualname__ = name
    return reduce


reduce_sum = _reduction("reduce_sum", "sum")
reduce_mean = _reduction("reduce_mean", "mean")
reduce_max = _reduction("reduce_max", "max")


def reshape(x, shape, name=None):
    return _ops.reshape(x, _graph.convert_to_tensor(shape, "int32"),
                        name=name)


def cast(x, dtype, name=None):
    return _ops.cast(x, DstT=_as_dtype(dtype).name, name=name)


def fill(dims, value, name=None):
    return _ops.fill(_graph.convert_to_tensor(dims, "int32"), value,
                     name=name)


def zeros(shape, dtype="float32", name=None):
    return fill(shape, _graph.convert_to_tensor(0, _as_dtype(dtype)),
                name=name)


def ones(shape, dtype="float32", name=None):
    return fill(shape, _graph.convert_to_tensor(1, _as_dtype(dtype)),
                name=name)


def concat(values, axis, name=None):
    return _ops.concat_v2(list(values),
                          _graph.convert_to_tensor(axis, "int32"), name=name)


def stack(values, axis=0, name=None):
    return _ops.pack(list(values), axis=axis, name=name)


__all__ = sorted(list(_ALIASES) + [
    "matmul", "reduce_sum", "reduce_mean", "reduce_max", "reshape", "cast",
    "fill", "zeros", "ones", "concat", "stack"])

_graph._operators.update(
    {k: globals()[v] for k, v in (
        ("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
        ("div", "divide"), ("matmul", "matmul"), ("neg", "negative"),
        ("pow", "pow"), ("less", "less"), ("less_equal", "less_equal"),
        ("greater", "greater"), ("greater_equal", "greater_equal"),
        ("logical_and", "logical_and"), ("logical_or", "logical_or"),
        ("logical_not", "logical_not"))})
