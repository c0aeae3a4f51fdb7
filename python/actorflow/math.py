"""The math functions people call most, by TensorFlow 1's names and
arguments (``af.matmul``, ``af.add``, ``af.reduce_sum``, ``af.argmax``,
``af.clip_by_global_norm``, ...), over the generated op functions; the
``Tensor`` operators use them."""

import builtins as _builtins

from . import ops as _ops
from .array_ops import cast
from .graph import Tensor, convert_to_tensor as _t
from .tensor import _operators


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
    "multiply": ("mul", "x * y"), "realdiv": ("real_div", "x / y"),
    "negative": ("neg", "-x"), "square": ("square", "x * x"),
    "sqrt": ("sqrt", "the square root"), "rsqrt": ("rsqrt", "1 / sqrt(x)"),
    "exp": ("exp", "e ** x"), "log": ("log", "the natural logarithm"),
    "log1p": ("log1p", "log(1 + x)"), "expm1": ("expm1", "e ** x - 1"),
    "tanh": ("tanh", "tanh(x)"), "sigmoid": ("sigmoid", "1 / (1 + e ** -x)"),
    "abs": ("abs", "|x|"), "sign": ("sign", "the sign of x"),
    "floor": ("floor", "the largest integer <= x"),
    "ceil": ("ceil", "the smallest integer >= x"),
    "round": ("round", "x rounded half to even"),
    "rint": ("rint", "x rounded half to even"),
    "reciprocal": ("reciprocal", "1 / x"),
    "sin": ("sin", "sin(x)"), "cos": ("cos", "cos(x)"), "tan": ("tan", "tan"),
    "asin": ("asin", "asin"), "acos": ("acos", "acos"),
    "atan": ("atan", "atan"), "sinh": ("sinh", "sinh"),
    "cosh": ("cosh", "cosh"), "atan2": ("atan2", "atan2(y, x)"),
    "erf": ("erf", "the error function"), "erfc": ("erfc", "1 - erf(x)"),
    "lgamma": ("lgamma", "log |Gamma(x)|"), "digamma": ("digamma", "psi(x)"),
    "maximum": ("maximum", "max(x, y)"), "minimum": ("minimum", "min(x, y)"),
    "squared_difference": ("squared_difference", "(x - y) ** 2"),
    "floordiv": ("floor_div", "x // y"), "floormod": ("floor_mod", "x % y"),
    "truncatediv": ("truncate_div", "x / y rounded towards 0"),
    "truncatemod": ("truncate_mod", "the remainder of truncatediv"),
    "identity_n": ("identity_n", "each input itself"),
    "is_nan": ("is_nan", "x is NaN"), "is_inf": ("is_inf", "x is infinite"),
    "is_finite": ("is_finite", "x is finite"),
    "softplus": ("softplus", "log(1 + e ** x)"),
    "less": ("less", "x < y"), "less_equal": ("less_equal", "x <= y"),
    "greater": ("greater", "x > y"),
    "greater_equal": ("greater_equal", "x >= y"),
    "logical_and": ("logical_and", "x & y"),
    "logical_or": ("logical_or", "x | y"),
    "logical_not": ("logical_not", "~x"),
    "conj": ("conj", "the complex conjugate"),
    "invert": ("invert", "bitwise not"),
}
for _name, (_op, _doc) in _ALIASES.items():
    if hasattr(_ops, _op):
        globals()[_name] = _alias(_name, _op, _doc)
mod = floormod


def equal(x, y, name=None):
    return _ops.equal(x, y, name=name)


def not_equal(x, y, name=None):
    return _ops.not_equal(x, y, name=name)


def logical_xor(x, y, name="LogicalXor"):
    return _ops.logical_and(_ops.logical_or(x, y),
                            _ops.logical_not(_ops.logical_and(x, y)),
                            name=name)


def _pair(x, y):
    """x and y as Tensors, a plain value taking the other's dtype."""
    if isinstance(x, Tensor) and not isinstance(y, Tensor):
        return x, _t(y, x.dtype)
    if isinstance(y, Tensor) and not isinstance(x, Tensor):
        return _t(x, y.dtype), y
    return _t(x), _t(y)


def pow(x, y, name=None):
    x, y = _pair(x, y)
    return _ops.pow(x, y, name=name)


def divide(x, y, name=None):
    """x / y: true division (ints become floats, as in Python 3)."""
    return truediv(x, y, name=name)


def truediv(x, y, name=None):
    x, y = _pair(x, y)
    if x.dtype.is_integer:
        wide = "float64" if x.dtype.name in ("int32", "int64") else "float32"
        x, y = cast(x, wide), cast(y, wide)
    return _ops.real_div(x, y, name=name)


