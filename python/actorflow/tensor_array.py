"""``tf.TensorArray``: a list of tensors written and read by index inside
a ``while_loop`` (the engine's TensorArrayV3 ops), threaded through the
loop by its flow, as TensorFlow 1 does."""

from . import dtypes as _dtypes
from . import ops as _ops
from .graph import convert_to_tensor as _t
from .tensor_shape import shape_attr
from .tensor_shape import TensorShape

__all__ = ["TensorArray"]


class TensorArray:
    """``size`` elements of ``dtype`` (growing with ``dynamic_size``);
    ``write``, ``scatter``, ``unstack`` and ``split`` return the array to
    use next (its new flow), ``read``, ``gather``, ``stack`` and
    ``concat`` its elements."""

    def __init__(self, dtype, size=None, dynamic_size=None,
                 clear_after_read=None, tensor_array_name=None, handle=None,
                 flow=None, infer_shape=True, element_shape=None,
                 colocate_with_first_write_call=True, name=None):
        self._dtype = _dtypes.as_dtype(dtype)
        # Shared by every TensorArray of this handle (each flow of it): what
        # a write teaches of the elements' shape, a later read knows.
        self._shape = [TensorShape(element_shape)]
        if handle is not None:
            if flow is None:
                raise ValueError("TensorArray: a handle needs its flow")
            self._handle, self._flow = handle, flow
            return
        if size is None:
            raise ValueError("TensorArray: give size")
        self._handle, self._flow = _ops.tensor_array_v3(
            _t(size, "int32"), dtype=self._dtype.name,
            element_shape=shape_attr(self.element_shape),
            dynamic_size=bool(dynamic_size),
            clear_after_read=True if clear_after_read is None
            else clear_after_read,
            identical_element_shapes=infer_shape,
            tensor_array_name=tensor_array_name or "",
            name=name or "TensorArray")

    @property
    def dtype(self):
        return self._dtype

    @property
    def handle(self):
        return self._handle

    @property
    def flow(self):
        return self._flow

    @property
    def element_shape(self):
        return self._shape[0]

    def _next(self, flow):
        """This array at a new flow."""
        array = TensorArray(self._dtype, handle=self._handle, flow=flow)
        array._shape = self._shape
        return array

    def _learn(self, shape):
        """Merges a written element's shape into what is known."""
        self._shape[0] = self._shape[0].merge_with(shape)

    def read(self, index, name=None):
        value = _ops.tensor_array_read_v3(self._handle, _t(index, "int32"),
                                          self._flow, dtype=self._dtype.name,
                                          name=name)
        if self.element_shape.ndims is not None:
            value.set_shape(self.element_shape)
        return value

    def write(self, index, value, name=None):
        value = _t(value, self._dtype)
        self._learn(value.shape)
        flow = _ops.tensor_array_write_v3(self._handle, _t(index, "int32"),
                                          value, self._flow, name=name)
        return self._next(flow)

    def gather(self, indices, name=None):
        out = _ops.tensor_array_gather_v3(
            self._handle, _t(indices, "int32"), self._flow,
            dtype=self._dtype.name,
            element_shape=shape_attr(self.element_shape), name=name)
        if self.element_shape.ndims is not None:
            out.set_shape(TensorShape([None]).concatenate(self.element_shape))
        return out

    def stack(self, name=None):
        """Every element, stacked along a new first axis."""
        return self.gather(_ops.range(_t(0, "int32"), self.size(),
                                      _t(1, "int32")), name=name)

    def concat(self, name=None):
        value, _ = _ops.tensor_array_concat_v3(
            self._handle, self._flow, dtype=self._dtype.name, name=name)
        return value

    def scatter(self, indices, value, name=None):
        value = _t(value, self._dtype)
        if value.shape.ndims:
            self._learn(value.shape[1:])
        flow = _ops.tensor_array_scatter_v3(
            self._handle, _t(indices, "int32"), value, self._flow, name=name)
        return self._next(flow)

    def unstack(self, value, name=None):
        """The rows of ``value`` as the elements."""
        value = _t(value, self._dtype)
        rows = _ops.strided_slice(
            _ops.shape(value), _t([0], "int32"), _t([1], "int32"),
            _t([1], "int32"), shrink_axis_mask=1)
        return self.scatter(_ops.range(_t(0, "int32"), rows, _t(1, "int32")),
                            value, name=name)

    def split(self, value, lengths, name=None):
        value = _t(value, self._dtype)
        flow = _ops.tensor_array_split_v3(
            self._handle, value, _t(lengths, "int64"), self._flow, name=name)
        return self._next(flow)

    def size(self, name=None):
        return _ops.tensor_array_size_v3(self._handle, self._flow, name=name)

    def close(self, name=None):
        return _ops.tensor_array_close_v3(self._handle, name=name)

    def identity(self):
        return self._next(_ops.identity(self._flow))
