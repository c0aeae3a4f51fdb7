"""Sequence to sequence with attention, the decoder a while_loop of its
own: an LSTM encoder run by dynamic_rnn, a decoder cell called step by
step on the previous target's embedding and an attention context (Luong's
general score), its logits written to a TensorArray, the masked sequence
loss and Adam, as TensorFlow 1 programs write it (learning to reverse
sequences of 6 tokens)."""
import actorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()

VOCAB, EMBED, UNITS, BATCH, LENGTH = 10, 6, 8, 8, 6
GO = 0


def numpy_init(rng, scale=0.3):
    """Initial values from numpy (TensorFlow's random draws are its own)."""
    def init(shape, dtype=None, partition_info=None):
        return tf.constant(rng.uniform(-scale, scale, shape), dtype=dtype)
    return init


def main():
    rng = np.random.RandomState(9)
    source = rng.randint(1, VOCAB, (3, BATCH, LENGTH))
    lengths = rng.randint(3, LENGTH + 1, (3, BATCH))
    target = np.stack([[np.concatenate([s[:n][::-1], np.zeros(LENGTH - n,
                                                               int)])
                        for s, n in zip(src, ln)]
                       for src, ln in zip(source, lengths)])

    src = tf.placeholder(tf.int32, [BATCH, LENGTH], name="source")
    src_len = tf.placeholder(tf.int32, [BATCH], name="source_length")
    tgt = tf.placeholder(tf.int32, [BATCH, LENGTH], name="target")
    with tf.variable_scope("seq2seq", initializer=numpy_init(rng)):
        embedding = tf.get_variable("embedding", [VOCAB, EMBED])
        with tf.variable_scope("encoder"):
            enc_cell = tf.nn.rnn_cell.LSTMCell(UNITS)
            memory, enc_state = tf.nn.dynamic_rnn(
                enc_cell, tf.nn.embedding_lookup(embedding, src),
                sequence_length=src_len, dtype=tf.float32)
        with tf.variable_scope("decoder"):
            dec_cell = tf.nn.rnn_cell.LSTMCell(UNITS)
            w_score = tf.get_variable("attention_w", [UNITS, UNITS])
            w_out = tf.get_variable("output_w", [2 * UNITS, VOCAB])
            b_out = tf.get_variable("output_b", [VOCAB])
            mask = tf.sequence_mask(src_len, LENGTH, dtype=tf.float32)
            previous = tf.concat([tf.fill([BATCH, 1], GO), tgt[:, :-1]], 1)
            inputs = tf.TensorArray(tf.float32, size=LENGTH).unstack(
                tf.transpose(tf.nn.embedding_lookup(embedding, previous),
                             [1, 0, 2]))
            logits_ta = tf.TensorArray(tf.float32, size=LENGTH)
            weights_ta = tf.TensorArray(tf.float32, size=LENGTH)

            def step(t, state, context, logits_ta, weights_ta):
                x = tf.concat([inputs.read(t), context], axis=1)
                out, state = dec_cell(x, state)
                scores = tf.squeeze(tf.matmul(
                    memory, tf.expand_dims(tf.matmul(out, w_score), 2)), [2])
                scores = scores * mask - 1e9 * (1.0 - mask)
                alpha = tf.nn.softmax(scores)
                context = tf.reduce_sum(tf.expand_dims(alpha, 2) * memory,
                                        axis=1)
                logits = tf.matmul(tf.concat([out, context], 1), w_out) + b_out
                return (t + 1, state, context, logits_ta.write(t, logits),
                        weights_ta.write(t, alpha))

            _, _, _, logits_ta, weights_ta = tf.while_loop(
                lambda t, *_: t < LENGTH, step,
                (tf.constant(0), enc_state, tf.zeros([BATCH, UNITS]),
                 logits_ta, weights_ta))
            logits = tf.transpose(logits_ta.stack(), [1, 0, 2])
            attention = tf.transpose(weights_ta.stack(), [1, 0, 2])
    tgt_mask = tf.sequence_mask(src_len, LENGTH, dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tgt,
                                                          logits=logits)
    loss = tf.reduce_sum(xent * tgt_mask) / tf.reduce_sum(tgt_mask)
    train = tf.train.AdamOptimizer(0.02).minimize(loss)

    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step_ in range(12):
            k = step_ % 3
            feed = {src: source[k], src_len: lengths[k], tgt: target[k]}
            losses.append(sess.run([loss, train], feed)[0])
        weights = sess.run(attention, {src: source[0], src_len: lengths[0],
                                       tgt: target[0]})
        names = [v.op.name for v in tf.trainable_variables()]
    return {"loss": losses, "attention": weights[0], "variables": names}
