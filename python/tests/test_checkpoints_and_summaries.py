"""Checkpoints (train.Saver) and TensorBoard summaries (summary ops and a
FileWriter) from Python."""

import struct

import numpy as np
import pytest

import actorflow as af


def test_a_saver_restores_what_it_saved(graph, sess, tmp_path):
    v = af.Variable(np.arange(3, dtype=np.float32), name="v")
    w = af.Variable(np.int64(7), name="w")
    bump = af.ops.assign_add(v, np.ones(3, np.float32))
    saver = af.train.Saver()
    sess.run(af.global_variables_initializer())
    path = saver.save(sess, tmp_path / "model", global_step=3)
    assert path.endswith("model-3")
    sess.run(bump)
    np.testing.assert_array_equal(sess.run(v), [1, 2, 3])
    saver.restore(sess, path)
    np.testing.assert_array_equal(sess.run(v), [0, 1, 2])
    assert sess.run(w) == 7
    with pytest.raises(af.errors.OpError):
        saver.restore(sess, tmp_path / "missing")
    assert sess.run(w) == 7


def _records(path):
    """The records of a TFRecord file (length, its CRC, data, its CRC)."""
    out = []
    with open(path, "rb") as f:
        while header := f.read(12):
            (n,) = struct.unpack("<Q", header[:8])
            out.append(f.read(n))
            f.read(4)
    return out


def test_summaries_reach_an_event_file(graph, sess, tmp_path):
    x = af.placeholder(af.float32, [None], name="x")
    af.summary.scalar("mean", af.reduce_mean(x))
    af.summary.histogram("values", x)
    merged = af.summary.merge_all()
    with af.summary.FileWriter(tmp_path, graph) as writer:
        for step in range(3):
            summary = sess.run(merged, {x: np.arange(4, dtype=np.float32)})
            writer.add_summary(summary, step)
        writer.add_scalar("accuracy", 0.9, 3)
    records = _records(writer.path)
    # The version record, the graph, three summaries, one scalar.
    assert len(records) == 6
    assert b"brain.Event:2" in records[0]
    assert b"mean" in records[2] and b"values" in records[2]
    assert b"accuracy" in records[5]
