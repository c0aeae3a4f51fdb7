"""A data-dependent loop in the graph: Newton's iteration for square roots,
run until every element has converged, with its gradient.

    PYTHONPATH=build/python python3 python/examples/while_loop.py
"""
import numpy as np

import actorflow as af

x = af.placeholder(af.float64, [None], name="x")


def not_done(i, y):
    return af.ops.any(af.ops.greater(af.ops.abs(y * y - x), 1e-12), [0])


def newton(i, y):
    return [i + 1, 0.5 * (y + x / y)]


steps, root = af.while_loop(not_done, newton,
                            [af.constant(0), af.ones_like(x)],
                            maximum_iterations=100)
(d_root,) = af.gradients(af.reduce_sum(root), [x])

with af.Session() as sess:
    values = np.array([2.0, 9.0, 1e6])
    n, r, g = sess.run([steps, root, d_root], {x: values})
    print(f"{n} iterations: sqrt{tuple(values)} = {r}")
    print(f"d sqrt/dx = {g} (1 / (2 sqrt x) = {0.5 / np.sqrt(values)})")
