#!/usr/bin/env python3
"""Golden data for the element-wise op kernels, computed with numpy.

Writes tests/golden/unary.txt: for each unary op and dtype an input tensor
`<op>_<dtype>_x` and the expected output `<op>_<dtype>_y`; and
tests/golden/binary.txt: for each binary op and dtype inputs `..._x` (shape
[3,1]) and `..._y` (shape [4], so the pair broadcasts) and the expected
`..._z` (shape [3,4]); and tests/golden/cast.txt: Cast between dtypes
(`cast_<src>_<dst>_x/_y`) and Select; and tests/golden/reduce.txt:
Sum/Mean/Max/Min/Prod over several axis sets, with and without keep_dims
(`red_<op>_<dtype>_<case>_k<keep>_x/_axes/_y`; integer Mean truncates, as
in TensorFlow). Inputs cover
negative, zero, tiny, large and half-way values where the op is defined.
Floats are written with 9 (float32) or 17 (float64) significant digits, so
they read back exactly.

  gen_op_golden.py           regenerate the file
  gen_op_golden.py --check   exit 1 unless the file is reproduced byte for byte

Format, per tensor: a line `name dtype dim...`, then one line of values.
"""
import os
import sys

import numpy as np

import exact

from golden_io import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "unary.txt")
OUT_BINARY = os.path.join(HERE, "binary.txt")
OUT_CAST = os.path.join(HERE, "cast.txt")
OUT_REDUCE = os.path.join(HERE, "reduce.txt")
NAMES = {np.float32: "float32", np.float64: "float64", np.int32: "int32",
         np.int64: "int64", np.bool_: "bool"}

GENERAL = [-20.0, -3.5, -1.0, -0.001, 0.0, 0.001, 0.5, 1.0, 2.25, 7.0, 20.0]
POSITIVE = [1e-6, 0.001, 0.25, 0.5, 1.0, 2.0, 10.0, 12345.678]
HALVES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.49999997, 3.7, -3.7]
INTS = [-7, -1, 0, 1, 5, 46340]

with np.errstate(all="ignore"):
    OPS = [
        ("Neg", GENERAL, np.negative, True),
        ("Abs", GENERAL, np.abs, True),
        ("Sign", GENERAL, np.sign, True),
        ("Square", GENERAL, np.square, True),
        ("Exp", GENERAL, exact.exp, False),
        ("Log", POSITIVE, exact.log, False),
        ("Log1p", [-0.5] + POSITIVE, exact.log1p, False),
        ("Sqrt", [0.0] + POSITIVE, np.sqrt, False),
        ("Rsqrt", POSITIVE, lambda x: 1 / np.sqrt(x), False),
        ("Floor", HALVES, np.floor, False),
        ("Ceil", HALVES, np.ceil, False),
        ("Round", HALVES, np.round, False),
        ("Tanh", GENERAL, exact.tanh, False),
        ("Sigmoid", GENERAL, exact.sigmoid, False),
    ]


BX = [-2.0, 0.5, 3.0]
BY = [-1.5, 0.5, 2.0, 3.0]
BIX = [-7, 0, 9]
BIY = [-7, 2, 5, 9]
POWX = [0.5, 2.0, 3.0]
POWY = [-1.5, 0.0, 0.5, 2.0]
FLOATS = [np.float32, np.float64]
INTEGERS = [np.float32, np.float64, np.int32, np.int64]
BINARY = [
    ("Div", FLOATS, BX, BY, np.true_divide),
    ("Pow", FLOATS, POWX, POWY, exact.power),
    ("Maximum", INTEGERS, BX, BY, np.maximum),
    ("Minimum", INTEGERS, BX, BY, np.minimum),
    ("Greater", INTEGERS, BX, BY, np.greater),
    ("GreaterEqual", INTEGERS, BX, BY, np.greater_equal),
    ("Less", INTEGERS, BX, BY, np.less),
    ("LessEqual", INTEGERS, BX, BY, np.less_equal),
    ("Equal", INTEGERS + [np.bool_], BX, BY, np.equal),
    ("NotEqual", INTEGERS + [np.bool_], BX, BY, np.not_equal),
    ("LogicalAnd", [np.bool_], BX, BY, np.logical_and),
    ("LogicalOr", [np.bool_], BX, BY, np.logical_or),
]


def render_binary():
    lines = []
    for op, types, xs, ys, fn in BINARY:
        for t in types:
            if t == np.bool_:
                x = np.array([True, False, True]).reshape(3, 1)
                y = np.array([True, False, False, True])
            elif t in (np.int32, np.int64):
                x = np.array(BIX, dtype=t).reshape(3, 1)
                y = np.array(BIY, dtype=t)
            else:
                x = np.array(xs, dtype=t).reshape(3, 1)
                y = np.array(ys, dtype=t)
            z = np.asarray(fn(x, y))
            if z.dtype != np.bool_:
                z = z.astype(t)
            for suffix, v in (("x", x), ("y", y), ("z", z)):
                lines.append(" ".join(["%s_%s_%s" % (op, NAMES[t], suffix),
                                       NAMES[z.dtype.type if suffix == "z" else t]]
                                      + [str(d) for d in v.shape]))
                lines.append(fmt(v))
    return "\n".join(lines) + "\n"


