"""actorflow from Python: build, import, train and run dataflow graphs on
the actor engine, with numpy (and DLPack) arrays in and out.

    import actorflow as af
    x = af.placeholder(af.float32, [None, 3], name="x")
    y = af.ops.relu(af.matmul(x, af.constant([[1.0], [2.0], [3.0]])))
    with af.Session() as sess:
        print(sess.run(y, feed_dict={x: [[1, -1, 1]]}))

docs/python.md walks through it.
"""

from . import errors  # first: the extension module raises its classes
from . import _core
from . import dtypes
from .dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128,
                     double, float16, float32, float64, half, int8, int16,
                     int32, int64, string, uint8, uint16, uint32, uint64,
                     variant)
from .graph import (Graph, Operation, Tensor, control_dependencies,
                    convert_to_tensor, device, get_default_graph,
                    name_scope, reset_default_graph)
from . import ops
from .builders import (Variable, cond, constant, gradients, global_variables,
                       global_variables_initializer, placeholder,
                       trainable_variables, while_loop)
from .importer import import_graph_def
from .saved_model import load_saved_model
from .sequences import foldl, foldr, map_fn, scan
from . import nn
from .session import RunMetadata, RunOptions, Session
from . import train
from . import summary
from . import nest
from .math import *  # noqa: F401,F403 (add, matmul, relu, ...)

__version__ = "0.1.0"
