"""A small convolutional network's forward pass, computed with numpy, for
tests/actors/op_library_test.cpp: conv2d (3x3, SAME) -> bias_add -> relu
-> max_pool (2x2, stride 2) -> reshape -> matmul -> softmax, and the mean
sparse cross entropy against labels."""
import numpy as np

import exact

from case_writer import tensor_lines
from cases_nn import conv2d, pool


def render():
    rng = np.random.RandomState(2024)
    x = (rng.randint(-8, 8, size=(2, 6, 6, 2)) / 8.0).astype(np.float32)
    f = (rng.randint(-8, 8, size=(3, 3, 2, 4)) / 16.0).astype(np.float32)
    b = np.array([0.1, -0.2, 0.0, 0.3], np.float32)
    w = (rng.randint(-8, 8, size=(36, 3)) / 16.0).astype(np.float32)
    labels = np.array([2, 0], np.int64)
    h = np.maximum(conv2d(x, f, (1, 1), "SAME") + b, 0)
    p = pool(h, (2, 2), (2, 2), "VALID", np.max).reshape(2, 36)
    logits = exact.matmul(p, w)
    ls = exact.log_softmax(logits)
    probs = exact.exp(ls).astype(np.float32)
    loss = np.array(-ls[np.arange(2), labels].mean(), np.float32)
    lines = []
    for name, t in (("x", x), ("filter", f), ("bias", b), ("w", w),
                    ("labels", labels), ("probs", probs), ("loss", loss)):
        header, values = tensor_lines(name, t)
        # golden.hpp's format: name dtype dims..., then the values.
        lines += ["model_" + header, values]
    return "\n".join(lines) + "\n"
