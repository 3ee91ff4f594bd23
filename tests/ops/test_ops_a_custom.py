"""ops.Custom (pyfunc and hybrid-DSL functions) with its bprop, the registration helpers
(CustomRegOp, CpuRegOp, DataType, op_info_register, custom_info_register, kernel /
ms_kernel) and DumpGradient; behaviour probed on MindSpore 2.10 (CPU)."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, nn, ops
from spore._absent import AbsentError


def T(x, dtype=np.float32):
    return Tensor(np.array(x, dtype))


def test_pyfunc_custom_runs_on_numpy_and_differentiates_through_bprop():
    seen = []

    def mul_add(x, y):
        seen.append(type(x))
        return x * y + 1

    def bprop(x, y, out, dout):
        assert isinstance(x, Tensor) and isinstance(dout, Tensor)
        return dout * y, dout * x

    op = ops.Custom(mul_add, out_shape=lambda a, b: a, out_dtype=lambda a, b: a,
                    func_type="pyfunc", bprop=bprop)
    x, y = T([1, 2]), T([3, 4])
    out = op(x, y)
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [4, 9]
    assert seen == [np.ndarray]
    gx, gy = ops.grad(lambda a, b: op(a, b).sum(), (0, 1))(x, y)
    assert gx.asnumpy().tolist() == [3, 4] and gy.asnumpy().tolist() == [1, 2]
    assert ms.jit(lambda a, b: op(a, b) * 2)(x, y).asnumpy().tolist() == [8, 18]


def test_custom_values_several_outputs_and_default_func_type():
    two = ops.Custom(lambda x: (x, x + 1), out_shape=((2,), (2,)),
                     out_dtype=(ms.float32, ms.float32))
    a, b = two(T([1, 2]))
    assert a.asnumpy().tolist() == [1, 2] and b.asnumpy().tolist() == [2, 3]
    double = ops.Custom(lambda x: x * 2, out_shape=(2,), out_dtype=ms.float32)
    assert double.func_type == "pyfunc" and double(T([1, 2])).asnumpy().tolist() == [2, 4]
    as_int = ops.Custom(lambda x: x * 2, out_shape=(2,), out_dtype=ms.int32)(T([1.2, 2.0]))
    assert as_int.dtype == ms.int32
    scalar = ops.Custom(lambda x: x.sum(), out_shape=(), out_dtype=ms.float32)(T([1, 2]))
    assert scalar.shape == () and float(scalar.asnumpy()) == 3.0


def test_custom_inside_a_cell_and_under_jit():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = ops.Custom(np.square, out_shape=lambda s: s, out_dtype=lambda d: d,
                                 bprop=lambda x, out, dout: (2 * x * dout,))

        def construct(self, x):
            return self.op(x) + 1

    net = Net()
    x = T([1, 2, 3])
    assert net(x).asnumpy().tolist() == [2, 5, 10]
    assert ms.jit(net.construct)(x).asnumpy().tolist() == [2, 5, 10]
    assert ops.grad(lambda v: net(v).sum())(x).asnumpy().tolist() == [2, 4, 6]


def test_custom_errors():
    with pytest.raises(ValueError, match="func_type"):
        ops.Custom(np.abs, (2,), ms.float32, func_type="bad")
    for kind in ("aot", "tbe", "aicpu"):
        with pytest.raises(NotImplementedError, match="pyfunc"):
            ops.Custom("lib.so:f", (2,), ms.float32, func_type=kind)
    with pytest.raises(TypeError, match="out_shape"):
        ops.Custom(np.abs, out_dtype=ms.float32)
    wrong = ops.Custom(lambda x: np.ones(3, np.float32), out_shape=(2,), out_dtype=ms.float32)
    with pytest.raises(ValueError, match="out_shape"):
        wrong(T([1, 2]))
    no_bprop = ops.Custom(np.abs, out_shape=lambda s: s, out_dtype=lambda d: d)
    with pytest.raises(RuntimeError, match="bprop"):
        ops.grad(lambda v: no_bprop(v).sum())(T([1, -2]))


def test_hybrid_kernel_runs_as_python_and_as_a_custom_op():
    @ops.kernel
    def add_one(a):
        out = output_tensor(a.shape, a.dtype)          # noqa: F821 (DSL intrinsic)
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                out[i, j] = a[i, j] + 1.0
        return out

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(add_one(x), x + 1)
    got = ops.Custom(add_one, func_type="hybrid")(Tensor(x))
    np.testing.assert_array_equal(got.asnumpy(), x + 1)

    @ops.ms_kernel(compile_attrs={"enable_vectorize": False})
    def rsqrt_all(a):
        out = allocate(a.shape, a.dtype)               # noqa: F821
        for i in grid(a.shape):                        # noqa: F821
            out[i] = rsqrt(a[i])                       # noqa: F821
        return out

    np.testing.assert_allclose(rsqrt_all(np.array([4.0, 16.0], np.float32)), [0.5, 0.25])
    assert rsqrt_all.compile_attrs == {"enable_vectorize": False}


def test_registration_helpers_build_mindspore_op_info():
    assert ops.DataType.F32_Default == ("float32", "DefaultFormat")
    assert ops.DataType.None_None == ("", "")
    assert ops.DataType.I64_Default_Tuple == ("int64", "DefaultFormat", "tuple")
    assert ops.DataType.F16_5HD == ("float16", "NC1HWC0")
    assert len([n for n in vars(ops.DataType) if not n.startswith("_")]) == 204
    info = (ops.CustomRegOp().input(0, "x").output(0, "y")
            .dtype_format(ops.DataType.F32_Default, ops.DataType.F32_Default)
            .target("CPU").get_op_info())
    assert info["op_name"] == "Custom" and info["target"] == "CPU"
    assert info["inputs"] == [{"index": 0, "name": "x", "param_type": "required"}]
    assert info["dtype_format"] == [[["float32", "DefaultFormat"], ["float32", "DefaultFormat"]]]
    cpu = ops.CpuRegOp("MyOp").input(0, "x", "required").attr("alpha", "float", 0.5).get_op_info()
    assert cpu["imply_type"] == "CPU" and cpu["attr"][0]["name"] == "alpha"

    @ops.custom_info_register(ops.CustomRegOp().target("CPU"))
    def f(x):
        return x

    assert f.reg_info["target"] == "CPU"
    assert ops.Custom(f, (2,), ms.float32).reg_info["target"] == "CPU"

    @ops.op_info_register(cpu)
    def g():
        return 1

    assert g() == 1
    with pytest.raises(ValueError, match="target"):
        ops.CustomRegOp().target("TPU")


def test_custom_op_builder_get_next_and_ge_switch_are_absent_with_reasons():
    with pytest.raises(AbsentError, match="C\\+\\+ runtime"):
        ops.CustomOpBuilder
    with pytest.raises(NotImplementedError, match="Ascend/GPU"):
        ops.GetNext
    with pytest.raises(NotImplementedError, match="Ascend/GPU"):
        ops.GeSwitch


def test_dump_gradient_saves_each_backward_gradient(tmp_path):
    dump = ops.DumpGradient()
    path = str(tmp_path / "dy.npy")

    def f(x):
        y = dump(path, x * 3, "in")
        return (y * y).sum()

    x = T([1, 2])
    for _ in range(2):
        assert ops.grad(f)(x).asnumpy().tolist() == [18, 36]
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["dy_float32_0.npy", "dy_float32_1.npy"]
    np.testing.assert_array_equal(np.load(tmp_path / "dy_float32_0.npy"), [6, 12])
    assert dump(path, x, "out") is not x and dump(path, x, "out").asnumpy().tolist() == [1, 2]
    with pytest.raises(ValueError, match="input_output"):
        dump(path, x, "both")
