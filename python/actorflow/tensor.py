"""The values a graph under construction holds, as in TensorFlow 1: an
``Operation`` (a node) and a ``Tensor`` (one of its outputs), with
TensorFlow's properties, indexing and operators (the functions behind
them are set by math.py and array_ops.py)."""

from . import dtypes as _dtypes
from . import tensor_shape as _tensor_shape
from .tensor_shape import shape_attr

__all__ = ["Operation", "Tensor"]


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
