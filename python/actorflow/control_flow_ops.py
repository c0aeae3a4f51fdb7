"""Grouping and choosing operations, as in TensorFlow 1: ``group``,
``no_op``, ``tuple`` (its name shadows the builtin here, as in
TensorFlow's module) and ``case``."""

from . import nest
from .builders import cond
from .graph import get_default_graph

__all__ = ["no_op", "group", "tuple", "case"]


def no_op(name=None):
    """An operation that does nothing (a point to hang dependencies on)."""
    return get_default_graph().create_op("NoOp", [], {}, name or "NoOp")[0]


def group(*inputs, **kwargs):
    """An operation that runs after every one of ``inputs``."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"group: unknown arguments {sorted(kwargs)}")
    deps = [x for x in nest.flatten(list(inputs)) if x is not None]
    graph = get_default_graph()
    with graph.control_dependencies(deps):
        return no_op(name=name or "group_deps")


def tuple(tensors, name=None, control_inputs=None):
    """The tensors, each available only once all of them (and
    ``control_inputs``) are computed."""
    from .math import identity
    tensors = list(tensors)
    graph = get_default_graph()
    with graph.name_scope(name or "tuple"):
        gate = group(*[t for t in tensors if t is not None],
                     *(control_inputs or []))
        with graph.control_dependencies([gate]):
            return [None if t is None else identity(t) for t in tensors]


def case(pred_fn_pairs, default=None, exclusive=False, strict=False,
         name="case"):
    """The function of the first true predicate (``default`` when none
    is): conds nested from the last pair to the first."""
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    pairs = list(pred_fn_pairs)
    if not pairs:
        if default is None:
            raise ValueError("case: no predicates and no default")
        return default()
    if exclusive:
        raise ValueError("case: exclusive=True is not supported by "
                         "actorflow.compat.v1")
    if default is None:
        *pairs, (_, default) = pairs
        if not pairs:
            return default()
    fn = default
    for pred, branch in reversed(pairs):
        fn = (lambda p, b, f: lambda: cond(p, b, f, name=name))(pred, branch,
                                                                fn)
    return fn()
