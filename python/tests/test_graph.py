"""Building graphs: op functions generated from the registry, scopes,
attrs, and build errors that name the node and leave the graph usable."""

import inspect

import numpy as np
import pytest

import actorflow as af


def test_every_registered_op_has_a_function_named_as_tensorflow_names_it():
    names = {d["name"] for d in af._core.op_defs()}
    assert {"MatMul", "Conv2D", "FusedBatchNormV3", "Einsum"} <= names
    for op, fn in [("MatMul", "mat_mul"), ("Conv2D", "conv2d"),
                   ("BiasAdd", "bias_add"),
                   ("FusedBatchNormV3", "fused_batch_norm_v3"),
                   ("DepthwiseConv2dNative", "depthwise_conv2d_native")]:
        assert hasattr(af.ops, fn), fn
        assert af.ops._function_ops[fn] == op
        assert hasattr(af.ops.raw_ops, op)
    public = [n for n in names if not n.startswith("_")]
    assert len(af.ops._function_ops) == len(public)


def test_op_functions_take_inputs_then_attrs_with_defaults(graph):
    sig = inspect.signature(af.ops.mat_mul)
    params = list(sig.parameters)
    assert params[:2] == ["a", "b"]
    assert sig.parameters["transpose_a"].default is False
    assert sig.parameters["name"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "MatMul" in af.ops.mat_mul.__doc__
    a = af.constant(np.eye(2, dtype=np.float32))
    y = af.ops.mat_mul(a, a, transpose_b=True, name="mm")
    assert y.name == "mm:0" and y.dtype == af.float32 and y.shape == (2, 2)
    # Type attrs come from the inputs; plain values follow them.
    z = af.ops.add_v2(y, 1)
    assert z.dtype == af.float32
    n = af.ops.add_n([y, y, y])
    assert n.op.name.startswith("AddN")
    # A type attr's default (OneHot's TI = int64) is for plain values; a
    # Tensor's own dtype sets it.
    i32 = af.constant([0, 1], af.int32)
    assert af.ops.one_hot(i32, 3, 1.0, 0.0).shape == (2, 3)
    assert af.ops.one_hot([0, 2], 3, 1.0, 0.0).op.name.startswith("OneHot")


def test_name_scopes_devices_and_control_dependencies(graph, sess):
    with af.name_scope("layer"):
        with af.device("/cpu:1"):
            w = af.constant(2.0, name="w")
    assert w.op.name == "layer/w"
    v = af.Variable(1.0, name="v")
    bump = af.ops.assign_add(v, 1.0)
    with af.control_dependencies([bump]):
        read = af.identity(v)
    sess.run(af.global_variables_initializer())
    assert sess.run(read) == 2.0
    assert sess.run(read) == 3.0


def test_operators_build_ops(graph, sess):
    x = af.constant([1.0, 2.0])
    y = af.constant([3.0, 4.0])
    out = sess.run([x + y, x - 1, 2 * x, x / y, -x, x ** 2, x < y])
    np.testing.assert_allclose(out[0], [4, 6])
    np.testing.assert_allclose(out[1], [0, 1])
    np.testing.assert_allclose(out[2], [2, 4])
    np.testing.assert_allclose(out[3], [1 / 3, 0.5], rtol=1e-6)
    np.testing.assert_allclose(out[4], [-1, -2])
    np.testing.assert_allclose(out[5], [1, 4])
    assert out[6].tolist() == [True, True]
    with pytest.raises(TypeError, match="truth value"):
        bool(x)


def test_a_build_error_names_the_node_and_the_graph_goes_on(graph, sess):
    f = af.constant(1.0)
    d = af.constant(np.float64(1.0))
    with pytest.raises(TypeError, match="float64"):
        af.ops.add_v2(f, d)  # caught before the engine: attr T
    with pytest.raises(af.errors.InvalidArgumentError) as e:
        af.ops.mat_mul(af.constant([[1.0, 2.0]]), af.constant([[1.0, 2.0]]),
                       name="bad")
    assert e.value.node == "bad" and e.value.op == "MatMul"
    with pytest.raises(af.errors.InvalidArgumentError, match="no attr"):
        af.ops.apply_op("Relu", {"features": f}, {"nonsense": 1})
    with pytest.raises(af.errors.InvalidArgumentError, match="is a int"):
        af.ops.apply_op("Pack", {"values": [f]}, {"axis": "x"})
    with pytest.raises(KeyError, match="unknown op"):
        af.ops.apply_op("NoSuchOp", {})
    assert sess.run(af.ops.relu(f)) == 1.0  # later ops build and run


def test_graph_def_round_trips_through_tensorflows_format(graph):
    x = af.placeholder(af.float32, [None, 3], name="x")
    af.ops.relu(x, name="y")
    data = graph.as_graph_def()
    g2 = af.Graph()
    af.import_graph_def(data, graph=g2)
    with af.Session(graph=g2) as s:
        out = s.run("y:0", {"x:0": [[-1.0, 0.5, 2.0]]})
    np.testing.assert_allclose(out, [[0, 0.5, 2]])
