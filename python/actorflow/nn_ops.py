"""The functions of ``tf.compat.v1.nn`` besides the recurrent ones:
activations, cross-entropies, convolutions and pools, dropout, embedding
lookups, moments and batch normalization, top_k."""

import builtins as _builtins

from . import ops as _ops
from . import random_ops
from .array_ops import _ints, cast, concat, reshape, shape as _shape_of
from .graph import Tensor, convert_to_tensor as _t, get_default_graph
from .math import reduce_mean, reduce_sum

__all__ = [
    "relu", "relu6", "elu", "selu", "leaky_relu", "crelu", "softplus",
    "softsign", "sigmoid", "tanh", "swish", "softmax", "log_softmax",
    "bias_add", "xw_plus_b", "l2_loss", "l2_normalize", "dropout",
    "embedding_lookup", "moments", "batch_normalization",
    "fused_batch_norm", "top_k", "in_top_k", "conv1d", "conv2d",
    "conv2d_transpose", "depthwise_conv2d", "separable_conv2d", "max_pool",
    "avg_pool",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits",
    "weighted_cross_entropy_with_logits", "zero_fraction",
]


def relu(features, name=None):
    return _ops.relu(features, name=name)


def relu6(features, name=None):
    return _ops.relu6(features, name=name)


def elu(features, name=None):
    return _ops.elu(features, name=name)


def selu(features, name=None):
    return _ops.selu(features, name=name)


def leaky_relu(features, alpha=0.2, name=None):
    return _ops.leaky_relu(features, alpha=alpha, name=name)


def crelu(features, name=None, axis=-1):
    return concat([_ops.relu(features), _ops.relu(_ops.neg(features))], axis,
                  name=name or "CRelu")


def softplus(features, name=None):
    return _ops.softplus(features, name=name)


def softsign(features, name=None):
    return _ops.softsign(features, name=name)


def sigmoid(x, name=None):
    return _ops.sigmoid(x, name=name)


def tanh(x, name=None):
    return _ops.tanh(x, name=name)


def swish(features, name=None):
    return _ops.mul(features, _ops.sigmoid(features), name=name)


def _on_axis(fn, logits, axis, name):
    """``fn`` (Softmax, LogSoftmax: over the last axis) over ``axis``."""
    logits = _t(logits)
    ndims = logits.shape.ndims
    if axis is None or axis == -1 or (ndims is not None
                                      and axis == ndims - 1):
        return fn(logits, name=name)
    if ndims is None:
        raise ValueError("softmax over an axis but the last needs the rank "
                         "known")
    axis %= ndims
    perm = list(_builtins.range(ndims))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    moved = _ops.transpose(logits, _t(perm, "int32"))
    return _ops.transpose(fn(moved), _t(perm, "int32"), name=name)


def softmax(logits, axis=None, name=None, dim=None):
    return _on_axis(_ops.softmax, logits, dim if axis is None else axis,
                    name)


def log_softmax(logits, axis=None, name=None, dim=None):
    return _on_axis(_ops.log_softmax, logits, dim if axis is None else axis,
                    name)


def bias_add(value, bias, data_format=None, name=None):
    return _ops.bias_add(value, bias, data_format=data_format or "NHWC",
                         name=name)


def xw_plus_b(x, weights, biases, name=None):
    return _ops.bias_add(_ops.mat_mul(x, weights), biases,
                         name=name or "xw_plus_b")


def l2_loss(t, name=None):
    """sum(t ** 2) / 2."""
    t = _t(t)
    return _ops.mul(reduce_sum(_ops.square(t)), _t(0.5, t.dtype), name=name)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    x = _t(x)
    axis = dim if axis is None else axis
    square_sum = reduce_sum(_ops.square(x), axis, keepdims=True)
    inv = _ops.rsqrt(_ops.maximum(square_sum, _t(epsilon, x.dtype)))
    return _ops.mul(x, inv, name=name)


