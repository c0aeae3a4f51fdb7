"""Softmax regression, as TensorFlow 1's MNIST-for-beginners tutorial
writes it (on 64 synthetic 16-pixel images of 4 classes)."""
import actorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()


def main():
    rng = np.random.RandomState(0)
    images = rng.rand(64, 16).astype(np.float32)
    labels = np.eye(4, dtype=np.float32)[rng.randint(0, 4, 64)]

    x = tf.placeholder(tf.float32, [None, 16])
    W = tf.Variable(tf.zeros([16, 4]))
    b = tf.Variable(tf.zeros([4]))
    y = tf.nn.softmax(tf.matmul(x, W) + b)
    y_ = tf.placeholder(tf.float32, [None, 4])
    cross_entropy = tf.reduce_mean(
        -tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(
        cross_entropy)
    correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    losses = []
    sess = tf.InteractiveSession()
    tf.global_variables_initializer().run()
    for i in range(20):
        batch = slice(16 * (i % 4), 16 * (i % 4 + 1))
        _, loss = sess.run([train_step, cross_entropy],
                           feed_dict={x: images[batch], y_: labels[batch]})
        losses.append(loss)
    result = {"loss": losses,
              "accuracy": accuracy.eval({x: images, y_: labels}),
              "W": W.eval()}
    sess.close()
    return result
