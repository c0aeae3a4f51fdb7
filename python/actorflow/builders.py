"""The builders a TensorFlow-1 user writes models with: constants,
placeholders, variables, ``while_loop``, ``cond`` and ``gradients``."""

import numpy as np

from . import _core
from . import dtypes as _dtypes
from .graph import (Operation, Tensor, _const_array, const_node,
                    convert_to_tensor, get_default_graph)

__all__ = [
    "constant", "placeholder", "Variable", "global_variables_initializer",
    "global_variables", "trainable_variables", "while_loop", "cond",
    "gradients",
]


def constant(value, dtype=None, shape=None, name="Const"):
    """A Const node holding ``value`` (broadcast to ``shape`` if given)."""
    array = _const_array(value, dtype)
    if shape is not None:
        array = np.broadcast_to(array, tuple(shape)).copy()
    return const_node(get_default_graph(), array, name)


def placeholder(dtype, shape=None, name="Placeholder"):
    """A value fed at run time (``feed_dict``); ``shape`` may have None."""
    attrs = {"dtype": _dtypes.as_dtype(dtype).name}
    if shape is not None:
        attrs["shape"] = [None if d is None or d < 0 else int(d)
                          for d in shape]
    _, outs = get_default_graph().create_op("Placeholder", [], attrs, name)
    return outs[0]


def Variable(initial_value, name="Variable", dtype=None, trainable=True):
    """A variable set to ``initial_value`` by the graph's initializer
    (``global_variables_initializer``); returns its reference Tensor."""
    graph = get_default_graph()
    init = convert_to_tensor(initial_value, dtype, graph=graph,
                             name=name + "/initial_value")
    with graph._lock:
        out = _core.variable(graph._scope.sub(name), init._out)
    var = Tensor(graph, out)
    graph._collections.setdefault("variables", []).append(var)
    if trainable:
        graph._collections.setdefault("trainable_variables", []).append(var)
    return var


def global_variables(graph=None):
    return list((graph or get_default_graph())._collections.get(
        "variables", []))


def trainable_variables(graph=None):
    return list((graph or get_default_graph())._collections.get(
        "trainable_variables", []))


def global_variables_initializer(graph=None):
    """A NoOp that runs the initializer of every variable so far."""
    graph = graph or get_default_graph()
    with graph._lock:
        return Operation(graph, graph._root.initializer())


def _named(graph, name, default):
    """The scope a builder builds in: the builder names its nodes
    ``default/...`` itself; another name goes in front."""
    return graph._scope if name == default else graph._scope.sub(name)


def _wrap(graph, outs):
    return [Tensor(graph, o) for o in outs]


def while_loop(cond, body, loop_vars, parallel_iterations=10,
               maximum_iterations=None, shape_invariants=None, name="while"):
    """``while cond(*vars): vars = body(*vars)``, in the graph, with
    iterations in flight at once; returns the final values (a Tensor when
    ``loop_vars`` was one, else a list)."""
    single = not isinstance(loop_vars, (list, tuple))
    graph = get_default_graph()
    start = [convert_to_tensor(v, graph=graph)
             for v in ([loop_vars] if single else loop_vars)]
    if start:
        graph = start[0].graph

    def run_cond(scope, outs):
        with graph._push(scope):
            return convert_to_tensor(cond(*_wrap(graph, outs)),
                                     graph=graph)._out

    def run_body(scope, outs):
        with graph._push(scope):
            result = body(*_wrap(graph, outs))
        if not isinstance(result, (list, tuple)):
            result = [result]
        if len(result) != len(start):
            raise ValueError(f"the body returned {len(result)} values for "
                             f"{len(start)} loop variables")
        with graph._push(scope):
            return [convert_to_tensor(r, v.dtype, graph=graph)._out
                    for r, v in zip(result, start)]

    invariants = None
    if shape_invariants is not None:
        invariants = [list(s) for s in (
            [shape_invariants] if single else shape_invariants)]
    with graph._lock:
        outs = _core.while_loop(_named(graph, name, "while"), run_cond,
                                run_body,
                                [v._out for v in start], parallel_iterations,
                                maximum_iterations, invariants)
    result = _wrap(graph, outs)
    return result[0] if single else result


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
