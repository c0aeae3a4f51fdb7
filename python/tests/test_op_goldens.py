"""The numpy goldens of the op case files (tests/golden/*_cases.txt, made
by gen_case_golden.py) run through the generated op functions: inputs fed
through placeholders, attrs converted from Python values, outputs checked
within each case's tolerance, and the error cases raise."""

import os

import numpy as np
import pytest

import actorflow as af
from goldens import GOLDEN

FILES = ["math_cases.txt", "nn_cases.txt", "array_cases.txt"]


def _read_cases(path):
    cases, case = [], None
    with open(path) as f:
        lines = iter(f.read().splitlines())
    for line in lines:
        words = line.split()
        if not words:
            continue
        if words[0] == "case":
            case = {"name": words[1], "op": words[2],
                    "rtol": float(words[3]), "attrs": {}, "ins": [],
                    "outs": [], "error": False}
        elif words[0] == "attr":
            case["attrs"][words[1]] = _attr(words[2], words[3:])
        elif words[0] in ("in", "out"):
            dims = [int(d) for d in words[2:]]
            values = next(lines).split()
            case[words[0] + "s"].append(_array(words[1], dims, values))
        elif words[0] == "error":
            case["error"] = True
        elif words[0] == "end":
            cases.append(case)
    return cases


def _attr(kind, words):
    if kind == "type":
        return words[0]
    if kind == "int":
        return int(words[0])
    if kind == "float":
        return float(words[0])
    if kind == "bool":
        return words[0] == "1"
    if kind == "string":
        return " ".join(words)
    if kind == "ints":
        return [int(w) for w in words[1:]]
    if kind == "strings":
        return words[1:]
    raise ValueError(kind)


def _array(dtype, dims, values):
    if dtype == "bool":
        flat = np.array([v == "1" for v in values], np.bool_)
    elif dtype.startswith(("int", "uint")):
        flat = np.array([int(v) for v in values], dtype)
    else:
        flat = np.array([float(v) for v in values], np.float64).astype(dtype)
    return flat.reshape(dims)


def _inputs(op_def, arrays):
    """The case's flat inputs, by the op's arguments (lists for list
    arguments, as long as their length attr says)."""
    attrs = {a["name"]: a for a in op_def["attrs"]}
    out, rest = {}, list(arrays)
    args = op_def["inputs"]
    for k, arg in enumerate(args):
        listed = arg["number_attr"] or (
            arg["type_attr"] and attrs[arg["type_attr"]]["type"]
            == "list(type)")
        if listed:
            # Every input not needed by the arguments after this one.
            n = len(rest) - (len(args) - k - 1)
            out[arg["name"]], rest = rest[:n], rest[n:]
        else:
            out[arg["name"]], rest = rest[0], rest[1:]
    return out


CASES = [(f, c) for f in FILES for c in _read_cases(os.path.join(GOLDEN, f))]


@pytest.fixture(scope="module")
def session_and_graph():
    g = af.Graph()
    with af.Session(graph=g) as s:
        yield s, g


@pytest.mark.parametrize("file,case", CASES,
                         ids=[f"{f[:-10]}:{c['name']}" for f, c in CASES])
def test_case(session_and_graph, file, case):
    sess, g = session_and_graph
    d = af.ops.op_def(case["op"])
    with g.as_default():
        feeds, placeholders = {}, []
        for i, a in enumerate(case["ins"]):
            p = af.placeholder(af.as_dtype(a.dtype), a.shape,
                               name=f"{case['name']}/in{i}")
            feeds[p] = a
            placeholders.append(p)
        try:
            out = af.ops.apply_op(case["op"], _inputs(d, placeholders),
                                  case["attrs"], name=case["name"])
            if isinstance(out, af.Operation):
                out = []
            elif isinstance(out, af.Tensor):
                out = [out]
            got = sess.run(out, feeds)
        except (af.errors.OpError, TypeError) as e:
            assert case["error"], f"{case['name']} failed: {e}"
            return
    assert not case["error"], f"{case['name']} should have failed"
    assert len(got) == len(case["outs"])
    for have, want in zip(got, case["outs"]):
        have = np.asarray(have)
        assert have.dtype == want.dtype and have.shape == want.shape
        if want.dtype == np.bool_ or case["rtol"] == 0:
            np.testing.assert_array_equal(have, want)
        else:
            tol = case["rtol"] * np.maximum(1.0, np.abs(want))
            assert (np.abs(have.astype(np.float64) - want) <= tol).all()
