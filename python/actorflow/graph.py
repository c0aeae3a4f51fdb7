"""Graphs under construction: ``Graph``, its ``Tensor``s and ``Operation``s,
name scopes, device scopes and control dependencies, as in TensorFlow 1."""

import contextlib
import re
import threading

import numpy as np

from . import _core
from . import dtypes as _dtypes
from . import tensor_shape as _tensor_shape

__all__ = [
    "Graph", "Tensor", "Operation", "get_default_graph",
    "reset_default_graph", "name_scope", "device", "control_dependencies",
    "convert_to_tensor", "GraphKeys", "get_collection", "get_collection_ref",
    "add_to_collection", "add_to_collections",
]


class GraphKeys:
    """The standard collection names, as ``tf.compat.v1.GraphKeys``."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = GLOBAL_VARIABLES
    LOCAL_VARIABLES = "local_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


class Operation:
    """A node of a graph (what a run may take as a target)."""

    __slots__ = ("graph", "name")

    def __init__(self, graph, name):
        self.graph = graph
        self.name = name

    @property
    def outputs(self):
        scope = self.graph._root
        return [Tensor(self.graph, scope.output_of(self.name, i))
                for i in range(scope.num_outputs(self.name))]

    @property
    def type(self):
        """The op's type (``MatMul``)."""
        return self.graph._root.op_of(self.name)

    @property
    def device(self):
        return self.graph._root.device_of(self.name)

    @property
    def inputs(self):
        return self.graph._inputs_of(self.name)

    @property
    def control_inputs(self):
        return self.graph._inputs_of(self.name, control=True)

    def run(self, feed_dict=None, session=None):
        """Runs it in ``session`` (default: the default session)."""
        _default_session(session, self.graph).run(self, feed_dict)

    def __repr__(self):
        return f"<af.Operation {self.name!r}>"

    def __eq__(self, other):
        return (isinstance(other, Operation) and other.graph is self.graph
                and other.name == self.name)

    def __hash__(self):
        return hash((id(self.graph), self.name))


