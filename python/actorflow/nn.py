"""``tf.compat.v1.nn``: the functions of nn_ops.py (activations,
cross-entropies, convolutions, dropout, ...), the recurrent networks of
rnn.py over the cells of rnn_cell.py (``af.nn.rnn_cell``), and the
sparsely-gated mixture of experts."""

import types

from . import _core
from . import rnn_cell as _cells
from .graph import Tensor, convert_to_tensor

from .nn_ops import *  # noqa: F401,F403 (relu, conv2d, dropout, ...)
from .nn_ops import __all__ as _ops_names
from .candidate_sampling import (log_uniform_candidate_sampler, nce_loss,
                                 sampled_softmax_loss)
from .rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_rnn
from .rnn_cell import LSTMStateTuple

rnn_cell = types.SimpleNamespace(
    **{name: getattr(_cells, name) for name in _cells.__all__})
"""The cells, as ``tf.nn.rnn_cell``."""

__all__ = ["dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn",
           "rnn_cell", "moe_layer", "LSTMStateTuple", "nce_loss",
           "sampled_softmax_loss", "log_uniform_candidate_sampler"] + \
    _ops_names


def moe_layer(x, num_experts, output_size, expert_fn, k=2, devices=None,
              noisy_gating=True, w_importance=0.1, w_load=0.1,
              noise_scale=None, seed=0, name="moe"):
    """The sparsely-gated mixture-of-experts layer (Shazeer et al.) on x
    [batch, depth]: each example goes to its top ``k`` experts;
    ``expert_fn(rows, index)`` builds expert ``index`` on its rows
    [m, depth] and returns [m, output_size] (make its variables before, on
    its device: it runs inside the expert's cond). Experts go to
    ``devices[i % len(devices)]``. The gating weights are made here (zero).
    Returns a dict: y, loss (add it to the model's), importance, load,
    gates, rows, and the gating ``weights``."""
    from .variables import Variable
    import numpy as np
    x = convert_to_tensor(x)
    graph = x.graph
    if x.shape is None or x.shape[-1] is None:
        raise ValueError("moe_layer needs x's depth (last dimension) known")
    depth = x.shape[-1]
    dt = x.dtype.numpy_dtype
    with graph.name_scope(name):
        w_gate = Variable(np.zeros((depth, num_experts), dt), name="w_gate")
        w_noise = Variable(np.zeros((depth, num_experts), dt),
                           name="w_noise")

    def build(scope, rows, index):
        with graph._push(scope):
            return convert_to_tensor(expert_fn(Tensor(graph, rows), index),
                                     graph=graph)._out

    scale = None if noise_scale is None else convert_to_tensor(
        noise_scale, x.dtype, graph=graph)._out
    with graph._lock:
        out = _core.moe_layer(graph._scope.sub(name), x._out, w_gate._out,
                              w_noise._out, num_experts, output_size, build,
                              list(devices or []), k, noisy_gating,
                              w_importance, w_load, scale, seed, 1)
    result = {key: Tensor(graph, v) for key, v in out.items()}
    result["weights"] = [w_gate, w_noise]
    return result


def __getattr__(name):
    from ._missing import missing
    raise missing(__name__, "tf.nn", name, globals())
