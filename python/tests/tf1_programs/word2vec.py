"""Word2vec, skip-gram with the NCE loss, as TensorFlow 1's basic
word2vec tutorial writes it (on a synthetic corpus of 40 words): an
embedding, nce_loss, SGD, and the cosine similarity of normalized
embeddings. The negative samples are drawn by numpy from the same
log-uniform distribution and given as sampled_values: random draws are
the engine's own."""
import actorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()

VOCABULARY, EMBEDDING, BATCH, NUM_SAMPLED = 40, 8, 16, 6


def log_uniform(rng, n):
    """n distinct classes, P(c) = log((c+2)/(c+1)) / log(V+1), and the
    expected counts TensorFlow's sampler would give them."""
    c = np.arange(VOCABULARY)
    p = np.log((c + 2) / (c + 1)) / np.log(VOCABULARY + 1)
    sampled = rng.choice(VOCABULARY, n, replace=False, p=p / p.sum())
    return sampled, lambda k: -np.expm1(n * np.log1p(-p[k]))


def main():
    rng = np.random.RandomState(10)
    corpus = (np.arange(2000) * 11 % 37 + rng.randint(0, 3, 2000)) % \
        VOCABULARY

    train_inputs = tf.placeholder(tf.int32, shape=[BATCH])
    train_labels = tf.placeholder(tf.int32, shape=[BATCH, 1])
    sampled = tf.placeholder(tf.int64, [NUM_SAMPLED])
    true_expected = tf.placeholder(tf.float32, [BATCH, 1])
    sampled_expected = tf.placeholder(tf.float32, [NUM_SAMPLED])
    embeddings = tf.Variable(rng.uniform(-1.0, 1.0, (VOCABULARY, EMBEDDING))
                             .astype(np.float32))
    embed = tf.nn.embedding_lookup(embeddings, train_inputs)
    nce_weights = tf.Variable(rng.normal(0, 1.0 / np.sqrt(EMBEDDING), (
        VOCABULARY, EMBEDDING)).astype(np.float32))
    nce_biases = tf.Variable(tf.zeros([VOCABULARY]))
    loss = tf.reduce_mean(tf.nn.nce_loss(
        weights=nce_weights, biases=nce_biases, labels=train_labels,
        inputs=embed, num_sampled=NUM_SAMPLED, num_classes=VOCABULARY,
        sampled_values=(sampled, true_expected, sampled_expected)))
    optimizer = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
    normalized = embeddings / norm
    valid = tf.constant([1, 5, 9], dtype=tf.int32)
    similarity = tf.matmul(tf.nn.embedding_lookup(normalized, valid),
                           normalized, transpose_b=True)

    losses = []
    with tf.Session() as session:
        tf.global_variables_initializer().run()
        for step in range(25):
            at = rng.randint(1, len(corpus) - 1, BATCH)
            labels = corpus[at + rng.choice([-1, 1], BATCH)][:, None]
            drawn, expected = log_uniform(rng, NUM_SAMPLED)
            feed = {train_inputs: corpus[at], train_labels: labels,
                    sampled: drawn, true_expected: expected(labels),
                    sampled_expected: expected(drawn)}
            _, value = session.run([optimizer, loss], feed_dict=feed)
            losses.append(value)
        sim = similarity.eval()
    return {"loss": losses, "similarity": sim}
