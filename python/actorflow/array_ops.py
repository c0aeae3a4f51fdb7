"""Shapes, slices, gathers and the other array functions, by TensorFlow
1's names and arguments (``tf.transpose``, ``tf.one_hot``, ``x[:, 0]``)."""

import builtins as _builtins

import numpy as np

from . import dtypes as _dtypes
from . import ops as _ops
from .graph import Tensor, convert_to_tensor as _t
from .tensor import _operators

__all__ = [
    "reshape", "transpose", "expand_dims", "squeeze", "tile", "pad",
    "concat", "stack", "unstack", "split", "slice", "strided_slice",
    "gather", "gather_nd", "scatter_nd", "boolean_mask", "where",
    "where_v2", "one_hot", "range", "linspace", "shape", "shape_n", "size",
    "rank", "zeros", "ones", "zeros_like", "ones_like", "fill", "eye",
    "identity", "stop_gradient", "reverse", "reverse_v2", "sequence_mask",
    "broadcast_to", "cast", "to_float", "to_int32", "to_int64",
    "to_double", "reverse_sequence", "check_numerics", "dynamic_partition",
    "dynamic_stitch", "placeholder_with_default",
]


def _ints(x, dtype="int32"):
    """A shape-like argument as an int Tensor: a Tensor as it is (int32 or
    int64), a value or a list (which may hold Tensors) converted."""
    return x if isinstance(x, Tensor) else _t(x, dtype)


def reshape(tensor, shape, name=None):
    return _ops.reshape(tensor, _ints(shape), name=name)


def transpose(a, perm=None, name="transpose", conjugate=False):
    """``a`` with its dimensions permuted (reversed when ``perm`` is
    None)."""
    a = _t(a)
    if perm is None:
        if a.shape.ndims is not None:
            perm = list(reversed(_builtins.range(a.shape.ndims)))
        else:
            r = _ops.rank(a)
            perm = _ops.sub(_ops.sub(r, 1), _ops.range(0, r, 1))
    if conjugate and a.dtype.is_complex:
        raise ValueError("transpose: conjugate=True is not supported by "
                         "actorflow.compat.v1")
    return _ops.transpose(a, _ints(perm), name=name)


def expand_dims(input, axis=None, name=None, dim=None):
    axis = dim if axis is None else axis
    return _ops.expand_dims(input, _t(axis, "int32"), name=name)


def squeeze(input, axis=None, name=None, squeeze_dims=None):
    axis = squeeze_dims if axis is None else axis
    if axis is None:
        axis = []
    elif isinstance(axis, int):
        axis = [axis]
    return _ops.squeeze(input, squeeze_dims=list(axis), name=name)


def tile(input, multiples, name=None):
    return _ops.tile(input, _ints(multiples), name=name)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    mode = mode.upper()
    paddings = _ints(paddings)
    if mode == "CONSTANT":
        tensor = _t(tensor)
        if isinstance(constant_values, Tensor) or constant_values != 0:
            return _ops.pad_v2(tensor, paddings,
                               _t(constant_values, tensor.dtype), name=name)
        return _ops.pad(tensor, paddings, name=name)
    raise ValueError(f"pad: mode {mode!r} is not supported by "
                     "actorflow.compat.v1 (only CONSTANT)")


def concat(values, axis, name="concat"):
    values = list(values)
    if len(values) == 1:
        return _ops.identity(values[0], name=name)
    return _ops.concat_v2(values, _t(axis, "int32"), name=name)


def stack(values, axis=0, name="stack"):
    return _ops.pack(list(values), axis=axis, name=name)


pack = stack


def unstack(value, num=None, axis=0, name="unstack"):
    value = _t(value)
    if num is None:
        if value.shape.ndims is None or value.shape[axis].value is None:
            raise ValueError(f"unstack: cannot infer num from the shape "
                             f"{value.shape} of {value.name}")
        num = value.shape[axis].value
    out = _ops.unpack(value, num=num, axis=axis, name=name)
    return out if isinstance(out, list) else [out]


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """``value`` cut along ``axis`` into ``num_or_size_splits`` equal parts
    (an int) or parts of the given sizes (a list)."""
    if isinstance(num_or_size_splits, int):
        out = _ops.split(_t(axis, "int32"), value,
                         num_split=num_or_size_splits, name=name)
    else:
        sizes = _ints(num_or_size_splits)
        n = num if num is not None else sizes.shape[0].value
        if n is None:
            raise ValueError("split: give num when the sizes' count is not "
                             "known")
        out = _ops.split_v(value, sizes, _t(axis, "int32"), num_split=n,
                           name=name)
    return out if isinstance(out, list) else [out]


def slice(input_, begin, size, name=None):
    return _ops.slice(input_, _ints(begin), _ints(size), name=name)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0,
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0,
                  var=None, name=None):
    begin, end = _ints(begin), _ints(end)
    if strides is None:
        strides = _ops.ones_like(begin)
    return _ops.strided_slice(
        input_, begin, end, _ints(strides), begin_mask=begin_mask,
        end_mask=end_mask, ellipsis_mask=ellipsis_mask,
        new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask,
        name=name)


