"""The Fashion-MNIST example trains as the CLI's main job does: the same
graph from Python gives the same losses and test accuracies, to the last
printed digit, as `actorflow train fashion-mnist` (shortened here)."""

import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "fashion_mnist_mlp.py")
CLI = os.environ.get("ACTORFLOW_CLI", "")
DATA = "/usr/share/datasets/fashion-mnist"


@pytest.mark.skipif(not os.path.exists(CLI), reason="ACTORFLOW_CLI unset")
@pytest.mark.skipif(not os.path.isdir(DATA), reason="no Fashion-MNIST")
def test_python_trains_like_the_cli(tmp_path):
    args = ["--hidden", "64", "--epochs", "2", "--threads", "2"]
    py = subprocess.run([sys.executable, EXAMPLE] + args, check=True,
                        capture_output=True, text=True, timeout=240)
    cli = subprocess.run([CLI, "train", "fashion-mnist", "--checkpoint-dir",
                          str(tmp_path)] + args, check=True,
                         capture_output=True, text=True, timeout=240)

    def epochs(text):
        return re.findall(r"epoch (\d+/\d+): loss ([0-9.]+), "
                          r"test accuracy ([0-9.]+)", text)

    want = epochs(cli.stderr.replace("\r", "\n"))
    assert len(want) == 2, cli.stderr
    assert epochs(py.stdout) == want
