"""Sessions, as ``tf.compat.v1.Session``: run fetches (any nesting of
lists, tuples, namedtuples and dicts) with a ``feed_dict``, get numpy
arrays back in the same structure."""

import contextlib
import os
import threading

import numpy as np

from . import _core
from . import dtypes as _dtypes
from . import nest
from .graph import Operation, Tensor, array_attr, get_default_graph

__all__ = ["Session", "InteractiveSession", "RunOptions", "RunMetadata",
           "ConfigProto", "GPUOptions", "get_default_session"]


class GPUOptions:
    """``tf.compat.v1.GPUOptions``: kept for programs that pass it; the
    engine sizes GPU memory itself (``allow_growth`` and
    ``per_process_gpu_memory_fraction`` change nothing)."""

    def __init__(self, allow_growth=False, per_process_gpu_memory_fraction=0,
                 visible_device_list=""):
        self.allow_growth = allow_growth
        self.per_process_gpu_memory_fraction = per_process_gpu_memory_fraction
        self.visible_device_list = visible_device_list


class ConfigProto:
    """A session's configuration by ``tf.compat.v1.ConfigProto``'s field
    names: ``device_count`` ({"CPU": n, "GPU": n}),
    ``intra_op_parallelism_threads``, ``inter_op_parallelism_threads``,
    ``log_device_placement``, ``allow_soft_placement`` (the engine always
    places where it can), ``gpu_options``. Another field raises, naming
    it."""

    _IGNORED = ("allow_soft_placement", "gpu_options",
                "use_per_session_threads", "operation_timeout_in_ms")

    def __init__(self, device_count=None, intra_op_parallelism_threads=0,
                 inter_op_parallelism_threads=0, log_device_placement=False,
                 allow_soft_placement=False, gpu_options=None,
                 use_per_session_threads=False, operation_timeout_in_ms=0,
                 **unsupported):
        if unsupported:
            raise TypeError("ConfigProto: actorflow has no field "
                            f"{sorted(unsupported)}")
        self.device_count = dict(device_count or {})
        self.intra_op_parallelism_threads = intra_op_parallelism_threads
        self.inter_op_parallelism_threads = inter_op_parallelism_threads
        self.log_device_placement = log_device_placement
        self.allow_soft_placement = allow_soft_placement
        self.gpu_options = gpu_options or GPUOptions()
        self.use_per_session_threads = use_per_session_threads
        self.operation_timeout_in_ms = operation_timeout_in_ms

    def _as_dict(self):
        out = {}
        for kind, n in self.device_count.items():
            key = {"CPU": "num_cpu_devices", "GPU": "num_gpu_devices"}.get(
                kind.upper())
            if key is None:
                raise ValueError(f"ConfigProto.device_count: unknown device "
                                 f"kind {kind!r} (CPU or GPU)")
            out[key] = int(n)
        if self.intra_op_parallelism_threads:
            out["intra_op_parallelism_threads"] = int(
                self.intra_op_parallelism_threads)
        if self.inter_op_parallelism_threads:
            out["inter_op_parallelism_threads"] = int(
                self.inter_op_parallelism_threads)
        if self.log_device_placement:
            out["log_device_placement"] = True
        return out


class _DefaultSessions(threading.local):
    def __init__(self):
        self.stack = []


_default_sessions = _DefaultSessions()


def get_default_session():
    """The session of the innermost ``with sess.as_default():`` (or
    ``with Session() as sess:``, or an ``InteractiveSession``) on this
    thread, or None."""
    stack = _default_sessions.stack
    return stack[-1] if stack else None


class RunOptions:
    """Options of one run, by TensorFlow's names: ``timeout_in_ms`` (0: no
    limit), ``trace_level`` (``NO_TRACE`` or ``FULL_TRACE``: every node
    firing, into ``RunMetadata.trace_json``), ``output_partition_graphs``."""

    NO_TRACE = 0
    SOFTWARE_TRACE = 1
    HARDWARE_TRACE = 2
    FULL_TRACE = 3

    def __init__(self, timeout_in_ms=0, trace_level=NO_TRACE,
                 output_partition_graphs=False):
        self.timeout_in_ms = timeout_in_ms
        self.trace_level = trace_level
        self.output_partition_graphs = output_partition_graphs


