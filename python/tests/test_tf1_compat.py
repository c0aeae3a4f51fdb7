"""actorflow.compat.v1 as a TensorFlow 1 program uses it: variables in
collections (cells' and optimizers' too), variable scopes, Tensor idioms,
layers, losses, sessions, and errors that name what is missing. Values are
checked against numpy. (conftest.py's graph and sess fixtures:
actorflow's Graph and Session are tf.Graph and tf.Session here.)"""

import numpy as np
import pytest

import actorflow.compat.v1 as tf


# -- the silent bug: a cell's weights in no collection -----------------------
def test_dynamic_rnn_weights_join_the_collections_and_train(graph, sess):
    x = np.linspace(-1, 1, 4 * 3 * 2).reshape(4, 3, 2).astype(np.float32)
    cell = tf.nn.rnn_cell.LSTMCell(5)
    out, state = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float32)
    names = [v.op.name for v in tf.trainable_variables()]
    assert names == ["rnn/lstm_cell/kernel", "rnn/lstm_cell/bias"]
    assert [v.op.name for v in tf.global_variables()] == names
    assert isinstance(state, tf.nn.rnn_cell.LSTMStateTuple)
    loss = tf.reduce_mean(tf.square(state.h - 1.0))
    step = tf.train.RMSPropOptimizer(0.01).minimize(loss)
    # The optimizer's slots are global, not trainable.
    assert sorted(v.op.name for v in tf.global_variables()) == sorted(
        names + ["rnn/lstm_cell/kernel/RMSProp",
                 "rnn/lstm_cell/kernel/RMSProp_1",
                 "rnn/lstm_cell/bias/RMSProp", "rnn/lstm_cell/bias/RMSProp_1"])
    sess.run(tf.global_variables_initializer())
    kernel = tf.trainable_variables()[0]
    before = sess.run(kernel)
    first = sess.run(loss)
    for _ in range(5):
        sess.run(step)
    assert np.abs(sess.run(kernel) - before).max() > 1e-3
    assert sess.run(loss) < first


def test_stacked_cells_are_named_as_tensorflow_names_them(graph):
    cells = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(3),
                                         tf.nn.rnn_cell.GRUCell(2)])
    _, state = tf.nn.dynamic_rnn(cells, tf.zeros([2, 4, 3]),
                                 dtype=tf.float32)
    assert [v.op.name for v in tf.trainable_variables()] == [
        "rnn/multi_rnn_cell/cell_0/lstm_cell/kernel",
        "rnn/multi_rnn_cell/cell_0/lstm_cell/bias",
        "rnn/multi_rnn_cell/cell_1/gru_cell/gates/kernel",
        "rnn/multi_rnn_cell/cell_1/gru_cell/gates/bias",
        "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/kernel",
        "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/bias"]
    assert len(state) == 2 and len(state[0]) == 2  # (LSTMStateTuple, h)


# -- variable scopes ------------------------------------------------------------
def test_get_variable_shares_by_scope(graph, sess):
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [2, 3],
                            initializer=tf.constant_initializer(0.5))
    with tf.variable_scope("layer", reuse=True):
        assert tf.get_variable("w") is w
    with tf.variable_scope("layer", reuse=tf.AUTO_REUSE):
        assert tf.get_variable("w", [2, 3]) is w
        b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    with pytest.raises(ValueError, match="already exists"):
        with tf.variable_scope("layer"):
            tf.get_variable("w", [2, 3])
    with pytest.raises(ValueError, match="does not exist"):
        with tf.variable_scope("other", reuse=True):
            tf.get_variable("w", [2, 3])
    assert w.op.name == "layer/w" and b.op.name == "layer/b"
    sess.run(tf.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(w), np.full((2, 3), 0.5))


def test_default_initializer_is_glorot_uniform(graph, sess):
    w = tf.get_variable("w", [20, 30])
    sess.run(tf.global_variables_initializer())
    values = sess.run(w)
    limit = np.sqrt(6.0 / 50)
    assert np.abs(values).max() <= limit and values.std() > limit / 3


def test_layer_names_are_unique_like_tensorflows(graph):
    x = tf.placeholder(tf.float32, [None, 4])
    tf.layers.dense(x, 3)
    tf.layers.dense(x, 2, name="logits")
    tf.layers.dense(x, 5)
    assert [v.op.name for v in tf.trainable_variables()] == [
        "dense/kernel", "dense/bias", "logits/kernel", "logits/bias",
        "dense_1/kernel", "dense_1/bias"]


