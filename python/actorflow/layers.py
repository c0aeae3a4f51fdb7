"""``tf.compat.v1.layers``: dense, conv2d, pooling, dropout, flatten and
batch_normalization as functions, their variables made by ``get_variable``
in a scope of the layer's name (``dense/kernel``, ``dense_1/bias``) as
TensorFlow names them, so checkpoints match."""

from . import init_ops
from . import nn_ops
from . import ops as _ops
from .array_ops import cast, reshape
from .builders import cond
from .graph import GraphKeys, Tensor, convert_to_tensor as _t
from .graph import get_default_graph
from .math import matmul, tensordot
from .variable_scope import get_variable, variable_scope

__all__ = [
    "dense", "conv1d", "conv2d", "conv2d_transpose", "max_pooling2d",
    "average_pooling2d",
    "max_pooling1d", "average_pooling1d", "dropout", "flatten",
    "batch_normalization",
]


def _apply(outputs, activation):
    return outputs if activation is None else activation(outputs)


def _refuse_constraints(layer, **kwargs):
    for arg, value in kwargs.items():
        if value is not None:
            raise ValueError(f"layers.{layer}: {arg} is not supported by "
                             "actorflow.compat.v1")


def _activity(outputs, regularizer):
    if regularizer is not None:
        loss = regularizer(outputs)
        if loss is not None:
            get_default_graph().add_to_collection(
                GraphKeys.REGULARIZATION_LOSSES, loss)
    return outputs


def dense(inputs, units, activation=None, use_bias=True,
          kernel_initializer=None, bias_initializer=None,
          kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None,
          bias_constraint=None, trainable=True, name=None, reuse=None):
    """activation(inputs @ kernel + bias); inputs of rank > 2 are
    multiplied along their last axis."""
    _refuse_constraints("dense", kernel_constraint=kernel_constraint,
                        bias_constraint=bias_constraint)
    inputs = _t(inputs)
    depth = inputs.shape[-1].value if inputs.shape.ndims else None
    if depth is None:
        raise ValueError("layers.dense: the last dimension of the inputs "
                         "should be defined. Found `None`.")
    with variable_scope(name, default_name="dense", reuse=reuse):
        kernel = get_variable("kernel", [depth, units], inputs.dtype,
                              kernel_initializer, kernel_regularizer,
                              trainable)
        if inputs.shape.ndims == 2:
            outputs = matmul(inputs, kernel)
        else:
            outputs = tensordot(inputs, kernel, [[inputs.shape.ndims - 1],
                                                 [0]])
        if use_bias:
            bias = get_variable(
                "bias", [units], inputs.dtype,
                bias_initializer or init_ops.zeros_initializer(),
                bias_regularizer, trainable)
            outputs = nn_ops.bias_add(outputs, bias)
        return _activity(_apply(outputs, activation), activity_regularizer)


def _pair(x, n=2):
    return [x] * n if isinstance(x, int) else list(x)


