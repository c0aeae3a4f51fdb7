"""Element types, as ``tf.dtypes`` names them, and their numpy twins."""

import numpy as np

__all__ = [
    "DType", "as_dtype", "bool", "int8", "int16", "int32", "int64", "uint8",
    "uint16", "uint32", "uint64", "float16", "half", "bfloat16", "float32",
    "float64", "double", "complex64", "complex128", "string", "variant",
]


_bfloat16_cache = []


def _numpy_bfloat16():
    """ml_dtypes' bfloat16 when ml_dtypes is installed, else None."""
    if not _bfloat16_cache:
        try:
            import ml_dtypes
            _bfloat16_cache.append(np.dtype(ml_dtypes.bfloat16))
        except ImportError:
            _bfloat16_cache.append(None)
    return _bfloat16_cache[0]


class DType:
    """One element type: ``name`` is the engine's (``"float32"``, ...)."""

    __slots__ = ("name", "_np")

    def __init__(self, name):
        self.name = name
        self._np = None

    @property
    def as_numpy_dtype(self):
        """The numpy type of its arrays (``object`` for strings)."""
        return self.numpy_dtype.type

    @property
    def numpy_dtype(self):
        """The numpy dtype of its arrays (``object`` for strings)."""
        if self._np is None:
            if self.name == "bfloat16":
                bf16 = _numpy_bfloat16()
                if bf16 is None:
                    raise TypeError("bfloat16 arrays need ml_dtypes "
                                    "(pip install ml_dtypes)")
                self._np = bf16
            elif self.name in ("string", "variant"):
                self._np = np.dtype(object)
            else:
                self._np = np.dtype(self.name)
        return self._np

    @property
    def is_floating(self):
        return self.name in ("float16", "bfloat16", "float32", "float64")

    @property
    def is_integer(self):
        return self.name.startswith(("int", "uint"))

    @property
    def is_bool(self):
        return self.name == "bool"

    @property
    def is_complex(self):
        return self.name.startswith("complex")

    @property
    def is_unsigned(self):
        return self.name.startswith("uint")

    @property
    def base_dtype(self):
        """Itself (a variable's dtype here is its value's)."""
        return self

    @property
    def real_dtype(self):
        return {"complex64": _DTYPES["float32"],
                "complex128": _DTYPES["float64"]}.get(self.name, self)

    @property
    def size(self):
        return self.numpy_dtype.itemsize

    @property
    def min(self):
        return (np.finfo if self.is_floating else np.iinfo)(
            self.numpy_dtype).min

    @property
    def max(self):
        return (np.finfo if self.is_floating else np.iinfo)(
            self.numpy_dtype).max

    def __eq__(self, other):
        try:
            return self.name == as_dtype(other).name
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "af." + self.name


_ENGINE_NAMES = {"float": "float32", "double": "float64", "half": "float16",
                 "bool_": "bool"}
_DTYPES = {}
for _name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
              "uint32", "uint64", "float16", "bfloat16", "float32",
              "float64", "complex64", "complex128", "string", "variant"):
    _DTYPES[_name] = DType(_name)


_BY_NUMPY = {np.dtype(n): _DTYPES[n] for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "float32", "float64", "complex64", "complex128")}


def as_dtype(x):
    """Returns the DType of a DType, a name, a numpy dtype or type, or a
    TensorFlow DType."""
    if isinstance(x, DType):
        return x
    if isinstance(x, str):
        name = _ENGINE_NAMES.get(x, x)
        if name in _DTYPES:
            return _DTYPES[name]
        raise TypeError(f"unknown dtype {x!r}")
    if hasattr(x, "as_numpy_dtype") and hasattr(x, "name"):  # tf.DType
        return as_dtype(x.name)
    try:
        d = np.dtype(x)
    except TypeError:
        raise TypeError(f"cannot make a dtype of {x!r}") from None
    known = _BY_NUMPY.get(d)
    if known is not None:
        return known
    bf16 = _numpy_bfloat16()
    if bf16 is not None and d == bf16:
        return _DTYPES["bfloat16"]
    if d.kind in "SUO":
        return _DTYPES["string"]
    if d.name in _DTYPES:
        return _DTYPES[d.name]
    raise TypeError(f"numpy dtype {d} has no actorflow dtype")


bool = _DTYPES["bool"]  # noqa: A001 (tf.bool)
int8 = _DTYPES["int8"]
int16 = _DTYPES["int16"]
int32 = _DTYPES["int32"]
int64 = _DTYPES["int64"]
uint8 = _DTYPES["uint8"]
uint16 = _DTYPES["uint16"]
uint32 = _DTYPES["uint32"]
uint64 = _DTYPES["uint64"]
float16 = half = _DTYPES["float16"]
bfloat16 = _DTYPES["bfloat16"]
float32 = _DTYPES["float32"]
float64 = double = _DTYPES["float64"]
complex64 = _DTYPES["complex64"]
complex128 = _DTYPES["complex128"]
string = _DTYPES["string"]
variant = _DTYPES["variant"]
