#!/usr/bin/env python3
"""Peer of `actorflow train moe --cluster` (docs/conditional-computation.md,
"Over a cluster"): milliseconds per SGD step of the same Fashion-MNIST-shaped
mixture-of-experts classifier in TensorFlow's v1 graph mode over gRPC, with
the gating and output layer on /job:ps/task:0, expert i's weights and
compute on /job:expert/task:(i % 2), the rest on /job:worker/task:0.

The model, as apps/models/fashion/fashion_model.cpp builds it: 784 -> noisy top-k gating
over E experts (each 784 -> H1 -> ReLU -> H2) -> ReLU -> 10, sparse
softmax cross entropy plus the importance and load losses (0.1 / 0.1),
plain SGD. Dispatch in tensor2tensor's style (the coordinates of the
non-zero gates, a gather, a split by expert sizes, unsorted_segment_sum to
combine); gradients colocated with their ops, so an expert's gradients
stay on its task. One random batch in a non-trainable variable on the
worker (no feed). Each server has --server-threads inter- and intra-op
threads. The client is this process (no server); the session's master is
the worker. Timing: --warmup steps, then 3 rounds of --steps, the best.

  tf_moe_cluster.py [--experts 8] [--k 2] [--hidden 256,256] [--batch 128]
                    [--steps 50] [--warmup 10] [--server-threads 1]

Needs TensorFlow (`python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip
install tensorflow-cpu`); a measuring tool, not a dependency. Last line:
JSON.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def free_ports(n):
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def serve(cluster, job, task, threads):
    """A child process: one tf.distribute.Server until killed."""
    import tensorflow as tf
    v1 = tf.compat.v1
    cfg = v1.ConfigProto(intra_op_parallelism_threads=threads,
                         inter_op_parallelism_threads=threads)
    server = tf.distribute.Server(tf.train.ClusterSpec(cluster), job_name=job,
                                  task_index=task, config=cfg, start=True)
    print("READY", flush=True)
    server.join()


def build(tf, v1, a):
    h1, h2 = a.hidden
    n, k, b = a.experts, a.k, a.batch
    ps, worker = "/job:ps/task:0", "/job:worker/task:0"

    def dense(name, x, rows, cols, relu):
        w = v1.get_variable(name + "/w", [rows, cols],
                            initializer=v1.glorot_uniform_initializer())
        bias = v1.get_variable(name + "/b", [cols],
                               initializer=v1.zeros_initializer())
        y = tf.matmul(x, w) + bias
        return tf.nn.relu(y) if relu else y

    with tf.device(worker):
        x = v1.get_variable("x", [b, 784], trainable=False,
                            initializer=v1.random_normal_initializer())
        labels = v1.get_variable("labels", [b], dtype=tf.int32, trainable=False,
                                 initializer=v1.zeros_initializer())
    with tf.device(ps):
        w_gate = v1.get_variable("w_gate", [784, n],
                                 initializer=v1.zeros_initializer())
        w_noise = v1.get_variable("w_noise", [784, n],
                                  initializer=v1.zeros_initializer())
    with tf.device(worker):
        clean = tf.matmul(x, w_gate)
        stddev = tf.nn.softplus(tf.matmul(x, w_noise)) + 1e-2
        noisy = clean + tf.random.normal(tf.shape(clean)) * stddev
        top, index = tf.nn.top_k(noisy, k=min(k + 1, n))
        top_gates = tf.nn.softmax(top[:, :k])
        rows = tf.tile(tf.range(b)[:, None], [1, k])
        gates = tf.scatter_nd(tf.stack([rows, index[:, :k]], 2), top_gates,
                              [b, n])

        def cdf(z):
            return 0.5 * tf.math.erfc(-z / 2 ** 0.5)

        if_in, if_out = top[:, k:k + 1], top[:, k - 1:k]
        load = tf.reduce_sum(tf.where(noisy > if_in,
                                      cdf((clean - if_in) / stddev),
                                      cdf((clean - if_out) / stddev)), 0)
        importance = tf.reduce_sum(gates, 0)

        def cv2(v):
            m = tf.reduce_mean(v)
            return tf.reduce_mean(tf.square(v - m)) / (tf.square(m) + 1e-10)

        balance = 0.1 * cv2(importance) + 0.1 * cv2(load)
        pairs = tf.cast(tf.where(tf.transpose(gates) > 0), tf.int32)
        expert_index, example = tf.unstack(pairs, num=2, axis=1)
        sizes = tf.reduce_sum(tf.cast(gates > 0, tf.int32), 0)
        pair_gates = tf.gather(tf.reshape(gates, [-1]),
                               example * n + expert_index)
        parts = tf.split(tf.gather(x, example), sizes, 0, num=n)
    outs = []
    for i, p in enumerate(parts):
        with tf.device("/job:expert/task:%d" % (i % 2)):
            h = dense("expert_%d/fc1" % i, p, 784, h1, True)
            outs.append(dense("expert_%d/fc2" % i, h, h1, h2, False))
    with tf.device(worker):
        y = tf.math.unsorted_segment_sum(
            tf.concat(outs, 0) * pair_gates[:, None], example, b)
    with tf.device(ps):
        w_out = v1.get_variable("out/w", [h2, 10],
                                initializer=v1.glorot_uniform_initializer())
        b_out = v1.get_variable("out/b", [10],
                                initializer=v1.zeros_initializer())
    with tf.device(worker):
        logits = tf.matmul(tf.nn.relu(y), w_out) + b_out
        xent = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                           logits=logits))
        loss = xent + balance
        train = v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, colocate_gradients_with_ops=True)
    return loss, train


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--experts", type=int, default=8)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--hidden", default="256,256")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--server-threads", type=int, default=1)
    ap.add_argument("--serve", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.serve:
        serve(json.loads(a.serve[0]), a.serve[1], int(a.serve[2]),
              int(a.serve[3]))
        return
    a.hidden = [int(v) for v in a.hidden.split(",")]
    ports = free_ports(4)
    cluster = {"ps": ["127.0.0.1:%d" % ports[0]],
               "expert": ["127.0.0.1:%d" % p for p in ports[1:3]],
               "worker": ["127.0.0.1:%d" % ports[3]]}
    children = []
    try:
        for job, task in (("ps", 0), ("expert", 0), ("expert", 1),
                          ("worker", 0)):
            p = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--serve",
                 json.dumps(cluster), job, str(task), str(a.server_threads)],
                stdout=subprocess.PIPE, text=True)
            children.append(p)
        for p in children:
            if p.stdout.readline().strip() != "READY":
                raise SystemExit("a server did not start")
        import tensorflow as tf
        v1 = tf.compat.v1
        v1.disable_eager_execution()
        g = v1.Graph()
        with g.as_default():
            loss, train = build(tf, v1, a)
            init = v1.global_variables_initializer()
        with v1.Session("grpc://" + cluster["worker"][0], graph=g) as sess:
            sess.run(init)
            for _ in range(a.warmup):
                sess.run(train)
            best = 1e30
            for r in range(3):
                t0 = time.perf_counter()
                for _ in range(a.steps):
                    _, l = sess.run([train, loss])
                ms = (time.perf_counter() - t0) * 1e3 / a.steps
                print("round %d: %.2f ms per step, loss %.4f" % (r, ms, l),
                      file=sys.stderr, flush=True)
                best = min(best, ms)
        print(json.dumps({"peer": "tf_moe_cluster", "experts": a.experts,
                          "k": a.k, "batch": a.batch,
                          "ms_per_step": round(best, 2),
                          "tensorflow": tf.__version__}))
    finally:
        for p in children:
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
