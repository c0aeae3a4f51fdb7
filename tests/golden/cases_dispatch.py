"""Dispatch, segment, coordinate, broadcasting and scan op cases (what a
mixture of experts dispatches and combines with), and Erf/Erfc/Gelu: numpy's
indexing written out, with the error cases the kernels must report."""
from decimal import Decimal, localcontext

import numpy as np

F32, F64, I32, I64, B = np.float32, np.float64, np.int32, np.int64, np.bool_

# pi to 90 digits, for erf's series in Decimal.
PI = Decimal("3.14159265358979323846264338327950288419716939937510"
             "582097494459230781640628620899862803482534211706")


def _erf_decimal(x):
    """erf(x) by its Taylor series in 80-digit Decimal arithmetic: exact
    to far beyond float64 for |x| <= 6, and the same on every machine
    (no libm)."""
    with localcontext() as ctx:
        ctx.prec = 80
        x = Decimal(x)
        term, total, n = x, x, 0
        while True:
            n += 1
            term = -term * x * x / n
            step = term / (2 * n + 1)
            total += step
            if abs(step) < Decimal(10) ** -70:
                break
        return 2 * total / PI.sqrt()


def erf(x, complement=False):
    """erf (or erfc) of each element, rounded to x's type."""
    out = []
    for v in np.asarray(x, F64).ravel():
        e = _erf_decimal(float(v))
        out.append(float(1 - e if complement else e))
    return np.array(out, F64).reshape(np.shape(x)).astype(np.asarray(x).dtype)


def gelu(x):
    """0.5 x erfc(-x / sqrt(2)) of each element in 80-digit Decimal,
    rounded to x's type."""
    out = []
    for v in np.asarray(x, F64).ravel():
        with localcontext() as ctx:
            ctx.prec = 80
            d = Decimal(float(v))
            e = _erf_decimal(-d / Decimal(2).sqrt())
            out.append(float(Decimal("0.5") * d * (1 - e)))
    return np.array(out, F64).reshape(np.shape(x)).astype(np.asarray(x).dtype)


def i32(*v):
    return np.array(v, dtype=I32)


def scan(x, axis, product, exclusive, reverse):
    """Cumsum/Cumprod one element at a time, in scan order."""
    x = np.moveaxis(np.asarray(x), axis, 0)
    out = np.empty_like(x)
    acc = np.ones_like(x[0]) if product else np.zeros_like(x[0])
    order = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for j in order:
        if exclusive:
            out[j] = acc
        acc = acc * x[j] if product else acc + x[j]
        if not exclusive:
            out[j] = acc
    return np.moveaxis(out, 0, axis)


