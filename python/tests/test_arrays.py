"""Arrays in and out: every dtype round-trips, memory is shared where the
layout allows it (and copied where it must be), DLPack producers work."""

import resource

import numpy as np
import pytest

import actorflow as af

try:
    import ml_dtypes
except ImportError:  # Debian's python3 without the build venv
    ml_dtypes = None


DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
          np.uint16, np.uint32, np.uint64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_round_trips_through_a_step(graph, sess, dtype):
    values = (np.arange(6) % 3).astype(dtype).reshape(2, 3)
    x = af.placeholder(af.as_dtype(dtype), [2, 3], name="x")
    y = af.ops.identity(x)
    out = sess.run(y, {x: values})
    assert out.dtype == values.dtype
    np.testing.assert_array_equal(out, values)


def test_float16_and_bfloat16_compute_and_round_trip(graph, sess):
    h = np.array([0.5, 1.5, -2.25], np.float16)
    x = af.placeholder(af.float16, [3], name="h")
    out = sess.run(x + x, {x: h})
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, h + h)
    b = af.placeholder(af.bfloat16, [3], name="b")
    y = af.cast(af.cast(b, af.float32) * 2, af.bfloat16)
    if ml_dtypes is None:
        pytest.skip("ml_dtypes is not installed: no numpy bfloat16")
    bf = np.array([0.5, 1.5, -2.25], ml_dtypes.bfloat16)
    out = sess.run(y, {b: bf})
    assert out.dtype == np.dtype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(out.astype(np.float32), [1, 3, -4.5])


def test_strings_round_trip(graph, sess):
    s = af.placeholder(af.string, [2], name="s")
    out = sess.run(af.identity(s), {s: np.array([b"ab", b"\x00c"])})
    assert out.dtype == object and out.tolist() == [b"ab", b"\x00c"]
    c = af.constant(["x", "yz"])
    assert sess.run(c).tolist() == [b"x", b"yz"]


def test_an_aligned_contiguous_array_is_borrowed_not_copied():
    a = np.ones((4, 4), np.float32)
    assert a.ctypes.data % 16 == 0
    _, copied = af._core.tensor_from_array(a)
    assert not copied
    _, copied = af._core.tensor_from_array(a[:, ::2])
    assert copied
    raw = np.zeros(4 * 16 + 4, np.uint8)[4:].view(np.float32)  # misaligned
    _, copied = af._core.tensor_from_array(raw)
    assert copied


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_feeding_and_fetching_big_arrays_costs_no_copy_in_one_out(graph):
    # 256 MiB in: peak RSS does not grow by the array's size (not copied).
    # 256 MiB out: it grows by the kernel's output alone (handed over, not
    # copied again).
    mb = 256
    n = mb << 18
    x = af.placeholder(af.float32, [None], name="x")
    total = af.reduce_sum(x)
    twice = af.ops.mul(x, af.constant(2.0))
    with af.Session(graph=graph) as sess:
        sess.run([total, twice], {x: np.ones(1024, np.float32)})  # warm up
        big = np.ones(n, np.float32)
        before = _peak_rss_mb()
        assert sess.run(total, {x: big}) == n
        grown = _peak_rss_mb() - before
        assert grown < mb / 2, f"peak RSS grew {grown:.0f} MB feeding {mb}"
        before = _peak_rss_mb()
        out = sess.run(twice, {x: big})
        grown = _peak_rss_mb() - before
        assert grown < mb * 1.5, f"peak RSS grew {grown:.0f} MB fetching {mb}"
        assert out.flags.writeable and out[0] == 2 and (big == 1).all()


def test_a_fetched_variable_is_a_copy_the_next_step_does_not_change(graph):
    v = af.Variable(np.zeros(3, np.float32), name="v")
    bump = af.ops.assign_add(v, np.ones(3, np.float32))
    with af.Session(graph=graph) as sess:
        sess.run(af.global_variables_initializer())
        first = sess.run(v)
        sess.run(bump)
        np.testing.assert_array_equal(first, [0, 0, 0])
        np.testing.assert_array_equal(sess.run(v), [1, 1, 1])


def test_a_fed_array_is_never_written_by_an_in_place_kernel(graph, sess):
    x = af.placeholder(af.float32, [3], name="x")
    v = af.Variable(np.zeros(3, np.float32), name="v")
    set_v = af.ops.assign(v, x)
    step = af.ops.assign_add(v, np.ones(3, np.float32))
    sess.run(af.global_variables_initializer())
    fed = np.array([1, 2, 3], np.float32)
    sess.run(set_v, {x: fed})
    sess.run(step)
    np.testing.assert_array_equal(fed, [1, 2, 3])
    np.testing.assert_array_equal(sess.run(v), [2, 3, 4])


class _DLPackOnly:
    """An array that offers DLPack alone (as PyTorch and JAX arrays do)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_producers_feed_without_a_copy(graph, sess):
    x = af.placeholder(af.float32, [3], name="x")
    y = x * 2
    src = np.arange(3, dtype=np.float32)
    t, copied = af._core.tensor_from_array(_DLPackOnly(src))
    assert not copied and t.shape == [3]
    np.testing.assert_array_equal(sess.run(y, {x: _DLPackOnly(src)}),
                                  [0, 2, 4])
    torch = pytest.importorskip("torch")
    out = sess.run(y, {x: torch.arange(3, dtype=torch.float32)})
    np.testing.assert_array_equal(out, [0, 2, 4])
