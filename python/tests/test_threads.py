"""The GIL is released while a step runs, so Python threads run steps at
once; Ctrl-C cancels a step run from the main thread."""

import _thread
import threading

import numpy as np
import pytest

import actorflow as af


def test_threads_run_steps_at_once(graph, sess):
    # A dequeue waits for an enqueue run by another thread: with the GIL
    # held during a run this would never finish.
    q = af.ops.fifo_queue_v2(component_types=[af.float32], shapes=[[]],
                             capacity=1, name="q")
    x = af.placeholder(af.float32, [], name="x")
    put = af.ops.queue_enqueue_v2(q, [x])
    (take,) = af.ops.queue_dequeue_v2(q, component_types=[af.float32])
    got = []
    taker = threading.Thread(target=lambda: got.append(sess.run(take)))
    taker.start()
    sess.run(put, {x: 4.0})
    taker.join(timeout=60)
    assert not taker.is_alive() and got == [4.0]


def test_many_threads_share_a_session(graph, sess):
    x = af.placeholder(af.float32, [None], name="x")
    y = af.reduce_sum(x * x)
    results = {}

    def work(k):
        v = np.full(100, k, np.float32)
        results[k] = [sess.run(y, {x: v}) for _ in range(50)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for k in range(4):
        assert results[k] == [100.0 * k * k] * 50


def test_ctrl_c_cancels_the_step_and_the_session_goes_on(graph, sess):
    i = af.while_loop(lambda i: i >= 0, lambda i: i + 1,
                      af.constant(0, af.int64))
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sess.run(i)
    finally:
        timer.cancel()
    assert sess.run(af.constant(5) + 1) == 6
