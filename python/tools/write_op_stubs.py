"""Writes actorflow/ops.pyi: a typed signature for each op function that
actorflow.ops generates from the op registry at import, so that editors
complete them. Usage: write_op_stubs.py OUT (run by the build)."""

import inspect
import sys

import actorflow.ops as ops

_ATTR_TYPES = {
    "int": "int", "float": "float", "bool": "bool", "string": "str | bytes",
    "type": "DTypeLike", "shape": "ShapeLike", "tensor": "ArrayLike",
    "list(int)": "Sequence[int]", "list(float)": "Sequence[float]",
    "list(bool)": "Sequence[bool]", "list(string)": "Sequence[str | bytes]",
    "list(type)": "Sequence[DTypeLike]", "list(shape)": "Sequence[ShapeLike]",
    "list(tensor)": "Sequence[ArrayLike]",
}


def stub(name, fn):
    sig = inspect.signature(fn)
    op = ops.op_def(ops._function_ops[name])
    attrs = {a["name"]: a for a in op["attrs"]}
    inputs = {a["name"]: a for a in op["inputs"]}
    params = []
    kw_only = False
    for p in sig.parameters.values():
        if p.kind is inspect.Parameter.KEYWORD_ONLY and not kw_only:
            params.append("*")
            kw_only = True
        if p.name in inputs:
            listed = bool(inputs[p.name]["number_attr"])
            ann = "Sequence[TensorLike]" if listed else "TensorLike"
        elif p.name in attrs:
            ann = _ATTR_TYPES.get(attrs[p.name]["type"], "Any")
        else:
            ann = "str | None"
        default = "" if p.default is inspect.Parameter.empty else " = ..."
        params.append(f"{p.name}: {ann}{default}")
    if not op["outputs"]:
        ret = "Operation"
    elif ops._lists_outputs(op):
        ret = "list[Tensor]"
    else:
        ret = "Tensor"
    doc = fn.__doc__.replace('"""', "'''")
    return (f"def {name}({', '.join(params)}) -> {ret}:\n"
            f'    """{doc}"""\n')


def main(out):
    lines = [
        '"""Op functions generated from the op registry (stubs)."""',
        "from typing import Any, Sequence",
        "from types import SimpleNamespace",
        "from numpy.typing import ArrayLike",
        "from .graph import Tensor, Operation",
        "from .dtypes import DType",
        "TensorLike = Tensor | ArrayLike",
        "DTypeLike = DType | str | Any",
        "ShapeLike = Sequence[int | None] | None",
        "raw_ops: SimpleNamespace",
        "def apply_op(op_type: str, inputs: dict[str, Any], "
        "attrs: dict[str, Any] | None = ..., name: str | None = ...) "
        "-> Tensor | list[Tensor] | Operation: ...",
        "def op_def(op_type: str) -> dict[str, Any]: ...",
        "",
    ]
    for name in sorted(n for n in vars(ops) if n in ops.__all__
                       and n not in ("apply_op", "op_def", "raw_ops")):
        fn = getattr(ops, name)
        lines.append(stub(name, fn))
    with open(out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
