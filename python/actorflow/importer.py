"""TensorFlow's graphs into actorflow: ``import_graph_def``."""

import os

from . import _core
from .graph import get_default_graph

__all__ = ["import_graph_def"]


def import_graph_def(graph_def, graph=None, text=False):
    """Adds the nodes of a TensorFlow GraphDef to ``graph`` (default: the
    default graph) under their own names, as
    ``tf.compat.v1.import_graph_def(gd, name="")`` does, and returns the
    graph.

    ``graph_def``: serialized bytes (``text=True`` for the text format), a
    file name (``.pb``, ``.pbtxt``, or a graph file of the engine's), a
    ``tf.compat.v1.GraphDef``, or a ``tf.Graph``. Run its nodes by name:
    ``sess.run("logits:0", feed_dict={"input:0": x})``. Ops the engine lacks
    are refused here, with the nodes that use them.
    """
    if hasattr(graph_def, "as_graph_def"):  # tf.Graph
        graph_def = graph_def.as_graph_def()
    if hasattr(graph_def, "SerializeToString"):  # tf GraphDef
        g = _core.load_graph_def(graph_def.SerializeToString())
    elif isinstance(graph_def, (bytes, bytearray, memoryview)):
        g = _core.load_graph_def(bytes(graph_def), text)
    elif isinstance(graph_def, (str, os.PathLike)):
        g = _core.load_graph_file(os.fspath(graph_def))
    else:
        raise TypeError(f"cannot import a graph from {type(graph_def)}")
    graph = graph or get_default_graph()
    with graph._lock:
        taken = set()
        for i in graph._imported:
            taken.update(i.node_names)
        clash = [n for n in g.node_names
                 if n in taken or graph._root.has_node(n)]
        if clash:
            raise ValueError(f"the graph has nodes named as imported ones "
                             f"({', '.join(clash[:3])}); import into a new "
                             "af.Graph()")
        graph._imported.append(g)
    return graph
