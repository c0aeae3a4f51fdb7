"""A convolutional network with tf.layers: conv2d, max pooling, batch
normalization whose moving averages train through UPDATE_OPS, flatten,
dense, and a Momentum optimizer, as TensorFlow 1 examples write it."""
import actorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()


def main():
    rng = np.random.RandomState(2)
    images = rng.rand(24, 8, 8, 1).astype(np.float32)
    labels = (images[:, 2:6, 2:6, 0].mean((1, 2)) > 0.5).astype(np.int32)

    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    y = tf.placeholder(tf.int32, [None])
    training = tf.placeholder(tf.bool, [])
    init = tf.constant_initializer
    net = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu,
                           kernel_initializer=init(
                               rng.normal(0, 0.3, (3, 3, 1, 4))))
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.layers.batch_normalization(net, training=training)
    net = tf.layers.conv2d(net, 6, 3, kernel_initializer=init(
        rng.normal(0, 0.3, (3, 3, 4, 6))))
    net = tf.layers.flatten(net)
    logits = tf.layers.dense(net, 2, kernel_initializer=init(
        rng.normal(0, 0.3, (24, 2))))
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)

    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(12):
            batch = slice(8 * (step % 3), 8 * (step % 3 + 1))
            _, value = sess.run([train, loss], {x: images[batch],
                                                y: labels[batch],
                                                training: True})
            losses.append(value)
        moving = sess.run(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES,
                                            "batch_normalization/moving"))
        out = sess.run(logits, {x: images[:6], training: False})
    return {"loss": losses, "moving_mean": moving[0],
            "moving_variance": moving[1], "logits": out}
