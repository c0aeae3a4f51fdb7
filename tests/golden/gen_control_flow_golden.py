#!/usr/bin/env python3
"""Golden results for the control-flow tests, computed by TensorFlow itself.

Builds each test's graph with TensorFlow's v1 graph mode and v1 control
flow (tf.compat.v1, Switch/Merge/Enter/Exit/NextIteration), runs it (and,
for the gradient cases, tf.gradients through it), and writes the fed
inputs and the fetched results to
tests/golden/control_flow.txt (the format of golden.hpp). The C++ tests
build the same graphs with actorflow and compare; they never need
TensorFlow. Running this script does: `pip install tensorflow-cpu` into a
virtual environment (it is a checking tool, not a dependency).

  gen_control_flow_golden.py           regenerate the file
  gen_control_flow_golden.py --check   exit 1 unless it is reproduced

Configure with -DACTORFLOW_TF_PYTHON=<that interpreter> and ctest runs the
check too. Written with TensorFlow 2.21 (tensorflow-cpu from PyPI).
"""
import os
import sys

import numpy as np
import tensorflow as tf

from case_writer import tensor_lines
from golden_io import write_or_check

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()
HERE = os.path.dirname(os.path.abspath(__file__))


def run(build, feeds):
    """build(feed placeholders dict) -> fetches; returns their values."""
    g = tf1.Graph()
    with g.as_default():
        holders, fetches = build()
        with tf1.Session(graph=g) as sess:
            return [sess.run(fetches, {holders[k]: v for k, v in f.items()})
                    for f in feeds]


def sum_loop():
    n = tf1.placeholder(tf.int64, [])
    i, total = tf1.while_loop(lambda i, s: i <= n,
                              lambda i, s: (i + 1, s + i),
                              (tf.constant(1, tf.int64), tf.constant(0, tf.int64)))
    return {"n": n}, [total, i]


def fibonacci():
    k = tf1.placeholder(tf.int64, [])
    body = lambda i, a, b: (i + 1, b, a + b)
    zero, one = tf.constant(0, tf.int64), tf.constant(1, tf.int64)
    plain = tf1.while_loop(lambda i, a, b: i < k, body, (zero, zero, one))
    capped = tf1.while_loop(lambda i, a, b: i < k, body, (zero, zero, one),
                            maximum_iterations=5)
    return {"k": k}, [plain[1], capped[0], capped[1]]


def matrix():
    def outer_body(i, m):
        def inner_body(j, row):
            return j + 1.0, tf.concat([row, tf.reshape(i * 10.0 + j, [1])], 0)
        _, row = tf1.while_loop(lambda j, row: j < 4.0, inner_body,
                                (tf.constant(0.0), tf.zeros([0])),
                                shape_invariants=(tf.TensorShape([]),
                                                  tf.TensorShape([None])))
        return i + 1.0, tf.concat([m, tf.reshape(row, [1, 4])], 0)
    _, m = tf1.while_loop(lambda i, m: i < 3.0, outer_body,
                          (tf.constant(0.0), tf.zeros([0, 4])),
                          shape_invariants=(tf.TensorShape([]),
                                            tf.TensorShape([None, 4])))
    return {}, [m]


def collatz():
    def body(x, steps):
        two = tf.constant(2, tf.int64)
        x = tf1.cond(tf.equal(tf.math.floormod(x, two), 0),
                     lambda: tf.math.floordiv(x, two), lambda: x * 3 + 1)
        return x, steps + 1
    x, steps = tf1.while_loop(lambda x, s: tf.not_equal(x, 1), body,
                              (tf.constant(27, tf.int64), tf.constant(0, tf.int64)))
    return {}, [x, steps]


def loop_in_branch():
    pred = tf1.placeholder(tf.bool, [])
    n = tf1.placeholder(tf.float32, [])
    out = tf1.cond(pred,
                   lambda: tf1.while_loop(lambda v: v < n, lambda v: v + 1.0,
                                          [tf.constant(0.0)]),
                   lambda: -n)
    return {"pred": pred, "n": n}, [out]


def halving():
    """x <- x / 2 + (0 + 1 + 2) + c with an inner loop; the two-device test."""
    n = tf1.placeholder(tf.int64, [])
    c = tf.constant(3.0)
    def body(i, x):
        half = x * 0.5
        _, acc = tf1.while_loop(lambda j, a: j < 3.0, lambda j, a: (j + 1.0, a + j),
                                (tf.constant(0.0), half))
        return i + 1, acc + c
    _, x = tf1.while_loop(lambda i, x: i < n, body,
                          (tf.constant(0, tf.int64), tf.constant(1.0)))
    return {"n": n}, [x]


