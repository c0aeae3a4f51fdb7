"""The builders a TensorFlow-1 user writes models with: constants,
placeholders, variables, ``while_loop``, ``cond`` and ``gradients``."""

import numpy as np

from . import _core
from . import dtypes as _dtypes
from . import nest
from .graph import (Tensor, _const_array, const_node,
                    convert_to_tensor, get_default_graph)
from .tensor_shape import shape_attr

__all__ = [
    "constant", "placeholder", "placeholder_with_default", "while_loop",
    "cond", "gradients",
]


def constant(value, dtype=None, shape=None, name="Const"):
    """A Const node holding ``value`` (broadcast to ``shape`` if given)."""
    array = _const_array(value, dtype)
    if shape is not None:
        array = np.broadcast_to(array, tuple(shape)).copy()
    return const_node(get_default_graph(), array, name)


def placeholder_with_default(input, shape, name="PlaceholderWithDefault"):
    """``input`` unless a value is fed (of a shape that fits ``shape``)."""
    graph = get_default_graph()
    x = convert_to_tensor(input, graph=graph)
    _, outs = graph.create_op(
        "PlaceholderWithDefault", [x],
        {"dtype": x.dtype.name, "shape": shape_attr(shape)},
        name)
    return outs[0]


def placeholder(dtype, shape=None, name="Placeholder"):
    """A value fed at run time (``feed_dict``); ``shape`` may have None."""
    attrs = {"dtype": _dtypes.as_dtype(dtype).name}
    if shape is not None:
        attrs["shape"] = shape_attr(shape)
    _, outs = get_default_graph().create_op("Placeholder", [], attrs, name)
    return outs[0]


def _named(graph, name, default):
    """The scope a builder builds in: the builder names its nodes
    ``default/...`` itself; another name goes in front."""
    return graph._scope if name == default else graph._scope.sub(name)


def _wrap(graph, outs):
    return [Tensor(graph, o) for o in outs]


def while_loop(cond, body, loop_vars, shape_invariants=None,
               parallel_iterations=10, back_prop=True, swap_memory=False,
               name=None, maximum_iterations=None,
               return_same_structure=False):
    """``while cond(*vars): vars = body(*vars)`` in the graph, with many
    iterations in flight, as TensorFlow 1's ``while_loop``: ``loop_vars``
    is a Tensor or a (nested) list, tuple or namedtuple of them; the result
    has its structure (one Tensor alone is returned as itself unless
    ``return_same_structure``). ``maximum_iterations`` may be an int or a
    scalar Tensor."""
    from .tensor_array import TensorArray
    graph = get_default_graph()
    is_seq = isinstance(loop_vars, (list, tuple))
    leaves = nest.flatten(loop_vars)
    # A TensorArray goes through the loop as its flow.
    arrays = {i: v for i, v in enumerate(leaves) if isinstance(v, TensorArray)}

    def flows(values):
        return [v.flow if isinstance(v, TensorArray) else v for v in values]

    flat = [convert_to_tensor(v, graph=graph) for v in flows(leaves)]
    if flat:
        graph = flat[0].graph
    invariants = None
    if shape_invariants is not None:
        invariants = [shape_attr(s) for s in _flatten_up_to(
            loop_vars, shape_invariants)]
    counted = maximum_iterations is not None and not isinstance(
        maximum_iterations, (int, np.integer))
    if counted:
        # TensorFlow's way: a counter in front, checked in the condition.
        limit = convert_to_tensor(maximum_iterations, graph=graph)
        flat = [convert_to_tensor(0, limit.dtype, graph=graph)] + flat
        invariants = None if invariants is None else [[]] + invariants

    def pack(outs):
        values = _wrap(graph, outs)[1 if counted else 0:]
        for i, array in arrays.items():
            values[i] = array._next(values[i])
        return nest.pack_sequence_as(loop_vars, values) if is_seq \
            else values[0]

    def call(fn, outs):
        packed = pack(outs)
        return fn(*packed) if is_seq else fn(packed)

    def run_cond(scope, outs):
        with graph._push(scope):
            keep_going = convert_to_tensor(call(cond, outs), graph=graph)
            if counted:
                from .math import less, logical_and
                keep_going = logical_and(
                    less(_wrap(graph, outs)[0], limit), keep_going)
            return keep_going._out

    def run_body(scope, outs):
        with graph._push(scope):
            result = call(body, outs)
            if is_seq and not isinstance(result, (list, tuple)) \
                    and len(loop_vars) == 1:
                result = [result]
            values = flows(nest.flatten(result))
            if counted:
                values = [_wrap(graph, outs)[0] + 1] + values
        if len(values) != len(flat):
            raise ValueError(f"the body returned {len(values)} values for "
                             f"{len(flat)} loop variables")
        with graph._push(scope):
            return [convert_to_tensor(r, v.dtype, graph=graph)._out
                    for r, v in zip(values, flat)]

    with graph._lock:
        outs = _core.while_loop(
            _named(graph, name or "while", "while"), run_cond, run_body,
            [v._out for v in flat], parallel_iterations,
            None if counted or maximum_iterations is None
            else int(maximum_iterations), invariants)
    result = pack(outs)
    if not return_same_structure and is_seq and len(nest.flatten(
            loop_vars)) == 1:
        return nest.flatten(result)[0]
    return result


def _flatten_up_to(structure, values):
    """``values`` taken apart as far as ``structure`` goes: the shape
    invariant of each loop variable (lists of dimensions stay whole)."""
    if isinstance(structure, dict):
        return [x for k in sorted(structure)
                for x in _flatten_up_to(structure[k], values[k])]
    if isinstance(structure, (list, tuple)):
        if len(structure) != len(values):
            raise ValueError(f"shape_invariants has {len(values)} entries "
                             f"for {len(structure)} loop variables")
        return [x for s, v in zip(structure, values)
                for x in _flatten_up_to(s, v)]
    return [values]


def cond(pred, true_fn, false_fn, name="cond"):
    """``true_fn() if pred else false_fn()`` in the graph: only the taken
    branch runs. Returns a Tensor when the branches return one, else a
    list."""
    graph = get_default_graph()
    pred = convert_to_tensor(pred, graph=graph)
    graph = pred.graph
    shape = {}

    def branch(fn):
        def run(scope):
            with graph._push(scope):
                result = fn()
                single = not isinstance(result, (list, tuple))
                shape.setdefault("single", single)
                items = [result] if single else list(result)
                return [convert_to_tensor(r, graph=graph)._out for r in items]
        return run

    with graph._lock:
        outs = _core.cond(_named(graph, name, "cond"), pred._out,
                          branch(true_fn), branch(false_fn))
    result = _wrap(graph, outs)
    return result[0] if shape.get("single") else result


def gradients(ys, xs, grad_ys=None, name="gradients"):
    """d(sum of ys)/dx for each x of ``xs``: a list with None where no path
    leads from x to the ys."""
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    single = not isinstance(xs, (list, tuple))
    xs = [xs] if single else list(xs)
    graph = ys[0].graph
    gys = [] if grad_ys is None else [
        convert_to_tensor(g, y.dtype, graph=graph)._out
        for g, y in zip(grad_ys, ys)]
    with graph._lock:
        outs = _core.gradients(_named(graph, name, "gradients"),
                               [y._out for y in ys],
                               [x._out for x in xs], gys)
    result = [None if o is None else Tensor(graph, o) for o in outs]
    return result

