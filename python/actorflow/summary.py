"""TensorBoard summaries, as ``tf.compat.v1.summary``: summary ops in the
graph, and a FileWriter that writes their values (and the graph) to an
event file TensorBoard reads."""

from . import _core
from . import ops as _ops
from .graph import Graph

__all__ = ["scalar", "histogram", "merge", "merge_all", "FileWriter"]

_COLLECTION = "summaries"


def _collect(t):
    t.graph._collections.setdefault(_COLLECTION, []).append(t)
    return t


def scalar(name, tensor):
    """A Summary with ``tensor``'s value (a scalar) under ``name``."""
    return _collect(_ops.scalar_summary(name, tensor, name=name))


def histogram(name, values):
    """A Summary with a histogram of ``values`` under ``name``."""
    return _collect(_ops.histogram_summary(name, values, name=name))


def merge(inputs, name=None):
    """One Summary of several."""
    return _ops.merge_summary(list(inputs), name=name)


def merge_all(graph=None):
    """One Summary of every summary op built so far (None if there is
    none)."""
    from .graph import get_default_graph
    summaries = (graph or get_default_graph())._collections.get(
        _COLLECTION, [])
    return merge(summaries) if summaries else None


class FileWriter:
    """Writes summaries (the bytes a summary op's run gives), scalars and
    the graph to an event file in ``logdir``."""

    def __init__(self, logdir, graph=None):
        self._writer = _core.EventWriter(str(logdir))
        if graph is not None:
            self.add_graph(graph)

    @property
    def path(self):
        """The event file."""
        return self._writer.path

    def add_graph(self, graph):
        root = graph._root if isinstance(graph, Graph) else graph
        self._writer.add_graph(root.graph)

    def add_summary(self, summary, global_step=0):
        if not isinstance(summary, bytes):
            summary = bytes(summary.item() if hasattr(summary, "item")
                            else summary)
        self._writer.add_summary(summary, int(global_step))

    def add_scalar(self, tag, value, global_step=0):
        self._writer.add_scalar(tag, float(value), int(global_step))

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
