"""Math op cases: element-wise ops with integer semantics, AddN, arg and
logical reductions, float16 arithmetic and integer overflow edges."""
import numpy as np

import exact

F32, F64, I32, I64 = np.float32, np.float64, np.int32, np.int64


def trunc_div(x, y):
    q = np.abs(x) // np.abs(y)
    return (q * np.sign(x) * np.sign(y)).astype(x.dtype)


def add_cases(c):
    fx = [-7.5, -2.0, 0.0, 3.25, 7.0]
    fy = [-2.0, 0.75, 3.0]
    ix = [-7, -6, -1, 0, 5, 7]
    iy = [-3, 2, 4]
    for t in (F32, F64, I32, I64):
        integer = t in (I32, I64)
        x = np.array(ix if integer else fx, dtype=t).reshape(-1, 1)
        y = np.array(iy if integer else fy, dtype=t)
        tag = np.dtype(t).name
        c.add("floordiv_" + tag, "FloorDiv", [x, y],
              [np.floor_divide(x, y).astype(t)], {"T": t})
        c.add("floormod_" + tag, "FloorMod", [x, y],
              [np.mod(x, y).astype(t)], {"T": t})
        c.add("mod_" + tag, "Mod", [x, y], [np.fmod(x, y).astype(t)],
              {"T": t})
        if integer:
            c.add("div_" + tag, "Div", [x, y], [trunc_div(x, y)], {"T": t})
            p = np.array([0, 1, 2, 5], dtype=t)
            b = np.array([-3, 2, 7], dtype=t).reshape(3, 1)
            c.add("pow_" + tag, "Pow", [b, p], [exact.power(b, p)], {"T": t})
            zero = np.array([1, 0], dtype=t)
            for op in ("Div", "FloorDiv", "Mod", "FloorMod"):
                c.add("%s_by_zero_%s" % (op.lower(), tag), op,
                      [np.array([4, 4], dtype=t), zero], attrs={"T": t},
                      error="invalid_argument")
            c.add("pow_negative_" + tag, "Pow",
                  [np.array([2], dtype=t), np.array([-1], dtype=t)],
                  attrs={"T": t}, error="invalid_argument")
            # INT_MIN / -1 wraps instead of trapping.
            lo = np.iinfo(t).min
            c.add("div_min_by_minus_one_" + tag, "Div",
                  [np.array([lo, 7], dtype=t), np.array([-1, -1], dtype=t)],
                  [np.array([lo, -7], dtype=t)], {"T": t})
            # Overflow wraps around, as in numpy and TensorFlow.
            hi = np.iinfo(t).max
            with np.errstate(all="ignore"):
                c.add("add_overflow_" + tag, "Add",
                      [np.array([hi, lo], dtype=t), np.array([1, -1], dtype=t)],
                      [np.array([lo, hi], dtype=t)], {"T": t})
                c.add("mul_overflow_" + tag, "Mul",
                      [np.array([hi, 65536], dtype=t),
                       np.array([2, 65536], dtype=t)],
                      [np.array([hi, 65536], dtype=t) * np.array([2, 65536], dtype=t)],
                      {"T": t})

    # Broadcasting corner cases: scalars, empty tensors, rank 3 against 2.
    a = np.arange(6, dtype=F32).reshape(2, 1, 3)
    b = np.array([[1.5], [-2.0], [0.25], [4.0]], dtype=F32)
    c.add("add_rank3_rank2", "Add", [a, b], [a + b], {"T": F32})
    c.add("addv2_rank3_rank2", "AddV2", [a, b], [a + b], {"T": F32})
    c.add("realdiv_rank3_rank2", "RealDiv", [a, b], [a / b], {"T": F32})
    c.add("mul_scalar_scalar", "Mul", [np.array(3.0, F64), np.array(-0.5, F64)],
          [np.array(-1.5, F64)], {"T": F64})
    e = np.zeros((0, 3), dtype=F32)
    r = np.array([1.0, 2.0, 3.0], dtype=F32)
    c.add("sub_empty", "Sub", [e, r], [e - r], {"T": F32})
    c.add("maximum_empty_scalar", "Maximum", [e, np.array(1.0, F32)],
          [np.maximum(e, 1.0).astype(F32)], {"T": F32})
    c.add("add_bad_broadcast", "Add",
          [np.zeros((2, 3), F32), np.zeros((4,), F32)], attrs={"T": F32},
          error="invalid_argument")

    # float16: one rounding of the exact result, like numpy.
    h1 = np.array([0.1, 1000.0, 65000.0, -2.5, 6e-5], dtype=np.float16)
    h2 = np.array([0.2, 0.125, 1000.0, 3.0, 6e-5], dtype=np.float16)
    with np.errstate(all="ignore"):
        c.add("add_float16", "Add", [h1, h2], [h1 + h2], {"T": np.float16})
        c.add("mul_float16", "Mul", [h1, h2], [h1 * h2], {"T": np.float16})
    ma = (np.arange(12).reshape(3, 4) / 8.0).astype(np.float16)
    mb = (np.arange(8).reshape(4, 2) / 4.0 - 0.5).astype(np.float16)
    c.add("matmul_float16", "MatMul", [ma, mb],
          [exact.matmul(ma, mb).astype(np.float16)],
          {"T": np.float16}, rtol=1e-3)

    # AddN over lists of one and three tensors.
    rng = np.random.RandomState(11)
    xs = [rng.randint(-9, 9, size=(2, 3)).astype(F32) / 4 for _ in range(3)]
    c.add("addn_3_float32", "AddN", xs, [xs[0] + xs[1] + xs[2]],
          {"T": F32, "N": 3})
    ints = [np.array([[1, 2]], I64), np.array([[30, -40]], I64)]
    c.add("addn_2_int64", "AddN", ints, [ints[0] + ints[1]], {"T": I64, "N": 2})
    c.add("addn_1", "AddN", [xs[0]], [xs[0]], {"T": F32, "N": 1})
    c.add("addn_shape_mismatch", "AddN", [xs[0], xs[0][:, :2]],
          attrs={"T": F32, "N": 2}, error="invalid_argument")

    # ArgMax / ArgMin (ties resolve to the first index).
    m = np.array([[3, 1, 3, -2], [0, 5, 5, 9], [-1, -1, -4, 2]], dtype=F32)
    for t in (F32, I32):
        for op, fn in (("ArgMax", np.argmax), ("ArgMin", np.argmin)):
            for axis in (0, 1, -1):
                for out in (I32, I64):
                    c.add("%s_%s_axis%d_%s" % (op.lower(), np.dtype(t).name,
                                               axis, np.dtype(out).name),
                          op, [m.astype(t), np.array(axis, I32)],
                          [fn(m.astype(t), axis=axis).astype(out)],
                          {"T": t, "output_type": out})
    c.add("argmax_bad_axis", "ArgMax", [m, np.array(2, I32)],
          attrs={"T": F32}, error="invalid_argument")

    # All / Any, and reductions over empty tensors.
    bools = np.array([[True, False, True], [True, True, True]])
    for op, fn in (("All", np.all), ("Any", np.any)):
        for axes in ([0], [1], [0, 1], []):
            for keep in (False, True):
                c.add("%s_%s_k%d" % (op.lower(), "".join(map(str, axes)) or "none",
                                     keep),
                      op, [bools, np.array(axes, I32)],
                      [fn(bools, axis=tuple(axes), keepdims=keep)],
                      {"keep_dims": keep})
    # Leading axes reduced (rows combined) and a middle axis, for every
    # reducer, on shapes with size-1 dimensions mixed in.
    r = (np.random.RandomState(5).randint(-6, 7, size=(4, 1, 5, 3)) / 2.0).astype(F32)
    for op, fn in (("Sum", np.sum), ("Mean", np.mean), ("Max", np.max),
                   ("Min", np.min), ("Prod", np.prod)):
        for axes in ([0], [0, 1], [2], [1, 2]):
            c.add("%s_axes%s" % (op.lower(), "".join(map(str, axes))), op,
                  [r, np.array(axes, I32)],
                  [fn(r, axis=tuple(axes)).astype(F32)], {"T": F32}, rtol=1e-6)
    empty = np.zeros((0, 3), F32)
    c.add("sum_empty", "Sum", [empty, np.array([0], I32)],
          [np.zeros(3, F32)], {"T": F32})
    c.add("prod_empty", "Prod", [empty, np.array([0], I32)],
          [np.ones(3, F32)], {"T": F32})
    c.add("sum_bad_axis", "Sum", [empty, np.array([2], I32)],
          attrs={"T": F32}, error="invalid_argument")
