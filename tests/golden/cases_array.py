"""Array op cases: shapes, reshapes, transposes, slices, joins, gathers,
tiles, pads, one-hot, ranges and reverses, with empty tensors, scalars and
negative axes."""
import numpy as np

F32, F64, I32, I64, B = np.float32, np.float64, np.int32, np.int64, np.bool_


def i32(*v):
    return np.array(v, dtype=I32)


def add_cases(c):
    x = np.arange(24, dtype=F32).reshape(2, 3, 4) - 7.5
    xi = np.arange(24, dtype=I64).reshape(2, 3, 4) * 3 - 20
    empty = np.zeros((0, 3), dtype=F32)

    c.add("fill", "Fill", [i32(2, 3), np.array(1.5, F32)],
          [np.full((2, 3), 1.5, F32)], {"T": F32})
    c.add("fill_empty", "Fill", [i32(0, 2), np.array(7, I64)],
          [np.zeros((0, 2), I64)], {"T": I64})
    c.add("fill_overflowing_shape", "Fill",
          [np.array([2 ** 40, 2 ** 40], I64), np.array(7, I64)],
          attrs={"T": I64, "index_type": I64}, error="invalid_argument")
    c.add("fill_negative", "Fill", [i32(-1, 2), np.array(7, I64)],
          attrs={"T": I64}, error="invalid_argument")
    for t in (F32, I32, B):
        c.add("zeroslike_" + np.dtype(t).name, "ZerosLike", [x.astype(t)],
              [np.zeros_like(x, dtype=t)], {"T": t})
        c.add("oneslike_" + np.dtype(t).name, "OnesLike", [x.astype(t)],
              [np.ones_like(x, dtype=t)], {"T": t})
    c.add("stopgradient", "StopGradient", [x], [x], {"T": F32})
    for out in (I32, I64):
        c.add("shape_" + np.dtype(out).name, "Shape", [x],
              [np.array(x.shape, out)], {"T": F32, "out_type": out})
        c.add("size_" + np.dtype(out).name, "Size", [x],
              [np.array(x.size, out)], {"T": F32, "out_type": out})
    c.add("shape_scalar", "Shape", [np.array(3.0, F32)], [np.zeros(0, I32)],
          {"T": F32})
    c.add("rank", "Rank", [xi], [np.array(3, I32)], {"T": I64})
    c.add("shapen", "ShapeN", [x, empty, np.array(1.5, F32)],
          [np.array(x.shape, I64), np.array(empty.shape, I64),
           np.zeros(0, I64)], {"T": F32, "N": 3, "out_type": I64})

    for name, shape in (("flat", [-1]), ("2d", [4, -1]), ("3d", [2, 2, 6]),
                        ("scalar_to_1", [1, 1])):
        src = x if name != "scalar_to_1" else np.array(5.0, F32)
        c.add("reshape_" + name, "Reshape", [src, np.array(shape, I64)],
              [src.reshape(shape)], {"T": F32, "Tshape": I64})
    c.add("reshape_empty", "Reshape", [empty, i32(3, 0, -1)],
          attrs={"T": F32}, error="invalid_argument")
    c.add("reshape_mismatch", "Reshape", [x, i32(5, 5)], attrs={"T": F32},
          error="invalid_argument")
    c.add("reshape_two_unknown", "Reshape", [x, i32(-1, -1)],
          attrs={"T": F32}, error="invalid_argument")
    for d in (0, 3, -1, -4):
        c.add("expanddims_%d" % d, "ExpandDims", [x, np.array(d, I32)],
              [np.expand_dims(x, d)], {"T": F32})
    sq = np.arange(6, dtype=I32).reshape(1, 2, 1, 3, 1)
    c.add("squeeze_all", "Squeeze", [sq], [np.squeeze(sq)], {"T": I32})
    c.add("squeeze_some", "Squeeze", [sq], [np.squeeze(sq, axis=(0, -1))],
          {"T": I32, "squeeze_dims": [0, -1]})
    c.add("squeeze_not_one", "Squeeze", [sq], attrs={"T": I32,
                                                     "squeeze_dims": [1]},
          error="invalid_argument")

    for perm in ((2, 0, 1), (1, 0, 2), (0, 1, 2), (2, 1, 0)):
        c.add("transpose_" + "".join(map(str, perm)), "Transpose",
              [xi, np.array(perm, I32)], [np.transpose(xi, perm)], {"T": I64})
    c.add("transpose_bad_perm", "Transpose", [x, i32(0, 0, 1)],
          attrs={"T": F32}, error="invalid_argument")
    c.add("transpose_empty", "Transpose", [empty, i32(1, 0)], [empty.T],
          {"T": F32})

    a, b, d = x[:, :1], x[:, 1:], x[:, :0]
    c.add("concatv2_axis1", "ConcatV2", [a, b, d, np.array(1, I32)],
          [np.concatenate([a, b, d], axis=1)], {"T": F32, "N": 3})
    c.add("concatv2_axis_neg", "ConcatV2", [x, x, np.array(-1, I64)],
          [np.concatenate([x, x], axis=-1)],
          {"T": F32, "N": 2, "Tidx": I64})
    c.add("concat_axis0", "Concat", [np.array(0, I32), xi, xi[:1]],
          [np.concatenate([xi, xi[:1]], axis=0)], {"T": I64, "N": 2})
    c.add("concat_mismatch", "ConcatV2", [x, x[:, :2, :2], np.array(0, I32)],
          attrs={"T": F32, "N": 2}, error="invalid_argument")

    parts = np.split(xi, 2, axis=2)
    c.add("split_axis2", "Split", [np.array(2, I32), xi], parts,
          {"T": I64, "num_split": 2})
    c.add("split_uneven", "Split", [np.array(1, I32), xi],
          attrs={"T": I64, "num_split": 2}, error="invalid_argument")
    c.add("splitv", "SplitV", [x, np.array([1, -1, 0], I64), np.array(-1, I32)],
          [x[..., :1], x[..., 1:], x[..., :0]], {"T": F32, "num_split": 3})
    c.add("splitv_bad_sizes", "SplitV",
          [x, np.array([1, 1], I64), np.array(2, I32)],
          attrs={"T": F32, "num_split": 2}, error="invalid_argument")

    rows = [x[0], x[1], x[1] * 2]
    for axis in (0, 1, -1):
        c.add("pack_axis%d" % axis, "Pack", rows,
              [np.stack(rows, axis=axis)], {"T": F32, "N": 3, "axis": axis})
        n = x.shape[axis]
        c.add("unpack_axis%d" % axis, "Unpack", [x],
              [np.take(x, k, axis=axis) for k in range(n)],
              {"T": F32, "num": n, "axis": axis})
    c.add("pack_scalars", "Pack", [np.array(1, I32), np.array(2, I32)],
          [i32(1, 2)], {"T": I32, "N": 2})

    c.add("slice", "Slice", [x, i32(1, 0, 1), i32(1, 2, -1)],
          [x[1:2, 0:2, 1:]], {"T": F32})
    c.add("slice_empty", "Slice", [x, i32(0, 1, 2), i32(2, 0, 2)],
          [x[0:2, 1:1, 2:4]], {"T": F32})
    c.add("slice_out_of_range", "Slice", [x, i32(0, 2, 0), i32(1, 2, 1)],
          attrs={"T": F32}, error="invalid_argument")

    # StridedSlice: (begin, end, strides, masks, numpy index)
    ss = [
        ("basic", (0, 1, 0), (2, 3, 4), (1, 1, 2), {}, np.s_[0:2, 1:3, 0:4:2]),
        ("negative_step", (-1, 2, -1), (-3, 0, -5), (-1, -1, -1), {},
         np.s_[-1:-3:-1, 2:0:-1, -1:-5:-1]),
        ("masks", (1, 0, 1), (0, 2, 0), (1, 1, 1),
         {"begin_mask": 1, "end_mask": 5}, np.s_[:, 0:2, 1:]),
        ("shrink", (1, 0, 2), (2, 3, 3), (1, 1, 1), {"shrink_axis_mask": 5},
         np.s_[1, 0:3, 2]),
        ("new_axis", (0, 0, 0), (1, 2, 4), (1, 1, 2), {"new_axis_mask": 1},
         np.s_[np.newaxis, 0:2, 0:4:2]),
        ("ellipsis", (0, 1), (0, 3), (1, 1), {"ellipsis_mask": 1},
         np.s_[..., 1:3]),
        ("clamped", (-10, 1, 0), (10, 100, 4), (1, 2, 3), {},
         np.s_[-10:10, 1:100:2, 0:4:3]),
        ("empty_range", (1, 0, 0), (1, 3, 4), (1, 1, 1), {}, np.s_[1:1, 0:3, 0:4]),
    ]
    for name, begin, end, strides, masks, index in ss:
        attrs = {"T": F32}
        attrs.update(masks)
        c.add("stridedslice_" + name, "StridedSlice",
              [x, i32(*begin), i32(*end), i32(*strides)], [x[index]], attrs)
        # Its gradient: dy put where the slice read, zeros elsewhere.
        dy = (np.arange(x[index].size, dtype=F32) + 1).reshape(x[index].shape)
        grad = np.zeros_like(x)
        grad[index] = dy
        c.add("stridedslicegrad_" + name, "StridedSliceGrad",
              [i32(*x.shape), i32(*begin), i32(*end), i32(*strides), dy],
              [grad], attrs)
    c.add("stridedslice_zero_stride", "StridedSlice",
          [x, i32(0), i32(1), i32(0)], attrs={"T": F32},
          error="invalid_argument")

    params = np.arange(15, dtype=F64).reshape(5, 3) / 4
    idx = np.array([[4, 0], [2, 2]], I32)
    c.add("gather", "Gather", [params, idx], [params[idx]],
          {"Tparams": F64, "Tindices": I32})
    c.add("gatherv2_axis1", "GatherV2", [params, np.array([2, 0], I64),
                                         np.array(1, I32)],
          [np.take(params, [2, 0], axis=1)], {"Tparams": F64, "Tindices": I64})
    c.add("gatherv2_empty_indices", "GatherV2",
          [params, np.zeros(0, I32), np.array(0, I32)],
          [params[np.zeros(0, I32)]], {"Tparams": F64, "Tindices": I32})
    c.add("gather_out_of_range", "Gather", [params, i32(1, 5)],
          attrs={"Tparams": F64, "Tindices": I32}, error="invalid_argument")

    c.add("tile", "Tile", [xi[:, :2, :2], i32(2, 1, 3)],
          [np.tile(xi[:, :2, :2], (2, 1, 3))], {"T": I64})
    c.add("tile_zero", "Tile", [xi, i32(1, 0, 1)],
          [np.tile(xi, (1, 0, 1))], {"T": I64})
    pads = np.array([[1, 0], [0, 2], [2, 1]], I32)
    c.add("pad", "Pad", [x, pads], [np.pad(x, pads)], {"T": F32})
    c.add("padv2", "PadV2", [xi, pads, np.array(-1, I64)],
          [np.pad(xi, pads, constant_values=-1)], {"T": I64})
    c.add("pad_negative", "Pad", [x, -pads], attrs={"T": F32},
          error="invalid_argument")

    ind = np.array([[0, 2], [1, -1]], I64)
    for axis in (-1, 0, 1):
        eye = np.eye(3, dtype=F32)[np.where(ind < 0, 0, ind)]
        eye[ind < 0] = 0
        want = np.moveaxis(eye * 5 - 1 * (1 - eye), -1, axis if axis >= 0 else -1)
        c.add("onehot_axis%d" % axis, "OneHot",
              [ind, np.array(3, I32), np.array(5, F32), np.array(-1, F32)],
              [want.astype(F32)], {"T": F32, "axis": axis})

    for name, t, (s, l, d) in (("int", I32, (3, 18, 4)), ("neg", I64, (5, -4, -3)),
                               ("float", F32, (0.5, 2.0, 0.25)),
                               ("empty", I32, (3, 3, 1))):
        c.add("range_" + name, "Range",
              [np.array(s, t), np.array(l, t), np.array(d, t)],
              [np.arange(s, l, d, dtype=t)], {"Tidx": t})
    c.add("range_zero_delta", "Range",
          [np.array(0, I32), np.array(5, I32), np.array(0, I32)],
          error="invalid_argument")

    c.add("reversev2", "ReverseV2", [xi, i32(0, -1)], [xi[::-1, :, ::-1]],
          {"T": I64})
    c.add("reverse_mask", "Reverse", [x, np.array([False, True, False])],
          [x[:, ::-1, :]], {"T": F32})
    c.add("reversev2_empty", "ReverseV2", [empty, i32(0)], [empty], {"T": F32})

    # ReverseSequence: per batch index, the first seq_lengths[b] steps
    # reversed (numpy: a reversed slice per batch index).
    def reverse_sequence(v, lengths, seq_dim, batch_dim):
        out = v.copy()
        for b, n in enumerate(lengths):
            src = [slice(None)] * v.ndim
            src[batch_dim] = b
            src[seq_dim] = slice(0, n)
            part = v[tuple(src)]
            axis = seq_dim - (1 if batch_dim < seq_dim else 0)
            out[tuple(src)] = np.flip(part, axis)
        return out

    seqs = np.arange(2 * 5 * 3, dtype=F32).reshape(2, 5, 3)
    c.add("reversesequence_batch0_seq1", "ReverseSequence",
          [seqs, np.array([3, 5], I64)],
          [reverse_sequence(seqs, [3, 5], 1, 0)],
          {"T": F32, "Tlen": I64, "seq_dim": 1, "batch_dim": 0})
    steps_first = np.arange(4 * 3 * 2, dtype=I32).reshape(4, 3, 2)
    c.add("reversesequence_batch2_seq0", "ReverseSequence",
          [steps_first, np.array([0, 4], I32)],
          [reverse_sequence(steps_first, [0, 4], 0, 2)],
          {"T": I32, "Tlen": I32, "seq_dim": 0, "batch_dim": 2})
    c.add("reversesequence_too_long", "ReverseSequence",
          [seqs, np.array([6, 1], I64)],
          attrs={"T": F32, "Tlen": I64, "seq_dim": 1, "batch_dim": 0},
          error="invalid_argument")
    c.add("reversesequence_same_dims", "ReverseSequence",
          [seqs, np.array([1, 1], I64)],
          attrs={"T": F32, "Tlen": I64, "seq_dim": 0, "batch_dim": 0},
          error="invalid_argument")