class Tensor:
    """One output of a node: what op functions take and return.

    ``name`` is TensorFlow's ``node:port``; ``dtype`` a DType; ``shape`` a
    tuple with None for unknown dimensions, or None for unknown rank.
    Arithmetic operators build the matching ops in the tensor's graph.
    """

    __slots__ = ("graph", "_out", "_fetch_name")

    def __init__(self, graph, out):
        self.graph = graph
        self._out = out
        self._fetch_name = None

    @property
    def _engine_name(self):
        """How the engine names it in feeds and fetches (``node`` for port
        0), kept: a session asks at every run."""
        if self._fetch_name is None:
            self._fetch_name = self._out.name
        return self._fetch_name

    @property
    def name(self):
        return f"{self._out.node}:{self._out.port}"

    @property
    def op(self):
        return Operation(self.graph, self._out.node)

    @property
    def value_index(self):
        return self._out.port

    @property
    def dtype(self):
        return _dtypes.as_dtype(self._out.dtype)

    @property
    def shape(self):
        """The static shape, a ``TensorShape`` (``as_list()``, ``ndims``;
        equal to a tuple of the same dimensions)."""
        return _tensor_shape.TensorShape(self._out.shape)

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        """Refines this Tensor's static shape with ``shape`` (what the
        engine inferred and ``shape`` merged), for the ops built on it from
        now on; one that does not fit is an error."""
        try:
            merged = self.shape.merge_with(shape)
            self._out = self._out.with_shape(shape_attr(merged))
        except ValueError:
            raise ValueError(f"{self.name} has shape {self.shape}, which "
                             f"does not fit {_tensor_shape.as_shape(shape)}"
                             ) from None

    @property
    def device(self):
        return self.op.device

    def consumers(self):
        """The operations that take this tensor as an input."""
        return self.graph._consumers(self)

    def eval(self, feed_dict=None, session=None):
        """Its value in ``session`` (default: the default session)."""
        return _default_session(session, self.graph).run(self, feed_dict)

    def __getitem__(self, key):
        return _operators["getitem"](self, key)

    def __iter__(self):
        n = self.shape[0].value if self.shape.ndims else None
        if n is None:
            raise TypeError(f"{self.name} can be iterated over only when its "
                            "first dimension is known")
        return (self[i] for i in range(n))

    def __len__(self):
        raise TypeError(f"len is not well defined for the graph Tensor "
                        f"{self.name}; use af.shape(x)[0] or x.shape[0]")

    def __abs__(self):
        return _operators["abs"](self)

    def __repr__(self):
        return (f"<af.Tensor {self.name!r} shape={self.shape} "
                f"dtype={self.dtype.name}>")

    def __hash__(self):
        return hash((id(self.graph), self._out.node, self._out.port))

    def __eq__(self, other):  # identity, as tf.Tensor in graph mode
        return self is other or (
            isinstance(other, Tensor) and other.graph is self.graph
            and other._out.node == self._out.node
            and other._out.port == self._out.port)

    def __bool__(self):
        raise TypeError("a graph Tensor has no truth value before a run; "
                        "use af.cond or af.while_loop")

    # The operators; the functions come from ops.py (set there).
    def __add__(self, y): return _operators["add"](self, y)
    def __radd__(self, x): return _operators["add"](x, self)
    def __sub__(self, y): return _operators["sub"](self, y)
    def __rsub__(self, x): return _operators["sub"](x, self)
    def __mul__(self, y): return _operators["mul"](self, y)
    def __rmul__(self, x): return _operators["mul"](x, self)
    def __truediv__(self, y): return _operators["div"](self, y)
    def __rtruediv__(self, x): return _operators["div"](x, self)
    def __matmul__(self, y): return _operators["matmul"](self, y)
    def __rmatmul__(self, x): return _operators["matmul"](x, self)
    def __neg__(self): return _operators["neg"](self)
    def __pow__(self, y): return _operators["pow"](self, y)
    def __rpow__(self, x): return _operators["pow"](x, self)
    def __mod__(self, y): return _operators["mod"](self, y)
    def __rmod__(self, x): return _operators["mod"](x, self)
    def __floordiv__(self, y): return _operators["floordiv"](self, y)
    def __rfloordiv__(self, x): return _operators["floordiv"](x, self)
    def __xor__(self, y): return _operators["logical_xor"](self, y)
    def __rand__(self, x): return _operators["logical_and"](x, self)
    def __ror__(self, x): return _operators["logical_or"](x, self)
    def __lt__(self, y): return _operators["less"](self, y)
    def __le__(self, y): return _operators["less_equal"](self, y)
    def __gt__(self, y): return _operators["greater"](self, y)
    def __ge__(self, y): return _operators["greater_equal"](self, y)
    def __and__(self, y): return _operators["logical_and"](self, y)
    def __or__(self, y): return _operators["logical_or"](self, y)
    def __invert__(self): return _operators["logical_not"](self)


_operators = {}

_VARIABLE_OPS = ("VariableV2", "Variable", "VarHandleOp")


def _default_session(session, graph):
    """``session``, or the default session, which must run ``graph``."""
    if session is None:
        from .session import get_default_session
        session = get_default_session()
        if session is None:
            raise ValueError("no default session is registered: use "
                             "`with sess.as_default():` or pass session=")
    if session.graph is not graph:
        raise ValueError("the session's graph is not this tensor's graph")
    return session


