"""A multilayer perceptron with tf.layers: dense layers, dropout behind a
keep probability that is fed (1.0 here: random draws are the engine's
own), Adam, and accuracy, as TensorFlow 1 examples write it."""
import actorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()


def weights(rng, *shape):
    return tf.constant_initializer(rng.normal(0, 0.3, shape))


def main():
    rng = np.random.RandomState(1)
    features = rng.normal(size=(128, 10)).astype(np.float32)
    classes = (features[:, :3].sum(1) > 0).astype(np.int64) + \
        (features[:, 3] > 1).astype(np.int64)

    x = tf.placeholder(tf.float32, [None, 10], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    rate = tf.placeholder_with_default(0.0, [], name="rate")
    training = tf.placeholder_with_default(False, [], name="training")
    hidden = tf.layers.dense(x, 32, activation=tf.nn.relu,
                             kernel_initializer=weights(rng, 10, 32))
    hidden = tf.layers.dropout(hidden, rate=rate, training=training)
    hidden = tf.layers.dense(hidden, 16, activation=tf.nn.tanh,
                             kernel_initializer=weights(rng, 32, 16))
    logits = tf.layers.dense(hidden, 3, kernel_initializer=weights(rng, 16, 3),
                             name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    predicted = tf.argmax(logits, axis=1)
    accuracy = tf.reduce_mean(tf.to_float(tf.equal(predicted, y)))

    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(30):
            batch = slice(32 * (step % 4), 32 * (step % 4 + 1))
            _, value = sess.run([train, loss], {x: features[batch],
                                                y: classes[batch]})
            losses.append(value)
        acc, out = sess.run([accuracy, logits], {x: features, y: classes})
        kernel = sess.run(tf.trainable_variables()[0])
    return {"loss": losses, "accuracy": acc, "logits": out[:8],
            "kernel": kernel[:2]}
