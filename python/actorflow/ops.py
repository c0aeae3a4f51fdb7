"""Every registered op as a Python function, generated from the engine's op
registry when the package is imported (``af.ops.conv2d``, ...), named as
TensorFlow's generated op functions name them (``MatMul`` -> ``mat_mul``).

They live in this module alone (``af.ops.sum`` is the op Sum, not
Python's ``sum``), so the module's own code names builtins explicitly.

Each takes the op's inputs first (Tensors, or values made into constants),
then its attrs, then ``name``; type and length attrs are inferred from the
inputs. It returns the Tensor of a one-output op, a list for several, the
Operation for none. ``af.ops.raw_ops.MatMul(a=..., b=...)`` takes keywords
only, by the op's own names.
"""

import builtins as _builtins
import inspect
import keyword
import types

from . import _core
from . import dtypes as _dtypes
from .graph import (Operation, Tensor, _const_array, array_attr,
                    convert_to_tensor, get_default_graph)

__all__ = ["apply_op", "op_def", "raw_ops"]

_OP_DEFS = {d["name"]: d for d in _core.op_defs()}


def op_def(op_type):
    """The definition of ``op_type``: inputs, outputs, attrs with defaults."""
    try:
        return _OP_DEFS[op_type]
    except KeyError:
        raise KeyError(f"unknown op {op_type!r}") from None


def _snake(name):
    """TensorFlow's name for an op's function: ``Conv2D`` -> ``conv2d``,
    ``MatMul`` -> ``mat_mul``, ``LSTMBlockCell`` -> ``lstm_block_cell``."""
    out = []
    for i, c in enumerate(name):
        if c.isupper():
            prev = name[i - 1] if i else ""
            nxt = name[i + 1] if i + 1 < len(name) else ""
            if i and (prev.islower() or (prev.isupper() and nxt.islower())):
                out.append("_")
            out.append(c.lower())
        else:
            out.append(c)
    return "".join(out)


def _attr_value(attr, value):
    """An attr's value as the extension module takes it."""
    if attr["type"] == "type":
        return _dtypes.as_dtype(value).name
    if attr["type"] == "list(type)":
        return [_dtypes.as_dtype(v).name for v in value]
    if attr["type"] == "shape" and value is not None:
        return [None if d is None or d < 0 else int(d) for d in value]
    if attr["type"] == "tensor":
        return array_attr(_const_array(value, None))
    return value


def _inferred_attrs(d):
    """The attrs an op's inputs determine (their type and length attrs)."""
    names = set()
    for arg in d["inputs"]:
        if arg["type_attr"]:
            names.add(arg["type_attr"])
        if arg["number_attr"]:
            names.add(arg["number_attr"])
    return names


def apply_op(op_type, inputs, attrs=None, name=None):
    """Adds a node of ``op_type`` to the graph of its inputs (or the
    default graph): ``inputs`` by the op's argument names, ``attrs`` by
    name (inferred ones may be left out)."""
    d = op_def(op_type)
    attrs = dict(attrs or {})
    attr_defs = {a["name"]: a for a in d["attrs"]}
    graph = None
    for arg in d["inputs"]:
        v = inputs.get(arg["name"])
        for x in (v if isinstance(v, (list, tuple)) else [v]):
            if isinstance(x, Tensor):
                graph = graph or x.graph
    graph = graph or get_default_graph()

    def type_of(arg, value):
        """The dtype ``value`` must have for ``arg``: fixed, or its type
        attr's as set so far; the attr's default only for a plain value (a
        Tensor's own dtype sets the attr, as in TensorFlow)."""
        if arg["type"]:
            return arg["type"]
        t = attrs.get(arg["type_attr"])
        if t is None:
            if _has_tensor(value):
                return None
            default = attr_defs.get(arg["type_attr"], {}).get("default")
            return default if isinstance(default, str) else None
        return None if isinstance(t, list) else _dtypes.as_dtype(t).name

    # Tensors first: they fix the type attrs that plain values follow.
    missing = [a["name"] for a in d["inputs"] if a["name"] not in inputs]
    if missing:
        raise TypeError(f"{op_type} is missing inputs {missing}")
    for arg in sorted(d["inputs"], key=lambda a: not _has_tensor(
            inputs[a["name"]])):
        v = inputs[arg["name"]]
        listed = bool(arg["number_attr"]) or (
            arg["type_attr"] and attr_defs[arg["type_attr"]]["type"]
            == "list(type)")
        if listed:
            if not isinstance(v, (list, tuple)):
                raise TypeError(f"input {arg['name']} of {op_type} is a "
                                f"list, got {v!r}")
            items = [convert_to_tensor(x, type_of(arg, v), graph=graph)
                     for x in v]
            if arg["number_attr"]:
                attrs[arg["number_attr"]] = len(items)
                if arg["type_attr"]:
                    _set_type(attrs, arg, items, op_type)
            else:
                attrs[arg["type_attr"]] = [t.dtype.name for t in items]
            inputs[arg["name"]] = items
        else:
            t = convert_to_tensor(v, type_of(arg, v), graph=graph)
            if arg["type_attr"]:
                _set_type(attrs, arg, [t], op_type)
            inputs[arg["name"]] = t
    converted = {k: _attr_value(attr_defs[k], v) if k in attr_defs else v
                 for k, v in attrs.items()}
    op, outs = graph.create_op(
        op_type, [inputs[a["name"]] for a in d["inputs"]], converted, name)
    if not d["outputs"]:
        return op
    return outs[0] if len(outs) == 1 and not _lists_outputs(d) else outs