def _getitem(tensor, key):
    """``tensor[key]`` through StridedSlice, as TensorFlow's indexing:
    ints, slices (with steps), ``...``, ``None`` (a new axis), and scalar
    Tensors."""
    if not isinstance(key, tuple):
        key = (key,)
    begin, end, strides = [], [], []
    masks = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0,
             "new_axis_mask": 0, "shrink_axis_mask": 0}
    for i, k in enumerate(key):
        bit = 1 << i
        if isinstance(k, _builtins.slice):
            for part, mask, out in ((k.start, "begin_mask", begin),
                                    (k.stop, "end_mask", end)):
                if part is None:
                    masks[mask] |= bit
                    out.append(0)
                else:
                    out.append(part)
            strides.append(1 if k.step is None else k.step)
        elif k is Ellipsis:
            masks["ellipsis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif k is None:
            masks["new_axis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(k, (int, np.integer)) or (
                isinstance(k, Tensor) and k.dtype.is_integer
                and k.shape.ndims == 0):
            masks["shrink_axis_mask"] |= bit
            begin.append(k)
            end.append(k + 1 if not isinstance(k, Tensor)
                       else _ops.add_v2(k, _t(1, k.dtype)))
            strides.append(1)
        else:
            raise TypeError(
                f"only integers, slices (`:`), ellipsis (`...`), "
                f"newaxis (`None`) and scalar int32/int64 tensors are valid "
                f"indices, got {k!r}")
    dtype = "int64" if _builtins.any(
        isinstance(x, Tensor) and x.dtype.name == "int64"
        for x in begin + end + strides) else "int32"
    with tensor.graph.as_default(), tensor.graph.name_scope("strided_slice"):
        return _ops.strided_slice(
            tensor, _ints(begin, dtype), _ints(end, dtype),
            _ints(strides, dtype), **masks, name="")


def gather(params, indices, validate_indices=None, name=None, axis=None,
           batch_dims=0):
    params = _t(params)
    return _ops.gather_v2(params, indices, _t(axis or 0, "int32"),
                          batch_dims=batch_dims, name=name)


def gather_nd(params, indices, name=None, batch_dims=0):
    if batch_dims:
        raise ValueError("gather_nd: batch_dims is not supported by "
                         "actorflow.compat.v1")
    return _ops.gather_nd(params, indices, name=name)


def scatter_nd(indices, updates, shape, name=None):
    return _ops.scatter_nd(indices, updates, _ints(shape), name=name)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements (rows) of ``tensor`` where ``mask`` is true."""
    tensor, mask = _t(tensor), _t(mask)
    axis = axis or 0
    k = mask.shape.ndims
    if k is None:
        raise ValueError("boolean_mask: the mask's rank must be known")
    with tensor.graph.as_default(), tensor.graph.name_scope(name):
        shape = _ops.shape(tensor)
        lead = _ops.prod(_ops.strided_slice(
            shape, _ints([axis]), _ints([axis + k]), _ints([1])),
            _t([0], "int32"), keep_dims=True)
        flat_shape = concat([_ops.strided_slice(shape, _ints([0]),
                                                _ints([axis]), _ints([1])),
                             lead,
                             _ops.strided_slice(shape, _ints([axis + k]),
                                                _ints([0]), _ints([1]),
                                                end_mask=1)], 0)
        flat = _ops.reshape(tensor, flat_shape)
        where = _ops.where(_ops.reshape(mask, _t([-1], "int32")))
        index = _ops.reshape(where, _t([-1], "int32"))
        return _ops.gather_v2(flat, index, _t(axis, "int32"))


def where(condition, x=None, y=None, name=None):
    """TensorFlow 1's where: the coordinates of true elements, or
    ``condition ? x : y`` (a vector condition picks rows)."""
    if x is None and y is None:
        return _ops.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    return _ops.select(condition, x, y, name=name)


def where_v2(condition, x=None, y=None, name=None):
    if x is None and y is None:
        return _ops.where(condition, name=name)
    return _ops.select_v2(condition, x, y, name=name)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None,
            dtype=None, name=None):
    dt = _dtypes.as_dtype(dtype or (
        on_value.dtype if isinstance(on_value, Tensor) else "float32"))
    on = _t(1 if on_value is None else on_value, dt)
    off = _t(0 if off_value is None else off_value, dt)
    return _ops.one_hot(indices, _t(depth, "int32"), on, off,
                        axis=-1 if axis is None else axis, name=name)


def range(start, limit=None, delta=1, dtype=None, name="range"):
    if limit is None:
        start, limit = 0, start
    values = [start, limit, delta]
    if dtype is None:
        tensors = [v for v in values if isinstance(v, Tensor)]
        if tensors:
            dtype = tensors[0].dtype
        elif _builtins.any(isinstance(v, float) for v in values):
            dtype = "float32"
        else:
            dtype = "int32"
    dt = _dtypes.as_dtype(dtype)
    return _ops.range(*[cast(v, dt) if isinstance(v, Tensor)
                        else _t(v, dt) for v in values], name=name)


def linspace(start, stop, num, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    start = _t(start)
    stop = _t(stop, start.dtype) if not isinstance(stop, Tensor) else stop
    n = _t(num, "int32")
    steps = cast(_ops.maximum(_ops.sub(n, 1), _t(1, "int32")), start.dtype)
    step = _ops.real_div(_ops.sub(stop, start), steps)
    index = cast(_ops.range(_t(0, "int32"), n, _t(1, "int32")), start.dtype)
    return _ops.add_v2(start, _ops.mul(index, step), name=name)


def shape(input, name=None, out_type="int32"):
    return _ops.shape(input, out_type=out_type, name=name)


def shape_n(input, out_type="int32", name=None):
    return _ops.shape_n(list(input), out_type=out_type, name=name)


def size(input, name=None, out_type="int32"):
    return _ops.size(input, out_type=out_type, name=name)


def rank(input, name=None):
    return _ops.rank(input, name=name)


def fill(dims, value, name=None):
    return _ops.fill(_ints(dims), value, name=name)


def zeros(shape, dtype="float32", name=None):
    return fill(shape, _t(0, _dtypes.as_dtype(dtype)), name=name)


def ones(shape, dtype="float32", name=None):
    return fill(shape, _t(1, _dtypes.as_dtype(dtype)), name=name)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    out = _ops.zeros_like(tensor, name=name if dtype is None else None)
    return out if dtype is None else cast(out, dtype, name=name)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    out = _ops.ones_like(tensor, name=name if dtype is None else None)
    return out if dtype is None else cast(out, dtype, name=name)


def eye(num_rows, num_columns=None, batch_shape=None, dtype="float32",
        name=None):
    if batch_shape is not None or not isinstance(num_rows, int) or not \
            isinstance(num_columns or 0, int):
        raise ValueError("eye: only int sizes (no batch_shape) are supported "
                         "by actorflow.compat.v1")
    cols = num_rows if num_columns is None else num_columns
    return _t(np.eye(num_rows, cols,
                     dtype=_dtypes.as_dtype(dtype).numpy_dtype),
              name=name or "eye")


def identity(input, name=None):
    return _ops.identity(input, name=name)


def stop_gradient(input, name=None):
    return _ops.stop_gradient(input, name=name)


def reverse(tensor, axis, name=None):
    return _ops.reverse_v2(tensor, _ints(axis), name=name)


reverse_v2 = reverse


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None,
                     name=None, seq_dim=None, batch_dim=None):
    seq_axis = seq_dim if seq_axis is None else seq_axis
    batch_axis = batch_dim if batch_axis is None else batch_axis
    return _ops.reverse_sequence(input, seq_lengths, seq_dim=seq_axis,
                                 batch_dim=batch_axis or 0, name=name)


def sequence_mask(lengths, maxlen=None, dtype="bool", name=None):
    """[..., maxlen] booleans: position < length."""
    lengths = _t(lengths)
    if maxlen is None:
        maxlen = _ops.max(lengths, _t([0], "int32"))
    maxlen = cast(maxlen, lengths.dtype) if isinstance(maxlen, Tensor) \
        else _t(maxlen, lengths.dtype)
    positions = _ops.range(_t(0, lengths.dtype), maxlen, _t(1, lengths.dtype))
    mask = _ops.less(positions, _ops.expand_dims(lengths, _t(-1, "int32")))
    if _dtypes.as_dtype(dtype).name == "bool":
        return _ops.identity(mask, name=name)
    return cast(mask, dtype, name=name)


def broadcast_to(input, shape, name=None):
    return _ops.broadcast_to(input, _ints(shape), name=name)


def cast(x, dtype, name=None):
    x = _t(x)
    dt = _dtypes.as_dtype(dtype)
    if x.dtype == dt:
        return x
    return _ops.cast(x, DstT=dt.name, name=name)


def to_float(x, name="ToFloat"):
    return cast(x, "float32", name=name)


def to_double(x, name="ToDouble"):
    return cast(x, "float64", name=name)


def to_int32(x, name="ToInt32"):
    return cast(x, "int32", name=name)


def to_int64(x, name="ToInt64"):
    return cast(x, "int64", name=name)


def check_numerics(tensor, message, name=None):
    return _ops.check_numerics(tensor, message=message, name=name)


def dynamic_partition(data, partitions, num_partitions, name=None):
    return _ops.dynamic_partition(data, partitions,
                                  num_partitions=num_partitions, name=name)


def dynamic_stitch(indices, data, name=None):
    return _ops.dynamic_stitch(list(indices), list(data), name=name)


def placeholder_with_default(input, shape, name=None):
    from .builders import placeholder_with_default as make
    return make(input, shape, name or "PlaceholderWithDefault")


_operators["getitem"] = _getitem
