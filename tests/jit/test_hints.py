"""jit_class, lazy_inline, no_inline, enable_dynamic, Symbol and data_sink (MindSpore's
argument checks and messages, probed from MindSpore 2.10; results as PyNative)."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor
import spore.dataset as ds


def _f32(*shape):
    return Tensor(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))


def test_jit_class_instances_are_read_by_compiled_cells():
    @ms.jit_class
    class Scaler:
        def __init__(self):
            self.value = 10

        def func(self, x):
            return 2 * x

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.helper = Scaler()

        def construct(self, x):
            return self.helper.value + self.helper.func(x)

    assert Scaler.__ms_class__ is True
    net = ms.jit(Net())
    np.testing.assert_array_equal(net(_f32(3)).asnumpy(), [10, 12, 14])
    assert not ms.jit_report(net).fallbacks


def test_jit_class_rejects_cells_and_non_classes():
    with pytest.raises(TypeError, match="cannot be used for nn.Cell"):
        ms.jit_class(nn.Dense)
    with pytest.raises(TypeError, match="can only be used for class type, but got 3"):
        ms.jit_class(3)


def test_lazy_inline_and_no_inline_keep_results():
    class Block(nn.Cell):
        @ms.lazy_inline
        def __init__(self, width, scale=2.0):
            super().__init__()
            self.scale = scale
            self.dense = nn.Dense(width, width)

        def construct(self, x):
            return self.dense(x) * self.scale

    @ms.no_inline
    def twice(x):
        return x * 2

    ms.set_seed(0)
    block = Block(3, scale=3.0)
    x = _f32(2, 3)
    want = block(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_allclose(block(x).asnumpy(), want, rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert block.scale == 3.0 and twice.no_inline is True
    np.testing.assert_array_equal(ms.jit(twice)(x).asnumpy(), 2 * x.asnumpy())
    assert ms.lazy_inline(policy="front")(Block.__init__) is not None
    with pytest.raises(ValueError, match="policy"):
        ms.lazy_inline(policy="back")
    with pytest.raises(AttributeError):
        ms.no_inline(3)


def test_enable_dynamic_checks_declared_arguments_with_mindspores_messages():
    @ms.enable_dynamic(y=Tensor(shape=[None, 3], dtype=ms.float32))
    @ms.jit
    def g(x, y):
        return y * 2

    x = _f32(2, 3)
    for rows in (5, 7, 9, 11, 13):                  # no recompile warning for many sizes
        assert g(x, _f32(rows, 3)).shape == (rows, 3)
    with pytest.raises(ValueError, match=r"input tensor shape = \[5, 4\], dynamic tensor "
                                         r"shape = \[-1, 3\], tensor shapes are not the same"):
        g(x, _f32(5, 4))
    with pytest.raises(ValueError, match="tensor shapes are not the same"):
        g(x, _f32(5))
    with pytest.raises(TypeError, match="input tensor dtype = Int32, dynamic tensor dtype = "
                                        "Float32, tensor dtypes are not the same"):
        g(x, Tensor(np.ones((5, 3), np.int32)))
    with pytest.raises(ValueError, match="'z' is not in list"):
        ms.enable_dynamic(z=Tensor(shape=[None], dtype=ms.float32))(g)
    with pytest.raises(TypeError, match="only supports Tensor or a tuple/list of Tensor"):
        ms.enable_dynamic(y=3)


def test_enable_dynamic_rank_and_plain_functions():
    @ms.enable_dynamic(y=Tensor(shape=None, dtype=ms.float32))
    @ms.jit
    def f(x, y):
        return x + 1, y + 1

    x = _f32(2, 3)
    assert f(x, x)[1].shape == (2, 3)
    assert f(x, _f32(4))[1].shape == (4,)

    def plain(x, y):
        return y
    assert ms.enable_dynamic(y=Tensor(shape=[None], dtype=ms.float32))(plain) is plain


def test_tensor_of_unknown_rank():
    t = Tensor(shape=None, dtype=ms.float32)
    assert t.shape == (-2,) and t.dtype == ms.float32
    with pytest.raises(TypeError, match="input_data"):
        Tensor()


def test_symbol_argument_checks():
    with pytest.raises(ValueError, match="'min' value should be positive, but got 0"):
        ms.Symbol(min=0)
    with pytest.raises(ValueError, match="'divisor' value should be positive"):
        ms.Symbol(divisor=0)
    with pytest.raises(ValueError, match=r"'remainder' value should be in the range '\[0, 2\)'"):
        ms.Symbol(remainder=3, divisor=2)
    with pytest.raises(TypeError, match="'max' must be int"):
        ms.Symbol(max=1.5)
    with pytest.raises(TypeError, match="'unique' must be bool"):
        ms.Symbol(unique=1)
    s = ms.Symbol(divisor=8, remainder=1)
    assert Tensor(shape=(None, s, 3), dtype=ms.float32).shape == (-1, -1, 3)


def test_symbols_constrain_graph_mode_cell_inputs():
    class Net(nn.Cell):
        def construct(self, x):
            return ops.abs(x)

    s1 = ms.Symbol(divisor=8, remainder=1)
    s2 = ms.Symbol(max=32, unique=True)
    declared = Tensor(shape=(None, s1, s1, s2, s2), dtype=ms.float32)

    def call(shape):
        return net(Tensor(np.ones(shape, np.float32))).shape

    net = Net()
    net.set_inputs(declared)
    assert call((1, 10, 17, 31, 32)) == (1, 10, 17, 31, 32)     # PyNative: not checked
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        net.set_inputs(declared)
        assert call((1, 9, 17, 32, 32)) == (1, 9, 17, 32, 32)
        assert call((8, 25, 9, 30, 30)) == (8, 25, 9, 30, 30)
        with pytest.raises(ValueError, match=r"The 2th shape value of 1th actual input args "
                                             r"must match the 'divisor'\(d\).*d=8 and r=1.*"
                                             r"'10'. Actual shape: \[1, 10, 17, 32, 32\], "
                                             r"axis: 1."):
            call((1, 10, 17, 32, 32))
        with pytest.raises(ValueError, match="'d \\* N \\+ r' for 'N > 0'"):
            call((1, 1, 17, 32, 32))                            # N = 0
        with pytest.raises(ValueError, match="5th shape value .* is a unique symbol, all "
                                             "values must be the same. The previous value "
                                             "is 31, but the current value is 32"):
            call((1, 9, 17, 31, 32))
        with pytest.raises(ValueError, match="4th shape value .* less than or equal to the "
                                             "'max' value '32'"):
            call((1, 9, 17, 40, 40))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _dataset():
    data = {"x": np.arange(3, dtype=np.int32).reshape(3, 1),
            "y": np.ones((3, 1), dtype=np.int32)}
    return ds.NumpySlicesDataset(data=data, shuffle=False)


@pytest.mark.parametrize("jit_config", [None, ms.JitConfig(jit_level="O0")])
def test_data_sink_takes_sink_size_batches_per_call_and_loops(jit_config):
    seen = []

    def step(x, y):
        seen.append(int(x.asnumpy()[0])) if jit_config is None else None
        return x + y

    sink = ms.data_sink(step, _dataset(), sink_size=2, jit_config=jit_config)
    outs = [int(sink().asnumpy()[0]) for _ in range(4)]
    assert outs == [2, 1, 3, 2]      # x = 0,1 | 2,0 | 1,2 | 0,1; y = 1: the last x + y of each
    if jit_config is None:
        assert seen == [0, 1, 2, 0, 1, 2, 0, 1]


def test_data_sink_argument_errors():
    f = lambda x, y: x + y             # noqa: E731
    with pytest.raises(ValueError, match="The 'sink_size' must be positive, but got sink_size 0"):
        ms.data_sink(f, _dataset(), sink_size=0)
    with pytest.raises(TypeError, match="'sink_size' should be 'int', but got type 'float'"):
        ms.data_sink(f, _dataset(), sink_size=1.5)
    with pytest.raises(TypeError, match="Dataset"):
        ms.data_sink(f, [1, 2])
    sink = ms.data_sink(f, _dataset(), input_signature=(
        Tensor(shape=[None], dtype=ms.float32), Tensor(shape=[None], dtype=ms.int32)))
    with pytest.raises(TypeError, match="input_signature"):
        sink()
