"""``tf.compat.v1.train.summary_iterator``: the events of an event file
(TensorBoard's), read back as objects with TensorFlow's field names:
``wall_time``, ``step``, ``file_version``, ``graph_def`` and ``summary``
(its ``value`` list: ``tag``, ``simple_value``, ``histo``)."""

import struct

__all__ = ["summary_iterator"]


def _varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _fields(data):
    """(field number, wire type, value) of a protobuf message's bytes."""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 1:
            value, at = data[at:at + 8], at + 8
        elif wire == 2:
            n, at = _varint(data, at)
            value, at = data[at:at + n], at + n
        elif wire == 5:
            value, at = data[at:at + 4], at + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


class _Message:
    """Fields by name; a missing one has its default."""

    _defaults = {}

    def __init__(self):
        for k, v in self._defaults.items():
            setattr(self, k, list(v) if isinstance(v, list) else v)

    def HasField(self, name):
        return getattr(self, name) != self._defaults.get(name)

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k)!r}"
                           for k in self._defaults
                           if self.HasField(k))
        return f"{type(self).__name__}({fields})"


class HistogramProto(_Message):
    _defaults = {"min": 0.0, "max": 0.0, "num": 0.0, "sum": 0.0,
                 "sum_squares": 0.0, "bucket_limit": [], "bucket": []}

    @classmethod
    def parse(cls, data):
        h = cls()
        names = {1: "min", 2: "max", 3: "num", 4: "sum", 5: "sum_squares"}
        for number, wire, value in _fields(data):
            if number in names and wire == 1:
                setattr(h, names[number], struct.unpack("<d", value)[0])
            elif number in (6, 7):
                target = h.bucket_limit if number == 6 else h.bucket
                if wire == 2:  # packed
                    target.extend(struct.unpack(f"<{len(value) // 8}d",
                                                value))
                else:
                    target.append(struct.unpack("<d", value)[0])
        return h


class Value(_Message):
    _defaults = {"tag": "", "simple_value": 0.0, "histo": None}

    @classmethod
    def parse(cls, data):
        v = cls()
        for number, wire, value in _fields(data):
            if number == 1:
                v.tag = value.decode()
            elif number == 2 and wire == 5:
                v.simple_value = struct.unpack("<f", value)[0]
            elif number == 5:
                v.histo = HistogramProto.parse(value)
        return v


class Summary(_Message):
    _defaults = {"value": []}

    @classmethod
    def parse(cls, data):
        s = cls()
        s.value = [Value.parse(value) for number, _, value in _fields(data)
                   if number == 1]
        return s


class Event(_Message):
    _defaults = {"wall_time": 0.0, "step": 0, "file_version": "",
                 "graph_def": b"", "summary": None}

    @classmethod
    def parse(cls, data):
        e = cls()
        e.summary = Summary()
        for number, wire, value in _fields(data):
            if number == 1:
                e.wall_time = struct.unpack("<d", value)[0]
            elif number == 2:
                e.step = value
            elif number == 3:
                e.file_version = value.decode()
            elif number == 4:
                e.graph_def = value
            elif number == 5:
                e.summary = Summary.parse(value)
        return e

    def HasField(self, name):
        if name == "summary":
            return bool(self.summary.value)
        return super().HasField(name)


def summary_iterator(path):
    """Each Event of the event file at ``path``, in order (TFRecords: a
    length, its checksum, the record, its checksum)."""
    with open(path, "rb") as f:
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                raise ValueError(f"{path}: a truncated record")
            (n,) = struct.unpack("<Q", header[:8])
            data = f.read(n)
            if len(data) < n or len(f.read(4)) < 4:
                raise ValueError(f"{path}: a truncated record")
            yield Event.parse(data)