class Graph:
    """A graph under construction, like ``tf.Graph``.

    Op functions build into the default graph (``as_default``); a graph
    only grows, and a session given it runs whatever it holds at each run.
    """

    def __init__(self):
        self._root = _core.Scope()
        self._scopes = [self._root]
        self._imported = []
        self._collections = {}
        self._lock = threading.RLock()
        self._seed = None  # set_random_seed's
        self._var_store = None  # variable_scope's variables by name

    @property
    def seed(self):
        """The graph-level random seed (``set_random_seed``), or None."""
        return self._seed

    # -- building --------------------------------------------------------
    @property
    def _scope(self):
        return self._scopes[-1]

    @contextlib.contextmanager
    def _push(self, scope):
        self._scopes.append(scope)
        try:
            yield
        finally:
            self._scopes.pop()

    def create_op(self, op_type, inputs, attrs=None, name=None):
        """Adds a node of ``op_type``; returns its Operation and outputs.

        ``inputs`` are Tensors of this graph (lists for list arguments are
        flattened); ``attrs`` Python values of the op's attr types.
        """
        flat = []
        for x in inputs:
            if isinstance(x, (list, tuple)):
                flat.extend(t._out for t in x)
            else:
                flat.append(x._out)
        with self._lock:
            node, outs = self._scope.add(op_type, name or "", flat,
                                         attrs or {})
        return Operation(self, node), [Tensor(self, o) for o in outs]

    def as_default(self):
        """Makes this the graph op functions build in, while in the block."""
        return _default_graphs.use(self)

    def _init_scope(self):
        """Builds in the block outside any loop or branch being built and
        any control dependencies, as TensorFlow's init_scope: where
        variables and their initial values go."""
        return self._push(self._scope.without_control_dependencies()
                          .outside_control_flow())

    def name_scope(self, name):
        """Names nodes built in the block ``name/...``."""
        return self._push(self._scope.sub(name))

    def device(self, device_name):
        """Puts nodes built in the block on ``device_name``
        (``"/job:worker/task:1/cpu:0"``, ``"cpu:1"``)."""
        return self._push(self._scope.with_device(device_name or ""))

    def control_dependencies(self, control_inputs):
        """Makes nodes built in the block run after ``control_inputs``
        (None: after none, the outer blocks' cleared)."""
        if control_inputs is None:
            return self._push(self._scope.without_control_dependencies())
        names = [_op_name(x) for x in control_inputs]
        return self._push(self._scope.with_control_dependencies(names))

    # -- collections ------------------------------------------------------
    def add_to_collection(self, name, value):
        """Appends ``value`` to the collection ``name``."""
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        """Appends ``value`` to each collection of ``names`` (once each)."""
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):
        """The list that is the collection ``name`` (made if missing)."""
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        """A copy of the collection ``name``; with ``scope``, only the items
        whose ``name`` starts with it (a regular expression, matched as
        ``re.match`` does)."""
        with self._lock:
            items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [x for x in items
                if pattern.match(getattr(x, "name", "") or "")]

    def get_all_collection_keys(self):
        with self._lock:
            return [k for k, v in self._collections.items() if v]

    def clear_collection(self, name):
        with self._lock:
            self._collections.pop(name, None)

    def _inputs_of(self, node, control=False):
        """A node's data inputs (Tensors) or its control inputs
        (Operations)."""
        out = []
        for name in self._root.inputs_of(node):
            if name.startswith("^"):
                if control:
                    out.append(Operation(self, name[1:]))
            elif not control:
                out.append(self.get_tensor_by_name(name))
        return out

    def _consumers(self, tensor):
        want = {tensor.name} | ({tensor.op.name} if tensor.value_index == 0
                                else set())
        return [Operation(self, name)
                for name, _ in self._root.node_ops(0)
                if want & set(self._root.inputs_of(name))]

    def get_operations(self):
        """Every operation of the graph, in the order they were built."""
        return [Operation(self, name) for name, _ in self._root.node_ops(0)]

    def _adopt_variables(self, start, trainable=False):
        """Puts the variables built since node ``start`` by a builder of the
        extension module (an optimizer's slots, a cell's weights) into the
        global variables (and the trainable ones); returns them."""
        new = [Tensor(self, self._root.output_of(name, 0))
               for name, op in self._root.node_ops(start)
               if op in _VARIABLE_OPS]
        for v in new:
            self.add_to_collection(GraphKeys.GLOBAL_VARIABLES, v)
            if trainable:
                self.add_to_collection(GraphKeys.TRAINABLE_VARIABLES, v)
        return new

    # -- looking things up -----------------------------------------------
    def get_operation_by_name(self, name):
        if not self._root.has_node(name):
            raise KeyError(f"no node named {name!r} in the graph")
        return Operation(self, name)

    def get_tensor_by_name(self, name):
        node, _, port = name.partition(":")
        return Tensor(self, self._root.output_of(node, int(port or 0)))

    def as_graph_def(self):
        """The graph as a serialized TensorFlow GraphDef (bytes): the nodes
        built here (imported graphs are kept apart, as they came)."""
        return self._root.graph.serialize()

    @property
    def num_nodes(self):
        return self._root.num_nodes()

    def _extend_session(self, session, seen):
        """Hands the nodes ``session`` has not seen to it; returns what it
        has seen now (the built nodes' count, the imports')."""
        built, imported = seen
        with self._lock:
            n = self._root.num_nodes()
            if n > built:
                session.extend(self._root.nodes_from(built))
            for g in self._imported[imported:]:
                session.extend(g)
            return n, len(self._imported)


def _op_name(x):
    if isinstance(x, Operation):
        return x.name
    if isinstance(x, Tensor):
        return x._out.node
    if isinstance(x, str):
        return x.partition(":")[0]
    raise TypeError(f"not an operation or tensor: {x!r}")