def cond_gradient(pred_value):
    """d sum(y * w) / d(x, z) for the cond of the gradient tests:
    y = x * (pred ? (!pred ? x : tanh(x * x * z)) : exp(x) + z)."""
    def build():
        x = tf1.placeholder(tf.float64, [2, 3])
        z = tf1.placeholder(tf.float64, [3])
        pred = tf.constant(pred_value)
        inner = tf.constant(not pred_value)
        def then_fn():
            sq = x * x * z
            return tf1.cond(inner, lambda: x, lambda: tf.tanh(sq))
        y = tf1.cond(pred, then_fn, lambda: tf.exp(x) + z) * x
        w = tf.constant(COND_W)
        return {"x": x, "z": z}, tf1.gradients(tf.reduce_sum(y * w), [x, z])
    return run(build, [{"x": COND_X, "z": COND_Z}])[0]


def loop_gradient():
    """d sum(v_4^2 * w) / d(v0, c) for v <- tanh(v * c + v0), four times,
    and with maximum_iterations 3 capping the same loop."""
    def build():
        v0 = tf1.placeholder(tf.float64, [2, 3])
        c = tf1.placeholder(tf.float64, [3])
        w = tf.constant(COND_W)
        body = lambda i, v: (i + 1, tf.tanh(v * c + v0))
        start = (tf.constant(0, tf.int64), v0)
        _, v = tf1.while_loop(lambda i, v: i < 4, body, start)
        _, capped = tf1.while_loop(lambda i, v: i < 4, body, start,
                                   maximum_iterations=3)
        return {"v0": v0, "c": c}, (
            tf1.gradients(tf.reduce_sum(v * v * w), [v0, c])
            + tf1.gradients(tf.reduce_sum(capped * capped * w), [v0, c]))
    return run(build, [{"v0": COND_X, "c": COND_Z}])[0]


def nested_loop_gradient():
    """d sum(v^2 * w) / d(v0, c): three times v <- inner(v) * c, where the
    inner loop does v <- tanh(v + v0) twice."""
    def build():
        v0 = tf1.placeholder(tf.float64, [2, 3])
        c = tf1.placeholder(tf.float64, [3])
        w = tf.constant(COND_W)
        def outer(i, v):
            _, inner = tf1.while_loop(lambda j, u: j < 2,
                                      lambda j, u: (j + 1, tf.tanh(u + v0)),
                                      (tf.constant(0, tf.int64), v))
            return i + 1, inner * c
        _, v = tf1.while_loop(lambda i, v: i < 3, outer,
                              (tf.constant(0, tf.int64), v0))
        return {"v0": v0, "c": c}, tf1.gradients(tf.reduce_sum(v * v * w),
                                                 [v0, c])
    return run(build, [{"v0": COND_X, "c": COND_Z}])[0]


def cond_in_loop_gradient():
    """d sum(v^2 * w) / d(v0, c): five times v <- (i even) ? v * c :
    tanh(v) + c."""
    def build():
        v0 = tf1.placeholder(tf.float64, [2, 3])
        c = tf1.placeholder(tf.float64, [3])
        w = tf.constant(COND_W)
        def body(i, v):
            even = tf.equal(tf.math.floormod(i, 2), 0)
            return i + 1, tf1.cond(even, lambda: v * c,
                                   lambda: tf.tanh(v) + c)
        _, v = tf1.while_loop(lambda i, v: i < 5, body,
                              (tf.constant(0, tf.int64), v0))
        return {"v0": v0, "c": c}, tf1.gradients(tf.reduce_sum(v * v * w),
                                                 [v0, c])
    return run(build, [{"v0": COND_X, "c": COND_Z}])[0]


LSTM_INPUT, LSTM_HIDDEN, LSTM_STEPS = 3, 4, 6


def lstm_values():
    """The LSTM's sequence (LSTM_STEPS x 3), weights [3 + 4, 16] and bias
    [16]: uniform draws of numpy's seeded MT19937 (the same on every
    machine), in float64."""
    r = np.random.RandomState(11)
    seq = r.uniform(-1, 1, (LSTM_STEPS, LSTM_INPUT))
    w = r.uniform(-0.5, 0.5, (LSTM_INPUT + LSTM_HIDDEN, 4 * LSTM_HIDDEN))
    b = r.uniform(-0.5, 0.5, (4 * LSTM_HIDDEN,))
    return seq, w, b


