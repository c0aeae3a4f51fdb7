#!/ usr / bin / env python3
"""GraphDef files written by TensorFlow, and TensorFlow's results for them.

Builds graphs in tf.compat.v1 graph mode with v1 control flow and
reference variables, writes each as a binary GraphDef
(tests/golden/graphdef/<case>.pb; the nested conds also as .pbtxt) and
what TensorFlow computes with it to tests/golden/graphdef.txt (the format
of golden.hpp): the feeds, the fetched outputs, and for graphs with a
train op the variables after three steps. tests/actors/graph_def_test.cpp
imports each file with interop::tensorflow::load_graph_def, runs it and
compares; it never needs TensorFlow.

- mlp_train: a float64 MLP (3-5-2, ReLU), mean squared error, gradient
  descent (`minimize`): the weights after three steps.
- cnn: Conv2D (SAME) + BiasAdd + ReLU + MaxPool + a dense layer, float32.
- rnn: a tanh RNN over a fed sequence by tf.while_loop (TensorFlow's
  dynamic_rnn writes TensorArray ops, which actorflow lacks; the loop
  gathers step i itself): the final state.
- nested_cond: tf.cond inside tf.cond on fed predicates, all four ways.
- frozen_mlp: the MLP's inference graph with its variables frozen into
  constants (convert_variables_to_constants).
- moe_dispatch: a top-2 mixture of experts dispatched in tensor2tensor's
  style and by dynamic_partition / dynamic_stitch, with erf, cumsum,
  gather_nd, scatter_nd, broadcast_to and its gradient graph.
- keras_cnn, keras_lstm, keras_attention: tf_keras models frozen as users
  freeze them (a MobileNet-style block with BatchNormalization and
  DepthwiseConv2D; an LSTM; a Transformer encoder block), with dyadic
  weights.
- keras_grouped: Keras' grouped Conv2Ds (ConvNeXt's and RegNet's), each
  a jit-compiled function called by PartitionedCall.

Inputs are small dyadic rationals. The CNN, the conds and the frozen
MLP's forward pass compute in exactly representable values, so TensorFlow
gets them whatever order it sums in, and they are written as they are.
The trained MLP's weights (float64, three steps) and the RNN's state
(float32 tanh) are not exact: they are written rounded to 12 and 6
significant digits, so that another CPU's last bits do not change the
file, and the C++ test compares them with relative tolerances of 1e-10
and 1e-5.

  gen_graphdef_golden.py           regenerate the files
  gen_graphdef_golden.py --check   exit 1 unless they are reproduced

Runs where pip reaches TensorFlow (`pip install tensorflow-cpu` into a
virtual environment; a checking tool, not a dependency). Written with
TensorFlow 2.21.
"""
import os
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf_keras's v1 RNN cells

import numpy as np
import tensorflow as tf

from case_writer import rounded_lines
from golden_io import write_or_check

tf1 = tf.compat.v1
#Graph mode, v1 control flow and reference variables--and TensorArrays
#as tf_keras' v1 RNNs need them.
tf1.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "graphdef")


def dyadic(shape, seed, scale=4):
    """Small multiples of 1/scale in [-5/scale, 5/scale], from a fixed
    pattern (period 11, so that batch items differ)."""
    n = int(np.prod(shape))
    v = ((np.arange(n) * 7 + seed * 3) % 11 - 5) / scale
    return v.reshape(shape)


def graph_bytes(g):
    return g.as_graph_def().SerializeToString(deterministic=True)


def mlp(g, dtype, frozen_values=None):
    """The MLP's graph in g: returns (x, y, loss, out, variables)."""
    x = tf1.placeholder(dtype, [4, 3], name="x")
    y = tf1.placeholder(dtype, [4, 2], name="y")
    init = {"w1": dyadic([3, 5], 1), "b1": dyadic([5], 2),
            "w2": dyadic([5, 2], 3)}
    if frozen_values is None:
        v = {k: tf1.Variable(val.astype(dtype.as_numpy_dtype), name=k)
             for k, val in init.items()}
    else:
        v = {k: tf.constant(frozen_values[k], name=k) for k in init}
    h = tf.nn.relu(tf.matmul(x, v["w1"]) + v["b1"], name="hidden")
    out = tf.matmul(h, v["w2"], name="out")
    loss = tf.reduce_mean(tf.square(out - y), name="loss")
    return x, y, loss, out, v


