#!/usr/bin/env python3
"""Freezes Keras models with TensorFlow, runs each here, prints how far apart.

For every model of the list -- each tf.compat.v1.keras.applications model
(weights=None: random weights), a model per layer of the Keras layer
catalogue, tf.compat.v1.nn's dynamic_rnn, bidirectional_dynamic_rnn and
raw_rnn, and a BERT-style encoder (the last four with --layers) -- this
builds it in TensorFlow 1 graph mode (v1 control flow,
reference variables, as users freeze), freezes it with
convert_variables_to_constants, writes the GraphDef and a random input to
a work folder, computes TensorFlow's output, runs the same GraphDef with
`actorflow run`, and prints a table: the graph's size, the ops actorflow
lacks (`actorflow ops --missing`), the largest absolute difference and
that difference over the output's scale (its largest magnitude), and how
far TensorFlow's own output moves when the input is nudged by a relative
1e-6. The applications' outputs are their logits (a random net saturates
its softmax). Where TensorFlow itself moves past the tolerance, the net is
chaotic at these random weights and the verdict is "chaotic", not a
failure: rounding decides its output, in either engine.

Needs TensorFlow (a checking tool, not a dependency of the project):

  python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu tf_keras
  /tmp/tfvenv/bin/python scripts/check-keras-models.py [--build build]
      [--only NAME,...] [--layers | --applications] [--every-application]
      [--gradients] [--learning-phase 0|1] [--work DIR]

Exits 1 when a model fails or differs by more than --tolerance of its
output's scale (1e-3 for the applications, 1e-4 for the layers: issue 54's
bounds).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_v2_behavior()
tf1.logging.set_verbosity(tf1.logging.ERROR)
keras = tf1.keras
L = keras.layers
A = keras.applications

APPLICATIONS = {
    "ResNet50": A.ResNet50, "ResNet101": A.ResNet101,
    "ResNet50V2": A.ResNet50V2, "VGG16": A.VGG16, "Xception": A.Xception,
    "InceptionV3": A.InceptionV3,
    "InceptionResNetV2": A.InceptionResNetV2, "MobileNet": A.MobileNet,
    "MobileNetV2": A.MobileNetV2, "MobileNetV3Small": A.MobileNetV3Small,
    "DenseNet121": A.DenseNet121, "NASNetMobile": A.NASNetMobile,
    "EfficientNetB0": A.EfficientNetB0, "EfficientNetV2B0": A.EfficientNetV2B0,
    "ConvNeXtTiny": A.ConvNeXtTiny, "RegNetX002": A.RegNetX002,
    "RegNetY002": A.RegNetY002, "ResNetRS50": A.ResNetRS50,
    "MobileNetV3Large": A.MobileNetV3Large, "VGG19": A.VGG19,
    "ResNet152V2": A.ResNet152V2, "DenseNet169": A.DenseNet169,
    "EfficientNetV2S": A.EfficientNetV2S,
}
# Every application this TensorFlow has (`--every-application`): the
# families above at every size (NASNetLarge, EfficientNetB7, ... -- an
# hour or more on two cores).
EVERY_APPLICATION = {n: getattr(A, n) for n in dir(A) if n[0].isupper()}


def application(build):
    """A Keras application with random weights, its logits as the output:
    a deep net's random weights saturate the softmax, and one flipped
    argmax would read as a difference of 1."""
    return build(weights=None, classifier_activation=None)


def seq(shape, layers, dtype="float32"):
    """A Sequential model of `layers()` on inputs of `shape`."""
    return lambda: keras.Sequential([L.InputLayer(shape, dtype=dtype)]
                                    + layers())


def two_inputs(shape_a, shape_b, merge):
    def build():
        a, b = L.Input(shape_a), L.Input(shape_b)
        return keras.Model([a, b], merge()([a, b]))
    return build


def attention(layer):
    def build():
        q, v = L.Input((5, 8)), L.Input((6, 8))
        return keras.Model([q, v], layer()(q, v))
    return build


def layer(name):
    """Keras' layer class `name`, from the v1 API or, failing that, tf_keras'
    own (GroupNormalization is only there)."""
    found = getattr(L, name, None)
    if found is None:
        import tf_keras
        found = getattr(tf_keras.layers, name)
    return found


ACTIVATIONS = ["relu", "relu6", "elu", "selu", "softplus", "softsign",
               "swish", "gelu", "hard_sigmoid", "sigmoid", "tanh",
               "exponential", "linear", "mish", "softmax"]

LAYERS = {
    "Conv1D": seq((9, 3), lambda: [L.Conv1D(4, 3, strides=2, padding="same")]),
    "Conv2D": seq((9, 9, 3), lambda: [L.Conv2D(4, 3, dilation_rate=2)]),
    "Conv3D": seq((6, 6, 6, 2), lambda: [L.Conv3D(3, 3)]),
    "Conv2DTranspose": seq((5, 5, 3),
                           lambda: [L.Conv2DTranspose(4, 3, strides=2)]),
    "Conv3DTranspose": seq((4, 4, 4, 2),
                           lambda: [L.Conv3DTranspose(3, 3, strides=2)]),
    "SeparableConv1D": seq((9, 3), lambda: [L.SeparableConv1D(4, 3)]),
    "SeparableConv2D": seq((9, 9, 3), lambda: [L.SeparableConv2D(4, 3)]),
    "DepthwiseConv2D": seq((9, 9, 3), lambda: [
        L.DepthwiseConv2D(3, strides=2, depth_multiplier=2)]),
    "BatchNormalization": seq((5, 5, 3), lambda: [L.BatchNormalization()]),
    "LayerNormalization": seq((5, 8), lambda: [L.LayerNormalization()]),
    "GroupNormalization": seq((5, 5, 4),
                              lambda: [layer("GroupNormalization")(2)]),
    "MultiHeadAttention": attention(lambda: L.MultiHeadAttention(2, 4)),
    "Attention": attention(lambda: lambda q, v: L.Attention()([q, v])),
    "Embedding": seq((6,), lambda: [L.Embedding(20, 4)], "int32"),
    "SimpleRNN": seq((5, 3), lambda: [L.SimpleRNN(4)]),
    "LSTM": seq((5, 3), lambda: [L.LSTM(4, return_sequences=True)]),
    "GRU": seq((5, 3), lambda: [L.GRU(4)]),
    "Bidirectional": seq((5, 3), lambda: [L.Bidirectional(L.LSTM(4))]),
    "TimeDistributed": seq((5, 3), lambda: [L.TimeDistributed(L.Dense(2))]),
    "ConvLSTM2D": seq((3, 5, 5, 2), lambda: [L.ConvLSTM2D(3, 3)]),
    "UpSampling1D": seq((4, 3), lambda: [L.UpSampling1D(2)]),
    "UpSampling2D": seq((4, 4, 3), lambda: [L.UpSampling2D(2)]),
    "UpSampling3D": seq((3, 3, 3, 2), lambda: [L.UpSampling3D(2)]),
    "ZeroPadding2D": seq((4, 4, 3),
                         lambda: [L.ZeroPadding2D(((1, 2), (0, 1)))]),
    "Cropping2D": seq((6, 6, 3), lambda: [L.Cropping2D(((1, 2), (0, 1)))]),
    "Resizing_bilinear": seq((5, 5, 3), lambda: [layer("Resizing")(8, 7)]),
    "Resizing_nearest": seq((5, 5, 3), lambda: [
        layer("Resizing")(8, 7, interpolation="nearest")]),
    "MaxPooling1D": seq((9, 3), lambda: [L.MaxPooling1D(2)]),
    "AveragePooling1D": seq((9, 3), lambda: [L.AveragePooling1D(2)]),
    "MaxPooling2D": seq((9, 9, 3),
                        lambda: [L.MaxPooling2D(3, 2, padding="same")]),
    "AveragePooling2D": seq((9, 9, 3), lambda: [L.AveragePooling2D(2)]),
    "MaxPooling3D": seq((4, 4, 4, 2), lambda: [L.MaxPooling3D(2)]),
    "AveragePooling3D": seq((4, 4, 4, 2), lambda: [L.AveragePooling3D(2)]),
    "GlobalMaxPooling2D": seq((5, 5, 3), lambda: [L.GlobalMaxPooling2D()]),
    "GlobalAveragePooling1D": seq((5, 3),
                                  lambda: [L.GlobalAveragePooling1D()]),
    "GlobalAveragePooling3D": seq((3, 3, 3, 2),
                                  lambda: [L.GlobalAveragePooling3D()]),
    "Dropout": seq((5, 3), lambda: [L.Dropout(0.5)]),
    "Reshape": seq((4, 6), lambda: [L.Reshape((3, 8))]),
    "Permute": seq((4, 6, 2), lambda: [L.Permute((2, 1, 3))]),
    "Flatten": seq((4, 6, 2), lambda: [L.Flatten()]),
    "RepeatVector": seq((6,), lambda: [L.RepeatVector(3)]),
    "Concatenate": two_inputs((4, 3), (4, 2), lambda: L.Concatenate()),
    "Add": two_inputs((4, 3), (4, 3), lambda: L.Add()),
    "Multiply": two_inputs((4, 3), (4, 3), lambda: L.Multiply()),
    "Dot": two_inputs((4, 3), (5, 3), lambda: L.Dot(axes=2)),
}
for act in ACTIVATIONS:
    LAYERS["activation_" + act] = seq(
        (4, 6), lambda act=act: [L.Dense(6, activation=act)])
LAYERS["gelu_approximate"] = seq((4, 6), lambda: [L.Dense(6), L.Lambda(
    lambda x: tf.nn.gelu(x, approximate=True))])
LAYERS["hard_swish"] = seq((4, 6), lambda: [L.Dense(6), L.Lambda(
    lambda x: x * tf.nn.relu6(x + 3.0) / 6.0)])
LAYERS["leaky_relu"] = seq((4, 6), lambda: [L.Dense(6), L.LeakyReLU(0.1)])


class graph_model:
    """What freeze() reads of a Keras model, for a graph built from
    tf.compat.v1 ops: its input placeholders, outputs and variables."""

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = inputs, outputs
        self.trainable_weights = tf1.trainable_variables()


def nn_rnn(kind):
    """tf.compat.v1.nn's RNNs over a batch of padded sequences (lengths 5
    and 3): dynamic_rnn of an LSTM cell, bidirectional_dynamic_rnn of GRU
    cells (ReverseSequence), raw_rnn of an LSTM cell (its own loop and
    TensorArray)."""
    def build():
        x = tf1.placeholder(tf.float32, [2, 5, 3], name="x")
        lengths = tf.constant([5, 3])
        if kind == "dynamic":
            out, _ = tf1.nn.dynamic_rnn(tf1.nn.rnn_cell.LSTMCell(4), x,
                                        sequence_length=lengths,
                                        dtype=tf.float32)
        elif kind == "bidirectional":
            (fw, bw), _ = tf1.nn.bidirectional_dynamic_rnn(
                tf1.nn.rnn_cell.GRUCell(4), tf1.nn.rnn_cell.GRUCell(4), x,
                sequence_length=lengths, dtype=tf.float32)
            out = tf.concat([fw, bw], 2)
        else:
            cell = tf1.nn.rnn_cell.LSTMCell(4)
            steps = tf1.TensorArray(tf.float32, size=5).unstack(
                tf.transpose(x, [1, 0, 2]))

            def loop_fn(time, output, state, loop_state):
                state = cell.zero_state(2, tf.float32) if output is None \
                    else state
                done = time >= lengths
                step = tf.cond(tf.reduce_all(done),
                               lambda: tf.zeros([2, 3]),
                               lambda: steps.read(tf.minimum(time, 4)))
                return done, step, state, output, None

            outputs, _, _ = tf1.nn.raw_rnn(cell, loop_fn)
            # Five steps, the longest sequence's.
            out = tf.reshape(tf.transpose(outputs.stack(), [1, 0, 2]),
                             [2, 5, 4])
        return graph_model([x], [tf.identity(out, name="y")])
    return build


def bert_encoder(layers=2, hidden=64, heads=4, seq_len=16):
    """A BERT-style encoder at reduced width: token and position
    embeddings, then `layers` blocks of MultiHeadAttention, residual Add,
    LayerNormalization, Dense(4 * hidden, gelu), Dense, Add,
    LayerNormalization (P15's BERT-base shape is 12 x 768 x 12)."""
    def build():
        tokens = L.Input((seq_len,), dtype="int32", name="tokens")
        h = L.Embedding(100, hidden)(tokens)
        positions = L.Embedding(seq_len, hidden)(
            tf.range(seq_len)[tf.newaxis, :])
        h = L.LayerNormalization()(h + positions)
        for _ in range(layers):
            a = L.MultiHeadAttention(heads, hidden // heads)(h, h)
            h = L.LayerNormalization()(L.Add()([h, a]))
            f = L.Dense(hidden)(L.Dense(4 * hidden, activation="gelu")(h))
            h = L.LayerNormalization()(L.Add()([h, f]))
        return keras.Model(tokens, h)
    return build


# The graphs users write without Keras layers, and a BERT-style encoder.
GRAPHS = {
    "nn.dynamic_rnn": nn_rnn("dynamic"),
    "nn.bidirectional_dynamic_rnn": nn_rnn("bidirectional"),
    "nn.raw_rnn": nn_rnn("raw"),
    "BERT-style encoder": bert_encoder(),
}


def freeze(build, seed, gradients=False, learning_phase=None):
    """Freezes build() and runs it on a random input: returns the frozen
    GraphDef, the feeds, the names of the tensors compared, their values
    in TensorFlow, and how far TensorFlow's own values move (over their
    scale, as compare() measures) when each float input is nudged by a
    relative 1e-6: a deep net with random weights can be chaotic, its
    output moved far by rounding. With `gradients`, those are the gradients of
    sum(output * w) (w random) with respect to the inputs and the trainable
    weights (TensorFlow's tf.gradients, frozen with the rest)."""
    g = tf1.Graph()
    with g.as_default():
        tf1.set_random_seed(seed)
        sess = tf1.Session(graph=g)
        keras.backend.set_session(sess)
        if learning_phase is not None:
            keras.backend.set_learning_phase(learning_phase)
        model = build()
        rng = np.random.RandomState(seed)
        fetches = [model.outputs[0]]
        if gradients:
            y = model.outputs[0]
            w = tf.constant(rng.standard_normal(
                [1] + y.shape.as_list()[1:]).astype(np.float32))
            loss = tf.reduce_sum(y * w)
            xs = [t for t in model.inputs if t.dtype.is_floating]
            fetches = [tf.convert_to_tensor(d) for d in tf1.gradients(
                loss, xs + model.trainable_weights) if d is not None]
        sess.run(tf1.global_variables_initializer())
        frozen = tf1.graph_util.convert_variables_to_constants(
            sess, g.as_graph_def(), [t.op.name for t in fetches])
        feeds = {}
        for t in model.inputs:
            # A batch of one unless fixed; unknown image sides
            # (MobileNetV3's) 224.
            shape = [d if d is not None else 1 if i == 0 else 224
                     for i, d in enumerate(t.shape.as_list())]
            if t.dtype.is_integer:
                feeds[t] = rng.randint(0, 20, size=shape).astype(
                    t.dtype.as_numpy_dtype)
            else:
                feeds[t] = rng.standard_normal(shape).astype(
                    t.dtype.as_numpy_dtype)
        want = sess.run(fetches, feeds)
        nudged = {t: v * (1 + 1e-6 * rng.standard_normal(v.shape)).astype(
                      v.dtype) if t.dtype.is_floating else v
                  for t, v in feeds.items()}
        moved = compare(sess.run(fetches, nudged), want)[1]
    return frozen, feeds, [t.name for t in fetches], want, moved


def run_here(cli, pb, feeds, fetches, work):
    """Runs `pb` with `actorflow run`; returns (outputs or None, message)."""
    missing = subprocess.run([cli, "ops", "--missing", pb],
                             capture_output=True, text=True)
    if missing.returncode != 0:
        ops = [line.split()[0] for line in missing.stdout.splitlines()[1:]]
        return None, "missing: " + " ".join(ops)
    cmd = [cli, "run", "--graph", pb]
    for i, (t, value) in enumerate(feeds.items()):
        path = os.path.join(work, "in%d.npy" % i)
        np.save(path, value)
        cmd += ["--feed", "%s=%s" % (t.name, path)]
    outs = [os.path.join(work, "out%d.npy" % i) for i in range(len(fetches))]
    for name, out in zip(fetches, outs):
        cmd += ["--fetch", "%s=%s" % (name, out)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return None, lines[-1][:200] if lines else "exit %d" % done.returncode
    return [np.load(out) for out in outs], ""


def compare(got, want):
    """The largest difference over all compared tensors, and the largest
    of each's difference over its own scale -- or a thousandth of the
    largest scale, for a tensor that is zero but for rounding (the
    gradient of a bias before a softmax); None when shapes differ."""
    scales = [float(np.max(np.abs(b), initial=0)) for b in want]
    floor = max(max(scales, default=0) * 1e-3, 1e-30)
    worst, relative = 0.0, 0.0
    for a, b, scale in zip(got, want, scales):
        if a.shape != b.shape:
            return None
        diff = float(np.max(np.abs(a.astype(np.float64) - b), initial=0))
        worst = max(worst, diff)
        relative = max(relative, diff / max(scale, floor))
    return worst, relative


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build",
                        help="actorflow's build folder (default: build)")
    parser.add_argument("--only", default="",
                        help="comma-separated model names to check")
    parser.add_argument("--layers", action="store_true",
                        help="only the layer models")
    parser.add_argument("--applications", action="store_true",
                        help="only the applications")
    parser.add_argument("--gradients", action="store_true",
                        help="compare the gradients of a loss with respect "
                             "to the inputs and weights (a training step's "
                             "backward graph) instead of the outputs")
    parser.add_argument("--learning-phase", type=int, choices=(0, 1),
                        help="fix Keras' learning phase (1: training) "
                             "instead of leaving it to a "
                             "PlaceholderWithDefault and conds; frozen "
                             "backward graphs of BatchNormalization need "
                             "it, as TensorFlow itself cannot run their "
                             "VariableShape of a frozen variable")
    parser.add_argument("--every-application", action="store_true",
                        help="every Keras application at every size, not "
                             "one or two of each family (slow)")
    parser.add_argument("--work", default="",
                        help="folder for the GraphDefs and arrays "
                             "(default: a temporary one)")
    args = parser.parse_args()
    cli = os.path.join(args.build, "bin", "actorflow")
    if not os.access(cli, os.X_OK):
        sys.exit("no %s: build first (bash scripts/build.sh)" % cli)
    models = []
    if not args.layers:
        apps = EVERY_APPLICATION if args.every_application else APPLICATIONS
        models += [(n, lambda f=f: application(f), 1e-3)
                   for n, f in apps.items()]
    if not args.applications:
        models += [(n, b, 1e-4) for n, b in LAYERS.items()]
        models += [(n, b, 1e-4) for n, b in GRAPHS.items()]
    if args.only:
        keep = set(args.only.split(","))
        models = [m for m in models if m[0] in keep]
    work = args.work or tempfile.mkdtemp(prefix="keras-models-")
    os.makedirs(work, exist_ok=True)
    print("| model | nodes | max abs diff | / output scale "
          "| TensorFlow, input nudged 1e-6 | actorflow |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    bad = 0
    for seed, (name, build, tolerance) in enumerate(models):
        started = time.time()
        try:
            frozen, feeds, fetches, want, moved = freeze(
                build, seed + 1, args.gradients, args.learning_phase)
        except Exception as e:  # a model this TensorFlow cannot freeze
            print("| %s | | | | | TensorFlow: %s |" % (
                name, str(e).splitlines()[0][:120]))
            continue
        pb = os.path.join(work, name + ".pb")
        with open(pb, "wb") as f:
            f.write(frozen.SerializeToString())
        got, message = run_here(cli, pb, feeds, fetches, work)
        nodes = len(frozen.node)
        diffs = None if got is None else compare(got, want)
        if diffs is None:
            bad += 1
            print("| %s | %d | | | | %s |" % (name, nodes,
                                             message or "shapes differ"))
            continue
        diff, relative = diffs
        ok = relative <= tolerance
        # Where TensorFlow's own output moves past the tolerance under the
        # nudge, rounding decides the output: no verdict either way.
        chaotic = not ok and moved > tolerance
        bad += not ok and not chaotic
        verdict = "ok" if ok else "chaotic" if chaotic else "DIFFERS"
        print("| %s | %d | %.3g | %.3g | %.3g | %s (%.0f s) |" % (
            name, nodes, diff, relative, moved, verdict,
            time.time() - started))
        sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
