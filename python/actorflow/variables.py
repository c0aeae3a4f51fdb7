"""Variables, as ``tf.compat.v1.Variable``: a Tensor (the variable's
reference) with ``assign``, ``initializer``, ``initial_value``, ``load``
and ``eval``, kept in the graph's collections; and the initializers of
sets of them."""

from . import _core
from . import ops as _ops
from .graph import (GraphKeys, Operation, Tensor,
                    convert_to_tensor, get_default_graph)
from .tensor import _default_session

__all__ = [
    "Variable", "global_variables", "trainable_variables", "local_variables",
    "model_variables", "global_variables_initializer",
    "local_variables_initializer", "variables_initializer",
    "initialize_all_variables",
]


class Variable(Tensor):
    """A variable of the graph, set to ``initial_value`` (a value, a
    Tensor, or a function returning one) by its ``initializer``, which
    ``global_variables_initializer()`` runs. It is the variable's
    reference Tensor: op functions and operators take it as they take any
    Tensor."""

    __slots__ = ("_initializer", "_initial_value", "trainable", "_load")

    def __init__(self, initial_value=None, trainable=None, collections=None,
                 validate_shape=True, caching_device=None, name=None,
                 variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None,
                 synchronization=None, aggregation=None, shape=None):
        for arg, value in (("variable_def", variable_def),
                           ("constraint", constraint),
                           ("import_scope", import_scope)):
            if value is not None:
                raise ValueError(f"Variable: {arg} is not supported by "
                                 "actorflow.compat.v1")
        if use_resource:
            raise ValueError("Variable: use_resource=True is not supported "
                             "by actorflow.compat.v1 (its variables are "
                             "TensorFlow 1's reference variables)")
        if initial_value is None:
            raise ValueError("Variable: initial_value must be given")
        graph = get_default_graph()
        name = name or "Variable"
        # Built outside any control dependencies and loops, as TensorFlow's
        # init_scope does: initializing must not wait for a step.
        with graph._init_scope():
            if callable(initial_value):
                with graph.name_scope(name):
                    initial_value = initial_value()
            init = convert_to_tensor(initial_value, dtype, graph=graph,
                                     name=name + "/initial_value")
            with graph._lock:
                start = graph.num_nodes
                out = _core.variable(graph._scope.sub(name), init._out)
                assign = [n for n, op in graph._root.node_ops(start)
                          if op == "Assign"]
        super().__init__(graph, out)
        self._initial_value = init
        self._initializer = Operation(graph, assign[-1])
        self._load = None
        self.trainable = True if trainable is None else bool(trainable)
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        collections = list(collections)
        if self.trainable and GraphKeys.TRAINABLE_VARIABLES not in \
                collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        graph.add_to_collections(collections, self)

    # -- what TensorFlow's Variable has ------------------------------------
    @property
    def initializer(self):
        """The Assign that sets the variable to its initial value."""
        return self._initializer

    @property
    def initial_value(self):
        return self._initial_value

    def value(self):
        """A snapshot of its value (an Identity)."""
        return _ops.identity(self)

    read_value = value

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Sets it to ``value``; returns the new value (or the Operation,
        with ``read_value=False``)."""
        t = _ops.assign(self, value, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_add(self, delta, use_locking=False, name=None,
                   read_value=True):
        t = _ops.assign_add(self, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_sub(self, delta, use_locking=False, name=None,
                   read_value=True):
        t = _ops.assign_sub(self, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def load(self, value, session=None):
        """Sets it to ``value`` (an array) in ``session`` (default: the
        default session), without adding nodes after the first call."""
        session = _default_session(session, self.graph)
        if self._load is None:
            with self.graph.as_default(), self.graph.name_scope(
                    self.op.name + "_load"):
                from .builders import placeholder
                fed = placeholder(self.dtype, self.shape.as_list())
                self._load = (fed, _ops.assign(self, fed).op)
        session.run(self._load[1], {self._load[0]: value})

    def count_up_to(self, limit):
        raise NotImplementedError("Variable.count_up_to is not supported by "
                                  "actorflow.compat.v1")

    def __repr__(self):
        return (f"<af.Variable {self.op.name!r} shape={self.shape} "
                f"dtype={self.dtype.name}>")


def _collection(key, scope, graph):
    return (graph or get_default_graph()).get_collection(key, scope)


def global_variables(scope=None, graph=None):
    """The graph's global variables: the ones made by ``Variable`` and
    ``get_variable``, by cells and layers, and optimizers' slots (``scope``
    filters by name)."""
    return _collection(GraphKeys.GLOBAL_VARIABLES, scope, graph)


all_variables = global_variables


def trainable_variables(scope=None, graph=None):
    """The variables optimizers train by default."""
    return _collection(GraphKeys.TRAINABLE_VARIABLES, scope, graph)


def local_variables(scope=None, graph=None):
    return _collection(GraphKeys.LOCAL_VARIABLES, scope, graph)


def model_variables(scope=None, graph=None):
    return _collection(GraphKeys.MODEL_VARIABLES, scope, graph)


def variables_initializer(var_list, name="init"):
    """A NoOp that runs the initializers of ``var_list``."""
    graph = get_default_graph()
    inits = [_initializer_of(v) for v in var_list]
    if not inits:
        return _ops.no_op(name=name)
    with graph.control_dependencies(inits):
        return _ops.no_op(name=name)


def _initializer_of(v):
    if isinstance(v, Variable):
        return v.initializer
    # A variable a builder made (a cell's weights, a slot): its Assign.
    for op in v.consumers():
        if op.type == "Assign" and op.inputs[0] == v \
                and op.name.startswith(v.op.name + "/"):
            return op
    raise ValueError(f"no initializer found for {v.name}")


def global_variables_initializer(graph=None):
    """A NoOp that runs the initializer of every variable made so far."""
    graph = graph or get_default_graph()
    with graph._lock:
        return Operation(graph, graph._root.initializer())


initialize_all_variables = global_variables_initializer


def local_variables_initializer():
    return variables_initializer(local_variables(), name="init_1")
