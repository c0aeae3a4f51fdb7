"""map_fn, scan, foldl, foldr and nn.dynamic_rnn from Python, against
numpy."""

import numpy as np
import pytest

import actorflow as af


def test_map_fn_scan_and_folds(graph, sess):
    x = np.arange(12, dtype=np.float64).reshape(4, 3)
    t = af.constant(x)
    rows = af.map_fn(lambda r: af.reduce_sum(r * r), t)
    pairs = af.map_fn(lambda rs: rs[0] * rs[1], [t, t + 1.0],
                      dtype=af.float64)
    cast = af.map_fn(lambda r: af.cast(r, af.int32), t, dtype=af.int32)
    running = af.scan(lambda acc, r: acc + r, t)
    back = af.scan(lambda acc, r: acc * 0.5 + r, t, initializer=af.zeros(
        [3], af.float64), reverse=True)
    left = af.foldl(lambda acc, r: acc - r, t, initializer=af.constant(
        np.zeros(3)))
    right = af.foldr(lambda acc, r: acc * 2.0 + r, t)
    got = sess.run([rows, pairs, cast, running, back, left, right])
    np.testing.assert_allclose(got[0], (x * x).sum(1))
    np.testing.assert_allclose(got[1], x * (x + 1))
    assert got[2].dtype == np.int32
    np.testing.assert_allclose(got[3], np.cumsum(x, 0))
    want, acc = np.zeros_like(x), np.zeros(3)
    for i in reversed(range(4)):
        acc = acc * 0.5 + x[i]
        want[i] = acc
    np.testing.assert_allclose(got[4], want)
    np.testing.assert_allclose(got[5], -x.sum(0))
    acc = x[3]
    for i in reversed(range(3)):
        acc = acc * 2 + x[i]
    np.testing.assert_allclose(got[6], acc)


def test_a_python_error_in_map_fn_is_raised(graph, sess):
    with pytest.raises(ZeroDivisionError):
        af.map_fn(lambda r: 1 / 0, af.constant([1.0, 2.0]))
    assert sess.run(af.constant(2) + 2) == 4


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def test_dynamic_rnn_lstm_matches_numpy(graph, sess):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, 3))
    lengths = np.array([5, 3], np.int32)
    cell = af.nn.rnn_cell.LSTMCell(4, seed=11)
    out, (c, h) = af.nn.dynamic_rnn(cell, af.constant(x), lengths)
    sess.run(af.global_variables_initializer())
    kernel, bias = sess.run(cell.weights)
    got_out, got_c, got_h = sess.run([out, c, h])
    want_out = np.zeros((2, 5, 4))
    cs, hs = np.zeros((2, 4)), np.zeros((2, 4))
    for t in range(5):
        z = np.concatenate([x[:, t], hs], 1) @ kernel + bias
        i, j, f, o = np.split(z, 4, axis=1)
        nc = _sigmoid(f + 1.0) * cs + _sigmoid(i) * np.tanh(j)
        nh = _sigmoid(o) * np.tanh(nc)
        live = (t < lengths)[:, None]
        cs, hs = np.where(live, nc, cs), np.where(live, nh, hs)
        want_out[:, t] = np.where(live, nh, 0)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_c, cs, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_h, hs, rtol=1e-10, atol=1e-12)


def test_stacked_cells_train(graph, sess):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(8, 6, 2)).astype(np.float32)
    y = x.sum(axis=(1, 2))[:, None].astype(np.float32)
    cell = af.nn.rnn_cell.MultiRNNCell([af.nn.rnn_cell.GRUCell(8, seed=1),
                                        af.nn.rnn_cell.BasicRNNCell(4,
                                                                    seed=2)])
    out, state = af.nn.dynamic_rnn(cell, af.constant(x), time_major=False)
    assert len(state) == 2 and out.shape[0] == 8 and out.shape[2] == 4
    w = af.Variable(np.zeros((4, 1), np.float32), name="w")
    loss = af.reduce_mean(af.square(af.matmul(state[1], w) - y))
    step = af.train.AdamOptimizer(0.05).minimize(loss, var_list=cell.weights + [w])
    sess.run(af.global_variables_initializer())
    first = sess.run(loss)
    for _ in range(60):
        sess.run(step)
    assert sess.run(loss) < first / 2


def test_a_mixture_of_experts_routes_rows_and_trains(graph, sess):
    rng = np.random.default_rng(5)
    xs = rng.normal(size=(16, 4)).astype(np.float32)
    ys = np.where(xs[:, :1] > 0, 2.0, -1.0).astype(np.float32) * xs[:, 1:2]
    x = af.placeholder(af.float32, [None, 4], name="x")
    experts = [af.Variable(rng.normal(0, 0.1, (4, 1)).astype(np.float32),
                           name=f"expert_{i}") for i in range(4)]
    built = []

    def expert(rows, i):
        built.append(i)
        return af.matmul(rows, experts[i])

    moe = af.nn.moe_layer(x, 4, 1, expert, k=2, seed=3)
    assert sorted(built) == [0, 1, 2, 3]
    loss = af.reduce_mean(af.square(moe["y"] - ys)) + moe["loss"]
    step = af.train.AdamOptimizer(0.05).minimize(
        loss, var_list=experts + moe["weights"])
    sess.run(af.global_variables_initializer())
    gates, rows = sess.run([moe["gates"], moe["rows"]], {x: xs})
    assert ((gates > 0).sum(1) == 2).all()  # each example: its top 2
    np.testing.assert_allclose(gates.sum(1), 1, rtol=1e-6)
    assert rows.sum() == 32
    first = sess.run(loss, {x: xs})
    for _ in range(100):
        sess.run(step, {x: xs})
    assert sess.run(loss, {x: xs}) < first / 2
