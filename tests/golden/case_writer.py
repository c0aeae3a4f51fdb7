"""Writes op cases for tests/common/op_cases.hpp: an op, its attrs, its
inputs and the outputs numpy computes for them (or the error the kernel must
report)."""
import numpy as np

NAMES = {np.float16: "float16", np.float32: "float32", np.float64: "float64",
         np.int32: "int32", np.int64: "int64", np.uint8: "uint8",
         np.bool_: "bool"}


def fmt(t):
    t = np.asarray(t)
    if t.dtype == np.float16:
        return " ".join("%.5g" % v for v in t.ravel())
    if t.dtype == np.float32:
        return " ".join("%.9g" % v for v in t.ravel())
    if t.dtype == np.float64:
        return " ".join("%.17g" % v for v in t.ravel())
    return " ".join("%d" % int(v) for v in t.ravel())


def tensor_lines(kind, t, dtype_name=None):
    t = np.asarray(t)
    name = dtype_name or NAMES[t.dtype.type]
    return [" ".join([kind, name] + [str(d) for d in t.shape]), fmt(t)]


def rounded_lines(name, value, digits=None):
    """tensor_lines of `value` with each element rounded to `digits`
    significant digits (a result whose last bits depend on the CPU that
    computed it), or as it is."""
    value = np.asarray(value)
    if digits is not None:
        rounded = [float("%.*g" % (digits, v)) for v in value.flat]
        value = np.array(rounded, value.dtype).reshape(value.shape)
    return tensor_lines(name, value)


class Cases:
    """Collects cases; `text()` renders them."""

    def __init__(self):
        self.lines = []
        self.names = set()

    def add(self, name, op, inputs, outputs=None, attrs=None, rtol=0.0,
            error=None):
        """inputs/outputs: arrays (or (array, dtype name) for bfloat16);
        attrs: {name: value}, where a numpy dtype class is a type attr, a
        list an int list, and ('float', x) a float."""
        assert name not in self.names, name
        self.names.add(name)
        self.lines.append("case %s %s %g" % (name, op, rtol))
        for key, value in sorted((attrs or {}).items()):
            self.lines.append("attr %s %s" % (key, render_attr(value)))
        for t in inputs:
            self.lines += tensor_lines("in", *t) if isinstance(t, tuple) else tensor_lines("in", t)
        for t in outputs or []:
            self.lines += tensor_lines("out", *t) if isinstance(t, tuple) else tensor_lines("out", t)
        if error:
            self.lines.append("error " + error)
        self.lines.append("end")

    def text(self):
        return "\n".join(self.lines) + "\n"


def render_attr(value):
    if isinstance(value, type) and issubclass(value, np.generic):
        return "type " + NAMES[value]
    if isinstance(value, str) and value == "bfloat16":
        return "type bfloat16"
    if isinstance(value, bool):
        return "bool %d" % value
    if isinstance(value, int):
        return "int %d" % value
    if isinstance(value, float):
        return "float %.17g" % value
    if isinstance(value, str):
        return "string " + value
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], str):
        return "strings %d%s" % (len(value), "".join(" " + v for v in value))
    if isinstance(value, (list, tuple)):
        return "ints %d%s" % (len(value), "".join(" %d" % v for v in value))
    raise TypeError(value)
