"""Graphs under construction, as in TensorFlow 1: ``Graph`` and the
default graph, collections (``GraphKeys``), name and device scopes,
control dependencies, and values made into Tensors (``convert_to_tensor``;
tensor.py has the Tensor and Operation)."""

import contextlib
import re
import threading

import numpy as np

from . import _core
from . import dtypes as _dtypes
from .tensor import Operation, Tensor

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


_VARIABLE_OPS = ("VariableV2", "Variable", "VarHandleOp")


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

    def _adopt_variables(self, start):
        """Puts the variables built since node ``start`` by a builder of the
        extension module (an optimizer's slots) into the global variables;
        returns them."""
        new = [Tensor(self, self._root.output_of(name, 0))
               for name, op in self._root.node_ops(start)
               if op in _VARIABLE_OPS]
        for v in new:
            self.add_to_collection(GraphKeys.GLOBAL_VARIABLES, v)
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
