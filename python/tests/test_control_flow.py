"""while_loop, cond, gradients and optimizers from Python, against numpy
and central differences."""

import numpy as np
import pytest

import actorflow as af


def test_while_loop_runs_in_the_graph(graph, sess):
    i, acc = af.while_loop(lambda i, acc: i < 10,
                           lambda i, acc: [i + 1, acc + af.cast(i, af.float32)],
                           [af.constant(0), af.constant(0.0)])
    assert sess.run([i, acc]) == [10, 45.0]
    assert i.op.name.startswith("while/")


def test_while_loop_with_a_growing_shape(graph, sess):
    def body(i, rows):
        return [i + 1, af.concat([rows, af.fill([1, 2], af.cast(i, af.float32))
                                  ], 0)]
    _, rows = af.while_loop(lambda i, r: i < 3, body,
                            [af.constant(0), af.zeros([0, 2])],
                            shape_invariants=[[], [None, 2]])
    np.testing.assert_array_equal(sess.run(rows), [[0, 0], [1, 1], [2, 2]])


def test_cond_runs_one_branch(graph, sess):
    p = af.placeholder(af.bool, [], name="p")
    v = af.Variable(0.0, name="v")
    out = af.cond(p, lambda: af.ops.assign_add(v, 1.0),
                  lambda: af.identity(v) * 10)
    sess.run(af.global_variables_initializer())
    assert sess.run(out, {p: True}) == 1.0
    assert sess.run(out, {p: False}) == 10.0
    assert sess.run(v) == 1.0


def test_a_python_error_in_a_body_is_raised_and_the_graph_goes_on(graph,
                                                                   sess):
    def body(i):
        raise RuntimeError("body says no")
    with pytest.raises(RuntimeError, match="body says no"):
        af.while_loop(lambda i: i < 3, body, af.constant(0))
    with pytest.raises(ValueError, match="2 values for 1"):
        af.while_loop(lambda i: i < 3, lambda i: [i, i], af.constant(0))
    assert sess.run(af.constant(3) * 2) == 6


def test_gradients_match_central_differences(graph, sess):
    x = af.placeholder(af.float64, [3], name="x")
    y = af.reduce_sum(af.tanh(x) * x)
    gx, none = af.gradients(y, [x, af.constant(1.0, af.float64)])
    assert none is None
    x0 = np.array([0.3, -1.2, 2.0])
    got = sess.run(gx, {x: x0})
    eps = 1e-6
    for k in range(3):
        d = np.zeros(3)
        d[k] = eps
        fd = (sess.run(y, {x: x0 + d}) - sess.run(y, {x: x0 - d})) / (2 * eps)
        assert abs(got[k] - fd) < 1e-6


def test_gradients_through_a_loop(graph, sess):
    x = af.placeholder(af.float64, [], name="x")
    _, p = af.while_loop(lambda i, p: i < 3, lambda i, p: [i + 1, p * x],
                         [af.constant(0), af.constant(1.0, af.float64)])
    (g,) = af.gradients(p, [x])
    assert sess.run([p, g], {x: 2.0}) == [8.0, 12.0]  # x^3, 3x^2


@pytest.mark.parametrize("opt", [
    af.train.GradientDescentOptimizer(0.1),
    af.train.MomentumOptimizer(0.05, 0.9),
    af.train.AdamOptimizer(0.1),
    af.train.AdagradOptimizer(0.5),
    af.train.RMSPropOptimizer(0.05),
], ids=lambda o: o._kind)
def test_optimizers_fit_a_line(graph, sess, opt):
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 1)).astype(np.float32)
    ys = 3 * xs + 1
    x = af.placeholder(af.float32, [None, 1], name="x")
    y = af.placeholder(af.float32, [None, 1], name="y")
    w = af.Variable(np.zeros((1, 1), np.float32), name="w")
    b = af.Variable(np.zeros((1,), np.float32), name="b")
    loss = af.reduce_mean(af.square(af.matmul(x, w) + b - y))
    step = opt.minimize(loss)
    sess.run(af.global_variables_initializer())
    first = sess.run(loss, {x: xs, y: ys})
    for _ in range(200):
        sess.run(step, {x: xs, y: ys})
    assert sess.run(loss, {x: xs, y: ys}) < first / 100