def zero_fraction(value, name=None):
    value = _t(value)
    zero = _ops.equal(value, _ops.zeros_like(value))
    return reduce_mean(cast(zero, "float32"), name=name)


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None,
            rate=None):
    """x / keep_prob where a uniform draw < keep_prob, else 0 (``rate``:
    1 - keep_prob, TensorFlow 2's argument)."""
    if keep_prob is None and rate is None:
        raise ValueError("dropout: give keep_prob or rate")
    if keep_prob is not None and rate is not None:
        raise ValueError("dropout: give keep_prob or rate, not both")
    x = _t(x)
    graph = get_default_graph()
    with graph.name_scope(name or "dropout"):
        if rate is not None:
            keep = _ops.sub(_t(1, x.dtype), rate if isinstance(
                rate, Tensor) else _t(rate, x.dtype))
        else:
            if not isinstance(keep_prob, Tensor) and keep_prob == 1:
                return _ops.identity(x, name="")
            keep = keep_prob if isinstance(keep_prob, Tensor) else _t(
                keep_prob, x.dtype)
        keep = cast(keep, x.dtype)
        shape = _shape_of(x) if noise_shape is None else noise_shape
        draw = random_ops.random_uniform(shape, dtype=x.dtype, seed=seed)
        mask = _ops.floor(_ops.add_v2(keep, draw))
        return _ops.mul(_ops.real_div(x, keep), mask, name="")


def embedding_lookup(params, ids, partition_strategy="mod", name=None,
                     validate_indices=True, max_norm=None):
    """The rows of ``params`` at ``ids`` (a list of shards is split by
    ``partition_strategy``: mod or div)."""
    if max_norm is not None:
        raise ValueError("embedding_lookup: max_norm is not supported by "
                         "actorflow.compat.v1")
    if isinstance(params, (list, tuple)):
        if len(params) == 1:
            params = params[0]
        else:
            return _sharded_lookup(list(params), ids, partition_strategy,
                                   name)
    return _ops.gather_v2(params, ids, _t(0, "int32"), name=name)


