"""TensorFlow 2 SavedModels: ``af.load_saved_model(dir)`` reads one (its
functions inlined, its functional loops and branches lowered onto the
engine's frames, its variables restored) and runs its signatures."""

import os

import numpy as np

from . import _core
from . import dtypes as _dtypes
from .session import _as_feed

__all__ = ["load_saved_model", "SavedModel", "Signature"]


class Signature:
    """One signature of a SavedModel, called as TensorFlow 2's loaded
    signatures are: ``sig(x=array, ...)`` returns a dict of numpy arrays by
    output key. ``inputs`` and ``outputs``: {key: (dtype, shape)}."""

    def __init__(self, model, key, spec):
        self._model = model
        self.key = key
        self.method = spec["method"]
        self.inputs = {k: (_dtypes.as_dtype(t), s)
                       for k, t, s in spec["inputs"]}
        self.outputs = {k: (_dtypes.as_dtype(t), s)
                        for k, t, s in spec["outputs"]}

    def __call__(self, **inputs):
        unknown = set(inputs) - set(self.inputs)
        if unknown:
            raise TypeError(f"signature {self.key!r} has no input "
                            f"{sorted(unknown)}; it takes "
                            f"{sorted(self.inputs)}")
        feeds = {k: _as_feed(v, self.inputs[k][0], k)
                 for k, v in inputs.items()}
        out = self._model._handle.run(self.key, feeds)
        return {k: v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v
                for k, v in out.items()}

    def __repr__(self):
        return (f"<af.Signature {self.key!r} inputs={list(self.inputs)} "
                f"outputs={list(self.outputs)}>")


class SavedModel:
    """A loaded SavedModel: ``signatures`` by key, ``save(dir)`` writes it
    back with its variables as they are now (after training signatures)."""

    def __init__(self, directory, tags=("serve",), config=None):
        self._handle = _core.SavedModel(os.fspath(directory), list(tags),
                                        dict(config or {}))
        self.signatures = {k: Signature(self, k, spec)
                           for k, spec in self._handle.signatures.items()}

    def save(self, directory):
        self._handle.save(os.fspath(directory))


def load_saved_model(directory, tags=("serve",), config=None):
    """Reads the TensorFlow 2 SavedModel in ``directory`` (what
    ``tf.saved_model.save`` and Keras' ``model.export`` write)."""
    return SavedModel(directory, tags, config)
