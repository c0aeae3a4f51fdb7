"""A session from Python on a cluster of real `actorflow worker`
processes (ports the OS picks), by cluster file, by a dict of jobs and by
TF_CONFIG; device scopes put nodes on their tasks."""

import json
import os
import selectors
import signal
import subprocess
import time

import numpy as np
import pytest

import actorflow as af

CLI = os.environ.get("ACTORFLOW_CLI", "")
pytestmark = pytest.mark.skipif(not os.path.exists(CLI),
                                reason="ACTORFLOW_CLI unset")


def _wait_for_port(proc, deadline):
    """The port a worker prints once it listens (no sleeping)."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    line = b""
    while time.monotonic() < deadline:
        if not sel.select(timeout=deadline - time.monotonic()):
            break
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            break
        line += chunk
        for text in line.decode(errors="replace").splitlines():
            if "listening on" in text:
                return int(text.split("listening on ")[1].split()[0]
                           .rsplit(":", 1)[1])
    raise RuntimeError(f"worker printed no port: {line!r}")


@pytest.fixture(scope="module")
def workers(tmp_path_factory):
    cfg = tmp_path_factory.mktemp("cluster") / "cluster.yaml"
    cfg.write_text("jobs:\n  worker:\n    cpus: 2\n"
                   "    tasks: [127.0.0.1:0, 127.0.0.1:0]\n")
    procs, addresses = [], []
    try:
        for i in range(2):
            p = subprocess.Popen(
                [CLI, "worker", "--config", str(cfg), "--task", f"worker:{i}",
                 "--port", "0", "--threads", "1"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            procs.append(p)
            port = _wait_for_port(p, time.monotonic() + 30)
            addresses.append(f"127.0.0.1:{port}")
        yield addresses
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)


def _two_task_graph():
    g = af.Graph()
    with g.as_default():
        x = af.placeholder(af.float32, [3], name="x")
        with af.device("/job:worker/task:0/cpu:0"):
            a = x * 2.0
        with af.device("/job:worker/task:1/cpu:1"):
            b = af.reduce_sum(a, name="b")
        with af.device("/job:worker/task:0/cpu:0"):
            c = af.identity(b + 1.0, name="c")
    return g, x, c


def _check_runs(sess, x, c):
    md = af.RunMetadata()
    out = sess.run(c, {x: np.array([1, 2, 3], np.float32)}, run_metadata=md)
    assert out == 13.0
    assert md.placement["b"] == "/job:worker/task:1/device:cpu:1"
    # (c, an Identity, is optimized away: the fetch takes b + 1.)
    assert md.placement["AddV2"] == "/job:worker/task:0/device:cpu:0"


def test_a_session_on_workers_from_a_cluster_file(workers, tmp_path):
    client = tmp_path / "client.yaml"
    client.write_text("jobs:\n  worker:\n    cpus: 2\n    tasks: ["
                      + ", ".join(workers) + "]\n")
    g, x, c = _two_task_graph()
    with af.Session(graph=g, cluster=client) as sess:
        _check_runs(sess, x, c)
        # A bad feed fails the step, naming the node; the cluster goes on.
        with pytest.raises(af.errors.InvalidArgumentError, match="x"):
            sess.run(c, {x: np.ones(4, np.float32)})
        _check_runs(sess, x, c)


def test_a_session_on_workers_from_a_dict_and_from_tf_config(workers,
                                                             monkeypatch):
    g, x, c = _two_task_graph()
    with af.Session(graph=g, cluster={"worker": workers}) as sess:
        _check_runs(sess, x, c)
    monkeypatch.setenv("TF_CONFIG", json.dumps(
        {"cluster": {"worker": workers},
         "task": {"type": "worker", "index": 0}}))
    with af.Session.from_tf_config(graph=g) as sess:
        _check_runs(sess, x, c)


def test_an_unreachable_cluster_is_an_error_naming_the_task(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("jobs:\n  worker:\n    tasks: [127.0.0.1:1]\n"
                   "timeouts:\n  connect_ms: 300\n")
    with pytest.raises(af.errors.OpError, match="worker"):
        af.Session(cluster=str(bad))
    with pytest.raises(ValueError, match="cluster="):
        af.Session("grpc://localhost:2222")
