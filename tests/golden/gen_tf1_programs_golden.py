#!/usr/bin/env python3
"""What TensorFlow computes for the TensorFlow 1 programs of
python/tests/tf1_programs/ (softmax regression, an MLP and a CNN with
tf.layers, a PTB-style LSTM, an autoencoder, a GAN, a Saver that resumes
training, ...).

Each program is written once, with ``import actorflow.compat.v1 as tf``;
this runs it with ``import tensorflow.compat.v1 as tf`` instead and writes
its results to tests/golden/tf1_programs.json. python/tests/
test_tf1_programs.py runs the same programs on actorflow and compares
(1e-4 relative). Data and initial weights come from numpy's seeded
RandomState (the same numbers everywhere); floats are written rounded to 5
significant digits, so the file is the same bytes on every machine.

  gen_tf1_programs_golden.py           regenerate the file
  gen_tf1_programs_golden.py --check   exit 1 unless it is reproduced

Runs where pip reaches TensorFlow (a checking tool, not a dependency).
Written with TensorFlow 2.21.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
# tf.compat.v1.layers needs Keras 2 (tf_keras) under TensorFlow 2.16+.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "tests",
                                "tf1_programs"))

from golden_io import write_or_check  # noqa: E402
import run  # noqa: E402


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    out = {}
    for name in run.programs():
        with tf.Graph().as_default():
            out[name] = run.results(run.run(name, "tensorflow.compat.v1"))
    text = json.dumps(out, indent=1, sort_keys=True) + "\n"
    return write_or_check(__doc__,
                          {os.path.join(HERE, "tf1_programs.json"): text})


if __name__ == "__main__":
    sys.exit(main())
