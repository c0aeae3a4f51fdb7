"""Sampled losses over large vocabularies, as ``tf.compat.v1.nn`` has
them: ``nce_loss`` and ``sampled_softmax_loss`` over candidates drawn by
``log_uniform_candidate_sampler`` (or given as ``sampled_values``)."""

import math as _pymath

import numpy as np

from . import ops as _ops
from . import random_ops
from .array_ops import cast, concat, reshape
from .graph import convert_to_tensor as _t, get_default_graph
from .math import reduce_any, reduce_sum
from .nn_ops import (embedding_lookup, sigmoid_cross_entropy_with_logits,
                     softmax_cross_entropy_with_logits_v2)

__all__ = [
    "log_uniform_candidate_sampler", "nce_loss", "sampled_softmax_loss",
]


def _log_uniform_probabilities(range_max):
    """P(c) = log((c + 2) / (c + 1)) / log(range_max + 1) for each class."""
    c = np.arange(range_max, dtype=np.float64)
    return (np.log(c + 2) - np.log(c + 1)) / _pymath.log(range_max + 1)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique,
                                  range_max, seed=None, name=None):
    """``num_sampled`` classes drawn with P(c) falling as 1 / c (Zipf's law,
    classes ordered by frequency): (sampled int64 [num_sampled], the true
    classes' expected counts [batch, num_true], the sampled ones'
    [num_sampled]). With ``unique`` the draws are distinct (top k of Gumbel
    noise over every class) and an expected count is the chance of being
    drawn in ``num_sampled`` tries; the draws are the engine's own, not
    TensorFlow's."""
    graph = get_default_graph()
    with graph.name_scope(name or "LogUniformCandidateSampler"):
        p = _log_uniform_probabilities(range_max)
        if unique:
            noise = random_ops.random_uniform([range_max], 1e-20, 1.0,
                                              seed=seed)
            gumbel = _ops.neg(_ops.log(_ops.neg(_ops.log(noise))))
            keys = _ops.add_v2(_t(np.log(p).astype(np.float32)), gumbel)
            _, picked = _ops.top_kv2(keys, _t(num_sampled, "int32"))
        else:
            u = random_ops.random_uniform([num_sampled], seed=seed)
            drawn = _ops.floor(_ops.exp(_ops.mul(
                u, _t(float(_pymath.log(range_max + 1))))))
            picked = _ops.minimum(_ops.maximum(
                cast(drawn, "int32") - 1, _t(0, "int32")),
                _t(range_max - 1, "int32"))
        sampled = cast(picked, "int64")

        def expected(classes):
            prob = _ops.gather_v2(_t(p.astype(np.float32)),
                                  cast(classes, "int32"), _t(0, "int32"))
            if not unique:
                return _ops.mul(prob, _t(float(num_sampled)))
            # 1 - (1 - p) ** num_sampled
            return _ops.neg(_ops.sub(_ops.exp(_ops.mul(
                _t(float(num_sampled)),
                _ops.log(_ops.sub(_t(1.0), prob)))), _t(1.0)))

        true_classes = _t(true_classes)
        return (_ops.identity(sampled, name="sampled_candidates"),
                expected(true_classes), expected(sampled))


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                    num_true, sampled_values, subtract_log_q,
                    remove_accidental_hits, partition_strategy, seed):
    """TensorFlow's _compute_sampled_logits: the logits of each row's true
    classes and of the sampled ones, and their labels."""
    if not isinstance(weights, (list, tuple)):
        weights = [weights]
    labels = cast(labels, "int64")
    labels_flat = reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(
            labels, num_true, num_sampled, True, num_classes, seed=seed)
    sampled, true_expected, sampled_expected = (
        _ops.stop_gradient(_t(s)) for s in sampled_values)
    sampled = cast(sampled, "int64")
    inputs = _t(inputs)
    all_ids = concat([labels_flat, sampled], 0)
    all_w = embedding_lookup(weights, all_ids,
                             partition_strategy=partition_strategy)
    n_true = _ops.strided_slice(_ops.shape(labels_flat), _t([0], "int32"),
                                _t([1], "int32"), _t([1], "int32"))
    true_w = _ops.slice(all_w, _t([0, 0], "int32"),
                        concat([n_true, _t([-1], "int32")], 0))
    sampled_w = _ops.slice(all_w, concat([n_true, _t([0], "int32")], 0),
                           _t([-1, -1], "int32"))
    sampled_logits = _ops.mat_mul(inputs, sampled_w, transpose_b=True)
    all_b = embedding_lookup(biases, all_ids)
    true_b = _ops.slice(all_b, _t([0], "int32"), n_true)
    sampled_b = _ops.slice(all_b, n_true, _t([-1], "int32"))
    dim = _ops.strided_slice(_ops.shape(true_w), _t([1], "int32"),
                             _t([2], "int32"), _t([1], "int32"))
    rows = _ops.mul(_ops.expand_dims(inputs, _t(1, "int32")),
                    _ops.reshape(true_w, concat(
                        [_t([-1, num_true], "int32"), dim], 0)))
    true_logits = reshape(reduce_sum(rows, axis=2), [-1, num_true])
    true_logits = _ops.add_v2(true_logits, reshape(true_b, [-1, num_true]))
    sampled_logits = _ops.add_v2(sampled_logits, sampled_b)
    if remove_accidental_hits:
        # A sampled class that is one of the row's true classes is no
        # negative: its logit goes to the lowest float.
        hits = reduce_any(_ops.equal(
            _ops.expand_dims(labels, _t(2, "int32")),
            reshape(sampled, [1, 1, -1])), axis=1)
        sampled_logits = _ops.add_v2(sampled_logits, _ops.mul(
            cast(hits, sampled_logits.dtype),
            _t(float(np.finfo(np.float32).min), sampled_logits.dtype)))
    if subtract_log_q:
        true_logits = _ops.sub(true_logits, _ops.log(
            cast(true_expected, true_logits.dtype)))
        sampled_logits = _ops.sub(sampled_logits, _ops.log(
            cast(sampled_expected, sampled_logits.dtype)))
    logits = concat([true_logits, sampled_logits], 1)
    targets = concat([_ops.real_div(_ops.ones_like(true_logits),
                                    _t(float(num_true), true_logits.dtype)),
                      _ops.zeros_like(sampled_logits)], 1)
    return logits, targets


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes,
             num_true=1, sampled_values=None, remove_accidental_hits=False,
             partition_strategy="mod", name="nce_loss"):
    """Noise-contrastive estimation: each row's true classes against
    ``num_sampled`` sampled ones, a logistic loss each, summed per row
    ([batch])."""
    with get_default_graph().name_scope(name):
        logits, targets = _sampled_logits(
            weights, biases, labels, inputs, num_sampled, num_classes,
            num_true, sampled_values, True, remove_accidental_hits,
            partition_strategy, None)
        losses = sigmoid_cross_entropy_with_logits(labels=targets,
                                                   logits=logits)
        return reduce_sum(losses, axis=1, name="")


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled,
                         num_classes, num_true=1, sampled_values=None,
                         remove_accidental_hits=True,
                         partition_strategy="mod",
                         name="sampled_softmax_loss", seed=None):
    """The softmax cross entropy over each row's true classes and
    ``num_sampled`` sampled ones ([batch])."""
    with get_default_graph().name_scope(name):
        logits, targets = _sampled_logits(
            weights, biases, labels, inputs, num_sampled, num_classes,
            num_true, sampled_values, True, remove_accidental_hits,
            partition_strategy, seed)
        return softmax_cross_entropy_with_logits_v2(
            labels=_ops.stop_gradient(targets), logits=logits, name="")

