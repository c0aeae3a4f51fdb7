#!/usr/bin/env python3
"""Golden data for the spine's tests, computed independently with numpy.

Writes tests/golden/spine.txt: inputs and expected outputs of the Figure 1
layer relu(W @ x + b), of MatMul with transposes and of broadcasting Add, Sub
and Mul. Values are float32 written with 9 significant digits, so they read
back exactly.

  gen_spine_golden.py           regenerate the file
  gen_spine_golden.py --check   exit 1 unless the file is reproduced byte for byte

Format, per tensor: a line `name dtype dim...`, then one line of values.
"""
import os
import sys

import numpy as np

import exact

from golden_io import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "spine.txt")


def tensors():
    rng = np.random.RandomState(20261121)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    out = []
    # Figure 1: relu(W @ x + b).
    W, x, b = f32(16, 32), f32(32, 4), f32(16, 1)
    out += [("fig1_W", W), ("fig1_x", x), ("fig1_b", b),
            ("fig1_relu", np.maximum(exact.matmul(W, x).astype(np.float32) + b,
                                     np.float32(0)))]
    # MatMul with transposes.
    a, c = f32(5, 7), f32(7, 3)
    out += [("mm_a", a), ("mm_b", c), ("mm_ab", exact.matmul(a, c).astype(np.float32)),
            ("mm_at", np.ascontiguousarray(a.T)), ("mm_bt", np.ascontiguousarray(c.T))]
    # Broadcasting.
    p, q, r, s = f32(3, 1), f32(1, 4), f32(2, 3), f32(3)
    out += [("bc_p", p), ("bc_q", q), ("bc_add_pq", p + q), ("bc_sub_pq", p - q),
            ("bc_r", r), ("bc_s", s), ("bc_mul_rs", r * s), ("bc_sub_sr", s - r)]
    return out


def render():
    lines = []
    for name, t in tensors():
        t = np.asarray(t, dtype=np.float32)
        lines.append(" ".join([name, "float32"] + [str(d) for d in t.shape]))
        lines.append(" ".join("%.9g" % v for v in t.ravel()))
    return "\n".join(lines) + "\n"


def main():
    return write_or_check(__doc__, {OUT: render()})


if __name__ == "__main__":
    sys.exit(main())