def lstm_gradient(steps):
    """loss = sum(h_T) of an LSTM unrolled by while_loop over a sequence
    placeholder of shape [None, 3] (its first `steps` rows fed), and
    d loss / d(W, b), then in a second tf.gradients d loss / d seq (through
    Gather, whose params' shape is known only at run time). Gates i, f, o,
    g are the four column blocks of [x_t, h] @ W + b."""
    seq_v, w_v, b_v = lstm_values()

    def build():
        seq = tf1.placeholder(tf.float64, [None, LSTM_INPUT])
        w = tf1.placeholder(tf.float64, [LSTM_INPUT + LSTM_HIDDEN, 4 * LSTM_HIDDEN])
        b = tf1.placeholder(tf.float64, [4 * LSTM_HIDDEN])

        def body(t, h, c):
            x = tf.reshape(tf.gather(seq, t), [1, LSTM_INPUT])
            z = tf.matmul(tf.concat([x, h], 1), w) + b
            i, f, o, g = tf.split(z, 4, axis=1)
            c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
            return t + 1, tf.sigmoid(o) * tf.tanh(c), c
        zeros = tf.zeros([1, LSTM_HIDDEN], tf.float64)
        _, h, _ = tf1.while_loop(lambda t, h, c: t < tf.shape(seq)[0], body,
                                 (tf.constant(0), zeros, zeros))
        loss = tf.reduce_sum(h)
        dseq = tf.convert_to_tensor(tf1.gradients(loss, [seq])[0])
        return {"seq": seq, "w": w, "b": b}, (
            [loss] + tf1.gradients(loss, [w, b]) + [dseq])
    return run(build, [{"seq": seq_v[:steps], "w": w_v, "b": b_v}])[0]


COND_X = np.array([[0.5, -1.25, 0.75], [1.5, -0.5, 0.25]])
COND_Z = np.array([0.5, -0.75, 1.25])
COND_W = np.array([[1.0, 0.5, -2.0], [0.25, 1.5, -1.0]])


def render():
    lines = []

    def put(name, value):
        lines.extend(tensor_lines(name, np.asarray(value)))

    for n, (total, i) in zip([10, 1, 0, 1000],
                             run(sum_loop, [{"n": n} for n in [10, 1, 0, 1000]])):
        put("sum_n%d_total" % n, total)
        put("sum_n%d_iterations" % n, i)
    fib = run(fibonacci, [{"k": 50}])[0]
    for name, v in zip(("fib50", "capped_iterations", "capped_fib"), fib):
        put(name, v)
    put("matrix", run(matrix, [{}])[0][0])
    x, steps = run(collatz, [{}])[0]
    put("collatz_x", x)
    put("collatz_steps", steps)
    for pred in (False, True):
        put("branch_loop_%s" % str(pred).lower(),
            run(loop_in_branch, [{"pred": pred, "n": 7.0}])[0][0])
    for n in (0, 1, 20):
        put("halving_n%d" % n, run(halving, [{"n": n}])[0][0])
    put("cond_grad_x_in", COND_X)
    put("cond_grad_z_in", COND_Z)
    put("cond_grad_w", COND_W)
    for name, value in zip(("dv0", "dc", "capped_dv0", "capped_dc"),
                           loop_gradient()):
        put("loop_grad_" + name, value)
    for name, value in zip(("dv0", "dc"), nested_loop_gradient()):
        put("nested_loop_grad_" + name, value)
    for name, value in zip(("dv0", "dc"), cond_in_loop_gradient()):
        put("cond_in_loop_grad_" + name, value)
    seq, w, b = lstm_values()
    put("lstm_seq", seq)
    put("lstm_w", w)
    put("lstm_b", b)
    for steps in range(1, LSTM_STEPS + 1):
        for name, value in zip(("loss", "dw", "db", "dseq"),
                               lstm_gradient(steps)):
            put("lstm_t%d_%s" % (steps, name), value)
    for pred in (False, True):
        dx, dz = cond_gradient(pred)
        put("cond_grad_%s_dx" % str(pred).lower(), dx)
        put("cond_grad_%s_dz" % str(pred).lower(), dz)
    return "\n".join(lines) + "\n"


def main():
    return write_or_check(__doc__, {os.path.join(HERE, "control_flow.txt"): render()})


if __name__ == "__main__":
    sys.exit(main())
