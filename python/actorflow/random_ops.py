"""Random tensors, as ``tf.compat.v1.random_normal`` and friends, with
TensorFlow's seed rules (``set_random_seed`` for the graph, ``seed`` for
an op). The engine's generator is its own: a seeded program draws the same
numbers on every run here, not TensorFlow's numbers."""

from . import dtypes as _dtypes
from . import ops as _ops
from .array_ops import _ints
from .graph import Tensor, convert_to_tensor as _t, get_default_graph

__all__ = [
    "set_random_seed", "get_seed", "random_normal", "random_uniform",
    "truncated_normal", "random_shuffle", "multinomial",
    "random_categorical",
]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def set_random_seed(seed):
    """The default graph's seed: ops made after it without a seed of their
    own draw the same numbers on every run."""
    get_default_graph()._seed = None if seed is None else int(seed)


def get_seed(op_seed):
    """(graph seed, op seed) for an op, by TensorFlow's rules: both None
    when neither is set (a different draw each run)."""
    graph = get_default_graph()
    global_seed = getattr(graph, "_seed", None)
    if global_seed is not None:
        if op_seed is None:
            op_seed = graph.num_nodes
        seeds = (global_seed, int(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed))
    else:
        return None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


def _seed_attrs(seed):
    s1, s2 = get_seed(seed)
    return {"seed": s1 or 0, "seed2": s2 or 0}


def _scaled(x, scale, shift, dtype):
    """x * scale + shift, skipping what changes nothing."""
    if not (isinstance(scale, (int, float)) and scale == 1):
        x = _ops.mul(x, _t(scale, dtype) if not isinstance(scale, Tensor)
                     else scale)
    if not (isinstance(shift, (int, float)) and shift == 0):
        x = _ops.add_v2(x, _t(shift, dtype) if not isinstance(shift, Tensor)
                        else shift)
    return x


def random_normal(shape, mean=0.0, stddev=1.0, dtype="float32", seed=None,
                  name=None):
    dt = _dtypes.as_dtype(dtype)
    graph = get_default_graph()
    with graph.name_scope(name or "random_normal"):
        x = _ops.random_standard_normal(_ints(shape), dtype=dt.name,
                                        **_seed_attrs(seed))
        return _ops.identity(_scaled(x, stddev, mean, dt), name="")


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype="float32", seed=None,
                     name=None):
    dt = _dtypes.as_dtype(dtype)
    graph = get_default_graph()
    with graph.name_scope(name or "truncated_normal"):
        x = _ops.truncated_normal(_ints(shape), dtype=dt.name,
                                  **_seed_attrs(seed))
        return _ops.identity(_scaled(x, stddev, mean, dt), name="")


def random_uniform(shape, minval=0, maxval=None, dtype="float32", seed=None,
                   name=None):
    dt = _dtypes.as_dtype(dtype)
    graph = get_default_graph()
    with graph.name_scope(name or "random_uniform"):
        if dt.is_integer:
            if maxval is None:
                raise ValueError("random_uniform: an integer dtype needs "
                                 "maxval")
            return _ops.random_uniform_int(
                _ints(shape), _t(minval, dt), _t(maxval, dt),
                **_seed_attrs(seed), name="")
        x = _ops.random_uniform(_ints(shape), dtype=dt.name,
                                **_seed_attrs(seed))
        maxval = 1 if maxval is None else maxval
        if isinstance(maxval, Tensor) or isinstance(minval, Tensor):
            span = _ops.sub(_t(maxval, dt) if not isinstance(
                maxval, Tensor) else maxval, _t(minval, dt) if not isinstance(
                    minval, Tensor) else minval)
        else:
            span = maxval - minval
        return _ops.identity(_scaled(x, span, minval, dt), name="")


def random_shuffle(value, seed=None, name=None):
    return _ops.random_shuffle(value, **_seed_attrs(seed), name=name)


def multinomial(logits, num_samples, seed=None, name=None,
                output_dtype="int64"):
    return _ops.multinomial(logits, _t(num_samples, "int32"),
                            output_dtype=output_dtype, **_seed_attrs(seed),
                            name=name)


def random_categorical(logits, num_samples, dtype="int64", seed=None,
                       name=None):
    return multinomial(logits, num_samples, seed, name, dtype)
