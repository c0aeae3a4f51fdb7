"""Runs a TensorFlow 1 program of this folder with the ``tf`` it is given:
the program's line ``import actorflow.compat.v1 as tf`` becomes ``import
<module> as tf`` (tensorflow.compat.v1 for the goldens), nothing else
changes. Each program's ``main()`` returns what it computed; ``results``
puts that in the form the golden file keeps (floats rounded to 5
significant digits, so that TensorFlow's last bits, which depend on the
CPU, do not reach the file)."""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
IMPORT = "import actorflow.compat.v1 as tf"


def programs():
    """The programs' names, sorted."""
    return sorted(f[:-3] for f in os.listdir(HERE)
                  if f.endswith(".py") and f not in ("run.py",
                                                     "__init__.py"))


def run(name, module="actorflow.compat.v1"):
    """``main()`` of the program ``name`` with ``import <module> as tf``."""
    path = os.path.join(HERE, name + ".py")
    with open(path) as f:
        source = f.read()
    if source.count(IMPORT) != 1:
        raise ValueError(f"{path} must import tf with `{IMPORT}` once")
    source = source.replace(IMPORT, f"import {module} as tf")
    namespace = {"__name__": f"tf1_program_{name}", "__file__": path}
    exec(compile(source, path, "exec"), namespace)
    return namespace["main"]()


def results(outputs):
    """{name: value}: lists of strings stay, numbers become
    {"dtype", "shape", "values"} with floats rounded."""
    out = {}
    for key, value in sorted(outputs.items()):
        if isinstance(value, (list, tuple)) and value and all(
                isinstance(v, str) for v in value):
            out[key] = list(value)
            continue
        if isinstance(value, str):
            out[key] = value
            continue
        array = np.asarray(value)
        if array.dtype.kind == "f":
            values = [float("%.5g" % v) for v in array.reshape(-1)]
        elif array.dtype.kind in "iub":
            values = [int(v) for v in array.reshape(-1)]
        else:
            raise TypeError(f"{key}: cannot keep a {array.dtype} result")
        out[key] = {"dtype": "float" if array.dtype.kind == "f" else "int",
                    "shape": list(array.shape), "values": values}
    return out