def div(x, y, name=None):
    """TensorFlow 1's div: floor division for ints, x / y for floats."""
    x, y = _pair(x, y)
    if x.dtype.is_integer:
        return _ops.floor_div(x, y, name=name)
    return _ops.real_div(x, y, name=name)


def scalar_mul(scalar, x, name=None):
    return _ops.mul(_t(scalar, _t(x).dtype), x, name=name)


def add_n(inputs, name=None):
    inputs = list(inputs)
    if len(inputs) == 1:
        return _ops.identity(inputs[0], name=name)
    return _ops.add_n(inputs, name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False,
           adjoint_b=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """a @ b; batched (BatchMatMulV2) when either has rank > 2."""
    a, b = _t(a), _t(b)
    transpose_a = transpose_a or adjoint_a
    transpose_b = transpose_b or adjoint_b
    ra, rb = a.shape.ndims, b.shape.ndims
    if ra == 2 and rb == 2:
        return _ops.mat_mul(a, b, transpose_a=transpose_a,
                            transpose_b=transpose_b, name=name)
    return _ops.batch_mat_mul_v2(a, b, adj_x=transpose_a, adj_y=transpose_b,
                                 name=name)


def tensordot(a, b, axes, name=None):
    """Sums over ``axes`` of a and b (an int: a's last and b's first)."""
    a, b = _t(a), _t(b)
    ra, rb = a.shape.ndims, b.shape.ndims
    if ra is None or rb is None:
        raise ValueError("tensordot needs the ranks of a and b known")
    if isinstance(axes, int):
        axes = [list(_builtins.range(ra - axes, ra)),
                list(_builtins.range(axes))]
    letters = "abcdefghijklmnopqrstuvwxyz"
    sa = list(letters[:ra])
    sb = list(letters[ra:ra + rb])
    for i, j in zip(axes[0], axes[1]):
        sb[j] = sa[i]
    out = [c for c in sa if c not in sb] + [c for c in sb if c not in sa]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b,
                  name=name)


def einsum(equation, *inputs, **kwargs):
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"einsum: unknown arguments {sorted(kwargs)}")
    return _ops.einsum(list(inputs), equation=equation.replace(" ", ""),
                       name=name)


def _axes(x, axis):
    """A reduction's axes: every axis when None (by the rank, known or
    not)."""
    if axis is None:
        if x.shape.ndims is not None:
            return _t(list(_builtins.range(x.shape.ndims)), "int32")
        return _ops.range(_t(0, "int32"), _ops.rank(x), _t(1, "int32"))
    if isinstance(axis, Tensor):
        return axis
    return _t(axis, "int32")


def _reduction(name, op, cast_to=None):
    """``name(x, axis=None, keepdims=False)``: the op over ``axis`` (every
    axis when None), with TensorFlow 1's ``keep_dims`` and
    ``reduction_indices`` too."""
    fn = getattr(_ops, op)

    def reduce(input_tensor, axis=None, keepdims=None, name=None,
               reduction_indices=None, keep_dims=None):
        x = _t(input_tensor)
        if cast_to is not None and x.dtype.name != cast_to:
            x = cast(x, cast_to)
        axis = reduction_indices if axis is None else axis
        keep = bool(keepdims if keepdims is not None else keep_dims)
        return fn(x, _axes(x, axis), keep_dims=keep, name=name)

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"{name}: op {_ops._function_ops[op]} over axis."
    return reduce


reduce_sum = _reduction("reduce_sum", "sum")
reduce_mean = _reduction("reduce_mean", "mean")
reduce_max = _reduction("reduce_max", "max")
reduce_min = _reduction("reduce_min", "min")
reduce_prod = _reduction("reduce_prod", "prod")
reduce_all = _reduction("reduce_all", "all", "bool")
reduce_any = _reduction("reduce_any", "any", "bool")


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None,
                     reduction_indices=None, keep_dims=None):
    x = _t(input_tensor)
    axis = reduction_indices if axis is None else axis
    keep = bool(keepdims if keepdims is not None else keep_dims)
    top = _ops.stop_gradient(_ops.max(x, _axes(x, axis), keep_dims=True))
    out = _ops.log(_ops.sum(_ops.exp(_ops.sub(x, top)), _axes(x, axis),
                            keep_dims=True))
    out = _ops.add_v2(out, top)
    if not keep:
        out = _ops.squeeze(out, squeeze_dims=[] if axis is None else (
            [axis] if isinstance(axis, int) else list(axis)))
    return _ops.identity(out, name=name)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    x = _t(input_tensor)
    mean = reduce_mean(x, axis, keepdims=True)
    return reduce_mean(_ops.squared_difference(x, mean), axis,
                       keepdims=keepdims, name=name)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    return _ops.sqrt(reduce_variance(input_tensor, axis, keepdims),
                     name=name)


