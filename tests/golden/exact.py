"""Expected values that come out bit for bit the same on every machine.

numpy's own results depend on the machine in two places: products and
linear algebra go through OpenBLAS, whose kernel (chosen by the CPU or by
OPENBLAS_CORETYPE) sums in its own order, and float32/float64 exp, log,
tanh, power, ... are dispatched at run time to SIMD code (AVX-512 SVML on
CPUs that have it) that differs from libm in the last bits. The generators
compute through this module instead:

- transcendental functions in long double (x87 code in glibc, never
  dispatched), rounded once to the input's float type;
- products as float64 sums over k in increasing order, each step one
  element-wise multiply and one add (IEEE-exact, whatever the SIMD width);
- inverse and determinant by Gaussian elimination with partial pivoting,
  written out with the same element-wise operations.

Element-wise +, -, *, / and sqrt are exactly rounded everywhere, and so
are numpy's reductions (a fixed pairwise order), so they need nothing.
"""
import numpy as np

LD = np.longdouble


def _float_type(x):
    return x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)


def _in_long_double(f):
    """f in long double, rounded to x's float type; on integer arrays
    (exact already) f as numpy computes it."""
    def apply(x, *more):
        x = np.asarray(x)
        if x.dtype.kind in "iu":
            return f(x, *more)
        args = [x.astype(LD)] + [np.asarray(m).astype(LD) for m in more]
        return f(*args).astype(_float_type(x))
    return apply


exp = _in_long_double(np.exp)
log = _in_long_double(np.log)
log1p = _in_long_double(np.log1p)
expm1 = _in_long_double(np.expm1)
tanh = _in_long_double(np.tanh)
power = _in_long_double(np.power)
sigmoid = _in_long_double(lambda x: 1 / (1 + np.exp(-x)))
# log(1 + e^x), without overflow for large x.
softplus = _in_long_double(
    lambda x: np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))))


def log_softmax(x):
    """x - logsumexp(x) over the last axis, in long double."""
    x = np.asarray(x)
    v = x.astype(LD)
    m = v.max(axis=-1, keepdims=True)
    out = v - m - np.log(np.exp(v - m).sum(axis=-1, keepdims=True))
    return out.astype(_float_type(x))


def matmul(a, b):
    """a @ b in float64 (batch dimensions broadcast), summed over k in
    increasing order; the caller rounds to the dtype it needs."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    out = a[..., :, 0:1] * b[..., 0:1, :]
    for k in range(1, a.shape[-1]):
        out = out + a[..., :, k:k + 1] * b[..., k:k + 1, :]
    return out


def _eliminate(m):
    """Gaussian elimination with partial pivoting of one square float64
    matrix: returns (the upper triangle, the number of row swaps)."""
    u = np.array(m, np.float64)
    n = u.shape[0]
    swaps = 0
    for col in range(n):
        p = col + int(np.argmax(np.abs(u[col:, col])))
        if p != col:
            u[[col, p]] = u[[p, col]]
            swaps += 1
        for r in range(col + 1, n):
            if u[col, col] != 0:
                u[r] = u[r] - (u[r, col] / u[col, col]) * u[col]
    return u, swaps


def det(m):
    """The determinant of each matrix of m (..., n, n), by elimination."""
    m = np.asarray(m, np.float64)
    flat = m.reshape((-1,) + m.shape[-2:])
    out = np.empty(flat.shape[0])
    for i, a in enumerate(flat):
        u, swaps = _eliminate(a)
        d = np.float64(-1.0 if swaps % 2 else 1.0)
        for k in range(u.shape[0]):
            d = d * u[k, k]
        out[i] = d
    return out.reshape(m.shape[:-2])


def inv(m):
    """The inverse of each matrix of m (..., n, n), by Gauss-Jordan
    elimination with partial pivoting, in float64."""
    m = np.asarray(m, np.float64)
    flat = m.reshape((-1,) + m.shape[-2:])
    out = np.empty_like(flat)
    for i, a in enumerate(flat):
        n = a.shape[0]
        w = np.concatenate([a, np.eye(n)], axis=1)
        for col in range(n):
            p = col + int(np.argmax(np.abs(w[col:, col])))
            if p != col:
                w[[col, p]] = w[[p, col]]
            w[col] = w[col] / w[col, col]
            for r in range(n):
                if r != col:
                    w[r] = w[r] - w[r, col] * w[col]
        out[i] = w[:, n:]
    return out.reshape(m.shape)