class RunMetadata:
    """What a run reports of itself: ``placement`` (node -> device),
    ``trace_json`` (a Chrome trace of the step when traced; Perfetto opens
    it) and ``partition_graphs`` (GraphDefs, when asked for)."""

    def __init__(self):
        self.placement = {}
        self.trace_json = None
        self.partition_graphs = []


def _engine_name(name):
    """``node:0`` -> ``node``: how the engine names a node's first output."""
    node, colon, port = name.rpartition(":")
    if colon and port.isdigit():
        return node if port == "0" else name
    return name


class Session:
    """A session on an engine of its own, running ``graph`` (default: the
    default graph) as it is at each run.

    ``config``: a dict of ``num_cpu_devices``, ``num_gpu_devices``,
    ``intra_op_parallelism_threads``, ``inter_op_parallelism_threads``,
    ``default_device``, ``log_device_placement``.

    ``cluster``: a cluster file (YAML, docs/cluster.md) or a dict of jobs
    (``{"worker": ["host:port", ...]}``) whose ``actorflow worker``
    processes the session connects to and runs on; device scopes place
    nodes on their tasks. ``Session.from_tf_config()`` reads TF_CONFIG.

    ``run`` may be called from several threads at once (the GIL is released
    while a step runs); Ctrl-C cancels a step run from the main thread.
    """

    def __init__(self, target="", graph=None, config=None, cluster=None,
                 _tf_config=False):
        if target:
            raise ValueError(
                f"target {target!r}: give a cluster as cluster= (a cluster "
                "file or a dict of jobs) or use Session.from_tf_config()")
        self.graph = graph or get_default_graph()
        if isinstance(cluster, os.PathLike):
            cluster = os.fspath(cluster)
        if isinstance(config, ConfigProto):
            config = config._as_dict()
        self._handle = _core.Session(dict(config or {}), cluster, _tf_config)
        self._entered = None
        self._seen = (0, 0)
        self._lock = threading.Lock()

    @classmethod
    def from_tf_config(cls, graph=None, config=None):
        """A client of the cluster in the TF_CONFIG environment variable
        (TensorFlow's JSON); its nodes go to the tasks by their device
        scopes (``/job:worker/task:1/cpu:0``)."""
        return cls(graph=graph, config=config, _tf_config=True)

    # -- the context manager TensorFlow users write ----------------------
    def __enter__(self):
        # As in TensorFlow, the session is the default one in the block,
        # and its graph the default graph.
        self._entered = self.graph.as_default()
        self._entered.__enter__()
        _default_sessions.stack.append(self)
        return self

    def __exit__(self, *exc):
        if self in _default_sessions.stack:
            _default_sessions.stack.remove(self)
        entered, self._entered = self._entered, None
        if entered is not None:
            entered.__exit__(*exc)
        self.close()

    @contextlib.contextmanager
    def as_default(self):
        """Makes this the default session (``Tensor.eval``,
        ``Operation.run``) in the block; it stays open after."""
        _default_sessions.stack.append(self)
        try:
            with self.graph.as_default():
                yield self
        finally:
            _default_sessions.stack.remove(self)

    @property
    def graph_def(self):
        return self.graph.as_graph_def()

    def close(self):
        """Ends the session and frees its engine."""
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs one step: returns ``fetches`` with each Tensor (or
        ``"node:port"``) replaced by its value as a numpy array and each
        Operation (or ``"node"``) by None."""
        if self._handle is None:
            raise RuntimeError("attempted to use a closed Session")
        feeds = [] if not feed_dict else [
            self._feed(k, v) for k, v in feed_dict.items()]
        nested = isinstance(fetches, (list, tuple, dict))
        leaves = nest.flatten(fetches) if nested else [fetches]
        names, targets, slots = [], [], []
        for f in leaves:
            if isinstance(f, Tensor):
                name = self._name_of(f)
            elif isinstance(f, Operation):
                name = None
                targets.append(f.name)
            elif isinstance(f, str):
                name = _engine_name(f) if ":" in f else None
                if name is None:
                    targets.append(f)
            else:
                raise TypeError(f"fetch {f!r} is neither a Tensor, an "
                                "Operation nor a name")
            if name is None:
                slots.append(None)
            else:
                slots.append(self._slot(name, feeds, names))
        self._sync()
        timeout, trace, parts = 0, False, False
        if options is not None:
            timeout = int(options.timeout_in_ms or 0)
            trace = options.trace_level == RunOptions.FULL_TRACE
            parts = bool(options.output_partition_graphs)
        arrays, meta = self._handle.run(feeds, names, targets, timeout,
                                        trace, parts,
                                        run_metadata is not None)
        if run_metadata is not None and meta is not None:
            run_metadata.placement = meta["placement"]
            run_metadata.trace_json = meta.get("trace_json")
            run_metadata.partition_graphs = meta["partition_graphs"]
        values = [None if s is None else _scalar(
            arrays[s] if isinstance(s, int) else _fed_value(s[0]))
            for s in slots]
        return nest.pack_sequence_as(fetches, values) if nested else values[0]

    # -- helpers ---------------------------------------------------------
    def _sync(self):
        g = self.graph
        if g._root.num_nodes() == self._seen[0] \
                and len(g._imported) == self._seen[1]:
            return  # nothing new since the last run
        with self._lock:
            self._seen = g._extend_session(self._handle, self._seen)

    @staticmethod
    def _slot(name, feeds, names):
        """Where a fetch's value comes from: the fed tensor itself, as in
        TensorFlow, or its index among the engine's fetches."""
        for fed, t in feeds:
            if fed == name:
                return (t,)
        names.append(name)
        return len(names) - 1

    def _name_of(self, t):
        if t.graph is not self.graph:
            raise ValueError(f"{t.name} is not an element of this "
                             "session's graph")
        return t._engine_name

    def _feed(self, key, value):
        if isinstance(key, Tensor):
            name, dtype = self._name_of(key), key.dtype
        elif isinstance(key, str):
            name, dtype = _engine_name(key), self._dtype_of(key)
        else:
            raise TypeError(f"feed key {key!r} is neither a Tensor nor a "
                            "name")
        if isinstance(value, (Tensor, Operation)):
            raise TypeError(f"the value fed to {name} is a graph element; "
                            "feed arrays, numbers or lists")
        return name, _as_feed(value, dtype, name)

    def _dtype_of(self, key):
        """The dtype of the tensor a name feeds: from the graph built here,
        or the ``dtype`` attr of an imported placeholder."""
        node, _, port = key.partition(":")
        root = self.graph._root
        if root.has_node(node):
            return _dtypes.as_dtype(
                root.output_of(node, int(port or 0)).dtype)
        for g in self.graph._imported:
            t = g.attr(node, "dtype")
            if t is not None:
                return _dtypes.as_dtype(t)
        return None


