"""The error for a TensorFlow name actorflow does not have: an
AttributeError that names it and the nearest names there are."""

import difflib


def missing(module, tf_module, name, names):
    """The AttributeError for ``module.name`` (``tf_module.name`` in
    TensorFlow); ``names``: what the module has."""
    if name.startswith("__"):
        return AttributeError(f"module {module!r} has no attribute {name!r}")
    near = difflib.get_close_matches(name, [n for n in names
                                            if not n.startswith("_")], 3)
    hint = f"; the nearest names it has: {', '.join(near)}" if near else ""
    return AttributeError(
        f"{tf_module}.{name} is not in actorflow.compat.v1 (module "
        f"{module!r} has no attribute {name!r}){hint}. "
        "docs/from-tensorflow-1.md lists what is missing.")
