"""A GAN: a generator and a discriminator in their own variable scopes
(the discriminator reused for real and fake data), each trained by its
own Adam on its variables picked by scope, as TensorFlow 1 examples write
it (noise is fed, drawn by numpy)."""
import actorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()


def dense(x, units, name, rng, activation=None):
    return tf.layers.dense(
        x, units, activation=activation, name=name,
        kernel_initializer=tf.constant_initializer(
            rng.normal(0, 0.4, (x.shape.as_list()[-1], units))))


def main():
    rng = np.random.RandomState(5)
    real_data = rng.normal(2.0, 0.5, (64, 2)).astype(np.float32)
    noise = rng.uniform(-1, 1, (64, 4)).astype(np.float32)
    z = tf.placeholder(tf.float32, [None, 4])
    real = tf.placeholder(tf.float32, [None, 2])

    def generator(z):
        with tf.variable_scope("generator"):
            h = dense(z, 8, "hidden", rng, tf.nn.leaky_relu)
            return dense(h, 2, "out", rng)

    def discriminator(x, reuse=False):
        with tf.variable_scope("discriminator", reuse=reuse):
            h = dense(x, 8, "hidden", rng, tf.nn.relu)
            return dense(h, 1, "out", rng)

    fake = generator(z)
    d_real = discriminator(real)
    d_fake = discriminator(fake, reuse=True)
    d_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.ones_like(d_real), logits=d_real)) + tf.reduce_mean(
        tf.nn.sigmoid_cross_entropy_with_logits(
            labels=tf.zeros_like(d_fake), logits=d_fake))
    g_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.ones_like(d_fake), logits=d_fake))
    t_vars = tf.trainable_variables()
    d_vars = [v for v in t_vars if v.name.startswith("discriminator")]
    g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES,
                               scope="generator")
    d_train = tf.train.AdamOptimizer(0.01, beta1=0.5).minimize(
        d_loss, var_list=d_vars)
    g_train = tf.train.AdamOptimizer(0.01, beta1=0.5).minimize(
        g_loss, var_list=g_vars)

    d_losses, g_losses = [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(15):
            batch = slice(16 * (step % 4), 16 * (step % 4 + 1))
            dl, _ = sess.run([d_loss, d_train], {z: noise[batch],
                                                 real: real_data[batch]})
            gl, _ = sess.run([g_loss, g_train], {z: noise[batch]})
            d_losses.append(dl)
            g_losses.append(gl)
        samples = sess.run(fake, {z: noise[:4]})
    return {"d_loss": d_losses, "g_loss": g_losses, "samples": samples,
            "d_vars": [v.op.name for v in d_vars],
            "g_vars": [v.op.name for v in g_vars]}
