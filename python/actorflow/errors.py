"""The exceptions a failed step or build raises, as in ``tf.errors``.

Each carries the engine's status: its code, its message (which names the
node, op and device where the error happened), and those as attributes.
"""

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
    "PermissionDeniedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError",
    "UnimplementedError", "InternalError", "UnavailableError",
    "DataLossError",
]


class OpError(Exception):
    """A failed status of the engine.

    Attributes: ``code`` (TensorFlow's and gRPC's numbers), ``message`` (the
    whole status, with ``{{node ...}} {{op ...}} {{device ...}}``), ``node``,
    ``op``, ``device`` (empty where unknown).
    """

    code = 2

    def __init__(self, message, node="", op="", device=""):
        super().__init__(message)
        self.message = message
        self.node = node
        self.op = op
        self.device = device


class CancelledError(OpError):
    code = 1


class UnknownError(OpError):
    code = 2


class InvalidArgumentError(OpError, ValueError):
    code = 3


class DeadlineExceededError(OpError):
    code = 4


class NotFoundError(OpError, LookupError):
    code = 5


class AlreadyExistsError(OpError):
    code = 6


class PermissionDeniedError(OpError):
    code = 7


class ResourceExhaustedError(OpError, MemoryError):
    code = 8


class FailedPreconditionError(OpError):
    code = 9


class AbortedError(OpError):
    code = 10


class OutOfRangeError(OpError):
    code = 11


class UnimplementedError(OpError, NotImplementedError):
    code = 12


class InternalError(OpError):
    code = 13


class UnavailableError(OpError):
    code = 14


class DataLossError(OpError):
    code = 15


_BY_CODE = {cls.code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError,
    NotFoundError, AlreadyExistsError, PermissionDeniedError,
    ResourceExhaustedError, FailedPreconditionError, AbortedError,
    OutOfRangeError, UnimplementedError, InternalError, UnavailableError,
    DataLossError)}


def _make(code, message, node, op, device):
    """The exception for a status (called by the extension module)."""
    return _BY_CODE.get(code, UnknownError)(message, node, op, device)