def mlp_train(put, files):
    g = tf1.Graph()
    with g.as_default():
        x, y, loss, out, v = mlp(g, tf.float64)
        train = tf1.train.GradientDescentOptimizer(0.0625).minimize(
            loss, name="train")
        init = tf1.global_variables_initializer()
        feeds = {x: dyadic([4, 3], 4, 2), y: dyadic([4, 2], 5, 2)}
        with tf1.Session(graph=g) as sess:
            sess.run(init)
            for _ in range(3):
                sess.run(train, feeds)
            values = sess.run([v["w1"], v["b1"], v["w2"], loss], feeds)
    files["mlp_train.pb"] = graph_bytes(g)
    put("mlp_train_x", feeds[x])
    put("mlp_train_y", feeds[y])
    for name, value in zip(("w1", "b1", "w2", "loss"), values):
        put("mlp_train_" + name, value, 12)
    return init.name, train.name


def frozen_mlp(put, files):
    g = tf1.Graph()
    with g.as_default():
        x, y, loss, out, v = mlp(g, tf.float64)
        init = tf1.global_variables_initializer()
        with tf1.Session(graph=g) as sess:
            sess.run(init)
            frozen = tf1.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), ["out"])
            xv = dyadic([4, 3], 6, 2)
            want = sess.run(out, {x: xv})
    files["frozen_mlp.pb"] = frozen.SerializeToString(deterministic=True)
    put("frozen_mlp_x", xv)
    put("frozen_mlp_out", want)


def cnn(put, files):
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [2, 6, 6, 2], name="images")
        k = tf.constant(dyadic([3, 3, 2, 4], 7).astype(np.float32), name="k")
        b = tf.constant(dyadic([4], 8).astype(np.float32), name="b")
        conv = tf.nn.conv2d(x, k, strides=[1, 1, 1, 1], padding="SAME")
        act = tf.nn.relu(tf.nn.bias_add(conv, b))
        pool = tf.nn.max_pool2d(act, ksize=2, strides=2, padding="VALID")
        flat = tf.reshape(pool, [2, 3 * 3 * 4])
        w = tf.constant(dyadic([36, 3], 9).astype(np.float32), name="w")
        logits = tf.matmul(flat, w, name="logits")
        xv = dyadic([2, 6, 6, 2], 10, 2).astype(np.float32)
        with tf1.Session(graph=g) as sess:
            want = sess.run(logits, {x: xv})
    files["cnn.pb"] = graph_bytes(g)
    put("cnn_images", xv)
    put("cnn_logits", want)


def rnn(put, files):
    g = tf1.Graph()
    with g.as_default():
        seq = tf1.placeholder(tf.float32, [5, 2, 3], name="seq")
        w = tf.constant(dyadic([3, 4], 11).astype(np.float32), name="w")
        u = tf.constant(dyadic([4, 4], 12, 8).astype(np.float32), name="u")
        steps = tf.shape(seq)[0]
        h0 = tf.zeros([2, 4], tf.float32)

        def body(i, h):
            x = tf.gather(seq, i)
            return i + 1, tf.tanh(tf.matmul(x, w) + tf.matmul(h, u))

        _, h = tf1.while_loop(lambda i, h: i < steps, body,
                              (tf.constant(0), h0), name="rnn")
        tf.identity(h, name="state")
        sv = dyadic([5, 2, 3], 13, 2).astype(np.float32)
        with tf1.Session(graph=g) as sess:
            want = sess.run("state:0", {seq: sv})
    files["rnn.pb"] = graph_bytes(g)
    put("rnn_seq", sv)
    put("rnn_state", want, 6)


def nested_cond(put, files):
    g = tf1.Graph()
    with g.as_default():
        p = tf1.placeholder(tf.bool, [], name="p")
        q = tf1.placeholder(tf.bool, [], name="q")
        x = tf1.placeholder(tf.float32, [3], name="x")
        inner = lambda: tf1.cond(q, lambda: x * 2.0, lambda: x - 1.0)
        out = tf1.cond(p, inner, lambda: x + 10.0)
        tf.identity(out, name="out")
        xv = np.array([0.5, -1.5, 2.25], np.float32)
        with tf1.Session(graph=g) as sess:
            for pv in (False, True):
                for qv in (False, True):
                    put("nested_cond_%d%d" % (pv, qv),
                        sess.run("out:0", {p: pv, q: qv, x: xv}))
    files["nested_cond.pb"] = graph_bytes(g)
    files["nested_cond.pbtxt"] = str(g.as_graph_def()).encode()
    put("nested_cond_x", xv)


