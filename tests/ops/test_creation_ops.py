"""Creation ops: values against NumPy, MindSpore 2.10's default dtypes, shape/dtype rules.

Default dtypes were probed on the reference MindSpore 2.10 (CPU, /work/venvs/ms) with the
same calls: e.g. ``ops.arange(5)`` -> Int64, ``ops.arange(0, 1, 0.25)`` -> Float32,
``ops.full((2,), 3.5)`` -> Int64 [3, 3], ``ops.full_like(Tensor([1, 2]), 3.7)`` -> Int64.
"""
import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor
from spore._core import primitive as P
from tests.helpers.optable import OpCase, table_tests


def _case(name, fn, ref, out_dtype, **kw):
    return OpCase(name, fn, ref, [], out_dtype=out_dtype, grad=False, id=name, **kw)


I64 = Tensor([1, 2])
F16 = Tensor(np.ones((2, 2), np.float16))

CASES = [
    _case("zeros", lambda: ops.zeros((2, 3)), lambda: np.zeros((2, 3)), ms.float32),
    _case("zeros-int-size", lambda: ops.zeros(4), lambda: np.zeros(4), ms.float32),
    _case("zeros-tensor-size", lambda: ops.zeros(Tensor([2, 1])), lambda: np.zeros((2, 1)),
          ms.float32),
    _case("zeros-dtype", lambda: ops.zeros((2,), ms.int32), lambda: np.zeros(2), ms.int32),
    _case("zeros-0d", lambda: ops.zeros(()), lambda: np.zeros(()), ms.float32),
    _case("ones", lambda: ops.ones([3]), lambda: np.ones(3), ms.float32),
    _case("ones-bf16", lambda: ops.ones((2,), ms.bfloat16), lambda: np.ones(2), ms.bfloat16),
    _case("full-default-int64", lambda: ops.full((2,), 3.5), lambda: np.full(2, 3), ms.int64),
    _case("full-dtype", lambda: ops.full((2, 2), 1.5, dtype=ms.float32),
          lambda: np.full((2, 2), 1.5), ms.float32),
    _case("full-truncates", lambda: ops.full((2,), 3.7, dtype=ms.int32), lambda: np.full(2, 3),
          ms.int32),
    _case("full-tensor-value", lambda: ops.full((2,), Tensor(2.5), dtype=ms.float16),
          lambda: np.full(2, 2.5), ms.float16),
    _case("fill", lambda: ops.fill(ms.float32, (2, 2), 3), lambda: np.full((2, 2), 3.0),
          ms.float32),
    _case("fill-none-type", lambda: ops.fill(None, (2,), 3), lambda: np.full(2, 3), ms.int64),
    _case("empty", lambda: ops.empty(2, 3), lambda: np.zeros((2, 3)), ms.float32),
    _case("empty-tuple-dtype", lambda: ops.empty((2,), dtype=ms.int32), lambda: np.zeros(2),
          ms.int32),
    _case("zeros_like", lambda: ops.zeros_like(I64), lambda: np.zeros(2), ms.int64),
    _case("zeros_like-dtype", lambda: ops.zeros_like(I64, dtype=ms.float16), lambda: np.zeros(2),
          ms.float16),
    _case("ones_like", lambda: ops.ones_like(F16), lambda: np.ones((2, 2)), ms.float16),
    _case("full_like", lambda: ops.full_like(I64, 3.7), lambda: np.full(2, 3), ms.int64),
    _case("full_like-float", lambda: ops.full_like(Tensor([1.0, 2.0]), 3),
          lambda: np.full(2, 3.0), ms.float32),
    _case("full_like-dtype", lambda: ops.full_like(I64, 3.7, dtype=ms.float32),
          lambda: np.full(2, np.float32(3.7)), ms.float32),
    _case("empty_like", lambda: ops.empty_like(F16), lambda: np.zeros((2, 2)), ms.float16),
    _case("arange", lambda: ops.arange(5), lambda: np.arange(5), ms.int64),
    _case("arange-float-step", lambda: ops.arange(0, 1, 0.25), lambda: np.arange(0, 1, 0.25),
          ms.float32),
    _case("arange-float-start", lambda: ops.arange(0.5, 3), lambda: np.arange(0.5, 3),
          ms.float32),
    _case("arange-negative-step", lambda: ops.arange(5, 0, -2), lambda: np.arange(5, 0, -2),
          ms.int64),
    _case("arange-tensor", lambda: ops.arange(Tensor(np.int32(4))), lambda: np.arange(4),
          ms.int64),
    _case("arange-dtype", lambda: ops.arange(3, dtype=ms.float16), lambda: np.arange(3),
          ms.float16),
    _case("arange-fraction", lambda: ops.arange(0, 0.95, 0.1),
          lambda: np.arange(10) * 0.1, ms.float32),
    _case("linspace", lambda: ops.linspace(0, 1, 5), lambda: np.linspace(0, 1, 5), ms.float32),
    _case("linspace-one", lambda: ops.linspace(2, 5, 1), lambda: np.array([2.0]), ms.float32),
    _case("linspace-f64-tensors", lambda: ops.linspace(Tensor(np.float64(0)),
                                                      Tensor(np.float64(1)), 3),
          lambda: np.linspace(0, 1, 3), ms.float64),
    _case("eye", lambda: ops.eye(2), lambda: np.eye(2), ms.float32),
    _case("eye-rect", lambda: ops.eye(2, 3), lambda: np.eye(2, 3), ms.float32),
    _case("eye-bool", lambda: ops.eye(2, 2, ms.bool_), lambda: np.eye(2, dtype=bool), ms.bool_),
    _case("new_zeros", lambda: I64.new_zeros((2, 2)), lambda: np.zeros((2, 2)), ms.int64),
    _case("new_zeros-dtype", lambda: I64.new_zeros(3, dtype=ms.float32), lambda: np.zeros(3),
          ms.float32),
    _case("new_ones", lambda: F16.new_ones((2,)), lambda: np.ones(2), ms.float16),
    _case("new_full", lambda: I64.new_full((2,), 3.7), lambda: np.full(2, 3), ms.int64),
    _case("new_full-dtype", lambda: I64.new_full((2,), 3.5, dtype=ms.float32),
          lambda: np.full(2, 3.5), ms.float32),
    _case("new_empty", lambda: F16.new_empty((1, 3)), lambda: np.zeros((1, 3)), ms.float16),
]