CAST_X = [-3.75, -1.5, -0.5, 0.0, 0.25, 1.0, 2.5, 65504.0, 100000.0, 1e-8]
CASTS = [  # (name, source, destination, input)
    ("f32_i32", np.float32, np.int32, CAST_X[:-3] + [1e-8]),
    ("f32_i64", np.float32, np.int64, CAST_X[:-3]),
    ("f32_bool", np.float32, np.bool_, CAST_X),
    ("i32_f32", np.int32, np.float32, [-16777217, -7, 0, 3, 16777217]),
    ("i64_f64", np.int64, np.float64, [-(2 ** 53) - 1, -7, 0, 3, 2 ** 53 + 1]),
    ("f64_f32", np.float64, np.float32, [1.0 / 3, -2.0 / 3, 1e-40, 1e39]),
    ("bool_f32", np.bool_, np.float32, [True, False, True]),
    # float32 -> float16 -> float32: rounding to nearest even, overflow to inf
    ("f32_f16_f32", np.float32, np.float32, CAST_X),
]


def render_cast():
    lines = []
    for name, src, dst, values in CASTS:
        x = np.array(values, dtype=src)
        with np.errstate(all="ignore"):
            if name == "f32_f16_f32":
                y = x.astype(np.float16).astype(np.float32)
            else:
                y = x.astype(dst)
        for suffix, v in (("x", x), ("y", y)):
            lines.append("cast_%s_%s %s %d" % (name, suffix, NAMES[v.dtype.type], v.size))
            lines.append(fmt(v))
    # Select with an element-wise and with a scalar condition.
    c = np.array([True, False, True, False])
    t = np.array([1.5, 2.5, 3.5, 4.5], dtype=np.float32)
    e = np.array([-1, -2, -3, -4], dtype=np.float32)
    for name, v in (("select_c", c), ("select_t", t), ("select_e", e),
                    ("select_out", np.where(c, t, e))):
        lines.append("%s %s %d" % (name, NAMES[v.dtype.type], v.size))
        lines.append(fmt(v))
    return "\n".join(lines) + "\n"


REDUCE_AXES = [[1], [0, 2], [-1], [], [0, 1, 2]]
REDUCERS = [("Sum", np.sum), ("Mean", np.mean), ("Max", np.max),
            ("Min", np.min), ("Prod", np.prod)]


def render_reduce():
    rng = np.random.RandomState(7)
    lines = []
    for op, fn in REDUCERS:
        for t in (np.float32, np.float64, np.int32, np.int64):
            if t in (np.int32, np.int64):
                x = rng.randint(-2, 3, size=(2, 3, 4)).astype(t)
            else:
                x = (rng.randint(-8, 9, size=(2, 3, 4)) / 4.0).astype(t)
            for i, axes in enumerate(REDUCE_AXES):
                for keep in (0, 1):
                    y = fn(x, axis=tuple(axes), keepdims=bool(keep))
                    y = np.asarray(y).astype(t)  # integer Mean truncates
                    if op == "Mean" and t in (np.int32, np.int64):
                        n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
                        y = np.trunc(np.sum(x, axis=tuple(axes), keepdims=bool(keep)) / n).astype(t)
                    stem = "red_%s_%s_%d_k%d" % (op, NAMES[t], i, keep)
                    for suffix, v in (("x", x), ("axes", np.array(axes, dtype=np.int32)),
                                      ("y", y)):
                        lines.append(" ".join(["%s_%s" % (stem, suffix), NAMES[v.dtype.type]]
                                              + [str(d) for d in v.shape]))
                        lines.append(fmt(v))
    return "\n".join(lines) + "\n"


def fmt(t):
    if t.dtype == np.float32:
        return " ".join("%.9g" % v for v in t.ravel())
    if t.dtype == np.float64:
        return " ".join("%.17g" % v for v in t.ravel())
    return " ".join("%d" % int(v) for v in t.ravel())


def render():
    names = NAMES
    lines = []
    for op, values, fn, ints in OPS:
        types = [np.float32, np.float64] + ([np.int32, np.int64] if ints else [])
        for t in types:
            x = np.array(INTS if t in (np.int32, np.int64) else values, dtype=t)
            with np.errstate(all="ignore"):
                y = np.asarray(fn(x)).astype(t)
            for suffix, v in (("x", x), ("y", y)):
                lines.append("%s_%s_%s %s %d" % (op, names[t], suffix, names[t], v.size))
                lines.append(fmt(v))
    return "\n".join(lines) + "\n"


def main():
    return write_or_check(__doc__, {OUT: render(), OUT_BINARY: render_binary(), OUT_CAST: render_cast(),
                                    OUT_REDUCE: render_reduce()})


if __name__ == "__main__":
    sys.exit(main())
