"""Static shapes, as ``tf.TensorShape`` and ``tf.Dimension``: what
``Tensor.shape`` and ``get_shape()`` return (``as_list()``, ``ndims``,
``x.shape[1].value``); equal to a tuple or list of the same dimensions."""

__all__ = ["TensorShape", "Dimension", "as_shape", "dimension_value",
           "shape_attr"]


class Dimension:
    """One dimension: a size, or unknown (``value`` None). Compares and
    computes with ints as TensorFlow 1's ``Dimension`` does (unknown in,
    unknown out)."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        self._value = None if value is None else int(value)
        if self._value == -1:  # the engine's and GraphDef's "unknown"
            self._value = None
        elif self._value is not None and self._value < 0:
            raise ValueError(f"a dimension must be >= 0, got {value}")

    @property
    def value(self):
        return self._value

    def __int__(self):
        if self._value is None:
            raise TypeError("an unknown dimension has no int value")
        return self._value

    __index__ = __int__

    def __repr__(self):
        return f"Dimension({self._value})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __eq__(self, other):
        other = dimension_value(other)
        if self._value is None or other is None:
            return None
        return self._value == other

    def __ne__(self, other):
        eq = self.__eq__(other)
        return None if eq is None else not eq

    def __hash__(self):
        return hash(self._value)

    def __bool__(self):
        return bool(self._value)

    def _apply(self, other, fn):
        other = dimension_value(other)
        if self._value is None or other is None:
            return Dimension(None)
        return Dimension(fn(self._value, other))

    def __add__(self, o): return self._apply(o, lambda a, b: a + b)
    __radd__ = __add__
    def __sub__(self, o): return self._apply(o, lambda a, b: a - b)
    def __rsub__(self, o): return self._apply(o, lambda a, b: b - a)
    def __mul__(self, o): return self._apply(o, lambda a, b: a * b)
    __rmul__ = __mul__
    def __floordiv__(self, o): return self._apply(o, lambda a, b: a // b)
    def __rfloordiv__(self, o): return self._apply(o, lambda a, b: b // a)
    def __mod__(self, o): return self._apply(o, lambda a, b: a % b)

    def _compare(self, other, fn):
        other = dimension_value(other)
        if self._value is None or other is None:
            return None
        return fn(self._value, other)

    def __lt__(self, o): return self._compare(o, lambda a, b: a < b)
    def __le__(self, o): return self._compare(o, lambda a, b: a <= b)
    def __gt__(self, o): return self._compare(o, lambda a, b: a > b)
    def __ge__(self, o): return self._compare(o, lambda a, b: a >= b)

    def is_compatible_with(self, other):
        other = dimension_value(other)
        return self._value is None or other is None or self._value == other

    def merge_with(self, other):
        other = dimension_value(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"dimensions {self} and {other} are not "
                             "compatible")
        return Dimension(self._value if other is None else other)


def dimension_value(d):
    """A dimension's size as an int, or None."""
    if isinstance(d, Dimension):
        return d.value
    return None if d is None else int(d)


class TensorShape:
    """A static shape: dimensions (``Dimension``s) or an unknown rank
    (``TensorShape(None)``)."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims.as_list() if dims._dims is not None else None
        if dims is None:
            self._dims = None
        elif isinstance(dims, (int, Dimension)):
            self._dims = [Dimension(dims)]
        else:
            self._dims = [Dimension(d) for d in dims]

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self):
        """The dimensions as a list of ints and None for unknown ones."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown "
                             "TensorShape")
        return [d.value for d in self._dims]

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d.value
        return n

    def is_fully_defined(self):
        return self._dims is not None and all(
            d.value is not None for d in self._dims)

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a.is_compatible_with(b) for a, b in zip(self._dims, other._dims))

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims):
            raise ValueError(f"shapes {self} and {other} are not compatible")
        return TensorShape([a.merge_with(b)
                            for a, b in zip(self._dims, other._dims)])

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"shapes {self} and {as_shape(other)} are "
                             "incompatible")

    def assert_has_rank(self, rank):
        if self.ndims not in (None, rank):
            raise ValueError(f"shape {self} must have rank {rank}")

    def with_rank(self, rank):
        self.assert_has_rank(rank)
        return self if self._dims is not None else unknown_shape(rank)

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __len__(self):
        if self._dims is None:
            raise ValueError("cannot take the length of a shape of unknown "
                             "rank")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("cannot iterate over a shape of unknown rank")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return Dimension(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._dims is None or other._dims is None:
            return self._dims is None and other._dims is None
        return [d.value for d in self._dims] == [d.value for d in other._dims]

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(None if self._dims is None else tuple(
            d.value for d in self._dims))

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({[d.value for d in self._dims]})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join(str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"


def as_shape(shape):
    """``shape`` as a TensorShape (from a list, tuple, or None)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None):
    return TensorShape(None if rank is None else [None] * rank)


def shape_attr(shape):
    """A shape (list, tuple, TensorShape; None or -1 for unknown) as a
    shape attr: a list with None for unknown dimensions, or None for an
    unknown rank."""
    shape = as_shape(shape)
    if shape.ndims is None:
        return None
    return shape.as_list()
