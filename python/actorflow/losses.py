"""``tf.compat.v1.losses``: losses with weights and TensorFlow's
reductions, each added to the ``LOSSES`` collection that
``get_total_loss`` sums."""

from . import nn_ops
from . import ops as _ops
from .array_ops import cast
from .graph import GraphKeys, Tensor, convert_to_tensor as _t
from .graph import get_default_graph
from .math import add_n, reduce_sum

__all__ = [
    "Reduction", "compute_weighted_loss", "add_loss", "get_losses",
    "get_regularization_losses", "get_regularization_loss",
    "get_total_loss", "absolute_difference", "mean_squared_error",
    "log_loss", "hinge_loss", "huber_loss", "sigmoid_cross_entropy",
    "softmax_cross_entropy", "sparse_softmax_cross_entropy",
    "cosine_distance",
]


class Reduction:
    """How a weighted loss is reduced to what it returns."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"invalid Reduction key {key!r}")


def _safe_div(numerator, denominator):
    """numerator / denominator, 0 where the denominator is 0."""
    zero = _ops.zeros_like(denominator)
    positive = _ops.greater(denominator, zero)
    safe = _ops.select_v2(positive, denominator, _ops.ones_like(denominator))
    return _ops.select_v2(positive, _ops.real_div(numerator, safe),
                          _ops.zeros_like(numerator))


def _num_present(losses, weights):
    """How many elements of ``losses`` have a nonzero weight."""
    nonzero = cast(_ops.not_equal(weights, _ops.zeros_like(weights)),
                   losses.dtype)
    broadcast = _ops.mul(nonzero, _ops.ones_like(losses))
    return reduce_sum(broadcast)


def compute_weighted_loss(losses, weights=1.0, scope=None,
                          loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``losses * weights`` reduced by ``reduction``; added to
    ``loss_collection``."""
    Reduction.validate(reduction)
    graph = get_default_graph()
    with graph.name_scope(scope or "weighted_loss"):
        losses = _t(losses)
        dtype = losses.dtype
        losses = cast(losses, "float32") if dtype.name != "float64" \
            else losses
        weights = cast(weights, losses.dtype) if isinstance(
            weights, Tensor) else _t(weights, losses.dtype)
        weighted = _ops.mul(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = _safe_div(loss, reduce_sum(
                    _ops.mul(_ops.ones_like(losses), weights)))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = _safe_div(loss, _num_present(losses, weights))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = _safe_div(loss, cast(_ops.size(losses),
                                            losses.dtype))
        loss = cast(loss, dtype) if loss.dtype != dtype else loss
        loss = _ops.identity(loss, name="value")
    if loss_collection:
        graph.add_to_collection(loss_collection, loss)
    return loss


def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    if loss_collection:
        get_default_graph().add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    return get_default_graph().get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    return get_default_graph().get_collection(
        GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    losses = get_regularization_losses(scope)
    if losses:
        return add_n(losses, name=name)
    return _t(0.0, name=name)


def get_total_loss(add_regularization_losses=True, name="total_loss",
                   scope=None):
    losses = get_losses(scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope)
    if not losses:
        raise ValueError("get_total_loss: no losses were added")
    return add_n(losses, name=name)


def _pair(labels, predictions):
    predictions = _t(predictions)
    labels = cast(labels, predictions.dtype) if isinstance(labels, Tensor) \
        else _t(labels, predictions.dtype)
    return labels, predictions


def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with get_default_graph().name_scope(scope or "absolute_difference"):
        labels, predictions = _pair(labels, predictions)
        losses = _ops.abs(_ops.sub(predictions, labels))
        return compute_weighted_loss(losses, weights, None, loss_collection,
                                     reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None,
                       loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with get_default_graph().name_scope(scope or "mean_squared_error"):
        labels, predictions = _pair(labels, predictions)
        losses = _ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, None, loss_collection,
                                     reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with get_default_graph().name_scope(scope or "log_loss"):
        labels, predictions = _pair(labels, predictions)
        eps = _t(epsilon, predictions.dtype)
        one = _t(1.0, predictions.dtype)
        losses = _ops.sub(
            _ops.neg(_ops.mul(labels, _ops.log(_ops.add_v2(predictions,
                                                           eps)))),
            _ops.mul(_ops.sub(one, labels),
                     _ops.log(_ops.add_v2(_ops.sub(one, predictions), eps))))
        return compute_weighted_loss(losses, weights, None, loss_collection,
                                     reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None,
               loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with get_default_graph().name_scope(scope or "hinge_loss"):
        labels, logits = _pair(labels, logits)
        one = _t(1.0, logits.dtype)
        signs = _ops.sub(_ops.mul(_t(2.0, logits.dtype), labels), one)
        losses = _ops.relu(_ops.sub(one, _ops.mul(logits, signs)))
        return compute_weighted_loss(losses, weights, None, loss_collection,
                                     reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """0.5 e^2 where |e| <= delta, else delta |e| - 0.5 delta^2."""
    with get_default_graph().name_scope(scope or "huber_loss"):
        labels, predictions = _pair(labels, predictions)
        error = _ops.abs(_ops.sub(predictions, labels))
        d = _t(delta, error.dtype)
        quadratic = _ops.minimum(error, d)
        linear = _ops.sub(error, quadratic)
        losses = _ops.add_v2(
            _ops.mul(_t(0.5, error.dtype), _ops.mul(quadratic, quadratic)),
            _ops.mul(d, linear))
        return compute_weighted_loss(losses, weights, None, loss_collection,
                                     reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0,
                          label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with get_default_graph().name_scope(scope or "sigmoid_cross_entropy_loss"):
        labels, logits = _pair(multi_class_labels, logits)
        if label_smoothing:
            half = _t(0.5 * label_smoothing, logits.dtype)
            labels = _ops.add_v2(_ops.mul(
                labels, _t(1 - label_smoothing, logits.dtype)), half)
        losses = nn_ops.sigmoid_cross_entropy_with_logits(
            labels=labels, logits=logits)
        return compute_weighted_loss(losses, weights, None, loss_collection,
                                     reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0,
                          label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with get_default_graph().name_scope(scope or "softmax_cross_entropy_loss"):
        labels, logits = _pair(onehot_labels, logits)
        if label_smoothing:
            classes = cast(_ops.strided_slice(
                _ops.shape(labels), _t([-1], "int32"), _t([0], "int32"),
                _t([1], "int32"), end_mask=1, shrink_axis_mask=1),
                logits.dtype)
            labels = _ops.add_v2(
                _ops.mul(labels, _t(1 - label_smoothing, logits.dtype)),
                _ops.real_div(_t(label_smoothing, logits.dtype), classes))
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(
            labels=_ops.stop_gradient(labels), logits=logits)
        return compute_weighted_loss(losses, weights, None, loss_collection,
                                     reduction)


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with get_default_graph().name_scope(
            scope or "sparse_softmax_cross_entropy_loss"):
        logits = _t(logits)
        labels = _t(labels)
        if labels.shape.ndims is not None and logits.shape.ndims is not None \
                and labels.shape.ndims == logits.shape.ndims:
            labels = _ops.squeeze(labels, squeeze_dims=[-1])
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits)
        return compute_weighted_loss(losses, weights, None, loss_collection,
                                     reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("cosine_distance: give axis")
    with get_default_graph().name_scope(scope or "cosine_distance_loss"):
        labels, predictions = _pair(labels, predictions)
        products = reduce_sum(_ops.mul(predictions, labels), [axis],
                              keepdims=True)
        losses = _ops.sub(_t(1.0, products.dtype), products)
        return compute_weighted_loss(losses, weights, None, loss_collection,
                                     reduction)


def __getattr__(name):
    from ._missing import missing
    raise missing(__name__, "tf.losses", name, globals())