def _format(data_format):
    if data_format in ("channels_last", "NHWC", None):
        return "NHWC"
    if data_format in ("channels_first", "NCHW"):
        return "NCHW"
    raise ValueError(f"unknown data_format {data_format!r} (channels_last "
                     "or channels_first)")


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1),
           activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable=True,
           name=None, reuse=None):
    _refuse_constraints("conv2d", kernel_constraint=kernel_constraint,
                        bias_constraint=bias_constraint)
    inputs = _t(inputs)
    fmt = _format(data_format)
    channels = inputs.shape[-1 if fmt == "NHWC" else 1].value
    if channels is None:
        raise ValueError("layers.conv2d: the channel dimension of the inputs "
                         "should be defined. Found `None`.")
    kh, kw = _pair(kernel_size)
    with variable_scope(name, default_name="conv2d", reuse=reuse):
        kernel = get_variable("kernel", [kh, kw, channels, filters],
                              inputs.dtype, kernel_initializer,
                              kernel_regularizer, trainable)
        outputs = nn_ops.conv2d(inputs, kernel, _pair(strides),
                                padding.upper(), data_format=fmt,
                                dilations=_pair(dilation_rate))
        if use_bias:
            bias = get_variable(
                "bias", [filters], inputs.dtype,
                bias_initializer or init_ops.zeros_initializer(),
                bias_regularizer, trainable)
            outputs = nn_ops.bias_add(outputs, bias, data_format=fmt)
        return _activity(_apply(outputs, activation), activity_regularizer)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1),
                     padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None,
                     bias_initializer=None, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None,
                     kernel_constraint=None, bias_constraint=None,
                     trainable=True, name=None, reuse=None):
    """The transpose of conv2d: each input pixel spreads over a kernel's
    window of the output, ``strides`` apart."""
    _refuse_constraints("conv2d_transpose", kernel_constraint=kernel_constraint,
                        bias_constraint=bias_constraint)
    inputs = _t(inputs)
    if _format(data_format) != "NHWC":
        raise ValueError("layers.conv2d_transpose: only channels_last is "
                         "supported by actorflow.compat.v1")
    channels = inputs.shape[-1].value
    if channels is None:
        raise ValueError("layers.conv2d_transpose: the channel dimension of "
                         "the inputs should be defined. Found `None`.")
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(strides)

    def size(n, k, s):
        if padding.lower() == "same":
            return _ops.mul(n, _t(s, "int32"))
        return _ops.add_v2(_ops.mul(_ops.sub(n, _t(1, "int32")),
                                    _t(s, "int32")), _t(k, "int32"))

    with variable_scope(name, default_name="conv2d_transpose", reuse=reuse):
        kernel = get_variable("kernel", [kh, kw, filters, channels],
                              inputs.dtype, kernel_initializer,
                              kernel_regularizer, trainable)
        dims = _ops.shape(inputs)
        at = [_ops.strided_slice(dims, _t([i], "int32"), _t([i + 1], "int32"),
                                 _t([1], "int32"), shrink_axis_mask=1)
              for i in range(3)]
        shape = [at[0], size(at[1], kh, sh), size(at[2], kw, sw), filters]
        outputs = nn_ops.conv2d_transpose(inputs, kernel, shape, [sh, sw],
                                          padding.upper())
        if use_bias:
            bias = get_variable(
                "bias", [filters], inputs.dtype,
                bias_initializer or init_ops.zeros_initializer(),
                bias_regularizer, trainable)
            outputs = nn_ops.bias_add(outputs, bias)
        return _activity(_apply(outputs, activation), activity_regularizer)


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
           data_format="channels_last", dilation_rate=1, activation=None,
           use_bias=True, kernel_initializer=None, bias_initializer=None,
           kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    _refuse_constraints("conv1d", kernel_constraint=kernel_constraint,
                        bias_constraint=bias_constraint)
    inputs = _t(inputs)
    if _format(data_format) != "NHWC":
        raise ValueError("layers.conv1d: only channels_last is supported by "
                         "actorflow.compat.v1")
    channels = inputs.shape[-1].value
    k = _pair(kernel_size, 1)[0]
    with variable_scope(name, default_name="conv1d", reuse=reuse):
        kernel = get_variable("kernel", [k, channels, filters], inputs.dtype,
                              kernel_initializer, kernel_regularizer,
                              trainable)
        outputs = nn_ops.conv1d(inputs, kernel, _pair(strides, 1)[0],
                                padding.upper(),
                                dilations=_pair(dilation_rate, 1)[0])
        if use_bias:
            bias = get_variable(
                "bias", [filters], inputs.dtype,
                bias_initializer or init_ops.zeros_initializer(),
                bias_regularizer, trainable)
            outputs = nn_ops.bias_add(outputs, bias)
        return _activity(_apply(outputs, activation), activity_regularizer)


def _pool2d(op, default, inputs, pool_size, strides, padding, data_format,
            name):
    fmt = _format(data_format)
    graph = get_default_graph()
    with graph.name_scope(name or default):
        return op(inputs, _pair(pool_size), _pair(strides), padding.upper(),
                  data_format=fmt, name="")


def max_pooling2d(inputs, pool_size, strides, padding="valid",
                  data_format="channels_last", name=None):
    return _pool2d(nn_ops.max_pool, "max_pooling2d", inputs, pool_size,
                   strides, padding, data_format, name)


def average_pooling2d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    return _pool2d(nn_ops.avg_pool, "average_pooling2d", inputs, pool_size,
                   strides, padding, data_format, name)


def _pool1d(op, default, inputs, pool_size, strides, padding, data_format,
            name):
    if _format(data_format) != "NHWC":
        raise ValueError("1-d pooling: only channels_last is supported by "
                         "actorflow.compat.v1")
    graph = get_default_graph()
    with graph.name_scope(name or default):
        x = _ops.expand_dims(inputs, _t(1, "int32"))
        y = op(x, [1, _pair(pool_size, 1)[0]], [1, _pair(strides, 1)[0]],
               padding.upper())
        return _ops.squeeze(y, squeeze_dims=[1], name="")


def max_pooling1d(inputs, pool_size, strides, padding="valid",
                  data_format="channels_last", name=None):
    return _pool1d(nn_ops.max_pool, "max_pooling1d", inputs, pool_size,
                   strides, padding, data_format, name)


def average_pooling1d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    return _pool1d(nn_ops.avg_pool, "average_pooling1d", inputs, pool_size,
                   strides, padding, data_format, name)


