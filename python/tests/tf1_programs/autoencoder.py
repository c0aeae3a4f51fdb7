"""An autoencoder: dense encoder and decoder with sigmoid activations,
mean squared reconstruction error, RMSProp (as TensorFlow 1 examples
write it, on 48 synthetic 12-pixel images)."""
import actorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()


def main():
    rng = np.random.RandomState(4)
    data = rng.rand(48, 12).astype(np.float32)
    weights = {
        "encoder_h1": tf.Variable(rng.normal(0, 0.5, (12, 6)).astype(
            np.float32)),
        "encoder_h2": tf.Variable(rng.normal(0, 0.5, (6, 3)).astype(
            np.float32)),
        "decoder_h1": tf.Variable(rng.normal(0, 0.5, (3, 6)).astype(
            np.float32)),
        "decoder_h2": tf.Variable(rng.normal(0, 0.5, (6, 12)).astype(
            np.float32)),
    }
    biases = {k: tf.Variable(tf.zeros([n])) for k, n in
              (("encoder_b1", 6), ("encoder_b2", 3), ("decoder_b1", 6),
               ("decoder_b2", 12))}

    def encoder(x):
        h = tf.nn.sigmoid(tf.add(tf.matmul(x, weights["encoder_h1"]),
                                 biases["encoder_b1"]))
        return tf.nn.sigmoid(tf.add(tf.matmul(h, weights["encoder_h2"]),
                                    biases["encoder_b2"]))

    def decoder(x):
        h = tf.nn.sigmoid(tf.add(tf.matmul(x, weights["decoder_h1"]),
                                 biases["decoder_b1"]))
        return tf.nn.sigmoid(tf.add(tf.matmul(h, weights["decoder_h2"]),
                                    biases["decoder_b2"]))

    X = tf.placeholder("float", [None, 12])
    y_pred = decoder(encoder(X))
    loss = tf.reduce_mean(tf.pow(X - y_pred, 2))
    optimizer = tf.train.RMSPropOptimizer(0.05).minimize(loss)

    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(40):
            batch = data[(i % 3) * 16:(i % 3 + 1) * 16]
            _, l = sess.run([optimizer, loss], feed_dict={X: batch})
            losses.append(l)
        reconstructed = sess.run(y_pred, {X: data[:4]})
    return {"loss": losses, "reconstructed": reconstructed}
