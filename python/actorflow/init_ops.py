"""Initializers, as ``tf.compat.v1.initializers``: objects called with a
shape (and dtype) that build the initial value of a variable
(``get_variable(..., initializer=...)``, ``tf.layers``)."""

import math as _pymath

import numpy as np

from . import dtypes as _dtypes
from . import random_ops
from .array_ops import fill
from .graph import convert_to_tensor as _t

__all__ = [
    "Initializer", "zeros_initializer", "ones_initializer",
    "constant_initializer", "random_normal_initializer",
    "truncated_normal_initializer", "random_uniform_initializer",
    "uniform_unit_scaling_initializer", "variance_scaling_initializer",
    "glorot_uniform_initializer", "glorot_normal_initializer",
    "orthogonal_initializer", "he_normal", "he_uniform", "lecun_normal",
    "lecun_uniform", "identity_initializer",
]


class Initializer:
    """Builds a variable's initial value: ``init(shape, dtype)``."""

    dtype = None

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def _dtype(self, dtype):
        return _dtypes.as_dtype(dtype or self.dtype or "float32")

    def get_config(self):
        return {}


def _shape(shape):
    return [int(d) for d in shape]


class zeros_initializer(Initializer):
    def __init__(self, dtype="float32"):
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return fill(_shape(shape), _t(0, self._dtype(dtype)))


class ones_initializer(Initializer):
    def __init__(self, dtype="float32"):
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return fill(_shape(shape), _t(1, self._dtype(dtype)))


class constant_initializer(Initializer):
    """A value broadcast to the shape (a scalar), or of exactly as many
    elements as the shape (a list or array)."""

    def __init__(self, value=0, dtype="float32", verify_shape=False):
        self.value = value
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        dt = self._dtype(dtype)
        shape = _shape(shape)
        value = np.asarray(self.value, dtype=dt.as_numpy_dtype)
        if value.size == 1:
            return fill(shape, _t(value.reshape(()), dt))
        if value.size != int(np.prod(shape)):
            raise ValueError(f"constant_initializer: {value.size} values "
                             f"for the shape {shape}")
        return _t(value.reshape(shape), dt)


class random_normal_initializer(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype="float32"):
        self.mean, self.stddev, self.seed, self.dtype = (mean, stddev, seed,
                                                         dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(_shape(shape), self.mean,
                                        self.stddev, self._dtype(dtype),
                                        self.seed)


class truncated_normal_initializer(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype="float32"):
        self.mean, self.stddev, self.seed, self.dtype = (mean, stddev, seed,
                                                         dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(_shape(shape), self.mean,
                                           self.stddev, self._dtype(dtype),
                                           self.seed)


class random_uniform_initializer(Initializer):
    def __init__(self, minval=0.0, maxval=None, seed=None, dtype="float32"):
        self.minval, self.maxval, self.seed, self.dtype = (minval, maxval,
                                                           seed, dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dt = self._dtype(dtype)
        maxval = self.maxval
        if maxval is None and dt.is_floating:
            maxval = 1.0
        return random_ops.random_uniform(_shape(shape), self.minval, maxval,
                                         dt, self.seed)


def _fans(shape):
    """(fan_in, fan_out) as TensorFlow computes them."""
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


class variance_scaling_initializer(Initializer):
    """Values of variance ``scale / n`` (n: fan_in, fan_out or their mean,
    by ``mode``), from a truncated normal, a normal or a uniform
    ``distribution``."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal",
                 seed=None, dtype="float32"):
        if scale <= 0:
            raise ValueError("variance_scaling_initializer: scale must be "
                             "positive")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"variance_scaling_initializer: unknown mode "
                             f"{mode!r}")
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal",
                                "uniform"):
            raise ValueError("variance_scaling_initializer: unknown "
                             f"distribution {distribution!r}")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.seed, self.dtype = seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = _shape(shape)
        dt = self._dtype(dtype)
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out,
             "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            # The stddev of a unit normal truncated at 2 stddevs.
            stddev = _pymath.sqrt(scale) / 0.87962566103423978
            return random_ops.truncated_normal(shape, 0.0, stddev, dt,
                                               self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, _pymath.sqrt(scale),
                                            dt, self.seed)
        limit = _pymath.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dt, self.seed)


class glorot_uniform_initializer(variance_scaling_initializer):
    def __init__(self, seed=None, dtype="float32"):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)


class glorot_normal_initializer(variance_scaling_initializer):
    def __init__(self, seed=None, dtype="float32"):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)


def he_normal(seed=None):
    return variance_scaling_initializer(2.0, "fan_in", "truncated_normal",
                                        seed)


def he_uniform(seed=None):
    return variance_scaling_initializer(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed=None):
    return variance_scaling_initializer(1.0, "fan_in", "truncated_normal",
                                        seed)


def lecun_uniform(seed=None):
    return variance_scaling_initializer(1.0, "fan_in", "uniform", seed)


class uniform_unit_scaling_initializer(Initializer):
    def __init__(self, factor=1.0, seed=None, dtype="float32"):
        self.factor, self.seed, self.dtype = factor, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = _shape(shape)
        n = int(np.prod(shape[:-1])) if len(shape) > 1 else (
            shape[0] if shape else 1)
        limit = _pymath.sqrt(3.0 / max(1, n)) * self.factor
        return random_ops.random_uniform(shape, -limit, limit,
                                         self._dtype(dtype), self.seed)


class orthogonal_initializer(Initializer):
    """An orthogonal matrix (rows or columns, whichever are fewer) times
    ``gain``: the Q of the QR decomposition of a normal draw, made when the
    graph is built (numpy, seeded by the op's seed) and kept as a
    constant."""

    def __init__(self, gain=1.0, seed=None, dtype="float32"):
        self.gain, self.seed, self.dtype = gain, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError("orthogonal_initializer needs a shape of rank "
                             ">= 2")
        dt = self._dtype(dtype)
        rows = int(np.prod(shape[:-1]))
        cols = shape[-1]
        seeds = random_ops.get_seed(self.seed)
        rng = np.random.default_rng(None if seeds[0] is None else seeds)
        a = rng.standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return _t((self.gain * q).reshape(shape).astype(dt.numpy_dtype), dt)


class identity_initializer(Initializer):
    def __init__(self, gain=1.0, dtype="float32"):
        self.gain, self.dtype = gain, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = _shape(shape)
        if len(shape) != 2:
            raise ValueError("identity_initializer needs a 2-d shape")
        dt = self._dtype(dtype)
        return _t(np.eye(*shape, dtype=dt.as_numpy_dtype) * self.gain, dt)


# TensorFlow's short names (tf.initializers.*, tf.keras-style).
zeros = zeros_initializer
ones = ones_initializer
constant = constant_initializer
random_normal = random_normal_initializer
truncated_normal = truncated_normal_initializer
random_uniform = random_uniform_initializer
variance_scaling = variance_scaling_initializer
glorot_uniform = glorot_uniform_initializer
glorot_normal = glorot_normal_initializer
orthogonal = orthogonal_initializer
identity = identity_initializer