# -- Tensor idioms --------------------------------------------------------------
def test_tensor_indexing_and_operators(graph, sess):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = tf.constant(a)
    cases = {
        "x[:, 0]": (x[:, 0], a[:, 0]),
        "x[1]": (x[1], a[1]),
        "x[-1, ::2, 1:3]": (x[-1, ::2, 1:3], a[-1, ::2, 1:3]),
        "x[..., 1]": (x[..., 1], a[..., 1]),
        "x[:, None, 0]": (x[:, None, 0], a[:, None, 0]),
        "x % 5": (x % 5, a % 5),
        "x // 5": (x // 5, a // 5),
        "7 - x": (7 - x, 7 - a),
        "2 ** x[0, 0]": (2 ** x[0, 0], 2 ** a[0, 0]),
        "abs(-x)": (abs(-x), a),
    }
    for name, (t, want) in cases.items():
        np.testing.assert_array_equal(sess.run(t), want, err_msg=name)
    i = tf.constant(2)
    np.testing.assert_array_equal(sess.run(x[0, i]), a[0, 2])


def test_static_shapes_are_tensor_shapes(graph):
    x = tf.placeholder(tf.float32, [None, 5])
    assert x.shape.as_list() == [None, 5]
    assert x.get_shape()[1].value == 5 and x.shape[0].value is None
    assert x.shape == (None, 5) and x.shape.ndims == 2
    assert tf.placeholder(tf.float32).shape.ndims is None


def test_eval_and_default_sessions(graph):
    v = tf.Variable(3.0, name="v")
    with tf.Session() as sess:
        v.initializer.run()
        assert (v * 2).eval() == 6.0
        assert tf.get_default_session() is sess
        v.load(5.0)
        assert sess.run(v.assign_add(1.0)) == 6.0
    assert tf.get_default_session() is None
    interactive = tf.InteractiveSession()
    try:
        tf.global_variables_initializer().run()
        assert v.eval() == 3.0
    finally:
        interactive.close()


def test_while_loop_returns_tensorflows_structures(graph, sess):
    i = tf.while_loop(lambda i: i < 5, lambda i: i + 1, [tf.constant(0)])
    assert isinstance(i, tf.Tensor)  # one loop variable: the Tensor
    n = tf.placeholder(tf.int32, [])
    pair = tf.while_loop(lambda i, s: True,
                         lambda i, s: (i + 1, tf.nn.rnn_cell.LSTMStateTuple(
                             s.c + 1.0, s.h * 2.0)),
                         (tf.constant(0), tf.nn.rnn_cell.LSTMStateTuple(
                             tf.constant(0.0), tf.constant(1.0))),
                         maximum_iterations=n)
    assert isinstance(pair[1], tf.nn.rnn_cell.LSTMStateTuple)
    assert sess.run(i) == 5
    assert sess.run(pair, {n: 3}) == (3, (3.0, 8.0))


# -- functions against numpy ---------------------------------------------------
def test_array_and_math_functions(graph, sess):
    a = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], np.float32)
    x = tf.constant(a)
    cases = {
        "argmax": (tf.argmax(x, 1), a.argmax(1)),
        "one_hot": (tf.one_hot([0, 2], 3), np.eye(3)[[0, 2]]),
        "transpose": (tf.transpose(x), a.T),
        "maximum": (tf.maximum(x, 0.0), np.maximum(a, 0)),
        "reduce_max keepdims": (tf.reduce_max(x, axis=1, keepdims=True),
                                a.max(1, keepdims=True)),
        "reduce_sum reduction_indices": (
            tf.reduce_sum(x, reduction_indices=[0]), a.sum(0)),
        "clip_by_value": (tf.clip_by_value(x, -1.0, 1.0), a.clip(-1, 1)),
        "where": (tf.where(x > 0, x, -x), np.abs(a)),
        "squeeze": (tf.squeeze(tf.expand_dims(x, 0)), a),
        "tile": (tf.tile(x, [1, 2]), np.tile(a, [1, 2])),
        "stack/unstack": (tf.stack(tf.unstack(x), axis=1), a.T),
        "split": (tf.split(x, 3, axis=1)[2], a[:, 2:]),
        "gather": (tf.gather(x, [1, 0]), a[[1, 0]]),
        "range": (tf.range(1, 7, 2), np.arange(1, 7, 2)),
        "cumsum": (tf.cumsum(x, axis=1), a.cumsum(1)),
        "pad": (tf.pad(x, [[1, 0], [0, 1]]), np.pad(a, [[1, 0], [0, 1]])),
        "boolean_mask": (tf.boolean_mask(x, x > 0), a[a > 0]),
        "reverse": (tf.reverse(x, [1]), a[:, ::-1]),
        "einsum": (tf.einsum("ij,kj->ik", x, x), a @ a.T),
        "reduce_logsumexp": (tf.reduce_logsumexp(x, axis=1),
                             np.log(np.exp(a).sum(1))),
    }
    for name, (t, want) in cases.items():
        np.testing.assert_allclose(sess.run(t), want, rtol=1e-6,
                                   err_msg=name)


