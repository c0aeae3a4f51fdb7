"""The main job from Python: the Fashion-MNIST MLP (784-512-256-10,
SGD 0.1, batches of 128 from an input queue, seed 1), built op for op as
`actorflow train fashion-mnist` builds it, so that it prints the same
losses and test accuracies.

    PYTHONPATH=build/python python3 python/examples/fashion_mnist_mlp.py \\
        [--hidden 512,256] [--epochs 3] [--data /usr/share/datasets/fashion-mnist]
"""
import argparse
import math
import threading

import numpy as np

import actorflow as af

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--hidden", default="512,256")
p.add_argument("--epochs", type=int, default=3)
p.add_argument("--batch", type=int, default=128)
p.add_argument("--learning-rate", type=float, default=0.1)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--threads", type=int, default=2)
p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
a = p.parse_args()
hidden = [int(h) for h in a.hidden.split(",")]

# The data, read by the graph (gzip'd IDX files).
with af.Graph().as_default() as g, af.Session(graph=g) as sess:
    def idx(name):
        return af.ops.read_idx(f"{a.data}/{name}-ubyte.gz", dtype=af.uint8)
    train_x, train_y, test_x, test_y = sess.run([
        af.reshape(idx("train-images-idx3"), [-1, 784]),
        idx("train-labels-idx1"),
        af.reshape(idx("t10k-images-idx3"), [-1, 784]),
        idx("t10k-labels-idx1")])
n = len(train_y)

graph = af.Graph()
with graph.as_default():
    # The data as variables, set from feeds by the initializer.
    with af.name_scope("data"):
        images_in = af.placeholder(af.uint8, [n, 784], name="images_in")
        labels_in = af.placeholder(af.uint8, [n], name="labels_in")
        images = af.Variable(images_in, name="images", trainable=False)
        labels = af.Variable(labels_in, name="labels", trainable=False)
    # The input queue: an epoch in a new order per run of `fill`.
    with af.name_scope("input"):
        q = af.ops.fifo_queue_v2(component_types=[af.uint8, af.uint8],
                                 shapes=[[784], []], capacity=16 * a.batch,
                                 name="queue")
        order = af.ops.random_shuffle(af.ops.range(0, n, 1), seed=a.seed,
                                      seed2=1000)
        fill = af.ops.queue_enqueue_many_v2(
            q, [af.ops.gather(images, order), af.ops.gather(labels, order)],
            name="fill")
        close = af.ops.queue_close_v2(q, cancel_pending_enqueues=True,
                                      name="cancel")
        batch_x, batch_y = af.ops.queue_dequeue_many_v2(
            q, a.batch, component_types=[af.uint8, af.uint8], name="batch")

    # The model: Glorot-uniform weights, zero biases.
    weights = []
    with af.name_scope("model"):
        sizes = [784] + hidden + [10]
        for i, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
            with af.name_scope(f"fc{i + 1}"):
                bound = math.sqrt(6.0 / (fan_in + fan_out))
                u = af.ops.random_uniform([fan_in, fan_out], dtype=af.float32,
                                          seed=a.seed,
                                          seed2=len(weights) + 1)
                w = u * af.constant(2 * bound) - af.constant(bound)
                weights.append(af.Variable(w, name="weights"))
                weights.append(af.Variable(af.fill([fan_out], 0.0),
                                           name="bias"))

    def pixels(raw):
        return af.cast(raw, af.float32) * af.constant(
            1 / (255 * 0.3530)) - af.constant(0.2860 / 0.3530)

    def logits(x):
        for i in range(0, len(weights), 2):
            x = af.ops.bias_add(af.matmul(x, weights[i]), weights[i + 1])
            if i + 2 < len(weights):
                x = af.relu(x)
        return x

    with af.name_scope("model"):
        xent, _ = af.ops.sparse_softmax_cross_entropy_with_logits(
            logits(pixels(batch_x)), af.cast(batch_y, af.int64))
    loss = af.reduce_mean(xent, axis=[0], name="loss")
    train = af.train.GradientDescentOptimizer(a.learning_rate).minimize(
        loss, var_list=weights, name="train")
    with af.name_scope("eval"):
        eval_x = af.placeholder(af.uint8, [None, 784], name="images")
        predicted = af.ops.arg_max(logits(pixels(eval_x)), 1)
    init = af.global_variables_initializer()

config = {"intra_op_parallelism_threads": a.threads,
          "inter_op_parallelism_threads": a.threads}
with af.Session(graph=graph, config=config) as sess:
    sess.run(init, {images_in: train_x, labels_in: train_y})

    def feed_the_queue():  # a queue runner: epoch after epoch
        try:
            while True:
                sess.run(fill)
        except (af.errors.CancelledError, af.errors.OutOfRangeError,
                af.errors.AbortedError):
            pass

    runner = threading.Thread(target=feed_the_queue)
    runner.start()
    try:
        steps = n // a.batch
        for epoch in range(a.epochs):
            for _ in range(steps):
                value, _ = sess.run([loss, train])
            accuracy = (sess.run(predicted, {eval_x: test_x})
                        == test_y).mean()
            print(f"epoch {epoch + 1}/{a.epochs}: loss {value:.4f}, "
                  f"test accuracy {accuracy:.4f}", flush=True)
    finally:
        sess.run(close)
        runner.join()
