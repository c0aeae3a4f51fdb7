"""TensorFlow 2 SavedModels (tests/golden/saved_model/, written by
gen_saved_model_golden.py) loaded from Python give TensorFlow's outputs
(tests/golden/saved_model.txt)."""

import os

import numpy as np
import pytest

import actorflow as af
from goldens import GOLDEN, read_values

VALUES = read_values("saved_model.txt")


def test_a_keras_model_with_two_inputs_and_outputs():
    m = af.load_saved_model(os.path.join(GOLDEN, "saved_model", "keras_multi"))
    sig = m.signatures["serving_default"]
    assert set(sig.inputs) == {"a", "b"} and set(sig.outputs) == {"out1",
                                                                  "out2"}
    assert sig.inputs["a"] == (af.float32, [None, 4])
    out = sig(a=VALUES["keras_multi_a"], b=VALUES["keras_multi_b"])
    np.testing.assert_allclose(out["out1"], VALUES["keras_multi_out1"],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["out2"], VALUES["keras_multi_out2"],
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="no input"):
        sig(a=VALUES["keras_multi_a"], c=1)
    with pytest.raises(af.errors.InvalidArgumentError):
        sig(a=VALUES["keras_multi_a"])  # b missing
    with pytest.raises(af.errors.InvalidArgumentError):
        sig(a=np.ones((2, 5), np.float32), b=VALUES["keras_multi_b"])


def test_keras3_layers_tracked_by_a_module_load():
    # The layer's variables are restored by their object-graph paths (the
    # model's restore function assigns copies of them); they were left
    # uninitialized before.
    m = af.load_saved_model(os.path.join(GOLDEN, "saved_model",
                                         "keras3_module"))
    out = m.signatures["serving_default"](x=VALUES["keras3_module_x"])
    np.testing.assert_array_equal(out["y"], VALUES["keras3_module_y"])


def test_a_missing_directory_is_an_error_naming_it(tmp_path):
    with pytest.raises(af.errors.OpError, match="nowhere"):
        af.load_saved_model(tmp_path / "nowhere")


def test_a_saved_model_saved_again_loads_and_gives_the_same(tmp_path):
    m = af.load_saved_model(os.path.join(GOLDEN, "saved_model", "keras_multi"))
    feeds = {"a": VALUES["keras_multi_a"], "b": VALUES["keras_multi_b"]}
    want = m.signatures["serving_default"](**feeds)
    m.save(tmp_path / "again")
    again = af.load_saved_model(tmp_path / "again")
    got = again.signatures["serving_default"](**feeds)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