def tensor_arrays(put, files):
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        n = tf.shape(x)[0]
        rows = tf.TensorArray(tf.float32, size=n).unstack(x)
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

        def body(i, ta):
            row = rows.read(i) * tf.cast(i + 1, tf.float32)
            return i + 1, ta.write(i, row)

        _, ta = tf1.while_loop(lambda i, ta: i < n, body, (0, ta),
                               name="fill")
        filled = tf.identity(ta.stack(), name="filled")
        mapped = tf.identity(tf.map_fn(lambda r: r * r + 1.0, x),
                             name="mapped")
        scanned = tf.identity(
            tf.scan(lambda a, r: a * 0.5 + r, x, initializer=tf.zeros([3])),
            name="scanned")
        loss = (tf.reduce_sum(filled * filled) + tf.reduce_sum(mapped)
                + tf.reduce_sum(scanned * scanned))
        tf.identity(tf1.gradients(loss, x)[0], name="dx")
        xv = dyadic([5, 3], 14).astype(np.float32)
        with tf1.Session(graph=g) as sess:
            want = sess.run(["filled:0", "mapped:0", "scanned:0", "dx:0"],
                            {
x:
  xv})
    files["tensor_arrays.pb"] = graph_bytes(g)
    put("tensor_arrays_x", xv)
    for name, value in zip(("filled", "mapped", "scanned", "dx"), want):
        put("tensor_arrays_" + name, value)


def dynamic_rnns(put, files):
    """tf.nn.dynamic_rnn over an LSTMCell (batch-major) and a GRUCell
    (time-major), float64, with sequence_length; the outputs, the final
    states and d loss / d(inputs, weights)."""
    batch, steps, depth, units = 3, 5, 3, 4
    lengths = np.array([5, 2, 3], np.int32)
    xv = dyadic([batch, steps, depth], 17, 2)
    weights = {
        "lstm_kernel": dyadic([depth + units, 4 * units], 18, 8),
        "lstm_bias": dyadic([4 * units], 19, 8),
        "gru_gates_kernel": dyadic([depth + units, 2 * units], 20, 8),
        "gru_gates_bias": dyadic([2 * units], 21, 8),
        "gru_candidate_kernel": dyadic([depth + units, units], 22, 8),
        "gru_candidate_bias": dyadic([units], 23, 8),
    }
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float64, [batch, steps, depth], name="x")
        n = tf1.placeholder(tf.int32, [batch], name="lengths")
#Zeros first(the engine has no random initializers of
#TensorFlow's), then the weights by assign.
        zero = tf1.zeros_initializer()
        lstm = tf1.nn.rnn_cell.LSTMCell(units, initializer=zero, name="lstm")
        lstm_out, lstm_state = tf1.nn.dynamic_rnn(
            lstm, x, sequence_length=n, dtype=tf.float64, scope="lstm_rnn")
        gru = tf1.nn.rnn_cell.GRUCell(units, kernel_initializer=zero,
                                      bias_initializer=zero, name="gru")
        gru_out, gru_state = tf1.nn.dynamic_rnn(
            gru, tf.transpose(x, [1, 0, 2]), sequence_length=n,
            dtype=tf.float64, time_major=True, scope="gru_rnn")
        outs = {"lstm_out": lstm_out, "lstm_c": lstm_state.c,
                "lstm_h": lstm_state.h, "gru_out": gru_out,
                "gru_h": gru_state}
        for k, v in outs.items():
            tf.identity(v, name=k)
        loss = (tf.reduce_sum(lstm_out * lstm_out)
                + tf.reduce_sum(lstm_state.c) + tf.reduce_sum(gru_out)
                + tf.reduce_sum(gru_state * gru_state))
        tf.identity(loss, name="loss")
        params = tf1.trainable_variables()
        grads = tf1.gradients(loss, [x] + params)
        names = ["x"] + [p.op.name.split("/", 1)[1].replace("/", "_")
                         for p in params]
        for name, gr in zip(names, grads):
            tf.identity(gr, name="d_" + name)
        tf1.variables_initializer(tf1.global_variables(), name="init")
        tf.group(*[tf1.assign(p, weights[nm]) for p, nm in
                   zip(params, names[1:])], name="set_weights")
        with tf1.Session(graph=g) as sess:
            sess.run(["init"])
            sess.run(["set_weights"])
            want = sess.run({k: k + ":0" for k in outs}, {x: xv, n: lengths})
            dwant = sess.run({nm: "d_" + nm + ":0" for nm in names},
                             {x: xv, n: lengths})
    files["dynamic_rnn.pb"] = graph_bytes(g)
    put("dynamic_rnn_x", xv)
    put("dynamic_rnn_lengths", lengths)
    for k, v in weights.items():
        put("dynamic_rnn_" + k, v)
    for k, v in sorted(want.items()):
        put("dynamic_rnn_" + k, v, 12)
    for k, v in sorted(dwant.items()):
        put("dynamic_rnn_d_" + k, v, 12)


