"""A PTB-style LSTM language model, as TensorFlow 1's tutorial writes it:
an embedding, a MultiRNNCell of LSTMs run by dynamic_rnn, a softmax over
the vocabulary, the sequence loss, gradients clipped by their global norm
and plain SGD (on a synthetic corpus of 20 words)."""
import actorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()

VOCAB, BATCH, STEPS, HIDDEN = 20, 4, 6, 8


def uniform(rng, scale):
    """An initializer of numpy draws (TensorFlow's random draws are its
    own): called with each variable's shape."""
    def init(shape, dtype=None, partition_info=None):
        return tf.constant(rng.uniform(-scale, scale, shape), dtype=dtype)
    return init


def main():
    rng = np.random.RandomState(3)
    corpus = (np.arange(BATCH * (STEPS + 1) * 3) * 7 % VOCAB).reshape(
        3, BATCH, STEPS + 1)
    inputs = tf.placeholder(tf.int32, [BATCH, STEPS])
    targets = tf.placeholder(tf.int32, [BATCH, STEPS])
    with tf.variable_scope("model", initializer=uniform(rng, 0.1)):
        embedding = tf.get_variable("embedding", [VOCAB, HIDDEN])
        x = tf.nn.embedding_lookup(embedding, inputs)
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.LSTMCell(HIDDEN, forget_bias=0.0)
             for _ in range(2)])
        state0 = cell.zero_state(BATCH, tf.float32)
        outputs, state = tf.nn.dynamic_rnn(cell, x, initial_state=state0)
        output = tf.reshape(outputs, [-1, HIDDEN])
        softmax_w = tf.get_variable("softmax_w", [HIDDEN, VOCAB])
        softmax_b = tf.get_variable("softmax_b", [VOCAB])
        logits = tf.reshape(tf.nn.xw_plus_b(output, softmax_w, softmax_b),
                            [BATCH, STEPS, VOCAB])
    loss = tf.reduce_sum(tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=targets, logits=logits), axis=0))
    tvars = tf.trainable_variables()
    grads, norm = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
    lr = tf.Variable(1.0, trainable=False)
    train = tf.train.GradientDescentOptimizer(lr).apply_gradients(
        zip(grads, tvars), global_step=tf.train.get_or_create_global_step())

    costs, norms = [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(4):
            for batch in corpus:
                cost, n, _ = sess.run([loss, norm, train],
                                      {inputs: batch[:, :-1],
                                       targets: batch[:, 1:]})
                costs.append(cost)
                norms.append(n)
        final = sess.run(state[1].h, {inputs: corpus[0][:, :-1]})
        names = [v.op.name for v in tvars]
    return {"cost": costs, "norm": norms, "final_h": final,
            "variables": names}