def count_nonzero(input_tensor, axis=None, keepdims=None, dtype="int64",
                  name=None, reduction_indices=None, keep_dims=None):
    x = _t(input_tensor)
    nonzero = cast(_ops.not_equal(x, _ops.zeros_like(x)), dtype)
    return reduce_sum(nonzero, axis, keepdims, name, reduction_indices,
                      keep_dims)


def argmax(input, axis=None, name=None, dimension=None, output_type="int64"):
    axis = dimension if axis is None else axis
    return _ops.arg_max(input, _t(axis or 0, "int32"),
                        output_type=output_type, name=name)


def argmin(input, axis=None, name=None, dimension=None, output_type="int64"):
    axis = dimension if axis is None else axis
    return _ops.arg_min(input, _t(axis or 0, "int32"),
                        output_type=output_type, name=name)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    return _ops.cumsum(x, _t(axis, "int32"), exclusive=exclusive,
                       reverse=reverse, name=name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    return _ops.cumprod(x, _t(axis, "int32"), exclusive=exclusive,
                        reverse=reverse, name=name)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    return _ops.unsorted_segment_sum(data, segment_ids,
                                     _t(num_segments, "int32"), name=name)


def segment_sum(data, segment_ids, name=None):
    return _ops.segment_sum(data, segment_ids, name=name)


def segment_mean(data, segment_ids, name=None):
    return _ops.segment_mean(data, segment_ids, name=name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    t = _t(t)
    lo = clip_value_min if isinstance(clip_value_min, Tensor) else _t(
        clip_value_min, t.dtype)
    hi = clip_value_max if isinstance(clip_value_max, Tensor) else _t(
        clip_value_max, t.dtype)
    return _ops.minimum(_ops.maximum(t, lo), hi, name=name)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t * clip_norm / max(l2norm(t), clip_norm)."""
    t = _t(t)
    clip = _t(clip_norm, t.dtype)
    l2sum = reduce_sum(_ops.square(t), axes, keepdims=True)
    positive = _ops.greater(l2sum, _ops.zeros_like(l2sum))
    safe = _ops.select_v2(positive, l2sum, _ops.ones_like(l2sum))
    norm = _ops.select_v2(positive, _ops.sqrt(safe), l2sum)
    scaled = _ops.mul(t, clip)
    return _ops.identity(
        _ops.real_div(scaled, _ops.maximum(norm, clip)), name=name)


def global_norm(t_list, name=None):
    """sqrt(sum of the squares of every element of t_list)."""
    parts = [reduce_sum(_ops.square(_t(t))) for t in t_list if t is not None]
    total = add_n(parts) if parts else _t(0.0)
    return _ops.sqrt(total, name=name or "global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """(the tensors scaled by clip_norm / max(global_norm, clip_norm),
    global_norm), as TensorFlow computes them (None stays None)."""
    t_list = list(t_list)
    norm = global_norm(t_list) if use_norm is None else use_norm
    dtype = norm.dtype
    clip = _t(clip_norm, dtype)
    one = _t(1.0, dtype)
    scale = _ops.mul(clip, _ops.minimum(
        _ops.real_div(one, norm), _ops.real_div(one, clip)))
    out = [None if t is None else _ops.identity(
        _ops.mul(_t(t), cast(scale, _t(t).dtype)),
        name=None if name is None else f"{name}_{i}")
        for i, t in enumerate(t_list)]
    return out, norm


__all__ = sorted([n for n in _ALIASES if n in globals()] + [
    "mod", "equal", "not_equal", "logical_xor", "pow", "divide", "truediv",
    "div", "scalar_mul", "add_n", "matmul", "tensordot", "einsum",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
    "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_variance",
    "reduce_std", "count_nonzero", "argmax", "argmin", "cumsum", "cumprod",
    "unsorted_segment_sum", "segment_sum", "segment_mean", "clip_by_value",
    "clip_by_norm", "global_norm", "clip_by_global_norm"])

_operators.update({
    "add": add, "sub": subtract, "mul": multiply, "div": truediv,
    "matmul": matmul, "neg": negative, "pow": pow, "less": less,
    "less_equal": less_equal, "greater": greater,
    "greater_equal": greater_equal, "logical_and": logical_and,
    "logical_or": logical_or, "logical_not": logical_not,
    "logical_xor": logical_xor, "mod": floormod, "floordiv": floordiv,
    "abs": abs})
