"""``variable_scope`` and ``get_variable``, as in TensorFlow 1: variables
named by the scopes around them, shared by ``reuse=True`` or
``AUTO_REUSE``, made by the scope's initializer (Glorot uniform by
default) and regularized by its regularizer."""

import contextlib
import enum
import threading

from . import dtypes as _dtypes
from . import init_ops
from .graph import GraphKeys, convert_to_tensor, get_default_graph
from .tensor_shape import as_shape
from .variables import Variable

__all__ = [
    "variable_scope", "get_variable", "get_variable_scope",
    "get_local_variable", "AUTO_REUSE", "VariableScope",
]


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE
"""get_variable returns the variable if it exists, else makes it."""


class VariableScope:
    """What ``get_variable`` reads: the name prefix, whether to reuse, and
    the defaults (initializer, regularizer, dtype)."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None,
                 dtype="float32", name_scope=""):
        self._name = name
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._dtype = dtype
        self._name_scope = name_scope

    @property
    def name(self):
        return self._name

    @property
    def original_name_scope(self):
        return self._name_scope

    @property
    def reuse(self):
        return self._reuse

    @property
    def initializer(self):
        return self._initializer

    @property
    def regularizer(self):
        return self._regularizer

    @property
    def dtype(self):
        return self._dtype

    def reuse_variables(self):
        """Reuses variables in this scope from now on."""
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def get_variable(self, name, *args, **kwargs):
        with variable_scope(self):
            return get_variable(name, *args, **kwargs)

    def get_collection(self, name):
        prefix = self._name + "/" if self._name else None
        return get_default_graph().get_collection(name, prefix)

    def trainable_variables(self):
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)


class _Store:
    """A graph's variables by full name, its scopes' counts, and the stack
    of open variable scopes (per thread)."""

    def __init__(self):
        self.variables = {}
        self.scope_counts = {}
        self.local = threading.local()

    @property
    def stack(self):
        if not hasattr(self.local, "stack"):
            self.local.stack = [VariableScope(False)]
        return self.local.stack


def _store(graph=None):
    graph = graph or get_default_graph()
    if graph._var_store is None:
        graph._var_store = _Store()
    return graph._var_store


def get_variable_scope():
    """The innermost open variable scope."""
    return _store().stack[-1]


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, values=None,
                   initializer=None, regularizer=None, caching_device=None,
                   partitioner=None, custom_getter=None, reuse=None,
                   dtype=None, use_resource=None, constraint=None,
                   auxiliary_name_scope=True):
    """Names ``get_variable``'s variables ``scope/name`` in the block (and
    the ops built in it, in a name scope of the same name); ``reuse``:
    True (the variables must exist), ``AUTO_REUSE``, or None (as the outer
    scope). With ``name_or_scope`` None, ``default_name`` is made unique
    (``dense``, ``dense_1``)."""
    for arg, value in (("partitioner", partitioner),
                       ("custom_getter", custom_getter),
                       ("constraint", constraint)):
        if value is not None:
            raise ValueError(f"variable_scope: {arg} is not supported by "
                             "actorflow.compat.v1")
    if use_resource:
        raise ValueError("variable_scope: use_resource=True is not "
                         "supported by actorflow.compat.v1")
    if name_or_scope is None and default_name is None:
        raise TypeError("variable_scope: give name_or_scope or default_name")
    graph = get_default_graph()
    store = _store(graph)
    outer = store.stack[-1]
    if isinstance(name_or_scope, VariableScope):
        full = name_or_scope.name
        base = name_or_scope
    else:
        if name_or_scope is None:
            prefix = outer.name + "/" if outer.name else ""
            key = prefix + default_name
            n = store.scope_counts.get(key, 0)
            store.scope_counts[key] = n + 1
            own = default_name if n == 0 else f"{default_name}_{n}"
        else:
            own = str(name_or_scope)
            key = (outer.name + "/" if outer.name else "") + own
            store.scope_counts[key] = store.scope_counts.get(key, 0) + 1
        full = (outer.name + "/" if outer.name else "") + own
        base = outer
    if reuse is None or reuse is False:
        # Reuse is inherited: a scope in a reusing one reuses.
        reuse = outer.reuse if not isinstance(
            name_or_scope, VariableScope) else name_or_scope.reuse
        reuse = reuse or False
    scope = VariableScope(
        reuse, full,
        initializer if initializer is not None else base.initializer,
        regularizer if regularizer is not None else base.regularizer,
        dtype if dtype is not None else base.dtype,
        full + "/" if full else "")
    store.stack.append(scope)
    try:
        if auxiliary_name_scope and full:
            with graph._push(graph._root.with_device(
                    graph._scope.device).sub(full)):
                yield scope
        else:
            yield scope
    finally:
        store.stack.pop()


def get_variable(name, shape=None, dtype=None, initializer=None,
                 regularizer=None, trainable=None, collections=None,
                 caching_device=None, partitioner=None, validate_shape=True,
                 use_resource=None, custom_getter=None, constraint=None,
                 synchronization=None, aggregation=None):
    """The variable ``<scope>/name``: made (from ``initializer``, or the
    scope's, or Glorot uniform for floats and zeros otherwise), or, where
    the scope reuses, the one made before (its shape and dtype must fit)."""
    for arg, value in (("partitioner", partitioner),
                       ("custom_getter", custom_getter),
                       ("constraint", constraint)):
        if value is not None:
            raise ValueError(f"get_variable: {arg} is not supported by "
                             "actorflow.compat.v1")
    if use_resource:
        raise ValueError("get_variable: use_resource=True is not supported "
                         "by actorflow.compat.v1")
    graph = get_default_graph()
    store = _store(graph)
    scope = store.stack[-1]
    full = (scope.name + "/" if scope.name else "") + name
    existing = store.variables.get(full)
    if existing is not None:
        if scope.reuse is False:
            raise ValueError(
                f"Variable {full} already exists, disallowed. Did you mean "
                "to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
        if shape is not None and not existing.shape.is_compatible_with(
                as_shape(shape)):
            raise ValueError(f"Trying to share variable {full}, but "
                             f"specified shape {as_shape(shape)} and found "
                             f"shape {existing.shape}.")
        if dtype is not None and _dtypes.as_dtype(dtype) != existing.dtype:
            raise ValueError(f"Trying to share variable {full}, but "
                             f"specified dtype {_dtypes.as_dtype(dtype).name}"
                             f" and found dtype {existing.dtype.name}.")
        return existing
    if scope.reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not "
                         "created with tf.get_variable(). Did you mean to "
                         "set reuse=tf.AUTO_REUSE in VarScope?")
    dt = _dtypes.as_dtype(dtype or scope.dtype or "float32")
    initializer = initializer if initializer is not None else \
        scope.initializer
    root = graph._root.with_device(graph._scope.device).outside_control_flow()
    with graph._push(root.sub(full + "/Initializer")):
        if initializer is None:
            if dt.is_floating:
                initializer = init_ops.glorot_uniform_initializer()
            elif dt.is_integer or dt.is_bool or dt.name == "string":
                initializer = init_ops.zeros_initializer()
            else:
                raise ValueError(f"get_variable: an initializer is needed "
                                 f"for {full} of dtype {dt.name}")
        if callable(initializer):
            if shape is None:
                raise ValueError(f"get_variable: the shape of {full} must "
                                 "be given with an initializer function")
            value = initializer(as_shape(shape).as_list(), dtype=dt)
        else:
            # A value: the variable takes its dtype, as in TensorFlow.
            value = convert_to_tensor(initializer)
            dt = value.dtype
            if shape is not None and not value.shape.is_compatible_with(
                    as_shape(shape)):
                raise ValueError(f"get_variable: the initial value of "
                                 f"{full} has shape {value.shape}, not "
                                 f"{as_shape(shape)}")
    with graph._push(root):
        if value.dtype != dt:
            raise ValueError(f"get_variable: the initializer of {full} "
                             f"made {value.dtype.name}, not {dt.name}")
        v = Variable(value, trainable=trainable, collections=collections,
                     name=full)
    store.variables[full] = v
    regularizer = regularizer if regularizer is not None else \
        scope.regularizer
    if regularizer is not None:
        with graph._push(root.sub(full + "/Regularizer")):
            loss = regularizer(v)
        if loss is not None:
            graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return v


def get_local_variable(name, shape=None, dtype=None, initializer=None,
                       **kwargs):
    kwargs["collections"] = [GraphKeys.LOCAL_VARIABLES]
    kwargs["trainable"] = False
    return get_variable(name, shape, dtype, initializer, **kwargs)
