"""TensorBoard summaries, as ``tf.compat.v1.summary``: summary ops in the
graph, and a FileWriter that writes their values (and the graph) to an
event file TensorBoard reads."""

from . import _core
from . import ops as _ops
from .graph import Graph

__all__ = ["scalar", "histogram", "merge", "merge_all", "FileWriter"]

_COLLECTION = "summaries"


def _collect(t, collections):
    for key in collections or [_COLLECTION]:
        t.graph.add_to_collection(key, t)
    return t


def scalar(name, tensor, collections=None, family=None):
    """A Summary with ``tensor``'s value (a scalar) under ``name``, added
    to ``collections`` (default: the summaries ``merge_all`` merges)."""
    tag = f"{family}/{name}" if family else name
    return _collect(_ops.scalar_summary(tag, tensor, name=name), collections)


def histogram(name, values, collections=None, family=None):
    """A Summary with a histogram of ``values`` under ``name``."""
    tag = f"{family}/{name}" if family else name
    return _collect(_ops.histogram_summary(tag, values, name=name),
                    collections)


def merge(inputs, collections=None, name=None):
    """One Summary of several."""
    out = _ops.merge_summary(list(inputs), name=name)
    for key in collections or []:
        out.graph.add_to_collection(key, out)
    return out


def merge_all(key=_COLLECTION, scope=None, name=None, graph=None):
    """One Summary of every summary op in the collection ``key`` (None if
    there is none)."""
    from .graph import get_default_graph
    summaries = (graph or get_default_graph()).get_collection(key, scope)
    return merge(summaries, name=name) if summaries else None


class FileWriter:
    """Writes summaries (the bytes a summary op's run gives), scalars and
    the graph to an event file in ``logdir``."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120,
                 graph_def=None, filename_suffix=None, session=None):
        if session is not None or filename_suffix or graph_def is not None:
            raise ValueError("FileWriter: session, filename_suffix and "
                             "graph_def are not supported by "
                             "actorflow.compat.v1 (graph is)")
        self._logdir = str(logdir)
        self._writer = _core.EventWriter(self._logdir)
        if graph is not None:
            self.add_graph(graph)

    def get_logdir(self):
        return self._logdir

    @property
    def path(self):
        """The event file."""
        return self._writer.path

    def add_graph(self, graph):
        root = graph._root if isinstance(graph, Graph) else graph
        self._writer.add_graph(root.graph)

    def add_summary(self, summary, global_step=None):
        if not isinstance(summary, bytes):
            summary = bytes(summary.item() if hasattr(summary, "item")
                            else summary)
        self._writer.add_summary(summary, int(global_step or 0))

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
