"""Nested structures of fetches (lists, tuples, namedtuples, dicts), taken
apart and put back together as ``tf.nest`` does for ``Session.run``."""

__all__ = ["flatten", "pack_sequence_as"]


def _is_nested(x):
    return isinstance(x, (list, tuple, dict))


def flatten(structure):
    """The leaves of ``structure``, in order (dicts by sorted key)."""
    if isinstance(structure, dict):
        return [leaf for k in sorted(structure) for leaf in
                flatten(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [leaf for x in structure for leaf in flatten(x)]
    return [structure]


def pack_sequence_as(structure, leaves):
    """``structure`` with its leaves replaced by ``leaves``, in order."""
    it = iter(leaves)

    def pack(s):
        if isinstance(s, dict):
            packed = {k: pack(s[k]) for k in sorted(s)}
            return type(s)((k, packed[k]) for k in s)
        if isinstance(s, tuple) and hasattr(s, "_fields"):  # namedtuple
            return type(s)(*[pack(x) for x in s])
        if isinstance(s, (list, tuple)):
            return type(s)(pack(x) for x in s)
        return next(it)

    return pack(structure)