def default_attrs(put, files):
    g = tf1.Graph()
    with g.as_default():
        a = tf1.placeholder(tf.float32, [2, 3, 4], name="a")
        b = tf1.placeholder(tf.float32, [2, 4, 2], name="b")
        tf.identity(tf.matmul(a, b), name="bmm")
        tf.identity(tf.cast(tf.equal(a, 0.25), tf.float32)
                    - tf.cast(tf.not_equal(a, -0.5), tf.float32), name="eq")
        values, indices = tf.nn.top_k(tf.reshape(a, [6, 4]), k=2)
        tf.identity(values, name="top_values")
        tf.identity(indices, name="top_indices")
        av = dyadic([2, 3, 4], 15).astype(np.float32)
        bv = dyadic([2, 4, 2], 16).astype(np.float32)
        with tf1.Session(graph=g) as sess:
            want = sess.run(["bmm:0", "eq:0", "top_values:0",
                             "top_indices:0"], {a: av, b: bv})
    files["default_attrs.pb"] = graph_bytes(g)
    put("default_attrs_a", av)
    put("default_attrs_b", bv)
    for name, value in zip(("bmm", "eq", "top_values", "top_indices"), want):
        put("default_attrs_" + name, value)


def moe_dispatch(put, files):
    """A top-2 mixture of three tanh experts written with TensorFlow's own
    ops in the two ways TensorFlow code dispatches rows: tensor2tensor's
    (coordinates of the non-zero gates by where, rows gathered, split by
    expert, combined by unsorted_segment_sum), and dynamic_partition /
    dynamic_stitch on each row's first expert. Around them: the normal
    CDF through erf (the load loss), exclusive cumsum positions,
    gather_nd / scatter_nd, broadcast_to. Float64; the outputs and
    d loss / d(x, expert weights) rounded to 12 digits."""
    batch, depth, experts = 6, 3, 3
    xv = dyadic([batch, depth], 24, 2)
    wg = dyadic([depth, experts], 25, 4)
    wv = dyadic([experts, depth, depth], 26, 4)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float64, [batch, depth], name="x")
        w = tf1.placeholder(tf.float64, [experts, depth, depth], name="w")
        logits = tf.matmul(x, tf.constant(wg))
        top, _ = tf.nn.top_k(logits, k=2)
        keep = logits >= tf.stop_gradient(top[:, 1:])
        masked = tf.where(keep, logits, tf.fill(tf.shape(logits),
                                                 tf.constant(-1e9, tf.float64)))
        gates = tf.nn.softmax(masked)
#Coordinates(expert, example) of the non - zero gates, by expert.
        where = tf.cast(tf.where(tf.transpose(gates) > 0), tf.int32)
        expert_index, batch_index = tf.unstack(where, num=2, axis=1)
        sizes = tf.reduce_sum(tf.cast(gates > 0, tf.int32), [0])
        nonzero = tf.gather(tf.reshape(gates, [-1]),
                            batch_index * experts + expert_index)
        parts = tf.split(tf.gather(x, batch_index), sizes, 0, num=experts)
        outs = [tf.tanh(tf.matmul(p, w[k])) for k, p in enumerate(parts)]
        rows = tf.concat(outs, 0) * tf.expand_dims(nonzero, 1)
        combined = tf.math.unsorted_segment_sum(rows, batch_index, batch)
#Each row to its first expert and back.
        first = tf.cast(tf.argmax(logits, 1), tf.int32)
        pieces = tf.dynamic_partition(x, first, experts)
        places = tf.dynamic_partition(tf.range(batch), first, experts)
        firsts = tf.dynamic_stitch(
            places, [tf.tanh(tf.matmul(p, w[k])) for k, p in
                     enumerate(pieces)])
