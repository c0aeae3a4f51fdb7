"""actorflow from Python: build, import, train and run dataflow graphs on
the actor engine, with numpy (and DLPack) arrays in and out. Its API is
TensorFlow 1's: ``import actorflow.compat.v1 as tf`` runs a TensorFlow 1
program, and the same names are here at the top level.

    import actorflow as af
    x = af.placeholder(af.float32, [None, 3], name="x")
    y = af.nn.relu(af.matmul(x, af.constant([[1.0], [2.0], [3.0]])))
    with af.Session() as sess:
        print(sess.run(y, feed_dict={x: [[1, -1, 1]]}))

docs/python.md walks through it; docs/from-tensorflow-1.md says what
differs from TensorFlow.
"""

from . import errors  # first: the extension module raises its classes
from . import _core
from . import dtypes
from .dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128,
                     double, float16, float32, float64, half, int8, int16,
                     int32, int64, string, uint8, uint16, uint32, uint64,
                     variant)
from .graph import (Graph, GraphKeys, Operation, Tensor, add_to_collection,
                    add_to_collections, control_dependencies,
                    convert_to_tensor, device, get_collection,
                    get_collection_ref, get_default_graph, name_scope,
                    reset_default_graph)
from .tensor_shape import Dimension, TensorShape, dimension_value
from . import ops
from .builders import (constant, cond, gradients, placeholder,
                       placeholder_with_default, while_loop)
from .control_flow_ops import case, group, no_op, tuple
from .variables import (Variable, all_variables, global_variables,
                        global_variables_initializer,
                        initialize_all_variables, local_variables,
                        local_variables_initializer, model_variables,
                        trainable_variables, variables_initializer)
from .variable_scope import (AUTO_REUSE, VariableScope, get_local_variable,
                             get_variable, get_variable_scope,
                             variable_scope)
from . import init_ops as initializers
from .init_ops import (constant_initializer, glorot_normal_initializer,
                       glorot_uniform_initializer, ones_initializer,
                       orthogonal_initializer, random_normal_initializer,
                       random_uniform_initializer,
                       truncated_normal_initializer,
                       uniform_unit_scaling_initializer,
                       variance_scaling_initializer, zeros_initializer)
from .random_ops import (multinomial, random_normal, random_shuffle,
                         random_uniform, set_random_seed, truncated_normal)
from .tensor_array import TensorArray
from .importer import import_graph_def
from .saved_model import load_saved_model
from .sequences import foldl, foldr, map_fn, scan
from . import nn
from . import layers
from . import losses
from .session import (ConfigProto, GPUOptions, InteractiveSession,
                      RunMetadata, RunOptions, Session, get_default_session)
from . import train
from . import summary
from . import nest
from .array_ops import *  # noqa: F401,F403 (reshape, transpose, one_hot, ...)
from .math import *  # noqa: F401,F403 (add, matmul, reduce_sum, ...)
# Also at the top level, as actorflow has had them.
from .nn_ops import relu, sigmoid, softmax, tanh  # noqa: F401

__version__ = "0.1.0"