class _DefaultGraphs(threading.local):
    """The stack of default graphs, per thread as in TensorFlow."""

    def __init__(self):
        self.stack = []

    @contextlib.contextmanager
    def use(self, graph):
        self.stack.append(graph)
        try:
            yield graph
        finally:
            self.stack.pop()


_default_graphs = _DefaultGraphs()
_global_graph = [Graph()]


def get_default_graph():
    """The graph op functions build in now."""
    stack = _default_graphs.stack
    return stack[-1] if stack else _global_graph[0]


def reset_default_graph():
    """Replaces the global default graph with a new, empty one."""
    if _default_graphs.stack:
        raise RuntimeError("reset_default_graph inside a graph's as_default")
    _global_graph[0] = Graph()


def name_scope(name):
    return get_default_graph().name_scope(name)


def device(device_name):
    return get_default_graph().device(device_name)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def get_collection(key, scope=None):
    """The default graph's collection ``key`` (a copy)."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def convert_to_tensor(value, dtype=None, name=None, graph=None):
    """A Tensor of ``value``: itself, or a Const of a number, a list or an
    array (Python floats become float32 and ints int32, as in TensorFlow,
    unless ``dtype`` says otherwise)."""
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != _dtypes.as_dtype(dtype):
            raise TypeError(f"{value.name} is {value.dtype.name}, "
                            f"not {_dtypes.as_dtype(dtype).name}")
        return value
    if isinstance(value, Operation):
        raise TypeError(f"operation {value.name!r} has no value; pass one "
                        "of its outputs")
    graph = graph or get_default_graph()
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        return _packed(value, dtype, name, graph)
    return const_node(graph, _const_array(value, dtype), name or "Const")


def _holds_tensor(value):
    return any(isinstance(v, Tensor) or (
        isinstance(v, (list, tuple)) and _holds_tensor(v)) for v in value)


def _packed(value, dtype, name, graph):
    """A list holding Tensors as one Tensor (a Pack of its elements), as
    TensorFlow converts ``[batch, -1]``."""
    if dtype is None:
        dtype = next(_first_tensor(value)).dtype
    items = [convert_to_tensor(v, dtype, graph=graph) for v in value]
    _, outs = graph.create_op(
        "Pack", [items], {"T": _dtypes.as_dtype(dtype).name, "N": len(items),
                          "axis": 0}, name or "packed")
    return outs[0]


def _first_tensor(value):
    for v in value:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _first_tensor(v)


def const_node(graph, array, name):
    """A Const node of ``graph`` holding ``array``."""
    _, outs = graph.create_op(
        "Const", [], {"dtype": array_dtype(array), "value": array_attr(array)},
        name)
    return outs[0]


def _const_array(value, dtype):
    if dtype is not None:
        dt = _dtypes.as_dtype(dtype)
        if dt.name == "string":
            return np.asarray(value, dtype=object)
        return np.asarray(value, dtype=dt.as_numpy_dtype)
    array = np.asarray(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return array  # numpy's own dtype stays
    if array.dtype == np.float64:
        array = array.astype(np.float32)
    elif array.dtype == np.int64:
        if array.size == 0 or (np.abs(array) < 2**31).all():
            array = array.astype(np.int32)
    return array


def shape_attr(shape):
    """A shape (list, tuple, TensorShape; None or -1 for unknown) as a
    shape attr: a list with None for unknown dimensions, or None for an
    unknown rank."""
    shape = _tensor_shape.as_shape(shape)
    if shape.ndims is None:
        return None
    return shape.as_list()


def array_dtype(array):
    """The engine's name for an array's dtype."""
    return _dtypes.as_dtype(array.dtype).name


def array_attr(array):
    """An array as an attr or feed value of the extension module: strings
    and bfloat16 (viewed as uint16) made ready, the rest as it is."""
    kind = array.dtype.kind
    if kind in "SUO":
        flat = [x.encode() if isinstance(x, str) else bytes(x)
                for x in array.reshape(-1).tolist()]
        return _core.tensor_from_strings(flat, list(array.shape))
    if _dtypes.as_dtype(array.dtype).name == "bfloat16":
        t, _ = _core.tensor_from_array(
            np.ascontiguousarray(array).view(np.uint16), "bfloat16")
        return t
    return array