def test_clip_by_global_norm_matches_its_definition(graph, sess):
    a, b = np.array([3.0, 4.0], np.float32), np.array([[12.0]], np.float32)
    clipped, norm = tf.clip_by_global_norm([tf.constant(a), None,
                                            tf.constant(b)], 6.5)
    assert clipped[1] is None
    got = sess.run([clipped[0], clipped[2], norm])
    np.testing.assert_allclose(got[2], 13.0)
    np.testing.assert_allclose(got[0], a * 0.5)
    np.testing.assert_allclose(got[1], b * 0.5)


def test_losses_and_their_reductions(graph, sess):
    labels = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]], np.float32)
    logits = np.array([[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]], np.float32)
    weights = np.array([[1.0], [0.0], [2.0]], np.float32)
    log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    xent = -(labels * log_p).sum(1)
    sq = (logits - labels) ** 2
    cases = {
        "softmax_cross_entropy": (
            tf.losses.softmax_cross_entropy(labels, logits), xent.mean()),
        "weighted by nonzero": (
            tf.losses.mean_squared_error(labels, logits, weights),
            (sq * weights).sum() / 4),
        "SUM": (tf.losses.mean_squared_error(
            labels, logits, reduction=tf.losses.Reduction.SUM), sq.sum()),
        "v2 cross entropy": (tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=labels, logits=logits), xent),
        "sparse": (tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=[1, 0, 1], logits=logits), -log_p[[0, 1, 2], [1, 0, 1]]),
        "sigmoid": (tf.nn.sigmoid_cross_entropy_with_logits(
            labels=labels, logits=logits),
            np.maximum(logits, 0) - logits * labels
            + np.log1p(np.exp(-np.abs(logits)))),
        "huber": (tf.losses.huber_loss(labels, logits),
                  np.where(np.abs(logits - labels) <= 1,
                           0.5 * sq, np.abs(logits - labels) - 0.5).mean()),
    }
    for name, (t, want) in cases.items():
        np.testing.assert_allclose(sess.run(t), want, rtol=1e-5,
                                   err_msg=name)
    assert len(tf.losses.get_losses()) == 4
    np.testing.assert_allclose(sess.run(tf.losses.get_total_loss()),
                               xent.mean() + (sq * weights).sum() / 4
                               + sq.sum() + sess.run(cases["huber"][0]),
                               rtol=1e-5)


def test_batch_normalization_updates_moving_averages(graph, sess):
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    x = tf.placeholder(tf.float32, [None, 3])
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, momentum=0.5, training=training)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(updates) == 2
    assert sorted(v.op.name for v in tf.global_variables()) == [
        "batch_normalization/beta", "batch_normalization/gamma",
        "batch_normalization/moving_mean",
        "batch_normalization/moving_variance"]
    sess.run(tf.global_variables_initializer())
    got = sess.run([y] + updates, {x: a, training: True})[0]
    np.testing.assert_allclose(
        got, (a - a.mean(0)) / np.sqrt(a.var(0) + 1e-3), rtol=1e-5)
    mean, var = sess.run(["batch_normalization/moving_mean:0",
                          "batch_normalization/moving_variance:0"])
    np.testing.assert_allclose(mean, a.mean(0) / 2, rtol=1e-6)
    np.testing.assert_allclose(var, (1 + a.var(0)) / 2, rtol=1e-6)
    inference = sess.run(y, {x: a, training: False})
    np.testing.assert_allclose(inference, (a - mean) / np.sqrt(var + 1e-3),
                               rtol=1e-5)


def test_exponential_decay_feeds_the_optimizer(graph, sess):
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.5, step, 1, 0.5, staircase=True)
    v = tf.Variable(0.0, name="v")
    train = tf.train.GradientDescentOptimizer(lr).minimize(
        -v, global_step=step)
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train)
    assert sess.run(step) == 3
    assert sess.run(v) == 0.5 + 0.25 + 0.125


