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
- tensor_array: a tf.function whose while loop writes a tf.TensorArray
  (TensorLists: Reserve, SetItem, Stack).
- tensor_list_bulk: TensorArray scatter, gather, split and concat and
  TensorList scatter (V2) and resize (TensorListScatterIntoExisting
  List, Gather, Split, ConcatV2, ScatterV2, Resize, Stack).
- keras_rnn: tf_keras Masking + LSTM and a GRU over sequences with a
  masked step (TensorListFromTensor, GetItem; the loops inside an If).
- keras_cnn: Conv2D, BatchNormalization, DepthwiseConv2D, ReLU6,
  MaxPooling2D (its attr T stripped at TensorFlow's default),
  GlobalAveragePooling2D, Dense.
- strings: a signature over tf.strings ops, which actorflow refuses.
- loop_train: a tf.GradientTape step through a tf.while_loop reading
  and writing TensorArrays (the loop's gradient, written by TensorFlow,
  runs on TensorLists: PopBack, ZerosLike and AddN of lists,
  VariableShape); a read signature gives the weights.
- keras_lstm_train: a tf_keras LSTM + Dense trained with SGD in a
  tf.function (the LSTM's loop and its gradient loop).
- keras3_multi: keras_multi's model written by Keras 3's model.export
  (signatures serve and serving_default, inputs and outputs by name).
- keras3_module: a tf.Module tracking a Keras 3 Dense layer, saved with
  tf.saved_model.save (the layer's variables restored by their paths in
  the object graph, not by the model's restore function).

Weights and inputs are small dyadic rationals, so most results are exact
in float32 whatever order TensorFlow sums in; the RNNs' and the CNN's
(sigmoid, tanh, rsqrt) are written rounded to 6 significant digits, and
the C++ test compares them with a relative tolerance of 1e-5. The files
are the same on every machine.

  gen_saved_model_golden.py           regenerate the files
  gen_saved_model_golden.py --check   exit 1 unless they are reproduced

Runs where pip reaches TensorFlow and tf_keras (a checking tool, not a
dependency). Written with TensorFlow 2.21.
"""
import itertools
import os
import sys
import tempfile
import uuid

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf
import tf_keras as keras

from case_writer import rounded_lines
from golden_io import write_or_check

# Keras' RNN layers name their functions with uuid4(): made deterministic,
# so that the SavedModels are the same bytes on every run.
_uuids = itertools.count(1)
uuid.uuid4 = lambda: uuid.UUID(int=next(_uuids))

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


class TensorArrays(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def cumsum(self, x):
        n = tf.shape(x)[0]
        ta = tf.TensorArray(tf.float32, size=n)

        def body(i, acc, ta):
            acc = acc + x[i]
            return i + 1, acc, ta.write(i, acc)

        _, _, ta = tf.while_loop(lambda i, a, t: i < n, body,
                                 [0, tf.zeros([3]), ta])
        return {"y": ta.stack()}


def tensor_array(work, put):
    m = TensorArrays()
    tf.saved_model.save(m, os.path.join(work, "tensor_array"),
                        signatures={"cumsum": m.cumsum})
    x = dyadic([4, 3], 3)
    put("tensor_array_x", x)
    put("tensor_array_y", m.cumsum(x)["y"].numpy())


class TensorListBulk(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32),
                                  tf.TensorSpec([None], tf.int32),
                                  tf.TensorSpec([None], tf.int64)])
    def bulk(self, x, order, lengths):
        n = tf.shape(x)[0]
        rows = tf.TensorArray(tf.float32, size=n).scatter(order, x)
        parts = tf.TensorArray(tf.float32, size=tf.size(lengths),
                               infer_shape=False).split(x, lengths)
        # A list of n + 2 items (the last two never set), cut to n + 1.
        listed = tf.raw_ops.TensorListScatterV2(
            tensor=x, indices=order, element_shape=tf.constant([3]),
            num_elements=n + 2)
        resized = tf.raw_ops.TensorListResize(input_handle=listed,
                                              size=n + 1)
        return {"gathered": rows.gather(tf.reverse(order, [0])),
                "stacked": rows.stack(), "concat": parts.concat(),
                "resized": tf.raw_ops.TensorListStack(
                    input_handle=resized, element_shape=tf.constant([3]),
                    element_dtype=tf.float32)}


def tensor_list_bulk(work, put):
    m = TensorListBulk()
    tf.saved_model.save(m, os.path.join(work, "tensor_list_bulk"),
                        signatures={"bulk": m.bulk})
    x = dyadic([4, 3], 5)
    order = np.array([2, 0, 3, 1], np.int32)
    lengths = np.array([1, 0, 3], np.int64)
    put("tensor_list_bulk_x", x)
    put("tensor_list_bulk_order", order)
    put("tensor_list_bulk_lengths", lengths)
    for key, value in m.bulk(x, order, lengths).items():
        put("tensor_list_bulk_" + key, value.numpy())


def keras_rnn(work, put):
    seq = keras.Input((5, 4), name="seq")
    lstm = keras.layers.LSTM(6, name="lstm")(keras.layers.Masking()(seq))
    gru = keras.layers.GRU(3, return_sequences=True, name="gru")(seq)
    model = keras.Model(seq, [lstm, gru])
    model.set_weights([dyadic(w.shape, 20 + i, 8)
                       for i, w in enumerate(model.get_weights())])
    # The model's variables and one traced call, not every function Keras
    # traces for its layers (a SavedModel twenty times the size).
    module = tf.Module()
    module.variables_ = model.variables
    module.serve = tf.function(
        lambda seq: dict(zip(["lstm", "gru"], model(seq))),
        input_signature=[tf.TensorSpec([None, 5, 4], tf.float32)])
    tf.saved_model.save(module, os.path.join(work, "keras_rnn"),
                        signatures={"serving_default": module.serve})
    x = dyadic([2, 5, 4], 4)
    x[1, 3, :] = 0  # a masked step
    out = model(x)
    put("keras_rnn_seq", x)
    put("keras_rnn_lstm", out[0].numpy(), 6)
    put("keras_rnn_gru", out[1].numpy(), 6)


def keras_cnn(work, put):
    image = keras.Input((6, 6, 3), name="image")
    h = keras.layers.Conv2D(4, 3, padding="same", use_bias=False)(image)
    h = keras.layers.BatchNormalization()(h)
    h = keras.layers.DepthwiseConv2D(3, padding="same")(h)
    h = keras.layers.ReLU(6.0)(h)
    h = keras.layers.MaxPooling2D()(h)
    h = keras.layers.GlobalAveragePooling2D()(h)
    out = keras.layers.Dense(2, name="logits")(h)
    model = keras.Model(image, out)
    weights = [dyadic(w.shape, 30 + i) for i, w in enumerate(model.get_weights())]
    weights[4] = np.abs(weights[4]) + 0.5  # the moving variance
    model.set_weights(weights)
    tf.saved_model.save(model, os.path.join(work, "keras_cnn"))
    x = dyadic([2, 6, 6, 3], 5)
    put("keras_cnn_image", x)
    put("keras_cnn_logits", model(x).numpy(), 6)


class LoopTrain(tf.Module):
    """A gradient step through a tf.while_loop that reads and writes
    TensorArrays: TensorFlow writes the loop's gradient as a second loop
    over TensorLists (accumulators pushed forward, popped backward;
    ZerosLike and AddN of lists; VariableShape)."""

    def __init__(self):
        self.w = tf.Variable(dyadic([3, 3], 40, 8))
        self.u = tf.Variable(dyadic([3], 41, 8))

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def train(self, x):
        with tf.GradientTape() as tape:
            n = tf.shape(x)[0]
            inputs = tf.TensorArray(tf.float32, size=n).unstack(x)
            outs = tf.TensorArray(tf.float32, size=n)

            def body(i, h, outs):
                h = tf.tanh(tf.linalg.matvec(self.w, h)
                            + inputs.read(i) * self.u)
                return i + 1, h, outs.write(i, h)

            _, h, outs = tf.while_loop(lambda i, h, o: i < n, body,
                                       [0, tf.zeros([3]), outs])
            loss = (tf.reduce_sum(tf.square(outs.stack()))
                    + tf.reduce_sum(h))
        gw, gu = tape.gradient(loss, [self.w, self.u])
        self.w.assign_sub(0.0625 * gw)
        self.u.assign_sub(0.0625 * gu)
        return {"loss": loss}

    @tf.function(input_signature=[])
    def read(self):
        return {"w": tf.identity(self.w), "u": tf.identity(self.u)}


def loop_train(work, put):
    m = LoopTrain()
    tf.saved_model.save(m, os.path.join(work, "loop_train"),
                        signatures={"train": m.train, "read": m.read})
    x = dyadic([4, 3], 42)
    put("loop_train_x", x)
    losses = [m.train(x)["loss"].numpy() for _ in range(3)]
    put("loop_train_loss", np.array(losses, np.float32), 6)
    put("loop_train_w", m.w.numpy(), 6)
    put("loop_train_u", m.u.numpy(), 6)


def keras_lstm_train(work, put):
    seq = keras.Input((5, 4), name="seq")
    out = keras.layers.Dense(1, name="out")(keras.layers.LSTM(6)(seq))
    model = keras.Model(seq, out)
    model.set_weights([dyadic(w.shape, 50 + i, 8)
                       for i, w in enumerate(model.get_weights())])
    opt = keras.optimizers.SGD(0.125)
    opt.build(model.trainable_variables)
    module = tf.Module()  # the variables, not Keras' traced functions
    module.variables_ = model.variables
    module.opt = opt

    @tf.function(input_signature=[tf.TensorSpec([None, 5, 4], tf.float32),
                                  tf.TensorSpec([None, 1], tf.float32)])
    def train(seq, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(seq, training=True) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return {"loss": loss}

    @tf.function(input_signature=[])
    def read():
        return {"kernel": tf.identity(model.get_layer("out").kernel)}

    module.train = train
    module.read = read
    tf.saved_model.save(module, os.path.join(work, "keras_lstm_train"),
                        signatures={"train": train, "read": read})
    x = dyadic([2, 5, 4], 51)
    y = dyadic([2, 1], 52)
    put("keras_lstm_train_seq", x)
    put("keras_lstm_train_y", y)
    losses = [train(x, y)["loss"].numpy() for _ in range(3)]
    put("keras_lstm_train_loss", np.array(losses, np.float32), 6)
    put("keras_lstm_train_kernel", read()["kernel"].numpy(), 6)


def keras3_multi(work, put):
    """Keras 3's model.export of a functional model with named inputs and
    outputs (keras_multi's, written by Keras 3)."""
    import keras as keras3
    from keras.src.export import saved_model_export_archive as archive

    # Keras 3 lists the variables an endpoint uses in the order of a set of
    # object ids (TensorFlow's FuncGraph.variables), a different order on
    # every run: sorted by name, the files are the same bytes every time.
    listed = archive._list_variables_used_by_fns

    def by_name(fns):
        out = tuple(sorted(vs, key=lambda v: v.name) for vs in listed(fns))
        names = [v.name for vs in out for v in vs]
        assert len(set(names)) == len(names), names
        return out

    archive._list_variables_used_by_fns = by_name
    a = keras3.Input((4,), name="a")
    b = keras3.Input((3,), name="b")
    h = keras3.layers.Dense(5, activation="relu", name="hidden")(
        keras3.layers.Concatenate()([a, b]))
    out1 = keras3.layers.Dense(2, name="out1")(h)
    out2 = keras3.layers.Dense(1, name="out2")(h)
    model = keras3.Model({"a": a, "b": b}, {"out1": out1, "out2": out2})
    model.set_weights([dyadic(w.shape, 60 + i)
                       for i, w in enumerate(model.get_weights())])
    model.export(os.path.join(work, "keras3_multi"), verbose=False)
    av, bv = dyadic([2, 4], 61), dyadic([2, 3], 62)
    out = model({"a": av, "b": bv})
    put("keras3_multi_a", av)
    put("keras3_multi_b", bv)
    put("keras3_multi_out1", out["out1"].numpy())
    put("keras3_multi_out2", out["out2"].numpy())


def keras3_module(work, put):
    """A tf.Module that tracks a Keras 3 Dense layer (its variables reach
    the bundle only through the object graph: the restore function assigns
    copies of them)."""
    import keras as keras3

    class Scorer(tf.Module):
        def __init__(self):
            super().__init__()
            self.dense = keras3.layers.Dense(2, name="dense")
            self.dense.build((None, 3))

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def __call__(self, x):
            return {"y": self.dense(x)}

    m = Scorer()
    m.dense.set_weights([dyadic([3, 2], 70), dyadic([2], 71)])
    tf.saved_model.save(m, os.path.join(work, "keras3_module"),
                        signatures={"serving_default": m.__call__})
    x = dyadic([2, 3], 72)
    put("keras3_module_x", x)
    put("keras3_module_y", m(tf.constant(x))["y"].numpy())


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

    def put(name, value, digits=None):
        lines.extend(rounded_lines(name, value, digits))

    outputs = {}
    with tempfile.TemporaryDirectory() as work:
        keras_multi(work, put)
        control_flow(work, put)
        tensor_array(work, put)
        keras_rnn(work, put)
        keras_cnn(work, put)
        strings(work, put)
        # In the order they were added: each keeps its bytes.
        tensor_list_bulk(work, put)
        loop_train(work, put)
        keras_lstm_train(work, put)
        keras3_multi(work, put)
        keras3_module(work, put)
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
