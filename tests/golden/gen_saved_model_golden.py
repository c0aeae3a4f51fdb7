#!/usr/bin/env python3
"""SavedModels written by TensorFlow 2, and TensorFlow's results for them.

Writes small SavedModels with tf.saved_model.save into
tests/golden/saved_model/<case>/ (saved_model.pb and the variables'
tensor bundle; not fingerprint.pb, which actorflow does not read) and
what TensorFlow computes with them to tests/golden/saved_model.txt (the
format of golden.hpp). tests/actors/saved_model_test.cpp loads each with
actors::saved_model_session, runs its signatures and compares; it never
needs TensorFlow.

- keras_multi: a tf_keras functional model with two named inputs (a, b)
  and two named outputs (out1, out2): Concatenate, Dense with ReLU,
  Dense.
- control_flow: a tf.Module over a resource variable v with signatures
  loop (a data-dependent tf.while_loop), branch (tf.cond), switch
  (tf.switch_case; an index out of range takes the last branch),
  loop_calls (a tf.function called in a loop's body), nested
  (tf.functions calling tf.functions that read v), train (a gradient
  step on v, written with tf.GradientTape) and read (v's value).
- strings: a signature over tf.strings ops, which actorflow refuses.

Weights and inputs are small dyadic rationals, so every result is exact
in float32 whatever order TensorFlow sums in: the files are the same on
every machine.

  gen_saved_model_golden.py           regenerate the files
  gen_saved_model_golden.py --check   exit 1 unless they are reproduced

Runs where pip reaches TensorFlow and tf_keras (a checking tool, not a
dependency). Written with TensorFlow 2.21.
"""
import os
import shutil
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf
import tf_keras as keras

from case_writer import tensor_lines
from golden_io import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "saved_model")


def dyadic(shape, seed, scale=4):
    """Small multiples of 1/scale in [-5/scale, 5/scale]."""
    n = int(np.prod(shape))
    v = ((np.arange(n) * 7 + seed * 3) % 11 - 5) / scale
    return v.reshape(shape).astype(np.float32)


def keras_multi(work, put):
    a = keras.Input((4,), name="a")
    b = keras.Input((3,), name="b")
    h = keras.layers.Dense(5, activation="relu", name="hidden")(
        keras.layers.Concatenate()([a, b]))
    out1 = keras.layers.Dense(2, name="out1")(h)
    out2 = keras.layers.Dense(1, name="out2")(h)
    model = keras.Model([a, b], [out1, out2])
    model.set_weights([dyadic(w.shape, 10 + i)
                       for i, w in enumerate(model.get_weights())])
    tf.saved_model.save(model, os.path.join(work, "keras_multi"))
    av, bv = dyadic([2, 4], 1), dyadic([2, 3], 2)
    loaded = tf.saved_model.load(os.path.join(work, "keras_multi"))
    out = loaded.signatures["serving_default"](a=tf.constant(av),
                                               b=tf.constant(bv))
    put("keras_multi_a", av)
    put("keras_multi_b", bv)
    put("keras_multi_out1", out["out1"].numpy())
    put("keras_multi_out2", out["out2"].numpy())


class ControlFlow(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable([0.5, 1.0, 2.0], name="v")

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32),
                                  tf.TensorSpec([], tf.int32)])
    def loop(self, x, n):
        i = tf.constant(0)
        _, y = tf.while_loop(lambda i, x: i < n,
                             lambda i, x: (i + 1, x * 0.5 + self.v), [i, x])
        return {"y": y}

    @tf.function
    def step(self, x):
        return x * 0.5 + self.v

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32),
                                  tf.TensorSpec([], tf.int32)])
    def loop_calls(self, x, n):
        _, y = tf.while_loop(lambda i, x: i < n,
                             lambda i, x: (i + 1, self.step(x)),
                             [tf.constant(0), x])
        return {"y": y}

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def branch(self, p):
        return {"z": tf.cond(p > 0, lambda: self.v * p, lambda: self.v - p)}

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32),
                                  tf.TensorSpec([3], tf.float32)])
    def switch(self, k, x):
        return {"y": tf.switch_case(k, [lambda: x + self.v,
                                        lambda: x * self.v,
                                        lambda: x - self.v])}

    @tf.function
    def scaled(self, x):
        return x * self.v

    @tf.function
    def twice(self, x):
        return self.scaled(self.scaled(x)) + self.v

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def nested(self, x):
        return {"y": self.twice(x)}

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def train(self, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(self.v * x - 1.0))
        self.v.assign_sub(0.125 * tape.gradient(loss, self.v))
        return {"loss": loss}

    @tf.function(input_signature=[])
    def read(self):
        return {"v": tf.identity(self.v)}


def control_flow(work, put):
    m = ControlFlow()
    sigs = {name: getattr(m, name) for name in
            ["loop", "loop_calls", "branch", "switch", "nested", "train",
             "read"]}
    tf.saved_model.save(m, os.path.join(work, "control_flow"),
                        signatures=sigs)
    x = np.array([1.0, -0.5, 0.25], np.float32)
    put("control_flow_x", x)
    put("control_flow_loop_y", m.loop(x, 5)["y"].numpy())
    put("control_flow_loop_calls_y", m.loop_calls(x, 5)["y"].numpy())
    put("control_flow_branch_pos", m.branch(2.0)["z"].numpy())
    put("control_flow_branch_neg", m.branch(-2.0)["z"].numpy())
    for k in [0, 1, 2, 7]:
        put("control_flow_switch_%d" % k, m.switch(k, x)["y"].numpy())
    put("control_flow_nested_y", m.nested(x)["y"].numpy())
    losses = [m.train(x)["loss"].numpy() for _ in range(3)]
    put("control_flow_train_loss", np.array(losses, np.float32))
    put("control_flow_trained_v", m.v.numpy())


class Strings(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def lengths(self, s):
        return {"n": tf.strings.length(tf.strings.upper(s))}


def strings(work, put):
    m = Strings()
    tf.saved_model.save(m, os.path.join(work, "strings"),
                        signatures={"lengths": m.lengths})


def render():
    lines = []

    def put(name, value):
        lines.extend(tensor_lines(name, np.asarray(value)))

    outputs = {}
    with tempfile.TemporaryDirectory() as work:
        keras_multi(work, put)
        control_flow(work, put)
        strings(work, put)
        for case in sorted(os.listdir(work)):
            for root, _, files in os.walk(os.path.join(work, case)):
                for f in files:
                    if f == "fingerprint.pb":
                        continue
                    path = os.path.join(root, f)
                    rel = os.path.relpath(path, work)
                    with open(path, "rb") as data:
                        outputs[os.path.join(OUT, rel)] = data.read()
    outputs[os.path.join(HERE, "saved_model.txt")] = "\n".join(lines) + "\n"
    return outputs


def main():
    outputs = render()
    for path in outputs:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    return write_or_check(__doc__, outputs)


if __name__ == "__main__":
    sys.exit(main())