def _has_tensor(v):
    if isinstance(v, (list, tuple)):
        return _builtins.any(isinstance(x, Tensor) for x in v)
    return isinstance(v, Tensor)


def _lists_outputs(d):
    """Whether an op's function returns a list: several outputs, or one
    that stands for a list (``N * T``, ``list(type)``)."""
    if len(d["outputs"]) != 1:
        return True
    out = d["outputs"][0]
    types = {a["name"]: a["type"] for a in d["attrs"]}
    return bool(out["number_attr"]) or types.get(out["type_attr"]) \
        == "list(type)"


def _set_type(attrs, arg, items, op_type):
    attr = arg["type_attr"]
    for t in items:
        # A reference (a variable) feeds its value's type.
        name = t.dtype.name
        have = attrs.get(attr)
        if have is None:
            attrs[attr] = name
        elif _dtypes.as_dtype(have).name != name:
            raise TypeError(
                f"input {arg['name']} of {op_type} is {name}, but attr "
                f"{attr} is {_dtypes.as_dtype(have).name} (from the other "
                "inputs)")


def _make_function(d):
    inferred = _inferred_attrs(d)
    settable = [a for a in d["attrs"] if a["name"] not in inferred]
    in_names = [a["name"] for a in d["inputs"]]
    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
              for n in in_names]
    for a in settable:
        params.append(inspect.Parameter(
            a["name"], inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=a.get("default", inspect.Parameter.empty)
            if "default" in a else inspect.Parameter.empty))
    # Required attrs must come before defaulted ones in a signature.
    params.sort(key=lambda p: (p.name not in in_names,
                               p.default is not inspect.Parameter.empty))
    params.append(inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY,
                                    default=None))
    signature = inspect.Signature(params)

    def fn(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        values = bound.arguments
        name = values.pop("name", None)
        ins = {n: values.pop(n) for n in in_names}
        return apply_op(d["name"], ins, values, name)

    fn.__name__ = _snake(d["name"])
    fn.__qualname__ = fn.__name__
    fn.__signature__ = signature
    fn.__doc__ = _docstring(d)
    return fn


def _arg_doc(a):
    t = a["type"] or a["type_attr"]
    if a["number_attr"]:
        t = f"{a['number_attr']} * {t}"
    return f"{a['name']}: {'ref ' if a['is_ref'] else ''}{t}"


def _docstring(d):
    lines = [f"Adds a node of op {d['name']}"
             + (" (stateful)." if d["stateful"] else "."), ""]
    if d["inputs"]:
        lines.append("Inputs: " + ", ".join(_arg_doc(a) for a in d["inputs"]))
    if d["outputs"]:
        lines.append("Outputs: "
                     + ", ".join(_arg_doc(a) for a in d["outputs"]))
    for a in d["attrs"]:
        s = f"  {a['name']}: {a['type']}"
        if "default" in a:
            s += f" = {a['default']!r}"
        if a["allowed"]:
            s += f" in {{{', '.join(a['allowed'])}}}"
        lines.append(s)
    return "\n".join(lines)


def _make_raw(d):
    def fn(name=None, **kwargs):
        in_names = [a["name"] for a in d["inputs"]]
        ins = {n: kwargs.pop(n) for n in in_names if n in kwargs}
        return apply_op(d["name"], ins, kwargs, name)
    fn.__name__ = d["name"]
    fn.__doc__ = _docstring(d)
    return fn


raw_ops = types.SimpleNamespace()
"""Every op by its own name, keywords only: ``raw_ops.MatMul(a=x, b=y)``."""

# function name -> op name
_function_ops = {}
for _d in _OP_DEFS.values():
    if _d["name"].startswith("_"):
        continue
    setattr(raw_ops, _d["name"], _make_raw(_d))
    _f = _make_function(_d)
    if keyword.iskeyword(_f.__name__):  # TensorFlow's trailing underscore
        _f.__name__ = _f.__qualname__ = _f.__name__ + "_"
    _function_ops[_f.__name__] = _d["name"]
    globals()[_f.__name__] = _f
    __all__.append(_f.__name__)