#The load loss's normal CDF, positions within each expert.
        cdf = 0.5 * (1.0 + tf.math.erf(logits / np.sqrt(2.0)))
        load = tf.reduce_sum(cdf, 0)
        position = tf.math.cumsum(tf.cast(keep, tf.int32), axis=0,
                                  exclusive=True)
        picked = tf.gather_nd(combined, tf.stack([batch_index, tf.zeros_like(
            batch_index)], 1))
        spread = tf.scatter_nd(tf.expand_dims(expert_index, 1), picked,
                               [experts])
        wide = tf.broadcast_to(tf.reshape(load, [1, experts]),
                               [batch, experts])
        results = {"combined": combined, "firsts": firsts, "load": load,
                   "position": position, "spread": spread}
        for k, v in results.items():
            tf.identity(v, name=k)
        loss = (tf.reduce_sum(combined * combined) + tf.reduce_sum(firsts)
                + tf.reduce_sum(spread) + tf.reduce_sum(wide * wide))
        dx, dw = tf1.gradients(loss, [x, w])
        tf.identity(dx, name="d_x")
        tf.identity(dw, name="d_w")
        names = sorted(results) + ["d_w", "d_x"]
        with tf1.Session(graph=g) as sess:
            want = sess.run([n + ":0" for n in names], {x: xv, w: wv})
    files["moe_dispatch.pb"] = graph_bytes(g)
    put("moe_dispatch_x", xv)
    put("moe_dispatch_w", wv)
    for name, value in zip(names, want):
        put("moe_dispatch_" + name, value,
            None if value.dtype == np.int32 else 12)


def keras_frozen(build, inputs, weights_of, floatx="float32"):
    """Builds the Keras model `build()` in a v1 graph (learning phase left
    to Keras: a PlaceholderWithDefault), gives its weights the values
    `weights_of(model)`, freezes it with convert_variables_to_constants and
    runs it on `inputs` (model input index -> value). Returns the frozen
    GraphDef, TensorFlow's outputs and the names of the graph's input and
    output tensors."""
    keras = tf1.keras
    g = tf1.Graph()
    with g.as_default():
        keras.backend.set_floatx(floatx)
        sess = tf1.Session(graph=g)
        keras.backend.set_session(sess)
        model = build(keras)
        sess.run(tf1.global_variables_initializer())
        model.set_weights(weights_of(model))
        names = [t.op.name for t in model.outputs]
        frozen = tf1.graph_util.convert_variables_to_constants(
            sess, g.as_graph_def(), names)
        feeds = {model.inputs[i]: v for i, v in inputs.items()}
        want = sess.run(model.outputs, feeds)
    keras.backend.set_floatx("float32")
    return (frozen.SerializeToString(deterministic=True), want,
            [t.name for t in model.inputs], [t.name for t in model.outputs])


def dyadic_weights(seed, scale=8):
    """Each weight of a model a multiple of 1/scale, by dyadic()."""
    return lambda model: [dyadic(w.shape, seed + i, scale)
                          for i, w in enumerate(model.get_weights())]


def keras_cnn(put, files):
    """A MobileNet-style block as Keras writes it: Conv2D, BatchNormalization
    (FusedBatchNormV3 under Keras' learning-phase cond), ReLU6,
    DepthwiseConv2D, BatchNormalization, global average pooling, Dense;
    float32. BatchNormalization's epsilon and moving variances make
    var + epsilon 4 (variance 3.75, epsilon 0.25), so every value is a
    short dyadic sum, exact whatever the order: TensorFlow's result is
    written as it is."""
    def build(keras):
        L = keras.layers
        return keras.Sequential([
            L.Conv2D(4, 3, padding="same", input_shape=(6, 6, 3)),
            L.BatchNormalization(epsilon=0.25), L.ReLU(6.0),
            L.DepthwiseConv2D(3, depth_multiplier=2),
            L.BatchNormalization(epsilon=0.25), L.ReLU(6.0),
            L.GlobalAveragePooling2D(), L.Dense(3)])

    def weights_of(model):
        out = []
        for i, layer in enumerate(model.layers):
            ws = layer.get_weights()
            if isinstance(layer, tf1.keras.layers.BatchNormalization):
                n = ws[0].shape
                ws = [dyadic(n, 30 + i, 4), dyadic(n, 40 + i, 4),
                      dyadic(n, 50 + i, 2), np.full(n, 3.75)]
            else:
                ws = [dyadic(w.shape, 60 + i + j, 8)
                      for j, w in enumerate(ws)]
            out += [w.astype(np.float32) for w in ws]
        return out

    xv = dyadic([2, 6, 6, 3], 70, 2).astype(np.float32)
    data, want, ins, outs = keras_frozen(build, {0: xv}, weights_of)
    files["keras_cnn.pb"] = data
    put("keras_cnn_x", xv)
    put("keras_cnn_y", want[0])
    return ins, outs