def _sharded_lookup(params, ids, strategy, name):
    """A lookup over shards, as TensorFlow's (mod: id % n picks the shard;
    div: contiguous blocks)."""
    n = len(params)
    ids = _t(ids)
    flat = reshape(ids, [-1])
    dt = flat.dtype
    if strategy == "mod":
        shard = _ops.floor_mod(flat, _t(n, dt))
        local = _ops.floor_div(flat, _t(n, dt))
    elif strategy == "div":
        sizes = [p.shape[0].value for p in params]
        if any(s is None for s in sizes):
            raise ValueError("embedding_lookup: div needs the shards' first "
                             "dimensions known")
        total = sum(sizes)
        per, extra = divmod(total, n)
        big = _t(per + 1, dt)
        cut = _t(extra * (per + 1), dt)
        shard = _ops.select_v2(
            _ops.less(flat, cut), _ops.floor_div(flat, big),
            _ops.add_v2(_t(extra, dt), _ops.floor_div(
                _ops.sub(flat, cut), _t(max(per, 1), dt))))
        local = _ops.select_v2(
            _ops.less(flat, cut), _ops.floor_mod(flat, big),
            _ops.floor_mod(_ops.sub(flat, cut), _t(max(per, 1), dt)))
    else:
        raise ValueError(f"embedding_lookup: unknown partition_strategy "
                         f"{strategy!r} (mod or div)")
    shard = cast(shard, "int32")
    positions = _ops.range(_t(0, "int32"), _ops.size(flat),
                           _t(1, "int32"))
    parts_ids = _ops.dynamic_partition(local, shard, num_partitions=n)
    parts_pos = _ops.dynamic_partition(positions, shard, num_partitions=n)
    rows = [_ops.gather_v2(p, i, _t(0, "int32"))
            for p, i in zip(params, parts_ids)]
    stitched = _ops.dynamic_stitch(parts_pos, rows)
    out_shape = concat([_shape_of(ids), _ops.strided_slice(
        _shape_of(params[0]), _t([1], "int32"), _t([0], "int32"),
        _t([1], "int32"), end_mask=1)], 0)
    return _ops.reshape(stitched, out_shape, name=name)


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of x over ``axes``."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    x = _t(x)
    graph = get_default_graph()
    with graph.name_scope(name or "moments"):
        mean = reduce_mean(x, axes, keepdims=True, name="mean")
        variance = reduce_mean(
            _ops.squared_difference(x, _ops.stop_gradient(mean)), axes,
            keepdims=True, name="variance")
        if not keep:
            axes_ = [axes] if isinstance(axes, int) else list(axes)
            mean = _ops.squeeze(mean, squeeze_dims=axes_)
            variance = _ops.squeeze(variance, squeeze_dims=axes_)
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon,
                        name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset."""
    x = _t(x)
    graph = get_default_graph()
    with graph.name_scope(name or "batchnorm"):
        inv = _ops.rsqrt(_ops.add_v2(variance,
                                     _t(variance_epsilon, x.dtype)))
        if scale is not None:
            inv = _ops.mul(inv, scale)
        shift = _ops.neg(_ops.mul(mean, inv))
        if offset is not None:
            shift = _ops.add_v2(shift, offset)
        return _ops.add_v2(_ops.mul(x, inv), shift, name="")


def fused_batch_norm(x, scale, offset, mean=None, variance=None,
                     epsilon=0.001, data_format="NHWC", is_training=True,
                     name=None, exponential_avg_factor=1.0):
    x = _t(x)
    if mean is None:
        mean = _t([], "float32")
    if variance is None:
        variance = _t([], "float32")
    out = _ops.fused_batch_norm_v3(
        x, scale, offset, mean, variance, epsilon=epsilon,
        exponential_avg_factor=exponential_avg_factor,
        data_format=data_format, is_training=is_training, name=name)
    return out[0], out[1], out[2]


def top_k(input, k=1, sorted=True, name=None):
    values, indices = _ops.top_kv2(input, _t(k, "int32"), sorted=sorted,
                                   name=name)
    return values, indices


def in_top_k(predictions, targets, k, name=None):
    targets = _t(targets)
    return _ops.in_top_kv2(predictions, targets, _t(k, targets.dtype),
                           name=name)


def _strides(strides, ndims, data_format, name):
    if isinstance(strides, int):
        strides = [strides] * ndims
    strides = list(strides)
    if len(strides) == ndims:
        if data_format.startswith("NC"):
            return [1, 1] + strides
        return [1] + strides + [1]
    if len(strides) != ndims + 2:
        raise ValueError(f"{name}: strides must have {ndims} or {ndims + 2}"
                         f" entries, got {strides}")
    return strides


def conv2d(input, filter=None, strides=None, padding=None,
           use_cudnn_on_gpu=True, data_format="NHWC", dilations=None,
           name=None, filters=None):
    filter = filters if filter is None else filter
    if filter is None or strides is None or padding is None:
        raise TypeError("conv2d needs filter, strides and padding")
    return _ops.conv2d(input, filter,
                       strides=_strides(strides, 2, data_format, "conv2d"),
                       padding=padding, data_format=data_format,
                       dilations=_strides(dilations or 1, 2, data_format,
                                          "conv2d"), name=name)


def conv2d_transpose(value=None, filter=None, output_shape=None,
                     strides=None, padding="SAME", data_format="NHWC",
                     name=None, input=None, filters=None, dilations=None):
    """The transpose of conv2d (its gradient with respect to the input):
    ``filter`` is [height, width, output channels, input channels]."""
    value = input if value is None else value
    filter = filters if filter is None else filter
    if output_shape is None or strides is None:
        raise TypeError("conv2d_transpose needs output_shape and strides")
    return _ops.conv2d_backprop_input(
        _ints(output_shape), filter, value,
        strides=_strides(strides, 2, data_format, "conv2d_transpose"),
        padding=padding, data_format=data_format,
        dilations=_strides(dilations or 1, 2, data_format,
                           "conv2d_transpose"), name=name)


def conv1d(value=None, filters=None, stride=None, padding=None,
           use_cudnn_on_gpu=None, data_format="NWC", name=None, input=None,
           dilations=None):
    """A 1-d convolution as a 2-d one over a height of 1."""
    value = input if value is None else value
    graph = get_default_graph()
    with graph.name_scope(name or "conv1d"):
        axis = 1 if data_format == "NWC" else 2
        x = _ops.expand_dims(value, _t(axis, "int32"))
        f = _ops.expand_dims(filters, _t(0, "int32"))
        fmt = "NHWC" if data_format == "NWC" else "NCHW"
        y = conv2d(x, f, [1, stride], padding, data_format=fmt,
                   dilations=[1, dilations or 1])
        return _ops.squeeze(y, squeeze_dims=[axis], name="")


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None,
                     data_format=None, dilations=None):
    fmt = data_format or "NHWC"
    dil = dilations if dilations is not None else rate
    return _ops.depthwise_conv2d_native(
        input, filter, strides=_strides(strides, 2, fmt, "depthwise_conv2d"),
        padding=padding, data_format=fmt,
        dilations=_strides(dil or 1, 2, fmt, "depthwise_conv2d"), name=name)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides,
                     padding, rate=None, name=None, data_format=None,
                     dilations=None):
    graph = get_default_graph()
    with graph.name_scope(name or "separable_conv2d"):
        depth = depthwise_conv2d(input, depthwise_filter, strides, padding,
                                 rate, data_format=data_format,
                                 dilations=dilations)
        return conv2d(depth, pointwise_filter, [1, 1, 1, 1], "VALID",
                      data_format=data_format or "NHWC", name="")


def _pool(op, value, ksize, strides, padding, data_format, name):
    fmt = data_format or "NHWC"
    return op(value, ksize=_strides(ksize, 2, fmt, "pool"),
              strides=_strides(strides, 2, fmt, "pool"), padding=padding,
              data_format=fmt, name=name)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None,
             input=None):
    return _pool(_ops.max_pool, input if value is None else value, ksize,
                 strides, padding, data_format, name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None,
             input=None):
    return _pool(_ops.avg_pool, input if value is None else value, ksize,
                 strides, padding, data_format, name)


def _xent(logits, labels, axis, name, stop_labels):
    logits = _t(logits)
    labels = _t(labels, logits.dtype) if not isinstance(labels, Tensor) \
        else labels
    if stop_labels:
        labels = _ops.stop_gradient(labels)
    if axis not in (-1, None) and logits.shape.ndims not in (None, axis + 1):
        raise ValueError("softmax_cross_entropy_with_logits: only the last "
                         "axis is supported by actorflow.compat.v1")
    ndims = logits.shape.ndims
    if ndims == 2:
        loss, _ = _ops.softmax_cross_entropy_with_logits(logits, labels,
                                                         name=name)
        return loss
    # Any rank: rows of the last axis.
    depth = _ops.strided_slice(_shape_of(logits), _t([-1], "int32"),
                               _t([0], "int32"), _t([1], "int32"),
                               end_mask=1)
    flat_shape = concat([_t([-1], "int32"), depth], 0)
    loss, _ = _ops.softmax_cross_entropy_with_logits(
        _ops.reshape(logits, flat_shape), _ops.reshape(labels, flat_shape))
    lead = _ops.strided_slice(_shape_of(logits), _t([0], "int32"),
                              _t([-1], "int32"), _t([1], "int32"))
    return _ops.reshape(loss, lead, name=name)


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None,
                                      logits=None, dim=-1, name=None,
                                      axis=None):
    """TensorFlow 1's: no gradient flows into ``labels``."""
    if _sentinel is not None:
        raise ValueError("softmax_cross_entropy_with_logits takes labels= "
                         "and logits= by name")
    return _xent(logits, labels, dim if axis is None else axis, name, True)


