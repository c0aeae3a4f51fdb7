#!/usr/bin/env python3
"""Peer baseline for `bench_mlp --model cnn` (P3b): one SGD training step of the
Fashion-MNIST CNN of `actorflow train --model cnn` in TensorFlow's own v1 graph
mode (tf.compat.v1 Session.run).

conv 5x5 1->32 SAME + bias + ReLU, max pool 2x2/2, conv 5x5 32->64 + bias + ReLU,
max pool 2x2/2, dense 3136->1024 ReLU, dense 1024->10, sparse softmax cross
entropy, NHWC, batch 128, SGD lr 0.1, data in memory (non-trainable variables, so
no feed cost), one Session.run of the train op per step. Needs `pip install
tensorflow-cpu` (which runs convolutions through oneDNN).

  cnn_step_tf1.py [--batch 128] [--steps 30] [--threads 2]

Prints one JSON line: milliseconds per step (best of 3 rounds).
"""
import argparse, json, os, time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    v1 = tf.compat.v1
    v1.disable_v2_behavior()
    g = v1.Graph()
    with g.as_default():
        x = v1.get_variable("x", [a.batch, 784], trainable=False,
                            initializer=v1.random_normal_initializer(seed=1))
        y = v1.get_variable("y", [a.batch], dtype=tf.int32, trainable=False,
                            initializer=v1.random_uniform_initializer(0, 10, dtype=tf.int32, seed=2))
        h = tf.reshape(x, [-1, 28, 28, 1])
        for i, (cin, cout) in enumerate([(1, 32), (32, 64)]):
            w = v1.get_variable("conv%d" % i, [5, 5, cin, cout],
                                initializer=v1.glorot_uniform_initializer())
            b = v1.get_variable("cb%d" % i, [cout], initializer=v1.zeros_initializer())
            h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w, [1, 1, 1, 1], "SAME"), b))
            h = tf.nn.max_pool2d(h, 2, 2, "SAME")
        h = tf.reshape(h, [-1, 7 * 7 * 64])
        for i, (m, n) in enumerate([(7 * 7 * 64, 1024), (1024, 10)]):
            w = v1.get_variable("w%d" % i, [m, n], initializer=v1.glorot_uniform_initializer())
            b = v1.get_variable("b%d" % i, [n], initializer=v1.zeros_initializer())
            h = tf.matmul(h, w) + b
            if i == 0:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        cfg = v1.ConfigProto(intra_op_parallelism_threads=a.threads,
                             inter_op_parallelism_threads=a.threads)
        with v1.Session(config=cfg) as s:
            s.run(v1.global_variables_initializer())
            for _ in range(5):
                s.run(train)
            best = float("inf")
            for _ in range(3):
                t = time.perf_counter()
                for _ in range(a.steps):
                    s.run(train)
                best = min(best, (time.perf_counter() - t) / a.steps)
    print(json.dumps({"peer": "tensorflow-" + tf.__version__ + "-v1-graph", "model": "cnn",
                      "batch": a.batch, "ms_per_step": round(best * 1e3, 3),
                      "samples_per_s": round(a.batch / best, 1)}))


if __name__ == "__main__":
    main()
