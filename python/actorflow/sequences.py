"""Functions over sequences, as TensorFlow 1 has them: ``map_fn``,
``scan``, ``foldl``, ``foldr`` (each one while loop over TensorArrays) and
``nn.dynamic_rnn`` with its cells (``af.nn.rnn_cell``)."""

from . import _core
from . import dtypes as _dtypes
from .graph import Tensor, convert_to_tensor, get_default_graph

__all__ = ["map_fn", "scan", "foldl", "foldr"]


def _as_list(x):
    return (list(x), False) if isinstance(x, (list, tuple)) else ([x], True)


def _graph_of(tensors):
    return tensors[0].graph if tensors else get_default_graph()


def _wrap(graph, outs, single):
    result = [Tensor(graph, o) for o in outs]
    return result[0] if single else result


def _results(graph, scope, result, dtypes=None):
    items, _ = _as_list(result)
    with graph._push(scope):
        return [convert_to_tensor(r, None if dtypes is None else dtypes[i],
                                  graph=graph)._out
                for i, r in enumerate(items)]


def map_fn(fn, elems, dtype=None, parallel_iterations=10, name="map"):
    """``fn`` applied to each row of ``elems`` (a Tensor, or a list whose
    rows ``fn`` gets together), the results stacked."""
    graph = get_default_graph()
    items, single = _as_list(elems)
    items = [convert_to_tensor(e, graph=graph) for e in items]
    graph = _graph_of(items)
    dtypes = []
    if dtype is not None:
        dtypes = [_dtypes.as_dtype(d).name for d in _as_list(dtype)[0]]

    def body(scope, rows):
        with graph._push(scope):
            rows = [Tensor(graph, r) for r in rows]
            out = fn(rows[0] if single else rows)
        return _results(graph, scope, out, dtypes or None)

    out_single = dtype is None and single or (
        dtype is not None and not isinstance(dtype, (list, tuple)))
    with graph._lock:
        outs = _core.map_fn(graph._scope.sub(name), body,
                            [e._out for e in items], parallel_iterations,
                            dtypes)
    return _wrap(graph, outs, out_single)


def _fold(kind, fn, elems, initializer, parallel_iterations, reverse,
          name):
    graph = get_default_graph()
    items, single_elems = _as_list(elems)
    items = [convert_to_tensor(e, graph=graph) for e in items]
    graph = _graph_of(items)
    init, single_acc = ([], single_elems) if initializer is None else \
        _as_list(initializer)
    init = [convert_to_tensor(i, graph=graph) for i in init]

    def body(scope, acc, rows):
        with graph._push(scope):
            acc = [Tensor(graph, a) for a in acc]
            rows = [Tensor(graph, r) for r in rows]
            out = fn(acc[0] if single_acc else acc,
                     rows[0] if single_elems else rows)
        return _results(graph, scope, out)

    with graph._lock:
        outs = _core.fold(kind, graph._scope.sub(name), body,
                          [e._out for e in items], [i._out for i in init],
                          parallel_iterations, reverse)
    return _wrap(graph, outs, single_acc)


def scan(fn, elems, initializer=None, parallel_iterations=10, reverse=False,
         name="scan"):
    """acc = fn(acc, row) over the rows of ``elems`` from ``initializer``
    (else row 0); every acc, stacked."""
    return _fold("scan", fn, elems, initializer, parallel_iterations,
                 reverse, name)


def foldl(fn, elems, initializer=None, parallel_iterations=10,
          name="foldl"):
    """The last acc of ``scan``."""
    return _fold("foldl", fn, elems, initializer, parallel_iterations,
                 False, name)


def foldr(fn, elems, initializer=None, parallel_iterations=10,
          name="foldr"):
    """``foldl`` from the last row to the first."""
    return _fold("foldr", fn, elems, initializer, parallel_iterations,
                 False, name)