# -- what is missing says so ----------------------------------------------------
def test_a_missing_name_is_an_attribute_error_that_names_it():
    with pytest.raises(AttributeError, match=r"tf\.estimator is not in "
                       "actorflow.compat.v1"):
        tf.estimator
    with pytest.raises(AttributeError, match="nearest names it has: "
                       "reduce_mean"):
        tf.reduce_meen
    with pytest.raises(AttributeError, match=r"tf\.nn\.ctc_loss"):
        tf.nn.ctc_loss
    with pytest.raises(ValueError, match="partitioner"):
        tf.get_variable("p", [2], partitioner=lambda *a: 1)


def test_a_tensor_array_through_a_loop_and_its_gradient(graph, sess):
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    x = tf.constant(a)
    rows = tf.TensorArray(tf.float32, size=4).unstack(x)

    def body(i, acc, out):
        v = rows.read(i) * 2.0 + acc
        return i + 1, v, out.write(i, v)

    _, _, out = tf.while_loop(lambda i, acc, out: i < 4, body,
                              (tf.constant(0), tf.zeros([3]),
                               tf.TensorArray(tf.float32, size=4)))
    y = out.stack()
    assert y.shape.as_list() == [None, 3]  # learned from the writes
    (g,) = tf.gradients(tf.reduce_sum(y), [x])
    got, grad = sess.run([y, g])
    np.testing.assert_array_equal(got, np.cumsum(2 * a, axis=0))
    np.testing.assert_array_equal(grad, np.repeat([[8], [6], [4], [2]], 3, 1))


def test_rnn_results_have_tensorflows_static_shapes(graph):
    x = tf.placeholder(tf.float32, [None, 7, 3])
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(5), x,
                                   dtype=tf.float32)
    assert out.shape.as_list() == [None, 7, 5]
    assert state.c.shape.as_list() == [None, 5]
    # What the shape says, the layers built on it see.
    assert tf.layers.dense(state.h, 2).shape.as_list() == [None, 2]


def test_variables_made_inside_a_loop_initialize_outside_it(graph, sess):
    cell = tf.nn.rnn_cell.GRUCell(2)

    def body(i, h):
        out, h = cell(tf.ones([1, 3]), h)
        return i + 1, h

    _, h = tf.while_loop(lambda i, h: i < 3, body,
                         (tf.constant(0), tf.zeros([1, 2])))
    sess.run(tf.global_variables_initializer())  # needs no loop
    assert sess.run(h).shape == (1, 2)


def test_lists_holding_tensors_are_packed(graph, sess):
    x = tf.placeholder(tf.float32, [None, 6])
    batch = tf.shape(x)[0]
    shapes = sess.run([tf.shape(tf.reshape(x, [batch, 2, 3])),
                       tf.shape(tf.ops.tile(x, [batch, 1])),
                       tf.shape(tf.ops.fill([batch, 2], 1.0))],
                      {x: np.ones((2, 6))})
    assert [list(s) for s in shapes] == [[2, 2, 3], [4, 6], [2, 2]]


def test_conv2d_transpose_is_conv2ds_gradient(graph, sess):
    rng = np.random.RandomState(0)
    x = tf.constant(rng.normal(size=(2, 5, 5, 3)).astype(np.float32))
    w = tf.constant(rng.normal(size=(3, 3, 3, 4)).astype(np.float32))
    y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
    dy = tf.constant(rng.normal(size=(2, 3, 3, 4)).astype(np.float32))
    (want,) = tf.gradients(y, [x], grad_ys=[dy])
    got = tf.nn.conv2d_transpose(dy, w, [2, 5, 5, 3], [1, 2, 2, 1], "SAME")
    assert got.shape.as_list() == [2, 5, 5, 3]
    np.testing.assert_allclose(*sess.run([got, want]), rtol=1e-5)


def test_a_transposed_conv2d_layer_upsamples(graph, sess):
    x = tf.placeholder(tf.float32, [None, 4, 4, 2])
    same = tf.layers.conv2d_transpose(x, 3, 3, strides=2, padding="same")
    valid = tf.layers.conv2d_transpose(x, 5, 3, strides=2)
    assert [v.op.name for v in tf.trainable_variables()][:2] == [
        "conv2d_transpose/kernel", "conv2d_transpose/bias"]
    sess.run(tf.global_variables_initializer())
    a, b = sess.run([same, valid], {x: np.ones((2, 4, 4, 2), np.float32)})
    assert a.shape == (2, 8, 8, 3) and b.shape == (2, 9, 9, 5)
