"""A character-level LSTM trained on Debian's fortunes, then sampled by a
loop that runs inside the graph: each iteration steps the cell once (a
one-step dynamic_rnn in the while loop's body) and draws the next
character with Multinomial, so a whole sample is one sess.run.

    PYTHONPATH=build/python python3 python/examples/char_rnn_sampling.py \\
        [--steps 200] [--length 200] [--text /usr/share/games/fortunes/fortunes]
"""
import argparse

import numpy as np

import actorflow as af

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--text", default="/usr/share/games/fortunes/fortunes")
p.add_argument("--steps", type=int, default=200)
p.add_argument("--length", type=int, default=200)
p.add_argument("--units", type=int, default=128)
p.add_argument("--seed", type=int, default=1)
a = p.parse_args()

text = open(a.text, encoding="utf-8", errors="replace").read()[:200_000]
chars = sorted(set(text))
ids = np.array([chars.index(c) for c in text], np.int32)
vocab, window, batch = len(chars), 64, 32

x = af.placeholder(af.int32, [None, None], name="x")  # [batch, time]
y = af.placeholder(af.int32, [None, None], name="y")  # x shifted by one
cell = af.nn.rnn_cell.LSTMCell(a.units, seed=a.seed)
w = af.Variable(np.random.default_rng(a.seed).normal(
    0, 0.05, (a.units, vocab)).astype(np.float32), name="w")
b = af.Variable(np.zeros(vocab, np.float32), name="b")


def logits_of(h):  # [rows, units] -> [rows, vocab]
    return af.ops.bias_add(af.matmul(h, w), b)


def one_hot(i):
    return af.ops.one_hot(i, vocab, 1.0, 0.0)


outputs, _ = af.nn.dynamic_rnn(cell, one_hot(x), dtype=af.float32)
logits = logits_of(af.reshape(outputs, [-1, a.units]))
xent, _ = af.ops.sparse_softmax_cross_entropy_with_logits(
    logits, af.cast(af.reshape(y, [-1]), af.int64))
loss = af.reduce_mean(xent)
train = af.train.AdamOptimizer(0.01).minimize(loss)

# Sampling, in the graph: state (c, h), the last character, the text so far.
start = af.placeholder(af.int32, [], name="start")


def sample_step(i, c, h, last, sampled):
    _, (c2, h2) = af.nn.dynamic_rnn(
        cell, af.reshape(one_hot(last), [1, 1, vocab]), initial_state=[c, h],
        scope="sample")
    draw = af.ops.multinomial(logits_of(h2), 1, seed=a.seed, seed2=7)
    nxt = af.cast(af.reshape(draw, []), af.int32)
    return [i + 1, c2, h2, nxt,
            af.concat([sampled, af.reshape(nxt, [1])], 0)]


zeros = af.zeros([1, a.units])
_, _, _, _, sample = af.while_loop(
    lambda i, c, h, last, s: i < a.length, sample_step,
    [af.constant(0), zeros, zeros, start, af.reshape(start, [1])],
    shape_invariants=[[], [1, a.units], [1, a.units], [], [None]])

rng = np.random.default_rng(a.seed)
with af.Session() as sess:
    sess.run(af.global_variables_initializer())
    for step in range(1, a.steps + 1):
        at = rng.integers(0, len(ids) - window - 1, batch)
        xs = np.stack([ids[k:k + window] for k in at])
        ys = np.stack([ids[k + 1:k + window + 1] for k in at])
        value, _ = sess.run([loss, train], {x: xs, y: ys})
        if step % 100 == 0 or step == 1:
            print(f"step {step}: loss {value:.3f}", flush=True)
    out = sess.run(sample, {start: chars.index("\n")})
    print("".join(chars[i] for i in out))
