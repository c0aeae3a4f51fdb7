"""Reads the repository's golden value files (tests/golden/*.txt written by
the generators' `put`): a line `name dtype dim...`, then the values."""

import os

import numpy as np

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "tests", "golden")


def read_values(filename):
    """{name: array} of a golden value file; string values are left out."""
    out = {}
    with open(os.path.join(GOLDEN, filename)) as f:
        lines = iter(f.read().splitlines())
    for line in lines:
        words = line.split()
        if len(words) < 2:
            continue
        values = next(lines).split()
        if words[1] == "string":
            continue
        dims = [int(d) for d in words[2:]]
        out[words[0]] = np.array([float(v) for v in values]).astype(
            words[1]).reshape(dims)
    return out