def flatten(inputs, name=None, data_format="channels_last"):
    """[batch, ...] as [batch, the rest's size]."""
    inputs = _t(inputs)
    graph = get_default_graph()
    with graph.name_scope(name or "flatten"):
        if _format(data_format) == "NCHW" and inputs.shape.ndims \
                and inputs.shape.ndims > 2:
            perm = [0] + list(range(2, inputs.shape.ndims)) + [1]
            inputs = _ops.transpose(inputs, _t(perm, "int32"))
        rest = inputs.shape[1:]
        if rest.is_fully_defined():
            return reshape(inputs, [-1, rest.num_elements()])
        return reshape(inputs, [_ops.shape(inputs)[0], -1], name="")


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False,
            name=None):
    """Dropout while ``training`` (a bool or a bool Tensor), the inputs
    themselves otherwise."""
    inputs = _t(inputs)
    graph = get_default_graph()
    with graph.name_scope(name or "dropout"):
        if isinstance(training, Tensor):
            return cond(training,
                        lambda: nn_ops.dropout(inputs, rate=rate,
                                               noise_shape=noise_shape,
                                               seed=seed),
                        lambda: _ops.identity(inputs))
        if not training or rate == 0:
            return _ops.identity(inputs, name="")
        return nn_ops.dropout(inputs, rate=rate, noise_shape=noise_shape,
                              seed=seed, name="")


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3,
                        center=True, scale=True, beta_initializer=None,
                        gamma_initializer=None,
                        moving_mean_initializer=None,
                        moving_variance_initializer=None,
                        beta_regularizer=None, gamma_regularizer=None,
                        beta_constraint=None, gamma_constraint=None,
                        training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None,
                        adjustment=None):
    """Normalizes over every axis but ``axis`` with the batch's moments
    while ``training`` (adding the moving averages' updates to
    ``UPDATE_OPS``: run them with the train op), with the moving ones
    otherwise."""
    _refuse_constraints("batch_normalization", beta_constraint=beta_constraint,
                        gamma_constraint=gamma_constraint,
                        renorm_clipping=renorm_clipping,
                        virtual_batch_size=virtual_batch_size,
                        adjustment=adjustment)
    if renorm:
        raise ValueError("layers.batch_normalization: renorm is not "
                         "supported by actorflow.compat.v1")
    inputs = _t(inputs)
    ndims = inputs.shape.ndims
    if ndims is None:
        raise ValueError("layers.batch_normalization: the inputs' rank must "
                         "be known")
    axis %= ndims
    depth = inputs.shape[axis].value
    if depth is None:
        raise ValueError("layers.batch_normalization: the inputs' axis "
                         f"{axis} must be known")
    dt = inputs.dtype
    stat_dt = "float32" if dt.name in ("float16", "bfloat16") else dt
    graph = get_default_graph()
    with variable_scope(name, default_name="batch_normalization",
                        reuse=reuse):
        gamma = get_variable(
            "gamma", [depth], stat_dt,
            gamma_initializer or init_ops.ones_initializer(),
            gamma_regularizer, trainable) if scale else None
        beta = get_variable(
            "beta", [depth], stat_dt,
            beta_initializer or init_ops.zeros_initializer(),
            beta_regularizer, trainable) if center else None
        moving_mean = get_variable(
            "moving_mean", [depth], stat_dt,
            moving_mean_initializer or init_ops.zeros_initializer(),
            trainable=False)
        moving_variance = get_variable(
            "moving_variance", [depth], stat_dt,
            moving_variance_initializer or init_ops.ones_initializer(),
            trainable=False)
        reduce_axes = [a for a in range(ndims) if a != axis]
        broadcast = [1] * ndims
        broadcast[axis] = depth

        def shaped(v):
            if v is None or axis == ndims - 1:
                return v
            return reshape(v, broadcast)

        def normalized(mean, variance):
            return nn_ops.batch_normalization(
                inputs, shaped(mean), shaped(variance), shaped(beta),
                shaped(gamma), epsilon)

        def batch_moments():
            mean, variance = nn_ops.moments(inputs, reduce_axes)
            return mean, variance

        if training is False:
            return normalized(moving_mean, moving_variance)
        mean, variance = batch_moments()
        decay = _t(1.0 - momentum, stat_dt)
        if isinstance(training, Tensor):
            mean, variance = cond(
                training, lambda: [_ops.identity(mean),
                                   _ops.identity(variance)],
                lambda: [_ops.identity(moving_mean),
                         _ops.identity(moving_variance)])
            decay = cond(training, lambda: decay,
                         lambda: _t(0.0, stat_dt))
        outputs = normalized(mean, variance)
        moving_value = variance
        if fused is not False and ndims == 4 and axis in (1, 3):
            # TensorFlow's fused kernel (what it picks for 4-d inputs)
            # moves the average towards the unbiased variance.
            n = cast(_ops.real_div(cast(_ops.size(inputs), stat_dt),
                                   _t(float(depth), stat_dt)), stat_dt)
            moving_value = _ops.mul(variance, _ops.real_div(
                n, _ops.maximum(_ops.sub(n, _t(1.0, stat_dt)),
                                _t(1.0, stat_dt))))
        updates = []
        for moving, value in ((moving_mean, mean),
                              (moving_variance, moving_value)):
            delta = _ops.mul(_ops.sub(moving, cast(value, stat_dt)), decay)
            updates.append(_ops.assign_sub(moving, delta))
        for u in updates:
            graph.add_to_collection(GraphKeys.UPDATE_OPS, u.op)
        return outputs


def __getattr__(name):
    from ._missing import missing
    raise missing(__name__, "tf.layers", name, globals())