test_forward, test_infer_matches_kernel, test_jit_matches_pynative = \
    table_tests(CASES, grad=False)


def test_creation_ops_are_primitives_with_static_attributes():
    seen = []

    def spy(below):
        def handler(prim, args, attrs):
            seen.append((prim.name, args, dict(attrs)))
            return below(prim, args, attrs)
        return handler

    with P.handler_scope(spy):
        ops.zeros((2, 3), ms.int32)
        ops.arange(1, 7, 2)
        ops.linspace(0, 1, 3)
        ops.eye(2)
    names = [s[0] for s in seen]
    assert names == ["Fill", "Range", "LinSpace", "Eye"]
    assert all(args == () for _, args, _ in seen)
    assert seen[0][2] == {"shape": (2, 3), "dtype": np.dtype(np.int32), "value": 0}


def test_full_converts_values_like_a_c_cast():
    assert ops.full((1,), -1, dtype=ms.uint8).asnumpy().tolist() == [255]
    assert ops.full((1,), True, dtype=ms.float32).asnumpy().tolist() == [1.0]
    assert ops.zeros((2,)).asnumpy().flags.writeable


def test_arange_accumulates_in_double_precision():
    # start + i * step rounded once: no drift over many steps
    got = ops.arange(0, 100, 0.1).asnumpy()
    np.testing.assert_array_equal(got, (np.arange(1000) * 0.1).astype(np.float32))


@pytest.mark.parametrize("call, err, match", [
    (lambda: ops.zeros((2, -1)), ValueError, "zeros"),
    (lambda: ops.zeros((2.0,)), TypeError, "zeros"),
    (lambda: ops.ones((2,), "no_such_type"), TypeError, "ones"),
    (lambda: ops.full(2, 1.0), TypeError, "full"),
    (lambda: ops.arange(5, 0), ValueError, "Range"),
    (lambda: ops.arange(0, 5, 0), ValueError, "Range"),
    (lambda: ops.linspace(2, 5, 0), ValueError, "LinSpace"),
    (lambda: ops.eye(-1), ValueError, "Eye"),
    (lambda: ops.zeros_like([1, 2]), TypeError, "zeros_like"),
    (lambda: ops.full((2,), Tensor([1, 2])), ValueError, "full"),
])
def test_creation_errors_name_the_op(call, err, match):
    with pytest.raises(err, match=match):
        call()