class InteractiveSession(Session):
    """A session that makes itself the default when made (for shells and
    notebooks), until ``close()``."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        _default_sessions.stack.append(self)

    def close(self):
        if self in _default_sessions.stack:
            _default_sessions.stack.remove(self)
        super().close()


def _fed_value(value):
    """A fed value fetched back: a copy, as the engine would give it."""
    if isinstance(value, _core.Tensor):
        return value.numpy()
    return np.array(value, copy=True)


def _scalar(array):
    """A 0-d array as its numpy scalar, as TensorFlow returns it."""
    return array[()] if array.ndim == 0 else array


def _as_feed(value, dtype, name):
    """A fed value as the extension module takes it: an array whose memory
    the engine borrows where its layout allows (C-contiguous, native byte
    order, aligned; it copies otherwise), or a tensor made here (strings,
    bfloat16)."""
    want = None
    if dtype is not None and dtype.name not in ("string", "variant"):
        want = dtype.numpy_dtype
    if type(value) is np.ndarray and value.dtype.kind in "biufc" \
            and value.dtype.isnative and (want is None
                                          or value.dtype == want):
        return value  # the common case
    if not isinstance(value, np.ndarray) and hasattr(value, "__dlpack__"):
        return value  # PyTorch, JAX: read through DLPack
    try:
        array = np.asarray(value, dtype=want)
    except (TypeError, ValueError) as e:
        raise TypeError(f"cannot feed {value!r} to {name} "
                        f"({dtype.name if dtype else 'unknown dtype'}): {e}"
                        ) from None
    if array.dtype.kind in "SUO" or _dtypes.as_dtype(array.dtype).name \
            == "bfloat16":
        return array_attr(array)
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    return array
