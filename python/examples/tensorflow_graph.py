"""Runs a GraphDef that TensorFlow wrote: a small CNN (conv, bias, relu,
max-pool, dense) from the repository's golden files, fed and fetched by
TensorFlow's tensor names.

    PYTHONPATH=build/python python3 python/examples/tensorflow_graph.py

With TensorFlow installed, `af.import_graph_def(tf_graph)` takes a
tf.Graph (or a GraphDef) directly.
"""
import os

import numpy as np

import actorflow as af

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "..", "..", "tests", "golden", "graphdef", "cnn.pb")

g = af.Graph()
af.import_graph_def(path, graph=g)
images = np.random.default_rng(0).uniform(-1, 1, (2, 6, 6, 2))
with af.Session(graph=g) as sess:
    logits = sess.run("logits:0", {"images:0": images})
print("logits of 2 images:\n", logits)
