"""Neural-network, matrix, random and check cases.

Random ops are checked against the generator's stream reproduced here:
std::mt19937 seeded with seed ^ (seed2 * 0x9E3779B9) is numpy's MT19937
with legacy seeding, and the conversions below are those of
ops/src/kernels/cpu/random_kernels.cpp."""
import math

import numpy as np

import exact

F32, F64, I32, I64 = np.float32, np.float64, np.int32, np.int64
SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def log_softmax(x):
    return exact.log_softmax(x)


def window(n, k, stride, dilation, padding):
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-n // stride)
        pad = max((out - 1) * stride + eff - n, 0) // 2
    else:
        out = max((n - eff) // stride + 1, 0)
        pad = 0
    return out, pad


def groups_of(x, f):
    """The channel groups of a grouped Conv2D: each a slice of the input's
    channels and of the filter's output channels."""
    c, fi, o = x.shape[3], f.shape[2], f.shape[3]
    g = c // fi
    return [(slice(i * fi, (i + 1) * fi), slice(i * (o // g), (i + 1) * (o // g)))
            for i in range(g)]


def conv2d(x, f, strides, padding, dilations=(1, 1)):
    """Conv2D, grouped when x has a multiple of f's input channels."""
    b, h, w, c = x.shape
    kh, kw, _, o = f.shape
    oh, ph = window(h, kh, strides[0], dilations[0], padding)
    ow, pw = window(w, kw, strides[1], dilations[1], padding)
    out = np.zeros((b, oh, ow, o), dtype=np.float64)
    for y in range(oh):
        for xx in range(ow):
            for ky in range(kh):
                for kx in range(kw):
                    iy = y * strides[0] - ph + ky * dilations[0]
                    ix = xx * strides[1] - pw + kx * dilations[1]
                    if 0 <= iy < h and 0 <= ix < w:
                        for ci, co in groups_of(x, f):
                            out[:, y, xx, co] += exact.matmul(
                                x[:, iy, ix, ci], f[ky, kx][:, co])
    return out.astype(x.dtype)


def pool_grads(x, g, k, strides, padding):
    """MaxPool's gradient (to the first maximum of each window, row-major)
    and AvgPool's (shared by the window's in-image positions)."""
    b, h, w, c = x.shape
    oh, ph = window(h, k[0], strides[0], 1, padding)
    ow, pw = window(w, k[1], strides[1], 1, padding)
    dmax = np.zeros(x.shape, np.float64)
    davg = np.zeros(x.shape, np.float64)
    for n in range(b):
        for y in range(oh):
            for xx in range(ow):
                y0, x0 = y * strides[0] - ph, xx * strides[1] - pw
                ys = slice(max(y0, 0), min(y0 + k[0], h))
                xs = slice(max(x0, 0), min(x0 + k[1], w))
                patch = x[n, ys, xs, :]
                count = patch.shape[0] * patch.shape[1]
                for ch in range(c):
                    flat = patch[:, :, ch].ravel()
                    i = int(np.argmax(flat))
                    dmax[n, ys.start + i // patch.shape[1],
                         xs.start + i % patch.shape[1], ch] += g[n, y, xx, ch]
                    davg[n, ys, xs, ch] += g[n, y, xx, ch] / count
    return dmax.astype(x.dtype), davg.astype(x.dtype)


def conv2d_grads(x, f, dy, strides, padding, dilations=(1, 1)):
    """The gradients of conv2d with respect to x and f for output gradient
    dy, by the same loops as conv2d, in float64."""
    b, h, w, c = x.shape
    kh, kw, _, o = f.shape
    oh, ph = window(h, kh, strides[0], dilations[0], padding)
    ow, pw = window(w, kw, strides[1], dilations[1], padding)
    x64, f64, dy64 = (a.astype(np.float64) for a in (x, f, dy))
    dx = np.zeros(x.shape)
    df = np.zeros(f.shape)
    for y in range(oh):
        for xx in range(ow):
            for ky in range(kh):
                for kx in range(kw):
                    iy = y * strides[0] - ph + ky * dilations[0]
                    ix = xx * strides[1] - pw + kx * dilations[1]
                    if 0 <= iy < h and 0 <= ix < w:
                        for ci, co in groups_of(x, f):
                            dx[:, iy, ix, ci] += exact.matmul(
                                dy64[:, y, xx, co], f64[ky, kx][:, co].T)
                            df[ky, kx][:, co] += exact.matmul(
                                x64[:, iy, ix, ci].T, dy64[:, y, xx, co])
    return dx.astype(x.dtype), df.astype(x.dtype)


def pool(x, k, strides, padding, fn):
    b, h, w, c = x.shape
    oh, ph = window(h, k[0], strides[0], 1, padding)
    ow, pw = window(w, k[1], strides[1], 1, padding)
    out = np.zeros((b, oh, ow, c), dtype=x.dtype)
    for y in range(oh):
        for xx in range(ow):
            y0, x0 = y * strides[0] - ph, xx * strides[1] - pw
            patch = x[:, max(y0, 0):min(y0 + k[0], h), max(x0, 0):min(x0 + k[1], w), :]
            out[:, y, xx, :] = fn(patch, axis=(1, 2))
    return out


class Stream:
    """The kernels' random_stream."""

    def __init__(self, seed, seed2):
        bg = np.random.MT19937()
        bg._legacy_seeding((seed ^ (seed2 * 0x9E3779B9)) & 0xFFFFFFFF)
        self.bg = bg
        self.spare = None

    def bits(self):
        return int(self.bg.random_raw())

    def uniform(self):
        a, b = self.bits() >> 5, self.bits() >> 6
        return (a * 67108864.0 + b) / 9007199254740992.0

    def uniform32(self):
        return np.float32((self.bits() >> 8) * 2.0 ** -24)

    def normal(self):
        if self.spare is not None:
            v, self.spare = self.spare, None
            return v
        u1, u2 = 1.0 - self.uniform(), self.uniform()
        r = math.sqrt(-2.0 * math.log(u1))
        self.spare = r * math.sin(2 * math.pi * u2)
        return r * math.cos(2 * math.pi * u2)

    def below(self, n):
        return (self.bits() * n) >> 32


def add_cases(c):
    rng = np.random.RandomState(3)
    x = (rng.randint(-40, 40, size=(3, 5)) / 8.0).astype(F32)
    big = np.array([-100.0, -20.0, -1e-3, 0.0, 1e-3, 20.0, 100.0])
    for t in (F32, F64):
        tag = np.dtype(t).name
        v = big.astype(t)
        with np.errstate(all="ignore"):
            c.add("relu6_" + tag, "Relu6", [v], [np.clip(v, 0, 6)], {"T": t})
            c.add("elu_" + tag, "Elu", [v], [np.where(v < 0, exact.expm1(v), v)],
                  {"T": t}, rtol=1e-6)
            c.add("selu_" + tag, "Selu", [v],
                  [np.where(v < 0, SELU_SCALE * SELU_ALPHA * exact.expm1(v),
                            SELU_SCALE * v).astype(t)], {"T": t}, rtol=1e-6)
            c.add("softplus_" + tag, "Softplus", [v],
                  [exact.softplus(v)], {"T": t}, rtol=1e-6)
        xt = x.astype(t)
        c.add("softmax_" + tag, "Softmax", [xt],
              [exact.exp(log_softmax(xt.astype(F64))).astype(t)], {"T": t}, rtol=1e-6)
        c.add("logsoftmax_" + tag, "LogSoftmax", [xt],
              [log_softmax(xt.astype(F64)).astype(t)], {"T": t}, rtol=1e-6)
    huge = np.array([[1000.0, 0.0, -1000.0]], F32)
    c.add("softmax_large_logits", "Softmax", [huge],
          [exact.exp(log_softmax(huge.astype(F64))).astype(F32)], {"T": F32})
    x3 = x.reshape(3, 5, 1) * np.ones(2, F32)
    c.add("softmax_rank3", "Softmax", [x3],
          [exact.exp(log_softmax(x3.astype(F64))).astype(F32)], {"T": F32}, rtol=1e-6)
    bias = np.array([0.5, -1.0, 2.0, 0.0, 3.0], F32)
    c.add("biasadd", "BiasAdd", [x, bias], [x + bias], {"T": F32})
    c.add("biasadd_mismatch", "BiasAdd", [x, bias[:3]], attrs={"T": F32},
          error="invalid_argument")

    # MatMul + BiasAdd (+ Relu) in one kernel, as the fusion pass writes it.
    # Multiples of 1/8 with short sums: exact in float32 whatever the order.
    frng = np.random.RandomState(16)  # its own: the cases after keep theirs
    fa = (frng.randint(-16, 16, size=(4, 3)) / 8.0).astype(F32)
    fb = (frng.randint(-16, 16, size=(3, 5)) / 8.0).astype(F32)
    fz = (exact.matmul(fa, fb) + bias).astype(F32)
    c.add("fusedmatmul_bias", "_FusedMatMul", [fa, fb, bias], [fz],
          {"T": F32, "fused_ops": ["BiasAdd"]})
    c.add("fusedmatmul_bias_relu", "_FusedMatMul", [fa, fb, bias],
          [np.maximum(fz, 0).astype(F32)], {"T": F32, "fused_ops": ["BiasAdd", "Relu"]})
    c.add("fusedmatmul_transposed", "_FusedMatMul",
          [fa.T.copy(), fb.T.copy(), bias], [np.maximum(fz, 0).astype(F32)],
          {"T": F32, "transpose_a": True, "transpose_b": True,
           "fused_ops": ["BiasAdd", "Relu"]})
    c.add("fusedmatmul_float64", "_FusedMatMul",
          [fa.astype(F64), fb.astype(F64), bias.astype(F64)], [fz.astype(F64)],
          {"T": F64, "fused_ops": ["BiasAdd"]})
    c.add("fusedmatmul_bias_mismatch", "_FusedMatMul", [fa, fb, bias[:3]],
          attrs={"T": F32, "fused_ops": ["BiasAdd"]}, error="invalid_argument")
    c.add("fusedmatmul_unknown_fusion", "_FusedMatMul", [fa, fb, bias],
          attrs={"T": F32, "fused_ops": ["BiasAdd", "Tanh"]}, error="unimplemented")

    # Gradient helpers (the backward passes gradient functions build).
    g = (rng.randint(-40, 40, size=(3, 5)) / 8.0)
    feats = np.array([[-2.0, 0.0, 0.5, 6.0, 7.5], [1.0, -0.0, 5.999, 3.0, -1.0],
                      [0.25, 2.0, -3.0, 6.5, 0.0]])
    for t in (F32, F64):
        tag = np.dtype(t).name
        gt, ft = g.astype(t), feats.astype(t)
        c.add("relugrad_" + tag, "ReluGrad", [gt, ft],
              [np.where(ft > 0, gt, 0).astype(t)], {"T": t})
        c.add("relu6grad_" + tag, "Relu6Grad", [gt, ft],
              [np.where((ft > 0) & (ft < 6), gt, 0).astype(t)], {"T": t})
        y = (1 / (1 + exact.exp(-x.astype(F64)))).astype(t)
        c.add("sigmoidgrad_" + tag, "SigmoidGrad", [y, gt],
              [(gt.astype(F64) * y * (1 - y.astype(F64))).astype(t)], {"T": t},
              rtol=1e-6)
        yt = exact.tanh(x.astype(F64)).astype(t)
        c.add("tanhgrad_" + tag, "TanhGrad", [yt, gt],
              [(gt.astype(F64) * (1 - yt.astype(F64) ** 2)).astype(t)],
              {"T": t}, rtol=1e-6)
        g3 = g.reshape(3, 5, 1).repeat(4, axis=2).astype(t) * np.arange(1, 5, dtype=t)
        c.add("biasaddgrad_" + tag, "BiasAddGrad", [g3], [g3.sum(axis=(0, 1))],
              {"T": t}, rtol=1e-6)
    c.add("biasaddgrad_vector", "BiasAddGrad", [g[0].astype(F32)],
          [g[0].astype(F32)], {"T": F32})
    c.add("relugrad_shapes_differ", "ReluGrad", [g.astype(F32), feats[:2].astype(F32)],
          attrs={"T": F32}, error="invalid_argument")

    # BroadcastGradientArgs: numpy's rule written out, and TensorFlow's own
    # test expectations (bcast_ops_test.py) as literals.
    def gradient_args(s0, s1):
        rank = max(len(s0), len(s1))
        p0 = [1] * (rank - len(s0)) + list(s0)
        p1 = [1] * (rank - len(s1)) + list(s1)
        return ([i for i in range(rank) if p0[i] == 1],
                [i for i in range(rank) if p1[i] == 1])
    pairs = [([2, 3, 5], [1], [], [0, 1, 2]), ([1], [2, 3, 5], [0, 1, 2], []),
             ([2, 3, 5], [5], [], [0, 1]), ([2, 3, 5], [3, 5], [], [0]),
             ([2, 3, 5], [3, 1], [], [0, 2]), ([2, 1, 5], [3, 1], [1], [0, 2]),
             ([3, 1], [2, 1, 5], [0, 2], [1]),
             ([2, 0, 3, 0, 5], [3, 0, 5], [], [0, 1]),
             ([2, 0, 3, 0, 5], [3, 1, 5], [], [0, 1, 3]),
             ([1, 5], [1, 5], [0], [0]), ([], [4], [0], [])]
    for k, (s0, s1, r0, r1) in enumerate(pairs):
        assert gradient_args(s0, s1) == (r0, r1), (s0, s1)
        for t in (I32, I64):
            c.add("bcast_args_%d_%s" % (k, np.dtype(t).name),
                  "BroadcastGradientArgs",
                  [np.array(s0, t), np.array(s1, t)],
                  [np.array(r0, t), np.array(r1, t)], {"T": t})
    c.add("bcast_args_incompatible", "BroadcastGradientArgs",
          [np.array([2, 3], I32), np.array([4], I32)], attrs={"T": I32},
          error="invalid_argument")

    # Losses.
    labels = np.abs(rng.randint(0, 4, size=(3, 5))).astype(F32)
    labels /= labels.sum(axis=1, keepdims=True)
    ls = log_softmax(x.astype(F64))
    c.add("xent", "SoftmaxCrossEntropyWithLogits", [x, labels],
          [(-(labels * ls).sum(axis=1)).astype(F32),
           (exact.exp(ls) - labels).astype(F32)], {"T": F32}, rtol=1e-6)
    classes = np.array([4, 0, 2], I64)
    onehot = np.eye(5)[classes]
    c.add("sparse_xent", "SparseSoftmaxCrossEntropyWithLogits", [x, classes],
          [(-(onehot * ls).sum(axis=1)).astype(F32),
           (exact.exp(ls) - onehot).astype(F32)], {"T": F32}, rtol=1e-6)
    c.add("sparse_xent_bad_label", "SparseSoftmaxCrossEntropyWithLogits",
          [x, np.array([5, 0, 1], I32)], attrs={"T": F32, "Tlabels": I32},
          error="invalid_argument")
    c.add("l2loss", "L2Loss", [x.astype(F64)],
          [np.array((x.astype(F64) ** 2).sum() / 2)], {"T": F64}, rtol=1e-12)

    # TopK (ties to the lower index) and InTopK (ties at the boundary count).
    tk = np.array([[3, 1, 3, 7, 0], [5, 5, 5, 5, 5], [-1, 4, 2, 4, 9]], F32)
    for k in (0, 2, 5):
        idx = np.argsort(-tk, axis=1, kind="stable")[:, :k].astype(I32)
        c.add("topkv2_k%d" % k, "TopKV2", [tk, np.array(k, I32)],
              [np.take_along_axis(tk, idx, axis=1), idx], {"T": F32})
    idx = np.argsort(-tk, axis=1, kind="stable")[:, :3].astype(I32)
    c.add("topk_attr", "TopK", [tk.astype(I64)],
          [np.take_along_axis(tk.astype(I64), idx, axis=1), idx],
          {"T": I64, "k": 3})
    c.add("topk_too_large", "TopKV2", [tk, np.array(6, I32)], attrs={"T": F32},
          error="invalid_argument")
    preds = np.array([[0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.2, np.inf, 0.1],
                      [0.5, 0.2, 0.3]], F32)
    targets = np.array([1, 0, 0, 7], I32)
    c.add("intopkv2_k1", "InTopKV2", [preds, targets, np.array(1, I32)],
          [np.array([True, False, False, False])], {"T": I32})
    c.add("intopk_k2", "InTopK", [preds, targets],
          [np.array([True, True, False, False])], {"T": I32, "k": 2})

    # Conv2D: padding, strides, dilations; filter HWIO.
    img = (rng.randint(-8, 8, size=(2, 5, 6, 3)) / 4.0).astype(F32)
    flt = (rng.randint(-8, 8, size=(3, 2, 3, 4)) / 8.0).astype(F32)
    for name, strides, padding, dil in (("same", (1, 1), "SAME", (1, 1)),
                                        ("valid", (1, 1), "VALID", (1, 1)),
                                        ("stride2_same", (2, 2), "SAME", (1, 1)),
                                        ("stride_2x3_valid", (2, 3), "VALID", (1, 1)),
                                        ("dilated", (1, 1), "SAME", (2, 2))):
        c.add("conv2d_" + name, "Conv2D", [img, flt],
              [conv2d(img, flt, strides, padding, dil)],
              {"T": F32, "strides": [1, strides[0], strides[1], 1],
               "padding": padding, "dilations": [1, dil[0], dil[1], 1]},
              rtol=1e-6)
    c.add("conv2d_double", "Conv2D", [img.astype(F64), flt.astype(F64)],
          [conv2d(img.astype(F64), flt.astype(F64), (1, 1), "SAME")],
          {"T": F64, "strides": [1, 1, 1, 1], "padding": "SAME"}, rtol=1e-12)
    # Its gradients, for the same settings.
    for name, strides, padding, dil in (("same", (1, 1), "SAME", (1, 1)),
                                        ("valid", (1, 1), "VALID", (1, 1)),
                                        ("stride2_same", (2, 2), "SAME", (1, 1)),
                                        ("stride_2x3_valid", (2, 3), "VALID", (1, 1)),
                                        ("dilated", (1, 1), "SAME", (2, 2))):
        out = conv2d(img, flt, strides, padding, dil)
        dy = (rng.randint(-8, 8, size=out.shape) / 4.0).astype(F32)
        dx, df = conv2d_grads(img, flt, dy, strides, padding, dil)
        attrs = {"T": F32, "strides": [1, strides[0], strides[1], 1],
                 "padding": padding, "dilations": [1, dil[0], dil[1], 1]}
        c.add("conv2d_backprop_input_" + name, "Conv2DBackpropInput",
              [np.array(img.shape, I32), flt, dy], [dx], attrs, rtol=1e-6)
        c.add("conv2d_backprop_filter_" + name, "Conv2DBackpropFilter",
              [img, np.array(flt.shape, I32), dy], [df], attrs, rtol=1e-6)
    dy = np.ones((2, 5, 6, 4), F32)
    c.add("conv2d_backprop_input_wrong_dy", "Conv2DBackpropInput",
          [np.array(img.shape, I32), flt, dy[:, :4]],
          attrs={"T": F32, "strides": [1, 1, 1, 1], "padding": "SAME"},
          error="invalid_argument")
    c.add("conv2d_channel_mismatch", "Conv2D", [img, flt[:, :, :2]],
          attrs={"T": F32, "strides": [1, 1, 1, 1], "padding": "SAME"},
          error="invalid_argument")
    # Grouped (ConvNeXt, RegNet, ResNeXt): the input has a multiple of the
    # filter's input channels. A generator of its own, so the cases above
    # keep their values.
    grng = np.random.RandomState(54)
    gimg = (grng.randint(-8, 8, size=(2, 5, 6, 4)) / 4.0).astype(F32)
    for name, fshape, strides, padding in (
            ("groups2_same", (3, 3, 2, 6), (1, 1), "SAME"),
            ("groups4_depthwise", (3, 2, 1, 8), (1, 1), "SAME"),
            ("groups2_stride2_valid", (2, 2, 2, 4), (2, 2), "VALID")):
        gflt = (grng.randint(-8, 8, size=fshape) / 8.0).astype(F32)
        attrs = {"T": F32, "strides": [1, strides[0], strides[1], 1],
                 "padding": padding}
        out = conv2d(gimg, gflt, strides, padding)
        dy = (grng.randint(-8, 8, size=out.shape) / 4.0).astype(F32)
        dx, df = conv2d_grads(gimg, gflt, dy, strides, padding)
        for t in (F32, F64):
            tag = name + ("" if t == F32 else "_double")
            typed = dict(attrs, T=t)
            tol = 1e-6 if t == F32 else 1e-12
            c.add("conv2d_" + tag, "Conv2D", [gimg.astype(t), gflt.astype(t)],
                  [out.astype(t)], typed, rtol=tol)
            c.add("conv2d_backprop_input_" + tag, "Conv2DBackpropInput",
                  [np.array(gimg.shape, I32), gflt.astype(t), dy.astype(t)],
                  [dx.astype(t)], typed, rtol=tol)
            c.add("conv2d_backprop_filter_" + tag, "Conv2DBackpropFilter",
                  [gimg.astype(t), np.array(gflt.shape, I32), dy.astype(t)],
                  [df.astype(t)], typed, rtol=tol)
    c.add("conv2d_groups_uneven_out", "Conv2D",
          [gimg, np.zeros((1, 1, 2, 3), F32)],
          attrs={"T": F32, "strides": [1, 1, 1, 1], "padding": "SAME"},
          error="invalid_argument")
    for name, k, s, padding in (("2x2_valid", (2, 2), (2, 2), "VALID"),
                                ("3x3_same", (3, 3), (1, 1), "SAME"),
                                ("3x2_s2_same", (3, 2), (2, 2), "SAME")):
        attrs = {"T": F32, "ksize": [1, k[0], k[1], 1],
                 "strides": [1, s[0], s[1], 1], "padding": padding}
        c.add("maxpool_" + name, "MaxPool", [img], [pool(img, k, s, padding, np.max)],
              attrs)
        c.add("avgpool_" + name, "AvgPool", [img],
              [pool(img, k, s, padding, np.mean)], attrs, rtol=1e-6)
        out = pool(img, k, s, padding, np.max)
        g = (rng.randint(-8, 8, size=out.shape) / 4.0).astype(F32)
        dmax, davg = pool_grads(img, g, k, s, padding)
        c.add("maxpoolgrad_" + name, "MaxPoolGrad", [img, out, g], [dmax],
              attrs, rtol=1e-6)
        c.add("avgpoolgrad_" + name, "AvgPoolGrad",
              [np.array(img.shape, I32), g], [davg], attrs, rtol=1e-6)
    # Windows that tile the image exactly (no overlap, no padding: the
    # kernel's fast path), many ties, more channels than a vector holds.
    prng = np.random.RandomState(21)  # its own: the cases after keep theirs
    tiled = (prng.randint(-4, 4, size=(3, 6, 6, 19)) / 2.0).astype(F32)
    for name, k, padding in (("tiled_2x2_valid", (2, 2), "VALID"),
                             ("tiled_2x2_same", (2, 2), "SAME"),
                             ("tiled_3x2_valid", (3, 2), "VALID")):
        attrs = {"T": F32, "ksize": [1, k[0], k[1], 1],
                 "strides": [1, k[0], k[1], 1], "padding": padding}
        out = pool(tiled, k, k, padding, np.max)
        g = (prng.randint(-8, 8, size=out.shape) / 4.0).astype(F32)
        dmax, _ = pool_grads(tiled, g, k, k, padding)
        c.add("maxpool_" + name, "MaxPool", [tiled], [out], attrs)
        c.add("maxpoolgrad_" + name, "MaxPoolGrad", [tiled, out, g], [dmax],
              attrs, rtol=1e-6)

    # FusedBatchNorm in training and inference.
    scale = np.array([1.0, 0.5, 2.0], F32)
    offset = np.array([0.0, 1.0, -1.0], F32)
    mean = np.array([0.5, -0.5, 0.0], F32)
    var = np.array([1.0, 4.0, 0.25], F32)
    eps = 0.001
    flat = img.reshape(-1, 3).astype(F64)
    bm, bv = flat.mean(axis=0), flat.var(axis=0)
    y = (img - bm) / np.sqrt(bv + eps) * scale + offset
    n = flat.shape[0]
    c.add("batchnorm_training", "FusedBatchNorm", [img, scale, offset, mean, var],
          [y.astype(F32), bm.astype(F32), (bv * n / (n - 1)).astype(F32),
           bm.astype(F32), bv.astype(F32)],
          {"T": F32, "epsilon": eps}, rtol=2e-6)
    f = 0.25
    c.add("batchnorm_training_running", "FusedBatchNorm",
          [img, scale, offset, mean, var],
          [y.astype(F32), ((1 - f) * mean + f * bm).astype(F32),
           ((1 - f) * var + f * bv * n / (n - 1)).astype(F32),
           bm.astype(F32), bv.astype(F32)],
          {"T": F32, "epsilon": eps, "exponential_avg_factor": f}, rtol=2e-6)
    yi = (img - mean) / np.sqrt(var + eps) * scale + offset
    c.add("batchnorm_inference", "FusedBatchNorm", [img, scale, offset, mean, var],
          [yi.astype(F32), mean, var, mean, var],
          {"T": F32, "epsilon": eps, "is_training": False}, rtol=2e-6)

    # FusedBatchNormGrad, in float64: the closed form, checked here against
    # central differences of the forward pass before it is written.
    x64 = img.astype(F64) + rng.standard_normal(img.shape) * 0.1
    s64, o64 = scale.astype(F64), offset.astype(F64)
    dy = rng.standard_normal(img.shape)

    def forward(x, sc, off, training):
        if training:
            m, v = x.reshape(-1, 3).mean(axis=0), x.reshape(-1, 3).var(axis=0)
        else:
            m, v = mean.astype(F64), var.astype(F64)
        return (x - m) / np.sqrt(v + eps) * sc + off, m, v

    for training in (True, False):
        _, m, v = forward(x64, s64, o64, training)
        inv = 1 / np.sqrt(v + eps)
        xhat = (x64 - m) * inv
        sum_g = dy.reshape(-1, 3).sum(axis=0)
        sum_gx = (dy * xhat).reshape(-1, 3).sum(axis=0)
        nn = x64.size // 3
        d = dy - (sum_g / nn + xhat * sum_gx / nn if training else 0)
        dx = s64 * inv * d
        h = 1e-6
        for idx in [(0, 1, 2, 0), (1, 4, 5, 2), (0, 0, 0, 1)]:
            xp, xm = x64.copy(), x64.copy()
            xp[idx] += h
            xm[idx] -= h
            num = ((forward(xp, s64, o64, training)[0] * dy).sum()
                   - (forward(xm, s64, o64, training)[0] * dy).sum()) / (2 * h)
            assert abs(num - dx[idx]) < 1e-6 * max(1, abs(num)), (idx, num, dx[idx])
        for j in range(3):
            sp, sm = s64.copy(), s64.copy()
            sp[j] += h
            sm[j] -= h
            num = ((forward(x64, sp, o64, training)[0] * dy).sum()
                   - (forward(x64, sm, o64, training)[0] * dy).sum()) / (2 * h)
            assert abs(num - sum_gx[j]) < 1e-6 * max(1, abs(num)), (j, num)
        c.add("batchnormgrad_" + ("training" if training else "inference"),
              "FusedBatchNormGrad", [dy, x64, s64, m, v],
              [dx, sum_gx, sum_g, np.zeros(0), np.zeros(0)],
              {"T": F64, "epsilon": eps, "is_training": training}, rtol=1e-10)

    # Matrices.
    a = (rng.randint(-9, 9, size=(2, 1, 3, 4)) / 4.0).astype(F64)
    b = (rng.randint(-9, 9, size=(3, 4, 2)) / 4.0).astype(F64)
    c.add("batchmatmulv2_broadcast", "BatchMatMulV2", [a, b], [exact.matmul(a, b)], {"T": F64},
          rtol=1e-12)
    c.add("batchmatmul_adj", "BatchMatMul",
          [np.swapaxes(a[:, 0], -1, -2).astype(F32), b[:2].astype(F32)],
          [exact.matmul(a[:, 0], b[:2]).astype(F32)], {"T": F32, "adj_x": True}, rtol=1e-6)
    sq = np.array([[[4.0, 7.0], [2.0, 6.0]], [[1.0, 2.0], [3.0, 5.0]]], F64)
    c.add("matrixinverse", "MatrixInverse", [sq], [exact.inv(sq)],
          {"T": F64}, rtol=1e-12)
    c.add("matrixinverse_adjoint", "MatrixInverse", [sq.astype(F32)],
          [exact.inv(np.swapaxes(sq, -1, -2)).astype(F32)],
          {"T": F32, "adjoint": True}, rtol=1e-5)
    c.add("matrixinverse_singular", "MatrixInverse",
          [np.array([[1.0, 2.0], [2.0, 4.0]], F64)], attrs={"T": F64},
          error="invalid_argument")
    m3 = (rng.randint(-5, 5, size=(4, 3, 3))).astype(F64)
    c.add("matrixdeterminant", "MatrixDeterminant", [m3], [exact.det(m3)],
          {"T": F64}, rtol=1e-9)

    # CheckNumerics.
    c.add("checknumerics_ok", "CheckNumerics", [x], [x], {"T": F32})
    c.add("checknumerics_nan", "CheckNumerics",
          [np.array([1.0, np.nan, np.inf], F32)],
          attrs={"T": F32, "message": "after_layer_3"}, error="invalid_argument")

    add_random_cases(c)
    add_model_op_cases(c)


def depthwise(x, f, strides, padding, dilations=(1, 1)):
    """DepthwiseConv2dNative in float64: channel c of x against f[:, :, c, j]
    gives output channel c * m + j."""
    b, h, w, ch = x.shape
    kh, kw, _, m = f.shape
    oh, ph = window(h, kh, strides[0], dilations[0], padding)
    ow, pw = window(w, kw, strides[1], dilations[1], padding)
    out = np.zeros((b, oh, ow, ch, m))
    for y in range(oh):
        for xx in range(ow):
            for ky in range(kh):
                for kx in range(kw):
                    iy = y * strides[0] - ph + ky * dilations[0]
                    ix = xx * strides[1] - pw + kx * dilations[1]
                    if 0 <= iy < h and 0 <= ix < w:
                        out[:, y, xx] += (x[:, iy, ix, :, None].astype(F64)
                                          * f[ky, kx].astype(F64))
    return out.reshape(b, oh, ow, ch * m)


def depthwise_grads(x, f, dy, strides, padding, dilations=(1, 1)):
    """DepthwiseConv2dNative's gradients with respect to x and f, in float64:
    the forward is linear in each, so each gradient is the forward's
    transpose applied to dy, found one unit vector at a time."""
    dx = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        e = np.zeros(x.shape)
        e[idx] = 1
        dx[idx] = (depthwise(e, f, strides, padding, dilations) * dy).sum()
    df = np.zeros(f.shape)
    for idx in np.ndindex(*f.shape):
        e = np.zeros(f.shape)
        e[idx] = 1
        df[idx] = (depthwise(x, e, strides, padding, dilations) * dy).sum()
    return dx, df


def add_model_op_cases(c):
    """The ops Keras models frozen by TensorFlow use beyond the rest:
    SquaredDifference, FusedBatchNormV3 and its gradient,
    DepthwiseConv2dNative and its gradients. Multiples of 1/4 with short
    sums: exact whatever the order."""
    rng = np.random.RandomState(54)
    a = (rng.randint(-12, 12, size=(3, 4)) / 4.0).astype(F32)
    row = (rng.randint(-12, 12, size=(4,)) / 4.0).astype(F32)
    c.add("squareddifference_broadcast", "SquaredDifference", [a, row],
          [(a - row) * (a - row)], {"T": F32})
    ia = rng.randint(-50, 50, size=(5,)).astype(I32)
    ib = rng.randint(-50, 50, size=(5,)).astype(I32)
    c.add("squareddifference_int32", "SquaredDifference", [ia, ib],
          [(ia - ib) * (ia - ib)], {"T": I32})

    # SpaceToBatchND / BatchToSpaceND by TensorFlow's own description:
    # pad, reshape to [batch, d1 / b1, b1, ..., rest], move the block axes
    # to the front, merge them into the batch.
    def space_to_batch(x, block, pads):
        m = len(block)
        x = np.pad(x, [(0, 0)] + [tuple(p) for p in pads]
                   + [(0, 0)] * (x.ndim - 1 - m))
        shape = [x.shape[0]]
        for j in range(m):
            shape += [x.shape[1 + j] // block[j], block[j]]
        x = x.reshape(shape + list(x.shape[1 + m:]))
        order = [2 + 2 * j for j in range(m)] + [0] + [1 + 2 * j for j in range(m)]
        order += list(range(1 + 2 * m, x.ndim))
        x = x.transpose(order)
        return x.reshape([-1] + list(x.shape[1 + m:]))

    def batch_to_space(x, block, crops):
        m = len(block)
        batch = x.shape[0] // int(np.prod(block))
        x = x.reshape(list(block) + [batch] + list(x.shape[1:]))
        order = [m]
        for j in range(m):
            order += [m + 1 + j, j]
        order += list(range(2 * m + 1, x.ndim))
        x = x.transpose(order)
        shape = [batch] + [x.shape[1 + 2 * j] * block[j] for j in range(m)]
        x = x.reshape(shape + list(x.shape[1 + 2 * m:]))
        index = [slice(None)] + [slice(c[0], x.shape[1 + j] - c[1])
                                 for j, c in enumerate(crops)]
        return x[tuple(index)]

    for name, shape, block, edges in (("2d", (2, 4, 5, 3), [2, 3], [[1, 1], [0, 1]]),
                                      ("1d", (3, 6, 2), [3], [[0, 0]]),
                                      ("inner", (1, 4, 4), [2, 2], [[0, 0], [2, 0]])):
        x = rng.randint(-8, 8, size=shape) / 4.0
        b, e = np.array(block, I32), np.array(edges, I32)
        y = space_to_batch(x, block, edges)
        for t in (F32, I32):
            c.add("spacetobatchnd_%s_%s" % (name, np.dtype(t).name),
                  "SpaceToBatchND", [(x * 4).astype(t) if t == I32 else x.astype(t), b, e],
                  [(y * 4).astype(t) if t == I32 else y.astype(t)], {"T": t})
        back = batch_to_space(y, block, edges)
        assert np.array_equal(back, x)
        c.add("batchtospacend_" + name, "BatchToSpaceND",
              [y.astype(F32), b, e], [back.astype(F32)], {"T": F32})
    c.add("spacetobatchnd_not_a_multiple", "SpaceToBatchND",
          [np.zeros((1, 5, 2), F32), np.array([2], I32), np.array([[0, 0]], I32)],
          attrs={"T": F32}, error="invalid_argument")

    # Conv3D, MaxPool3D, AvgPool3D and their gradients, by the definition
    # in float64 (NDHWC; the window along each axis as window() plans it).
    def taps3(shape, k, strides, padding, dilations=(1, 1, 1)):
        """(output index, tap index, input index) of every in-volume tap."""
        plans = [window(shape[1 + d], k[d], strides[d], dilations[d], padding)
                 for d in range(3)]
        out = []
        for o in np.ndindex(*[p[0] for p in plans]):
            for t in np.ndindex(*k):
                i = [o[d] * strides[d] - plans[d][1] + t[d] * dilations[d]
                     for d in range(3)]
                if all(0 <= i[d] < shape[1 + d] for d in range(3)):
                    out.append((o, t, tuple(i)))
        return [p[0] for p in plans], out

    vol = rng.randint(-8, 8, size=(2, 4, 5, 3, 2)) / 4.0
    for name, k, strides, padding, dil in (("same", (2, 3, 2), (1, 2, 1), "SAME", (1, 1, 1)),
                                           ("valid_dilated", (2, 2, 2), (1, 1, 1), "VALID", (2, 1, 1))):
        f = rng.randint(-8, 8, size=k + (2, 3)) / 4.0
        dims, taps = taps3(vol.shape, k, strides, padding, dil)
        y = np.zeros([2] + dims + [3])
        for o, t, i in taps:
            y[(slice(None),) + o] += vol[(slice(None),) + i] @ f[t]
        g = rng.randint(-8, 8, size=y.shape) / 4.0
        dx = np.zeros(vol.shape)
        df = np.zeros(f.shape)
        for o, t, i in taps:
            dx[(slice(None),) + i] += g[(slice(None),) + o] @ f[t].T
            df[t] += vol[(slice(None),) + i].T @ g[(slice(None),) + o]
        attrs = {"strides": [1] + list(strides) + [1], "padding": padding,
                 "dilations": [1] + list(dil) + [1]}
        for t in (F32, F64):
            tag = "%s_%s" % (name, np.dtype(t).name)
            c.add("conv3d_" + tag, "Conv3D", [vol.astype(t), f.astype(t)],
                  [y.astype(t)], dict(attrs, T=t))
            c.add("conv3dbackpropinputv2_" + tag, "Conv3DBackpropInputV2",
                  [np.array(vol.shape, I32), f.astype(t), g.astype(t)],
                  [dx.astype(t)], dict(attrs, T=t))
            c.add("conv3dbackpropfilterv2_" + tag, "Conv3DBackpropFilterV2",
                  [vol.astype(t), np.array(f.shape, I32), g.astype(t)],
                  [df.astype(t)], dict(attrs, T=t))
    for name, k, strides, padding in (("same", (2, 2, 2), (2, 2, 1), "SAME"),
                                      ("valid", (3, 2, 2), (1, 2, 1), "VALID")):
        dims, taps = taps3(vol.shape, k, strides, padding)
        big = np.full([2] + dims + [2], -np.inf)
        first = {}
        total = np.zeros([2] + dims + [2])
        count = np.zeros(dims)
        for o, t, i in taps:
            v = vol[(slice(None),) + i]
            for n in range(2):
                for ch in range(2):
                    if v[n, ch] > big[(n,) + o + (ch,)]:
                        big[(n,) + o + (ch,)] = v[n, ch]
                        first[(n,) + o + (ch,)] = i
            total[(slice(None),) + o] += v
            count[o] += 1
        avg = total / count[None, :, :, :, None]
        g = rng.randint(-8, 8, size=big.shape) / 4.0
        dmax = np.zeros(vol.shape)
        for key, i in first.items():
            dmax[(key[0],) + i + (key[-1],)] += g[key]
        davg = np.zeros(vol.shape)
        for o, t, i in taps:
            davg[(slice(None),) + i] += g[(slice(None),) + o] / count[o]
        attrs = {"ksize": [1] + list(k) + [1], "strides": [1] + list(strides) + [1],
                 "padding": padding}
        for t in (F32, F64):
            tag = "%s_%s" % (name, np.dtype(t).name)
            c.add("maxpool3d_" + tag, "MaxPool3D", [vol.astype(t)], [big.astype(t)],
                  dict(attrs, T=t))
            c.add("avgpool3d_" + tag, "AvgPool3D", [vol.astype(t)], [avg.astype(t)],
                  dict(attrs, T=t), rtol=1e-7)
            c.add("maxpool3dgrad_" + tag, "MaxPool3DGrad",
                  [vol.astype(t), big.astype(t), g.astype(t)], [dmax.astype(t)],
                  dict(attrs, T=t, TInput=t))
            c.add("avgpool3dgrad_" + tag, "AvgPool3DGrad",
                  [np.array(vol.shape, I32), g.astype(t)], [davg.astype(t)],
                  dict(attrs, T=t), rtol=1e-7)
    c.add("conv3d_channels_differ", "Conv3D",
          [vol.astype(F32), np.ones((2, 2, 2, 3, 1), F32)],
          attrs={"T": F32, "strides": [1, 1, 1, 1, 1], "padding": "SAME"},
          error="invalid_argument")

    # The gradient helpers of Rsqrt and Sqrt, from their outputs y.
    yv = np.array([0.25, 0.5, 1.0, 2.0, 4.0])
    gv = np.array([1.0, -2.0, 0.5, 4.0, -0.25])
    for t in (F32, F64):
        tag = np.dtype(t).name
        c.add("rsqrtgrad_" + tag, "RsqrtGrad", [yv.astype(t), gv.astype(t)],
              [(gv * -0.5 * yv ** 3).astype(t)], {"T": t})
        c.add("sqrtgrad_" + tag, "SqrtGrad", [yv.astype(t), gv.astype(t)],
              [(gv * 0.5 / yv).astype(t)], {"T": t})

    # ELU's and SELU's gradients, from their outputs.
    out = np.array([-0.75, -0.5, 0.0, 0.5, 2.0])
    for t in (F32, F64):
        tag = np.dtype(t).name
        c.add("elugrad_" + tag, "EluGrad", [gv.astype(t), out.astype(t)],
              [np.where(out < 0, gv * (out + 1), gv).astype(t)], {"T": t})
        c.add("selugrad_" + tag, "SeluGrad", [gv.astype(t), out.astype(t)],
              [np.where(out < 0, gv * (out + SELU_SCALE * SELU_ALPHA),
                        gv * SELU_SCALE).astype(t)], {"T": t}, rtol=1e-7)

    # LeakyReLU, softsign, DivNoNan (0 where y is 0) and the gradients.
    v = np.array([-4.0, -1.5, -0.25, 0.0, 0.5, 3.0])
    g = np.array([1.0, -2.0, 0.5, 4.0, -0.25, 2.0])
    for t in (F32, F64):
        tag = np.dtype(t).name
        c.add("leakyrelu_" + tag, "LeakyRelu", [v.astype(t)],
              [np.where(v > 0, v, 0.25 * v).astype(t)],
              {"T": t, "alpha": 0.25})
        c.add("leakyrelu_default_alpha_" + tag, "LeakyRelu", [v.astype(t)],
              [np.where(v > 0, v, t(0.2) * v.astype(t)).astype(t)], {"T": t},
              rtol=1e-7)
        c.add("leakyrelugrad_" + tag, "LeakyReluGrad", [g.astype(t), v.astype(t)],
              [np.where(v > 0, g, 0.25 * g).astype(t)], {"T": t, "alpha": 0.25})
        c.add("softsign_" + tag, "Softsign", [v.astype(t)],
              [(v / (1 + np.abs(v))).astype(t)], {"T": t}, rtol=1e-7)
        c.add("softsigngrad_" + tag, "SoftsignGrad", [g.astype(t), v.astype(t)],
              [(g / (1 + np.abs(v)) ** 2).astype(t)], {"T": t}, rtol=1e-7)
        num = np.array([[1.0, -2.0, 0.0], [3.0, 0.5, -1.0]])
        den = np.array([2.0, 0.0, -0.5])
        c.add("divnonan_" + tag, "DivNoNan", [num.astype(t), den.astype(t)],
              [np.where(den == 0, 0.0, num / np.where(den == 0, 1, den)).astype(t)],
              {"T": t})

    # Resizing (UpSampling2D, Resizing): TensorFlow's coordinate rules
    # written out in float64; sizes whose weights are dyadic (exact).
    def axis(n_in, n_out, corners, half):
        scale = (n_in - 1) / (n_out - 1) if corners and n_out > 1 else n_in / n_out
        at = np.arange(n_out) + (0.5 if half else 0.0)
        return scale, at * scale - (0.5 if half else 0.0)

    def nearest(n_in, n_out, corners, half):
        scale, _ = axis(n_in, n_out, corners, half)
        at = (np.arange(n_out) + (0.5 if half else 0.0)) * scale
        k = np.floor(at + 0.5) if corners else np.floor(at)
        return np.clip(k, 0, n_in - 1).astype(int)

    def bilinear(img, oh, ow, corners, half):
        def taps(n_in, n_out):
            _, at = axis(n_in, n_out, corners, half)
            f = np.floor(at)
            return (np.maximum(f, 0).astype(int),
                    np.minimum(np.ceil(at), n_in - 1).astype(int), at - f)
        y0, y1, wy = taps(img.shape[1], oh)
        x0, x1, wx = taps(img.shape[2], ow)
        top = img[:, y0][:, :, x0] + (img[:, y0][:, :, x1] - img[:, y0][:, :, x0]) * wx[None, None, :, None]
        bot = img[:, y1][:, :, x0] + (img[:, y1][:, :, x1] - img[:, y1][:, :, x0]) * wx[None, None, :, None]
        return top + (bot - top) * wy[None, :, None, None], (y0, y1, wy, x0, x1, wx)

    pic = rng.randint(-8, 8, size=(2, 3, 4, 2)) / 4.0
    for name, (oh, ow), corners, half in (("double_half_pixel", (6, 8), False, True),
                                          ("double_legacy", (6, 8), False, False),
                                          ("corners", (5, 7), True, False),
                                          ("shrink_half_pixel", (3, 2), False, True)):
        attrs = {"align_corners": corners, "half_pixel_centers": half}
        size = np.array([oh, ow], I32)
        want, (y0, y1, wy, x0, x1, wx) = bilinear(pic, oh, ow, corners, half)
        for t in (F32, F64):
            c.add("resizebilinear_%s_%s" % (name, np.dtype(t).name),
                  "ResizeBilinear", [pic.astype(t), size], [want.astype(F32)],
                  dict(attrs, T=t))
        ny, nx = nearest(3, oh, corners, half), nearest(4, ow, corners, half)
        c.add("resizenearest_" + name, "ResizeNearestNeighbor",
              [pic.astype(F32), size], [pic[:, ny][:, :, nx].astype(F32)],
              dict(attrs, T=F32))
        g = rng.randint(-8, 8, size=(2, oh, ow, 2)) / 4.0
        dn = np.zeros(pic.shape)
        db = np.zeros(pic.shape)
        for oy in range(oh):
            for ox in range(ow):
                dn[:, ny[oy], nx[ox]] += g[:, oy, ox]
                for iy, wgt_y in ((y0[oy], 1 - wy[oy]), (y1[oy], wy[oy])):
                    for ix, wgt_x in ((x0[ox], 1 - wx[ox]), (x1[ox], wx[ox])):
                        db[:, iy, ix] += g[:, oy, ox] * wgt_y * wgt_x
        c.add("resizenearestgrad_" + name, "ResizeNearestNeighborGrad",
              [g.astype(F32), np.array([3, 4], I32)], [dn.astype(F32)],
              dict(attrs, T=F32))
        c.add("resizebilineargrad_" + name, "ResizeBilinearGrad",
              [g.astype(F32), pic.astype(F64)], [db], dict(attrs, T=F64),
              rtol=1e-7)
    c.add("resizebilinear_both_rules", "ResizeBilinear",
          [pic.astype(F32), np.array([4, 4], I32)],
          attrs={"T": F32, "align_corners": True, "half_pixel_centers": True},
          error="invalid_argument")

    # FusedBatchNormV3: FusedBatchNorm's results and an empty sixth output.
    img = (rng.randint(-8, 8, size=(2, 3, 4, 3)) / 4.0).astype(F32)
    scale = np.array([1.0, 0.5, 2.0], F32)
    offset = np.array([0.0, 1.0, -1.0], F32)
    mean = np.array([0.5, -0.5, 0.0], F32)
    var = np.array([1.0, 4.0, 0.25], F32)
    eps = 0.001
    empty = np.zeros(0, F32)
    flat = img.reshape(-1, 3).astype(F64)
    bm, bv = flat.mean(axis=0), flat.var(axis=0)
    n = flat.shape[0]
    y = (img - bm) / np.sqrt(bv + eps) * scale + offset
    v3 = {"T": F32, "U": F32, "epsilon": eps}
    c.add("batchnormv3_training", "FusedBatchNormV3",
          [img, scale, offset, mean, var],
          [y.astype(F32), bm.astype(F32), (bv * n / (n - 1)).astype(F32),
           bm.astype(F32), bv.astype(F32), empty], v3, rtol=2e-6)
    yi = (img - mean) / np.sqrt(var.astype(F64) + eps) * scale + offset
    c.add("batchnormv3_inference", "FusedBatchNormV3",
          [img, scale, offset, mean, var],
          [yi.astype(F32), mean, var, mean, var, empty],
          dict(v3, is_training=False), rtol=2e-6)
    # NCHW (what Keras' LayerNormalization writes): the same numbers with
    # the channels second.
    nchw = np.ascontiguousarray(img.transpose(0, 3, 1, 2))
    c.add("batchnormv3_nchw_training", "FusedBatchNormV3",
          [nchw, scale, offset, mean, var],
          [np.ascontiguousarray(y.astype(F32).transpose(0, 3, 1, 2)),
           bm.astype(F32), (bv * n / (n - 1)).astype(F32), bm.astype(F32),
           bv.astype(F32), empty], dict(v3, data_format="NCHW"), rtol=2e-6)
    c.add("batchnormv3_nchw_inference", "FusedBatchNormV3",
          [nchw, scale, offset, mean, var],
          [np.ascontiguousarray(yi.astype(F32).transpose(0, 3, 1, 2)), mean,
           var, mean, var, empty],
          dict(v3, data_format="NCHW", is_training=False), rtol=2e-6)
    c.add("batchnormv3_ndhwc", "FusedBatchNormV3",
          [img, scale, offset, mean, var],
          attrs=dict(v3, data_format="NDHWC"), error="unimplemented")
    # Its gradient, from the statistics the forward used (as
    # batchnormgrad_* above, whose closed form is checked there).
    dy = (rng.randint(-8, 8, size=img.shape) / 4.0)
    for training in (True, False):
        m, v = (bm, bv) if training else (mean.astype(F64), var.astype(F64))
        inv = 1 / np.sqrt(v + eps)
        xhat = (img - m) * inv
        sum_g = dy.reshape(-1, 3).sum(axis=0)
        sum_gx = (dy * xhat).reshape(-1, 3).sum(axis=0)
        d = dy - (sum_g / n + xhat * sum_gx / n if training else 0)
        tag = "training" if training else "inference"
        dx = (scale * inv * d).astype(F32)
        c.add("batchnormgradv3_" + tag, "FusedBatchNormGradV3",
              [dy.astype(F32), img, scale, m.astype(F32), v.astype(F32), empty],
              [dx, sum_gx.astype(F32), sum_g.astype(F32), empty, empty],
              dict(v3, is_training=training), rtol=1e-5)
        to_nchw = lambda a: np.ascontiguousarray(a.transpose(0, 3, 1, 2))
        c.add("batchnormgradv3_nchw_" + tag, "FusedBatchNormGradV3",
              [to_nchw(dy.astype(F32)), to_nchw(img), scale, m.astype(F32),
               v.astype(F32), empty],
              [to_nchw(dx), sum_gx.astype(F32), sum_g.astype(F32), empty,
               empty], dict(v3, is_training=training, data_format="NCHW"),
              rtol=1e-5)

    # DepthwiseConv2dNative: SAME and VALID, strides, a multiplier of 2,
    # dilations; its gradients in float64.
    x = (rng.randint(-8, 8, size=(2, 5, 6, 3)) / 4.0)
    for name, k, m, strides, padding, dil in (
            ("same", (3, 3), 1, (1, 1), "SAME", (1, 1)),
            ("same_stride2", (3, 3), 1, (2, 2), "SAME", (1, 1)),
            ("valid_multiplier2", (2, 3), 2, (1, 2), "VALID", (1, 1)),
            ("same_dilated", (2, 2), 1, (1, 1), "SAME", (2, 1))):
        f = rng.randint(-8, 8, size=k + (3, m)) / 4.0
        attrs = {"strides": [1, strides[0], strides[1], 1], "padding": padding,
                 "dilations": [1, dil[0], dil[1], 1]}
        out = depthwise(x, f, strides, padding, dil)
        for t in (F32, F64):
            c.add("depthwise_%s_%s" % (name, np.dtype(t).name),
                  "DepthwiseConv2dNative", [x.astype(t), f.astype(t)],
                  [out.astype(t)], dict(attrs, T=t))
        g = rng.randint(-8, 8, size=out.shape) / 4.0
        dx, df = depthwise_grads(x, f, g, strides, padding, dil)
        for t in (F32, F64):
            tag = "%s_%s" % (name, np.dtype(t).name)
            c.add("depthwisebackpropinput_" + tag,
                  "DepthwiseConv2dNativeBackpropInput",
                  [np.array(x.shape, I32), f.astype(t), g.astype(t)],
                  [dx.astype(t)], dict(attrs, T=t))
            c.add("depthwisebackpropfilter_" + tag,
                  "DepthwiseConv2dNativeBackpropFilter",
                  [x.astype(t), np.array(f.shape, I32), g.astype(t)],
                  [df.astype(t)], dict(attrs, T=t))
    # Einsum: Keras' MultiHeadAttention and EinsumDense equations, NumPy's
    # forms (implicit output, ellipses that broadcast, one operand), and
    # what is refused. Exact dyadic values.
    def q(*shape):
        return rng.randint(-8, 8, size=shape) / 4.0
    for name, equation, shapes in (
            ("projection", "abc,cde->abde", [(2, 3, 4), (4, 2, 3)]),
            ("scores", "aecd,abcd->acbe", [(2, 5, 2, 3), (2, 4, 2, 3)]),
            ("attend", "acbe,aecd->abcd", [(2, 2, 4, 5), (2, 5, 2, 3)]),
            ("output", "abcd,cde->abe", [(2, 4, 2, 3), (2, 3, 5)]),
            ("batch_matmul", "bqd,bkd->bqk", [(3, 2, 4), (3, 5, 4)]),
            ("broadcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
            ("implicit", "ij,jk", [(3, 4), (4, 2)]),
            ("dot", "ij,ij->", [(3, 4), (3, 4)]),
            ("outer", "i,j->ij", [(3,), (4,)]),
            ("summed_alone", "ijk,jl->il", [(2, 3, 4), (3, 5)]),
            ("transpose", "ijk->kij", [(2, 3, 4)]),
            ("sum", "ijk->j", [(2, 3, 4)])):
        ops = [q(*sh) for sh in shapes]
        want = np.einsum(equation, *ops)
        for t in (F32, F64):
            c.add("einsum_%s_%s" % (name, np.dtype(t).name), "Einsum",
                  [o.astype(t) for o in ops], [np.asarray(want).astype(t)],
                  {"T": t, "N": len(ops), "equation": equation})
    c.add("einsum_diagonal", "Einsum", [q(3, 3).astype(F32)],
          attrs={"T": F32, "N": 1, "equation": "ii->i"}, error="unimplemented")
    c.add("einsum_sizes_differ", "Einsum",
          [q(3, 4).astype(F32), q(5, 2).astype(F32)],
          attrs={"T": F32, "N": 2, "equation": "ij,jk->ik"},
          error="invalid_argument")
    c.add("einsum_unknown_label", "Einsum",
          [q(3, 4).astype(F32), q(4, 2).astype(F32)],
          attrs={"T": F32, "N": 2, "equation": "ij,jk->iz"},
          error="invalid_argument")
    c.add("depthwise_channels_differ", "DepthwiseConv2dNative",
          [x.astype(F32), np.ones((3, 3, 2, 1), F32)],
          attrs={"T": F32, "strides": [1, 1, 1, 1], "padding": "SAME"},
          error="invalid_argument")


def add_random_cases(c):
    seed, seed2 = 87654321, 42
    shape = np.array([2, 3], I32)
    s = Stream(seed, seed2)
    c.add("randomuniform_float32", "RandomUniform", [shape],
          [np.array([s.uniform32() for _ in range(6)], F32).reshape(2, 3)],
          {"T": I32, "dtype": F32, "seed": seed, "seed2": seed2})
    s = Stream(seed, seed2)
    c.add("randomuniform_float64", "RandomUniform", [shape],
          [np.array([s.uniform() for _ in range(6)]).reshape(2, 3)],
          {"T": I32, "dtype": F64, "seed": seed, "seed2": seed2})
    s = Stream(7, 0)
    c.add("randomstandardnormal", "RandomStandardNormal", [np.array([5], I64)],
          [np.array([s.normal() for _ in range(5)])],
          {"T": I64, "dtype": F64, "seed": 7}, rtol=1e-12)
    s = Stream(7, 0)
    vals = []
    while len(vals) < 9:
        v = s.normal()
        if abs(v) <= 2.0:
            vals.append(v)
    c.add("truncatednormal", "TruncatedNormal", [np.array([3, 3], I32)],
          [np.array(vals, F32).reshape(3, 3)],
          {"T": I32, "dtype": F32, "seed": 7}, rtol=1e-6)
    s = Stream(1, 2)
    c.add("randomuniformint", "RandomUniformInt",
          [np.array([8], I32), np.array(-5, I64), np.array(6, I64)],
          [np.array([-5 + s.below(11) for _ in range(8)], I64)],
          {"T": I32, "Tout": I64, "seed": 1, "seed2": 2})
    c.add("randomuniformint_empty_range", "RandomUniformInt",
          [np.array([2], I32), np.array(3, I32), np.array(3, I32)],
          attrs={"T": I32, "Tout": I32, "seed": 1}, error="invalid_argument")
    logits = np.array([[0.0, 1.0, 2.0], [5.0, -5.0, 0.0]], F64)
    s = Stream(9, 9)
    out = []
    for row in logits:
        cdf = np.cumsum(exact.exp(row - row.max()))
        out.append([min(int(np.searchsorted(cdf, s.uniform() * cdf[-1], side="right")), 2)
                    for _ in range(6)])
    c.add("multinomial", "Multinomial", [logits, np.array(6, I32)],
          [np.array(out, I64)], {"T": F64, "seed": 9, "seed2": 9})
    s = Stream(5, 0)
    order = list(range(6))
    for i in range(5, 0, -1):
        j = s.below(i + 1)
        order[i], order[j] = order[j], order[i]
    rows = np.arange(12, dtype=I32).reshape(6, 2)
    c.add("randomshuffle", "RandomShuffle", [rows], [rows[order]],
          {"T": I32, "seed": 5})
    s = Stream(11, 0)
    xs = np.arange(1, 9, dtype=F32)
    mask = np.array([0.0 if s.uniform() < 0.25 else 1 / 0.75 for _ in xs], F32)
    c.add("dropout", "Dropout", [xs], [xs * mask, mask],
          {"T": F32, "rate": 0.25, "seed": 11}, rtol=1e-7)
