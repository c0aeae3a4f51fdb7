"""Training that stops and resumes: a global step, a Saver keeping the
two newest checkpoints, latest_checkpoint, and a second session that
restores and trains on, with exponential learning-rate decay and Adam (its
slots saved and restored), as TensorFlow 1 programs write it."""
import os
import tempfile

import actorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()


def build(rng):
    x = tf.placeholder(tf.float32, [None, 5])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.get_variable("w", initializer=rng.normal(0, 1, (5, 1)).astype(
        np.float32))
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.losses.mean_squared_error(y, tf.matmul(x, w) + b)
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.1, step, 5, 0.5, staircase=True)
    train = tf.train.AdamOptimizer(lr).minimize(loss, global_step=step)
    return x, y, loss, train, step


def main():
    rng = np.random.RandomState(6)
    data = rng.normal(size=(32, 5)).astype(np.float32)
    labels = (data @ np.arange(1, 6, dtype=np.float32)[:, None]) * 0.1
    losses = []
    with tempfile.TemporaryDirectory() as work:
        with tf.Graph().as_default():
            x, y, loss, train, step = build(np.random.RandomState(7))
            saver = tf.train.Saver(max_to_keep=2)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    for _ in range(4):
                        losses.append(sess.run([loss, train],
                                               {x: data, y: labels})[0])
                    saver.save(sess, os.path.join(work, "ckpt", "model"),
                               global_step=step)
        kept = sorted(f for f in os.listdir(os.path.join(work, "ckpt"))
                      if f.endswith(".index"))
        with tf.Graph().as_default():
            x, y, loss, train, step = build(np.random.RandomState(8))
            saver = tf.train.Saver()
            with tf.Session() as sess:
                latest = tf.train.latest_checkpoint(os.path.join(work,
                                                                 "ckpt"))
                saver.restore(sess, latest)
                resumed_at = sess.run(step)
                for _ in range(4):
                    losses.append(sess.run([loss, train],
                                           {x: data, y: labels})[0])
                w = sess.run(tf.global_variables()[0])
                names = sorted(v.op.name for v in tf.global_variables())
    return {"loss": losses, "kept": kept, "latest": os.path.basename(latest),
            "resumed_at": resumed_at, "w": w, "variables": names}
