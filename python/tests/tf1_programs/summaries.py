"""Summaries for TensorBoard, as TensorFlow 1 programs write them: a
scalar and a histogram summary, merge_all, a FileWriter given the
session's graph, one summary a step; then the event file read back with
tf.train.summary_iterator."""
import glob
import os
import tempfile

import actorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()


def main():
    rng = np.random.RandomState(11)
    xs = rng.normal(size=(32, 4)).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(np.zeros((4, 1), np.float32), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("weights", w)
    merged = tf.summary.merge_all()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    scalars, histograms = [], []
    with tempfile.TemporaryDirectory() as logdir:
        with tf.Session() as sess:
            writer = tf.summary.FileWriter(logdir, sess.graph)
            sess.run(tf.global_variables_initializer())
            for step in range(6):
                # Apart: in one run, whether the histogram reads w before
                # or after the update is not defined.
                summary = sess.run(merged, {x: xs, y: ys})
                writer.add_summary(summary, step)
                sess.run(train, {x: xs, y: ys})
            writer.close()
        (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
        graphs = 0
        for event in tf.train.summary_iterator(path):
            graphs += bool(event.graph_def)
            for value in event.summary.value:
                if value.tag == "loss":
                    scalars.append((event.step, value.simple_value))
                elif value.tag == "weights":
                    h = value.histo
                    histograms.append((event.step, h.num, h.min, h.max,
                                       h.sum))
    return {"loss": [v for _, v in scalars], "steps": [s for s, _ in scalars],
            "histograms": histograms, "graphs": graphs}
