#!/usr/bin/env python3
"""TensorFlow's results for the sparsely-gated mixture-of-experts layer
(Shazeer et al. 2017), for tests/actors/moe_test.cpp.

The layer is written here with TensorFlow's ops and computed densely:
every expert runs on every example and the output is sum_e gates[:, e] *
expert_e(x), so nothing is dispatched -- an independent formulation of
what graph::moe_layer computes by dispatching rows. Noisy top-k gating
with the noise given, the importance and load losses (coefficients 0.1),
and the gradients of sum(y^2) + loss with respect to x, the gating
weights and the experts' weights. Four experts of tanh(rows @ w_e), k =
2, eight examples; in one case expert 3 gets no example.

Inputs are small rationals written as they are; the results (tanh, exp,
erfc) are written rounded to 12 significant digits, so another CPU's last
bits do not change the file, and the C++ test compares them with a
relative tolerance of 1e-9.

  gen_moe_golden.py           regenerate tests/golden/moe_layer.txt
  gen_moe_golden.py --check   exit 1 unless it is reproduced

Runs where pip reaches TensorFlow (a checking tool, not a dependency).
"""
import os
import sys

import numpy as np
import tensorflow as tf

from case_writer import tensor_lines
from golden_io import write_or_check

tf1 = tf.compat.v1
tf1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
BATCH, DEPTH, EXPERTS, UNITS, K = 8, 4, 4, 3, 2


def pattern(shape, seed, scale):
    """Multiples of 1/scale from a fixed pattern, plus a distinct multiple
    of 1/1024 per element so that no two logits tie."""
    n = int(np.prod(shape))
    i = np.arange(n)
    v = ((i * 7 + seed * 3) % 11 - 5) / scale + (i * 5 % n) / 1024
    return v.reshape(shape)


def moe_dense(x, w_gate, w_noise, noise, w_experts):
    clean = tf.matmul(x, w_gate)
    stddev = tf.nn.softplus(tf.matmul(x, w_noise)) + 1e-2
    logits = clean + noise * stddev
    top, index = tf.nn.top_k(logits, k=K + 1)
    top_gates = tf.nn.softmax(top[:, :K])
    rows = tf.tile(tf.range(BATCH)[:, None], [1, K])
    gates = tf.scatter_nd(tf.stack([rows, index[:, :K]], 2), top_gates,
                          [BATCH, EXPERTS])

    def cdf(z):
        return 0.5 * tf.math.erfc(-z / np.sqrt(2.0))

    if_in, if_out = top[:, K:K + 1], top[:, K - 1:K]
    prob = tf.where(logits > if_in, cdf((clean - if_in) / stddev),
                    cdf((clean - if_out) / stddev))
    importance = tf.reduce_sum(gates, 0)
    load = tf.reduce_sum(prob, 0)

    def cv_squared(v):
        mean = tf.reduce_mean(v)
        return tf.reduce_mean(tf.square(v - mean)) / (tf.square(mean) + 1e-10)

    loss = 0.1 * cv_squared(importance) + 0.1 * cv_squared(load)
    y = tf.add_n([gates[:, e:e + 1] * tf.tanh(tf.matmul(x, w_experts[e]))
                  for e in range(EXPERTS)])
    return y, loss, importance, load, gates


def inputs():
    """x, its first column 1 + a little (a bias feature)."""
    x = pattern([BATCH, DEPTH], 1, 4)
    x[:, 0] = 1 + np.arange(BATCH) / 64
    return x


def case(put, name, w_gate):
    x = inputs()
    w_noise = pattern([DEPTH, EXPERTS], 3, 8)
    noise = pattern([BATCH, EXPERTS], 4, 4)
    w_experts = pattern([EXPERTS, DEPTH, UNITS], 5, 8)
    g = tf1.Graph()
    with g.as_default():
        feeds = [tf1.placeholder(tf.float64, v.shape)
                 for v in (x, w_gate, w_noise, noise, w_experts)]
        y, loss, importance, load, gates = moe_dense(
            feeds[0], feeds[1], feeds[2], feeds[3],
            tf.unstack(feeds[4], EXPERTS))
        total = tf.reduce_sum(y * y) + loss
        grads = tf1.gradients(total, [feeds[0], feeds[1], feeds[2], feeds[4]])
        with tf1.Session(graph=g) as sess:
            values = sess.run([y, loss, importance, load, gates] + grads,
                              dict(zip(feeds, (x, w_gate, w_noise, noise,
                                               w_experts))))
    for key, v in (("x", x), ("w_gate", w_gate), ("w_noise", w_noise),
                   ("noise", noise), ("w_experts", w_experts)):
        put(name + "_" + key, v)
    keys = ["y", "loss", "importance", "load", "gates", "d_x", "d_w_gate",
            "d_w_noise", "d_w_experts"]
    for key, v in zip(keys, values):
        put(name + "_" + key, v, 12)
    return values[4]


def render():
    lines = []

    def put(name, value, digits=None):
        value = np.asarray(value, np.float64)
        if digits is not None:
            value = np.array([float("%.*g" % (digits, v)) for v in value.flat],
                             np.float64).reshape(value.shape)
        lines.extend(tensor_lines(name, value))

    case(put, "moe", pattern([DEPTH, EXPERTS], 2, 4))
    # Expert 3's gate logits far below the others' (through the bias
    # feature): it gets no example.
    starved = pattern([DEPTH, EXPERTS], 2, 4)
    starved[:, 3] = [-20.0, 0.0, 0.0, 0.0]
    gates = case(put, "starved", starved)
    assert (gates[:, 3] == 0).all(), "expert 3 still gets examples"
    return {os.path.join(HERE, "moe_layer.txt"): "\n".join(lines) + "\n"}


def main():
    return write_or_check(__doc__, render())


if __name__ == "__main__":
    sys.exit(main())
