"""GraphDefs TensorFlow wrote (tests/golden/graphdef/, made by
gen_graphdef_golden.py) imported from Python and run against the outputs
TensorFlow computed for them (tests/golden/graphdef.txt)."""

import os

import numpy as np
import pytest

import actorflow as af
from goldens import GOLDEN, read_values

VALUES = read_values("graphdef.txt")


@pytest.mark.parametrize("model,feed,fetch,tol", [
    ("frozen_mlp", {"x:0": "frozen_mlp_x"}, ("out:0", "frozen_mlp_out"), 1e-12),
    ("cnn", {"images:0": "cnn_images"}, ("logits:0", "cnn_logits"), 1e-5),
])
def test_a_tensorflow_graphdef_gives_tensorflows_outputs(model, feed, fetch,
                                                         tol):
    g = af.Graph()
    path = os.path.join(GOLDEN, "graphdef", model + ".pb")
    af.import_graph_def(path, graph=g)
    with af.Session(graph=g) as sess:
        got = sess.run(fetch[0], {k: VALUES[v] for k, v in feed.items()})
    np.testing.assert_allclose(got, VALUES[fetch[1]], rtol=tol, atol=tol)
    # The same bytes, handed over as bytes.
    g2 = af.Graph()
    with open(path, "rb") as f:
        af.import_graph_def(f.read(), graph=g2)
    with af.Session(graph=g2) as sess:
        again = sess.run(fetch[0], {k: VALUES[v] for k, v in feed.items()})
    np.testing.assert_array_equal(again, got)


def test_importing_twice_into_one_graph_is_refused():
    g = af.Graph()
    path = os.path.join(GOLDEN, "graphdef", "frozen_mlp.pb")
    af.import_graph_def(path, graph=g)
    with pytest.raises(ValueError, match="new af.Graph"):
        af.import_graph_def(path, graph=g)


def test_a_graph_with_an_unknown_op_is_refused_naming_it():
    g = af.Graph()
    text = b'node { name: "x" op: "NoSuchOpAnywhere" }'
    with pytest.raises(af.errors.OpError, match="NoSuchOpAnywhere"):
        af.import_graph_def(text, graph=g, text=True)
    with pytest.raises(TypeError):
        af.import_graph_def(12, graph=g)
