#!/usr/bin/env python3
"""Golden data for the optimizers' update ops, computed independently with numpy.

Writes tests/golden/optimizers.txt: for each case, the variable's and the
slots' initial values, three gradients, and the variable and slots after
each of three updates, in float64, with the formulas of TensorFlow's
training ops (ApplyGradientDescent, ApplyMomentum and ApplyKerasMomentum
with and without Nesterov, ApplyAdagrad, ApplyAdagradV2, ApplyRMSProp,
ApplyAdam with and without Nesterov; their ResourceApply twins compute
the same).

  gen_optimizer_golden.py           regenerate the file
  gen_optimizer_golden.py --check   exit 1 unless the file is reproduced byte for byte

Format, per tensor: a line `name dtype dim...`, then one line of values.
Names: `<case>_var0`, `<case>_<slot>0`, `<case>_grad<t>` and
`<case>_var<t>`, `<case>_<slot><t>` after update t = 1, 2, 3.
"""
import os
import sys

import numpy as np

import exact

from golden_io import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "optimizers.txt")
STEPS = 3


def sgd(var, slots, g, t):
    return var - 0.1 * g, slots


def momentum(nesterov):
    def step(var, slots, g, t):
        lr, mu = 0.1, 0.9
        accum = slots[0] * mu + g
        if nesterov:
            var = var - (g * lr + accum * mu * lr)
        else:
            var = var - accum * lr
        return var, [accum]
    return step


def keras_momentum(nesterov):
    def step(var, slots, g, t):
        lr, mu = 0.1, 0.9
        accum = slots[0] * mu - g * lr
        move = accum * mu - g * lr if nesterov else accum
        return var + move, [accum]
    return step


def adagrad_v2(var, slots, g, t):
    accum = slots[0] + g * g
    return var - 0.1 * g / (np.sqrt(accum) + 1e-7), [accum]


def adagrad(var, slots, g, t):
    accum = slots[0] + g * g
    return var - 0.1 * g / np.sqrt(accum), [accum]


def rms_prop(var, slots, g, t):
    lr, rho, mu, eps = 0.01, 0.9, 0.5, 1e-7
    ms = slots[0] + (g * g - slots[0]) * (1 - rho)
    mom = slots[1] * mu + g * lr / np.sqrt(ms + eps)
    return var - mom, [ms, mom]


def adam(nesterov):
    def step(var, slots, g, t):
        lr, b1, b2, eps = 0.001, 0.9, 0.999, 1e-8
        lr_t = lr * np.sqrt(1 - exact.power(b2, t)) / (1 - exact.power(b1, t))
        m = slots[0] + (g - slots[0]) * (1 - b1)
        v = slots[1] + (g * g - slots[1]) * (1 - b2)
        move = m * b1 + (1 - b1) * g if nesterov else m
        return var - move * lr_t / (np.sqrt(v) + eps), [m, v]
    return step


# (name, slot names, initial slot values, update)
CASES = [
    ("sgd", [], [], sgd),
    ("momentum", ["accum"], [0.0], momentum(False)),
    ("nesterov", ["accum"], [0.0], momentum(True)),
    ("adagrad", ["accum"], [0.1], adagrad),
    ("rmsprop", ["ms", "mom"], [1.0, 0.0], rms_prop),
    ("adam", ["m", "v"], [0.0, 0.0], adam(False)),
    ("nadam", ["m", "v"], [0.0, 0.0], adam(True)),
    ("keras_momentum", ["accum"], [0.0], keras_momentum(False)),
    ("keras_nesterov", ["accum"], [0.0], keras_momentum(True)),
    ("adagrad_v2", ["accum"], [0.1], adagrad_v2),
]


def tensors():
    rng = np.random.RandomState(20261122)
    out = []
    for name, slot_names, slot_init, update in CASES:
        var = rng.standard_normal((2, 3))
        slots = [np.full((2, 3), x) for x in slot_init]
        out.append((name + "_var0", var))
        for s, x in zip(slot_names, slots):
            out.append(("%s_%s0" % (name, s), x))
        for t in range(1, STEPS + 1):
            g = rng.standard_normal((2, 3))
            var, slots = update(var, slots, g, t)
            out.append(("%s_grad%d" % (name, t), g))
            out.append(("%s_var%d" % (name, t), var))
            for s, x in zip(slot_names, slots):
                out.append(("%s_%s%d" % (name, s, t), x))
    return out


def render():
    lines = []
    for name, t in tensors():
        t = np.asarray(t, dtype=np.float64)
        lines.append(" ".join([name, "float64"] + [str(d) for d in t.shape]))
        lines.append(" ".join("%.17g" % v for v in t.ravel()))
    return "\n".join(lines) + "\n"


def main():
    return write_or_check(__doc__, {OUT: render()})


if __name__ == "__main__":
    sys.exit(main())