def keras_lstm(put, files):
    """A Keras LSTM over a sequence (tf_keras' v1 while loop with
    TensorArrays), float64: its weights, frozen into the loop as constants,
    are read by Identity nodes with no other input (the loop rule). The
    output rounded to 12 digits."""
    def build(keras):
        L = keras.layers
        return keras.Sequential([L.LSTM(4, input_shape=(5, 3)), L.Dense(2)])

    xv = dyadic([2, 5, 3], 80, 4)
    data, want, ins, outs = keras_frozen(build, {0: xv}, dyadic_weights(81, 16),
                                         "float64")
    files["keras_lstm.pb"] = data
    put("keras_lstm_x", xv)
    put("keras_lstm_y", want[0], 12)
    return ins, outs


def keras_attention(put, files):
    """A Transformer encoder block as Keras writes it: MultiHeadAttention
    (Einsum), a residual Add, LayerNormalization, a Dense with gelu and a
    second residual and LayerNormalization; float64, the output rounded to
    12 digits."""
    def build(keras):
        L = keras.layers
        x = L.Input((5, 8), name="tokens")
        a = L.MultiHeadAttention(num_heads=2, key_dim=4)(x, x)
        h = L.LayerNormalization()(L.Add()([x, a]))
        f = L.Dense(8, activation="gelu")(h)
        out = L.LayerNormalization(name="out")(L.Add()([h, f]))
        return keras.Model(x, out)

    xv = dyadic([2, 5, 8], 90, 4)
    data, want, ins, outs = keras_frozen(build, {0: xv}, dyadic_weights(91, 16),
                                         "float64")
    files["keras_attention.pb"] = data
    put("keras_attention_x", xv)
    put("keras_attention_y", want[0], 12)
    return ins, outs


def keras_grouped(put, files):
    """Grouped convolutions as Keras writes them (ConvNeXt's 7x7 with a
    group per channel, RegNet's and ResNeXt's groups of several): each
    Conv2D(groups > 1) a jit-compiled tf.function, so a PartitionedCall
    the importer inlines. float32 with dyadic values: every sum exact
    whatever the order, TensorFlow's result written as it is."""
    def build(keras):
        L = keras.layers
        return keras.Sequential([
            L.Conv2D(8, 3, padding="same", groups=2, input_shape=(6, 6, 4)),
            L.ReLU(),
            L.Conv2D(8, 7, padding="same", groups=8),
            L.Conv2D(4, 2, strides=2, groups=4, use_bias=False),
            L.GlobalAveragePooling2D()])

    xv = dyadic([2, 6, 6, 4], 100, 2).astype(np.float32)
    data, want, ins, outs = keras_frozen(build, {0: xv},
                                         dyadic_weights(101, 8))
    files["keras_grouped.pb"] = data
    put("keras_grouped_x", xv)
    put("keras_grouped_y", want[0])
    return ins, outs


def render():
    lines = []
    files = {}

    def put(name, value, digits=None):
        lines.extend(rounded_lines(name, value, digits))

    mlp_train(put, files)
    frozen_mlp(put, files)
    cnn(put, files)
    rnn(put, files)
    nested_cond(put, files)
    tensor_arrays(put, files)
    default_attrs(put, files)
    dynamic_rnns(put, files)
    moe_dispatch(put, files)
    keras_cnn(put, files)
    keras_lstm(put, files)
    keras_attention(put, files)
    keras_grouped(put, files)
    outputs = {os.path.join(HERE, "graphdef.txt"): "\n".join(lines) + "\n"}
    for name, data in files.items():
        outputs[os.path.join(OUT, name)] = data
    return outputs


def main():
    os.makedirs(OUT, exist_ok=True)
    return write_or_check(__doc__, render())


if __name__ == "__main__":
    sys.exit(main())
