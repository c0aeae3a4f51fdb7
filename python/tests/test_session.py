"""Session.run as tf.compat.v1.Session.run: nested fetches, feeds by
tensor or name, targets, options and metadata, and bad input that raises
a clear exception and leaves the session working."""

import collections
import json

import numpy as np
import pytest

import actorflow as af


def test_fetches_come_back_in_their_structure(graph, sess):
    x = af.placeholder(af.float32, [None, 2], name="x")
    y = af.reduce_sum(x, axis=[1], name="y")
    Pair = collections.namedtuple("Pair", "a b")
    feed = {x: np.array([[1, 2], [3, 4]], np.float32)}
    out = sess.run({"sum": y, "both": Pair(y, [x, (y,)])}, feed)
    np.testing.assert_array_equal(out["sum"], [3, 7])
    assert isinstance(out["both"], Pair)
    np.testing.assert_array_equal(out["both"].b[0], feed[x])
    np.testing.assert_array_equal(out["both"].b[1][0], [3, 7])
    # Scalars come back as numpy scalars, as TensorFlow gives them.
    total = sess.run(af.reduce_sum(x), feed)
    assert isinstance(total, np.float32) and total == 10


def test_feeds_by_name_and_targets_by_operation_or_name(graph, sess):
    x = af.placeholder(af.float32, [], name="x")
    v = af.Variable(0.0, name="v")
    add = af.ops.assign_add(v, x, name="add")
    init = af.global_variables_initializer()
    assert sess.run(init) is None
    assert sess.run([add.op], {"x:0": 2.0}) == [None]
    assert sess.run("v:0") == 2.0
    sess.run("add", {"x": 3.0})  # a name without a port is an operation
    assert sess.run(v) == 5.0


def test_feed_values_follow_the_placeholders_dtype(graph, sess):
    x = af.placeholder(af.int64, [3], name="x")
    out = sess.run(x * 2, {x: [1, 2, 3]})  # a list of Python ints
    assert out.dtype == np.int64 and out.tolist() == [2, 4, 6]


def test_bad_feeds_and_fetches_raise_and_the_session_goes_on(graph, sess):
    x = af.placeholder(af.float32, [None, 3], name="x")
    y = af.ops.relu(x, name="y")
    with pytest.raises(af.errors.InvalidArgumentError, match=r"\[2,4\]"):
        sess.run(y, {x: np.ones((2, 4), np.float32)})
    with pytest.raises(af.errors.NotFoundError, match="nope"):
        sess.run("nope:0")
    with pytest.raises(TypeError, match="cannot feed"):
        sess.run(y, {x: "text"})
    with pytest.raises(af.errors.InvalidArgumentError, match="x"):
        sess.run(y)  # the placeholder is not fed
    with pytest.raises(TypeError, match="graph element"):
        sess.run(y, {x: y})
    other = af.Graph()
    with other.as_default():
        z = af.constant(1.0)
    with pytest.raises(ValueError, match="not an element"):
        sess.run(z)
    # Non-contiguous and big-endian arrays are copied, not refused.
    base = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.testing.assert_array_equal(
        sess.run(y, {x: base[:, ::2]}), base[:, ::2])
    big = np.arange(6, dtype=">f4").reshape(2, 3)
    np.testing.assert_array_equal(sess.run(y, {x: big}),
                                  big.astype(np.float32))


def test_a_timeout_stops_an_endless_loop(graph, sess):
    i = af.while_loop(lambda i: i >= 0, lambda i: i + 1, af.constant(0))
    with pytest.raises(af.errors.DeadlineExceededError):
        sess.run(i, options=af.RunOptions(timeout_in_ms=100))
    assert sess.run(af.constant(7)) == 7


def test_run_metadata_has_placement_trace_and_partitions(graph):
    with af.Session(graph=graph, config={"num_cpu_devices": 2}) as sess:
        with af.device("cpu:1"):
            a = af.constant(1.0, name="a")
        b = af.identity(a, name="b")
        md = af.RunMetadata()
        opts = af.RunOptions(trace_level=af.RunOptions.FULL_TRACE,
                             output_partition_graphs=True)
        assert sess.run(b, options=opts, run_metadata=md) == 1.0
        assert md.placement["a"].endswith("cpu:1")
        assert md.placement["b"].endswith("cpu:0")
        events = json.loads(md.trace_json)["traceEvents"]
        assert any("b" in e.get("name", "") for e in events)
        assert len(md.partition_graphs) == 2


def test_unknown_config_keys_are_refused(graph):
    with pytest.raises(af.errors.InvalidArgumentError, match="config key"):
        af.Session(graph=graph, config={"no_such": 1})


def test_a_closed_session_refuses_runs(graph):
    s = af.Session(graph=graph)
    s.close()
    with pytest.raises(RuntimeError, match="closed"):
        s.run(af.constant(1.0))
