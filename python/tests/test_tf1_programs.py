"""The TensorFlow 1 programs of tf1_programs/, run with
``import actorflow.compat.v1 as tf``, compute what TensorFlow computes
(tests/golden/tf1_programs.json, written by gen_tf1_programs_golden.py
running the same files with tensorflow.compat.v1): 1e-4 relative."""

import ast
import json
import os
import sys

import numpy as np
import pytest

import actorflow.compat.v1 as tf
from goldens import GOLDEN

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "tf1_programs"))
import run  # noqa: E402

with open(os.path.join(GOLDEN, "tf1_programs.json")) as _f:
    GOLDENS = json.load(_f)


def test_every_program_has_goldens():
    assert sorted(GOLDENS) == run.programs()


@pytest.mark.parametrize("name", run.programs())
def test_a_tensorflow_1_program_computes_what_tensorflow_does(name):
    with tf.Graph().as_default():
        got = run.results(run.run(name))
    want = GOLDENS[name]
    assert sorted(got) == sorted(want)
    for key in want:
        if not isinstance(want[key], dict):
            assert got[key] == want[key], key
            continue
        assert got[key]["shape"] == want[key]["shape"], key
        np.testing.assert_allclose(got[key]["values"], want[key]["values"],
                                   rtol=1e-4, atol=1e-5,
                                   err_msg=f"{name}: {key}")


def _tf_names(path):
    """The ``tf.a.b`` names a program reaches for."""
    with open(path) as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            parts = []
            x = node
            while isinstance(x, ast.Attribute):
                parts.append(x.attr)
                x = x.value
            if isinstance(x, ast.Name) and x.id == "tf":
                names.add(".".join(reversed(parts)))
    # tf.nn.rnn_cell.LSTMCell, not also tf.nn.rnn_cell and tf.nn.
    return {n for n in names
            if not any(m.startswith(n + ".") for m in names)}


def test_every_name_the_programs_use_exists():
    names = set()
    for name in run.programs():
        names |= _tf_names(os.path.join(run.HERE, name + ".py"))
    missing = []
    for dotted in sorted(names):
        obj = tf
        try:
            for part in dotted.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            missing.append(dotted)
    assert not missing
    assert len(names) >= 60
