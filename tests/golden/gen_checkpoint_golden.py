#!/usr/bin/env python3
"""Checkpoints written by TensorFlow 1's Saver, and TensorFlow's values in
them.

Builds a linear model (W [3, 2], b [2], a global step) trained by
MomentumOptimizer with tf.compat.v1 in graph mode, runs two steps and
saves with tf.compat.v1.train.Saver into tests/golden/checkpoint/
momentum/model-2 (the tensor bundle: .index and .data-00000-of-00001;
not the state file or .meta, which hold paths and times). Writes to
tests/golden/checkpoint.txt (the format of golden.hpp) every variable's
value (W/Momentum and b/Momentum: the optimizer's slots), the data, and
the loss of a third step run after restoring into a new session.

python/tests/test_tf1_checkpoints.py restores the bundle with
actorflow.compat.v1's Saver and checks the values and the resumed step;
it saves the same values itself and compares the files byte for byte with
TensorFlow's (what TensorFlow's RestoreV2 and tf.train.load_checkpoint
read). It never needs TensorFlow.

Data, weights and hyper-parameters are small dyadic rationals, so every
saved value is exact in float32 whatever order TensorFlow sums in (the
resumed loss, a sum of squares that is not, is written rounded to 6
significant digits): the files are the same bytes on every machine.

  gen_checkpoint_golden.py           regenerate the files
  gen_checkpoint_golden.py --check   exit 1 unless they are reproduced

Runs where pip reaches TensorFlow (a checking tool, not a dependency).
Written with TensorFlow 2.21.
"""
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow.compat.v1 as tf

from case_writer import rounded_lines
from golden_io import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "checkpoint", "momentum")


def dyadic(shape, seed, scale=4):
    """Small multiples of 1/scale in [-5/scale, 5/scale]."""
    n = int(np.prod(shape))
    v = ((np.arange(n) * 7 + seed * 3) % 11 - 5) / scale
    return v.reshape(shape).astype(np.float32)


def build():
    """The model: (x, y, loss, train op, global step)."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    w = tf.get_variable("W", initializer=dyadic([3, 2], 1))
    b = tf.get_variable("b", initializer=dyadic([2], 2))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    step = tf.train.get_or_create_global_step()
    train = tf.train.MomentumOptimizer(0.125, 0.5).minimize(
        loss, global_step=step)
    return x, y, loss, train


def render():
    tf.disable_v2_behavior()
    xs, ys = dyadic([4, 3], 3), dyadic([4, 2], 4)
    lines = []

    def put(name, value, digits=None):
        lines.extend(rounded_lines(name, value, digits))

    outputs = {}
    with tempfile.TemporaryDirectory() as work:
        prefix = os.path.join(work, "model")
        with tf.Graph().as_default():
            x, y, loss, train = build()
            saver = tf.train.Saver()
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(2):
                    sess.run(train, {x: xs, y: ys})
                path = saver.save(sess, prefix, global_step=2,
                                  write_meta_graph=False)
                for v in sorted(tf.global_variables(),
                                key=lambda v: v.op.name):
                    put(v.op.name, sess.run(v))
        with tf.Graph().as_default():
            x, y, loss, train = build()
            saver = tf.train.Saver()
            with tf.Session() as sess:
                saver.restore(sess, path)
                put("resumed_loss", np.float32(
                    sess.run([loss, train], {x: xs, y: ys})[0]), 6)
        put("x", xs)
        put("y", ys)
        for f in sorted(os.listdir(work)):
            if f.startswith("model-2."):
                with open(os.path.join(work, f), "rb") as data:
                    outputs[os.path.join(OUT, f)] = data.read()
    outputs[os.path.join(HERE, "checkpoint.txt")] = "\n".join(lines) + "\n"
    return outputs


def main():
    outputs = render()
    os.makedirs(OUT, exist_ok=True)
    return write_or_check(__doc__, outputs)


if __name__ == "__main__":
    sys.exit(main())