def add_cases(c):
    xi = np.arange(24, dtype=I64).reshape(2, 3, 4) * 3 - 20
    # Dispatch: rows to partitions, rows back by index, rows summed by
    # segment (a mixture of experts' dispatch and combine).
    rows = np.arange(12, dtype=F32).reshape(6, 2) * 0.5 - 1.25
    p = np.array([0, 2, 1, 0, 2, 2], I32)
    c.add("dynamicpartition", "DynamicPartition", [rows, p],
          [rows[p == k] for k in range(4)], {"T": F32, "num_partitions": 4})
    p2 = np.array([[1, 0, 1], [0, 0, 1]], I32)
    c.add("dynamicpartition_2d", "DynamicPartition", [xi[:, :, :2], p2],
          [xi[:, :, :2][p2 == k] for k in range(2)],
          {"T": I64, "num_partitions": 2})
    c.add("dynamicpartition_out_of_range", "DynamicPartition",
          [rows, np.array([0, 1, 2, 0, 1, 0], I32)],
          attrs={"T": F32, "num_partitions": 2}, error="invalid_argument")
    c.add("dynamicpartition_not_a_prefix", "DynamicPartition",
          [rows, np.zeros(5, I32)], attrs={"T": F32, "num_partitions": 2},
          error="invalid_argument")
    i0, i1 = np.array([0, 4, 2], I32), np.array([[1, 3]], I32)
    d0, d1 = rows[:3], rows[3:5].reshape(1, 2, 2)
    merged = np.zeros((5, 2), F32)
    merged[i0] = d0
    merged[i1.ravel()] = d1.reshape(2, 2)
    c.add("dynamicstitch", "DynamicStitch", [i0, i1, d0, d1], [merged],
          {"T": F32, "N": 2})
    over = np.array([1, 0], I32)
    later = rows[:2][::-1] + 10
    stitched = rows[:2].copy()
    stitched[over] = later
    c.add("dynamicstitch_later_wins", "DynamicStitch",
          [np.array([0, 1], I32), over, rows[:2], later], [stitched],
          {"T": F32, "N": 2})
    c.add("dynamicstitch_negative", "DynamicStitch",
          [np.array([0, -1], I32), rows[:2]], attrs={"T": F32, "N": 1},
          error="invalid_argument")
    c.add("dynamicstitch_shape_mismatch", "DynamicStitch",
          [i0, i1, d0, rows[3:5]], attrs={"T": F32, "N": 2},
          error="invalid_argument")
    ids = np.array([0, 2, 0, -1, 1, 2], I32)
    summed = np.zeros((4, 2), F32)
    for i, s in enumerate(ids):
        if s >= 0:
            summed[s] += rows[i]
    c.add("unsortedsegmentsum", "UnsortedSegmentSum",
          [rows, ids, np.array(4, I32)], [summed],
          {"T": F32, "Tindices": I32})
    ids2 = np.array([[1, 1, 0], [0, -1, 1]], I64)
    data2 = xi[:, :, :2]
    want2 = np.zeros((3, 2), I64)
    for (a_, b_), s in np.ndenumerate(ids2):
        if s >= 0:
            want2[s] += data2[a_, b_]
    c.add("unsortedsegmentsum_2d", "UnsortedSegmentSum",
          [data2, ids2, np.array(3, I64)], [want2],
          {"T": I64, "Tindices": I64, "Tnumsegments": I64})
    c.add("unsortedsegmentsum_id_too_large", "UnsortedSegmentSum",
          [rows, np.array([0, 1, 2, 3, 4, 5], I32), np.array(4, I32)],
          attrs={"T": F32, "Tindices": I32}, error="invalid_argument")
    c.add("parallel_dynamicstitch", "ParallelDynamicStitch",
          [i0, i1, d0, d1], [merged], {"T": F32, "N": 2})

    # Segment reductions: max, min and prod, an empty segment holding the
    # identity; sorted sums and means along the first dimension.
    empty_id = np.array([0, 2, 0, -1, 2, 0], I32)
    for op, fn, ident in (("Max", np.maximum, np.finfo(F32).min),
                          ("Min", np.minimum, np.finfo(F32).max),
                          ("Prod", np.multiply, F32(1))):
        want = np.full((4, 2), ident, F32)
        for i, s in enumerate(empty_id):
            if s >= 0:
                want[s] = fn(want[s], rows[i])
        c.add("unsortedsegment" + op.lower(), "UnsortedSegment" + op,
              [rows, empty_id, np.array(4, I32)], [want],
              {"T": F32, "Tindices": I32})
    wanti = np.full(3, np.iinfo(I32).min, I32)
    vi = np.array([4, -7, 9, 2, -1], I32)
    for i, s in enumerate([1, 0, 1, 0, 1]):
        wanti[s] = max(wanti[s], vi[i])
    c.add("unsortedsegmentmax_int32", "UnsortedSegmentMax",
          [vi, np.array([1, 0, 1, 0, 1], I64), np.array(3, I64)], [wanti],
          {"T": I32, "Tindices": I64, "Tnumsegments": I64})
    c.add("unsortedsegmentmin_id_too_large", "UnsortedSegmentMin",
          [rows, np.array([0, 1, 4, 3, 1, 0], I32), np.array(4, I32)],
          attrs={"T": F32, "Tindices": I32}, error="invalid_argument")
    sorted_ids = np.array([0, 0, 2, 2, 2, 3], I32)
    ssum = np.zeros((4, 2), F32)
    for i, s in enumerate(sorted_ids):
        ssum[s] += rows[i]
    counts = np.bincount(sorted_ids, minlength=4).astype(F32)
    smean = ssum / np.maximum(counts, 1)[:, None]
    c.add("segmentsum", "SegmentSum", [rows, sorted_ids], [ssum],
          {"T": F32, "Tindices": I32})
    c.add("segmentmean", "SegmentMean", [rows, sorted_ids], [smean],
          {"T": F32, "Tindices": I32})
    c.add("segmentmean_int64", "SegmentMean",
          [np.array([7, 2, -9, 4], I64), np.array([0, 0, 1, 1], I64)],
          [np.array([4, -2], I64)], {"T": I64, "Tindices": I64})
    c.add("segmentsum_empty", "SegmentSum",
          [np.zeros((0, 3), F32), np.zeros(0, I32)], [np.zeros((0, 3), F32)],
          {"T": F32, "Tindices": I32})
    c.add("segmentsum_unsorted", "SegmentSum",
          [rows, np.array([0, 1, 0, 2, 2, 3], I32)],
          attrs={"T": F32, "Tindices": I32}, error="invalid_argument")
    c.add("segmentsum_wrong_length", "SegmentSum",
          [rows, np.array([0, 1, 2], I32)],
          attrs={"T": F32, "Tindices": I32}, error="invalid_argument")

    # Where: coordinates of the true (non-zero) elements, row-major.
    mask = (xi % 3 == 1) | (xi > 30)
    c.add("where_bool", "Where", [mask], [np.argwhere(mask).astype(I64)],
          {"T": B})
    fl = np.array([[0.0, 1.5], [-2.0, 0.0]], F32)
    c.add("where_float", "Where", [fl], [np.argwhere(fl).astype(I64)],
          {"T": F32})
    c.add("where_none", "Where", [np.zeros((2, 2), B)],
          [np.zeros((0, 2), I64)], {"T": B})
    c.add("where_scalar", "Where", [np.array(True)], [np.zeros((1, 0), I64)],
          {"T": B})

    # GatherNd, ScatterNd, TensorScatterUpdate/Add.
    params = np.arange(24, dtype=F32).reshape(3, 4, 2) * 0.25 - 2
    idx = np.array([[0, 1], [2, 3], [0, 1]], I32)
    c.add("gathernd_slices", "GatherNd", [params, idx],
          [params[idx[:, 0], idx[:, 1]]], {"Tparams": F32, "Tindices": I32})
    idx3 = np.array([[[2, 0, 1]], [[1, 3, 0]]], I64)
    c.add("gathernd_elements", "GatherNd", [params, idx3],
          [params[idx3[..., 0], idx3[..., 1], idx3[..., 2]]],
          {"Tparams": F32, "Tindices": I64})
    c.add("gathernd_whole", "GatherNd", [xi, np.zeros((2, 0), I32)],
          [np.stack([xi, xi])], {"Tparams": I64, "Tindices": I32})
    c.add("gathernd_out_of_range", "GatherNd",
          [params, np.array([[0, 1], [3, 0]], I32)],
          attrs={"Tparams": F32, "Tindices": I32}, error="invalid_argument")
    c.add("gathernd_too_deep", "GatherNd",
          [params, np.zeros((1, 4), I32)],
          attrs={"Tparams": F32, "Tindices": I32}, error="invalid_argument")
    upd = np.arange(6, dtype=F32).reshape(3, 2) + 0.5
    scattered = np.zeros((3, 4, 2), F32)
    for k, (a, b) in enumerate(idx):
        scattered[a, b] += upd[k]
    c.add("scatternd", "ScatterNd", [idx, upd, i32(3, 4, 2)], [scattered],
          {"T": F32, "Tindices": I32})
    c.add("scatternd_bad_updates", "ScatterNd",
          [idx, upd[:2], i32(3, 4, 2)], attrs={"T": F32, "Tindices": I32},
          error="invalid_argument")
    c.add("scatternd_out_of_range", "ScatterNd",
          [idx, upd, i32(2, 4, 2)], attrs={"T": F32, "Tindices": I32},
          error="invalid_argument")
    t = np.arange(12, dtype=F32).reshape(3, 4) - 5
    ridx = np.array([[2], [0], [2]], I32)
    rupd = np.arange(12, dtype=F32).reshape(3, 4) * 10
    updated = t.copy()
    added = t.copy()
    for k, (r,) in enumerate(ridx):
        updated[r] = rupd[k]
        added[r] += rupd[k]
    c.add("tensorscatterupdate", "TensorScatterUpdate", [t, ridx, rupd],
          [updated], {"T": F32, "Tindices": I32})
    c.add("tensorscatteradd", "TensorScatterAdd", [t, ridx, rupd], [added],
          {"T": F32, "Tindices": I32})
    c.add("tensorscatterupdate_out_of_range", "TensorScatterUpdate",
          [t, np.array([[3]], I32), rupd[:1]],
          attrs={"T": F32, "Tindices": I32}, error="invalid_argument")

    # BroadcastTo and SelectV2 broadcast as numpy does.
    col = np.array([[1.5], [-2.0], [3.25]], F32)
    c.add("broadcastto", "BroadcastTo", [col, i32(2, 3, 4)],
          [np.broadcast_to(col, (2, 3, 4)).copy()], {"T": F32})
    c.add("broadcastto_same", "BroadcastTo", [xi, np.array([2, 3, 4], I64)],
          [xi], {"T": I64, "Tidx": I64})
    c.add("broadcastto_incompatible", "BroadcastTo", [col, i32(2, 4)],
          attrs={"T": F32}, error="invalid_argument")
    cond = np.array([[True], [False]])
    te = np.arange(6, dtype=F32).reshape(2, 3)
    ee = np.array([-1.0, -2.0, -3.0], F32)
    c.add("selectv2", "SelectV2", [cond, te, ee], [np.where(cond, te, ee)],
          {"T": F32})
    c.add("selectv2_scalar", "SelectV2", [np.array(False), te, ee],
          [np.where(False, te, ee)], {"T": F32})
    c.add("selectv2_incompatible", "SelectV2",
          [np.array([True, False]), te, ee], attrs={"T": F32},
          error="invalid_argument")

    # Cumsum and Cumprod, exclusive and reversed.
    sc = np.arange(1, 13, dtype=F64).reshape(2, 3, 2) * 0.5
    for op, product in (("Cumsum", False), ("Cumprod", True)):
        for exclusive in (False, True):
            for reverse in (False, True):
                name = "%s_%s%s" % (op.lower(), "ex" if exclusive else "in",
                                    "_rev" if reverse else "")
                c.add(name, op, [sc, i32(1)[0]],
                      [scan(sc, 1, product, exclusive, reverse)],
                      {"T": F64, "exclusive": exclusive, "reverse": reverse})
    c.add("cumsum_int32_last", "Cumsum", [xi.astype(I32), np.array(-1, I64)],
          [scan(xi.astype(I32), 2, False, False, False)],
          {"T": I32, "Tidx": I64})
    c.add("cumsum_axis_out_of_range", "Cumsum", [sc, np.array(3, I32)],
          attrs={"T": F64}, error="invalid_argument")

    # Erf and Erfc against an 80-digit series.
    ex = np.array([-3.5, -1.25, -0.5, 0.0, 1e-3, 0.5, 1.0, 2.0, 4.0, 5.5])
    for t, rtol in ((F32, 1e-6), (F64, 1e-14)):
        xs = ex.astype(t)
        tag = np.dtype(t).name
        c.add("erf_" + tag, "Erf", [xs], [erf(xs)], {"T": t}, rtol=rtol)
        c.add("erfc_" + tag, "Erfc", [xs], [erf(xs, complement=True)],
              {"T": t}, rtol=rtol)
        # tf.nn.gelu's five nodes as the fusion pass makes them one.
        c.add("geluexact_" + tag, "_GeluExact", [xs], [gelu(xs)], {"T": t},
              rtol=rtol)
