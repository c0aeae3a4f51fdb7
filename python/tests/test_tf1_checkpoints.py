"""Checkpoints as TensorFlow 1 writes them: actorflow.compat.v1's Saver
restores a bundle TensorFlow's Saver wrote (tests/golden/checkpoint/,
gen_checkpoint_golden.py), writes the same bytes TensorFlow writes, saves
the optimizer's slots, and keeps the state file and max_to_keep."""

import os

import numpy as np
import pytest

import actorflow.compat.v1 as tf
from goldens import GOLDEN, read_values

VALUES = read_values("checkpoint.txt")
TF_PREFIX = os.path.join(GOLDEN, "checkpoint", "momentum", "model-2")


def build():
    """gen_checkpoint_golden.py's model, line for line."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    w = tf.get_variable("W", initializer=_dyadic([3, 2], 1))
    b = tf.get_variable("b", initializer=_dyadic([2], 2))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    step = tf.train.get_or_create_global_step()
    train = tf.train.MomentumOptimizer(0.125, 0.5).minimize(
        loss, global_step=step)
    return x, y, loss, train


def _dyadic(shape, seed, scale=4):
    n = int(np.prod(shape))
    v = ((np.arange(n) * 7 + seed * 3) % 11 - 5) / scale
    return v.reshape(shape).astype(np.float32)


def feeds(x, y):
    return {x: VALUES["x"], y: VALUES["y"]}


def test_the_variables_include_the_optimizers_slots(graph):
    build()
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["W", "W/Momentum", "b", "b/Momentum", "global_step"]
    assert sorted(v.op.name for v in tf.trainable_variables()) == ["W", "b"]


def test_a_checkpoint_tensorflow_wrote_restores_and_training_resumes(graph):
    x, y, loss, train = build()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, TF_PREFIX)
        for v in tf.global_variables():
            np.testing.assert_array_equal(sess.run(v), VALUES[v.op.name],
                                          err_msg=v.op.name)
        resumed, _ = sess.run([loss, train], feeds(x, y))
    np.testing.assert_allclose(resumed, VALUES["resumed_loss"], rtol=1e-5)


def test_a_checkpoint_written_here_is_tensorflows_bytes(graph, tmp_path):
    x, y, loss, train = build()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            sess.run(train, feeds(x, y))
        prefix = saver.save(sess, str(tmp_path / "deep" / "dir" / "model"),
                            global_step=tf.train.get_global_step())
    assert prefix.endswith("model-2")
    for suffix in (".index", ".data-00000-of-00001"):
        with open(prefix + suffix, "rb") as ours, \
                open(TF_PREFIX + suffix, "rb") as theirs:
            assert ours.read() == theirs.read(), suffix


def test_momentum_resumes_where_it_stopped(tmp_path):
    """Save after 3 steps, restore into a new graph and session, run 3 more:
    the same loss as 6 uninterrupted steps (momentum saved and restored,
    not restarted at zero)."""
    def run(steps, restore=None, save=None):
        with tf.Graph().as_default():
            x, y, loss, train = build()
            saver = tf.train.Saver()
            with tf.Session() as sess:
                if restore:
                    saver.restore(sess, restore)
                else:
                    sess.run(tf.global_variables_initializer())
                for _ in range(steps):
                    sess.run(train, feeds(x, y))
                path = save and saver.save(sess, save)
                return sess.run(loss, feeds(x, y)), path

    straight, _ = run(6)
    _, path = run(3, save=str(tmp_path / "half"))
    resumed, _ = run(3, restore=path)
    assert resumed == straight


def test_the_state_file_and_max_to_keep(graph, tmp_path):
    v = tf.Variable(1.0, name="v")
    saver = tf.train.Saver(max_to_keep=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(4):
            sess.run(v.assign_add(1.0))
            saver.save(sess, str(tmp_path / "m"), global_step=step)
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-3")
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.all_model_checkpoint_paths == [str(tmp_path / "m-2"),
                                                str(tmp_path / "m-3")]
    kept = sorted(f for f in os.listdir(tmp_path) if f.endswith(".index"))
    assert kept == ["m-2.index", "m-3.index"]
    assert saver.last_checkpoints == [str(tmp_path / "m-2"),
                                      str(tmp_path / "m-3")]
    with open(tmp_path / "checkpoint") as f:
        assert f.readline() == f'model_checkpoint_path: "{tmp_path}/m-3"\n'
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
        assert sess.run(v) == 5.0


def test_var_list_as_a_dict_renames_and_a_missing_file_is_named(graph,
                                                                 tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    saver = tf.train.Saver({"renamed": v})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"))
        with pytest.raises(tf.errors.NotFoundError, match="missing"):
            saver.restore(sess, str(tmp_path / "missing"))
    assert os.path.exists(path + ".index")
    other = tf.Graph()
    with other.as_default():
        w = tf.Variable([0.0, 0.0], name="w")
        with tf.Session() as sess:
            tf.train.Saver({"renamed": w}).restore(sess, path)
            np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])


def test_unsupported_saver_arguments_are_named(graph):
    tf.Variable(1.0, name="v")
    with pytest.raises(ValueError, match="sharded"):
        tf.train.Saver(sharded=True)


def test_a_file_of_the_old_format_still_restores(graph, tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    path = str(tmp_path / "old")
    # What Saver wrote before: the Save op's one AFCKPT2 file.
    old_save = tf.ops.save(path, ["v"], [v])
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(old_save)
        sess.run(v.assign([0.0, 0.0]))
        with pytest.warns(DeprecationWarning, match="AFCKPT2"):
            saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