def softmax_cross_entropy_with_logits_v2(_sentinel=None, labels=None,
                                         logits=None, axis=None, name=None,
                                         dim=None):
    """As TensorFlow's v2: gradients flow into ``labels`` too."""
    if _sentinel is not None:
        raise ValueError("softmax_cross_entropy_with_logits_v2 takes "
                         "labels= and logits= by name")
    axis = dim if axis is None else axis
    return _xent(logits, labels, -1 if axis is None else axis, name, False)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None,
                                             logits=None, name=None):
    if _sentinel is not None:
        raise ValueError("sparse_softmax_cross_entropy_with_logits takes "
                         "labels= and logits= by name")
    logits, labels = _t(logits), _t(labels)
    if logits.shape.ndims == 2:
        loss, _ = _ops.sparse_softmax_cross_entropy_with_logits(
            logits, labels, name=name)
        return loss
    depth = _ops.strided_slice(_shape_of(logits), _t([-1], "int32"),
                               _t([0], "int32"), _t([1], "int32"),
                               end_mask=1)
    loss, _ = _ops.sparse_softmax_cross_entropy_with_logits(
        _ops.reshape(logits, concat([_t([-1], "int32"), depth], 0)),
        _ops.reshape(labels, _t([-1], "int32")))
    return _ops.reshape(loss, _shape_of(labels), name=name)


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None,
                                      logits=None, name=None):
    """max(x, 0) - x * z + log(1 + exp(-|x|)), TensorFlow's stable form."""
    if _sentinel is not None:
        raise ValueError("sigmoid_cross_entropy_with_logits takes labels= "
                         "and logits= by name")
    logits = _t(logits)
    labels = _t(labels, logits.dtype) if not isinstance(labels, Tensor) \
        else labels
    graph = get_default_graph()
    with graph.name_scope(name or "logistic_loss"):
        zeros = _ops.zeros_like(logits)
        relu_logits = _ops.select_v2(_ops.greater_equal(logits, zeros),
                                     logits, zeros)
        neg_abs = _ops.select_v2(_ops.greater_equal(logits, zeros),
                                 _ops.neg(logits), logits)
        return _ops.add_v2(_ops.sub(relu_logits, _ops.mul(logits, labels)),
                           _log1p_exp(neg_abs), name="")


def _log1p_exp(x):
    """log(1 + e ** x), by Log1p where the engine has it."""
    if hasattr(_ops, "log1p"):
        return _ops.log1p(_ops.exp(x))
    return _ops.log(_ops.add_v2(_t(1, x.dtype), _ops.exp(x)))


def weighted_cross_entropy_with_logits(labels=None, logits=None,
                                       pos_weight=None, name=None,
                                       targets=None):
    labels = targets if labels is None else labels
    logits = _t(logits)
    labels = _t(labels, logits.dtype) if not isinstance(labels, Tensor) \
        else labels
    pw = _t(pos_weight, logits.dtype) if not isinstance(
        pos_weight, Tensor) else pos_weight
    graph = get_default_graph()
    with graph.name_scope(name or "logistic_loss"):
        one = _t(1, logits.dtype)
        log_weight = _ops.add_v2(one, _ops.mul(_ops.sub(pw, one), labels))
        neg_abs = _ops.neg(_ops.abs(logits))
        return _ops.add_v2(
            _ops.mul(_ops.sub(one, labels), logits),
            _ops.mul(log_weight, _ops.add_v2(
                _log1p_exp(neg_abs),
                _ops.relu(_ops.neg(logits)))), name="")

