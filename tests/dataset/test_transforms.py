"""dataset.transforms against NumPy computations (dtypes as probed on MindSpore 2.10)."""
import numpy as np
import pytest

import spore as ms
import spore.dataset as ds
from spore.dataset import transforms

from .helpers import rows


def test_type_cast_accepts_mindspore_and_numpy_dtypes():
    x = np.arange(4, dtype=np.uint8)
    assert transforms.TypeCast(ms.int32)(x).dtype == np.int32
    assert transforms.TypeCast(np.float16)(x).dtype == np.float16
    with pytest.raises(TypeError, match="TypeCast"):
        transforms.TypeCast("no-such-type")


def test_one_hot():
    out = transforms.OneHot(4)(np.array([0, 3], np.int32))
    np.testing.assert_array_equal(out, np.eye(4, dtype=np.int32)[[0, 3]])
    assert out.dtype == np.int32 and transforms.OneHot(4)(np.array(2)).dtype == np.int64
    smooth = transforms.OneHot(3, 0.3)(np.array([0, 2], np.int32))
    np.testing.assert_allclose(smooth, [[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]])
    with pytest.raises(TypeError, match="integer"):
        transforms.OneHot(3)(np.array(1.0))
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        transforms.OneHot(3)(np.array([5]))


def test_fill_duplicate_concatenate_mask_slice():
    filled = transforms.Fill(2.7)(np.zeros(2, np.int32))
    assert filled.dtype == np.int32 and filled.tolist() == [2, 2]
    a, b = transforms.Duplicate()(np.arange(3))
    assert a.tolist() == b.tolist() == [0, 1, 2] and not np.shares_memory(a, b)
    joined = transforms.Concatenate(0, np.array([9]), np.array([8, 7]))(np.arange(3))
    assert joined.tolist() == [9, 0, 1, 2, 8, 7]
    mask = transforms.Mask(transforms.Relational.GT, 1)(np.arange(3))
    assert mask.dtype == np.bool_ and mask.tolist() == [False, False, True]
    as_int = transforms.Mask(transforms.Relational.EQ, 2.0, ms.int32)(np.arange(4.0))
    assert as_int.dtype == np.int32 and as_int.tolist() == [0, 0, 1, 0]
    assert transforms.Slice(slice(1, 3))(np.arange(5)).tolist() == [1, 2]
    with pytest.raises(ValueError, match="1-D"):
        transforms.Concatenate(0, np.array([9]))(np.zeros((2, 2)))


def test_pad_end():
    assert transforms.PadEnd([5], -1)(np.arange(3)).tolist() == [0, 1, 2, -1, -1]
    assert transforms.PadEnd([2])(np.arange(3)).tolist() == [0, 1]
    assert transforms.PadEnd([3, 3], 7)(np.ones((2, 2), np.int32)).tolist() == \
        [[1, 1, 7], [1, 1, 7], [7, 7, 7]]
    assert transforms.PadEnd([3], "xy")(np.array(["a"])).tolist() == ["a", "xy", "xy"]


def test_compose_runs_python_callables_and_multiple_outputs():
    composed = transforms.Compose([transforms.Duplicate(), lambda x, y: x + y,
                                   transforms.TypeCast(ms.int32)])
    out = composed(np.arange(3.0))
    assert out.dtype == np.int32 and out.tolist() == [0, 2, 4]


def test_random_apply_choice_order():
    plus_one, times_ten = (lambda x: x + 1), (lambda x: x * 10)
    x = np.array([1])
    assert transforms.RandomApply([plus_one], prob=1.0)(x).tolist() == [2]
    assert transforms.RandomApply([plus_one], prob=0.0)(x).tolist() == [1]
    ds.config.set_seed(0)
    choices = {int(transforms.RandomChoice([plus_one, times_ten])(x)[0]) for _ in range(20)}
    assert choices == {2, 10}
    orders = {int(transforms.RandomOrder([plus_one, times_ten])(x)[0]) for _ in range(20)}
    assert orders == {20, 11}


def test_transforms_in_a_pipeline():
    d = ds.NumpySlicesDataset(np.array([0, 2, 1], np.int32), ["label"], shuffle=False)
    d = d.map([transforms.OneHot(3), transforms.TypeCast(ms.float32)])
    assert rows(d) == [[[1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0]]]
    dup = d.map(transforms.Duplicate(), "label", ["x", "y"])
    assert dup.get_col_names() == ["x", "y"]


def test_transform_errors_inside_map_name_the_row():
    d = ds.NumpySlicesDataset(np.array([1.5]), shuffle=False).map(transforms.OneHot(3))
    with pytest.raises(RuntimeError, match=r"map operation \[OneHot\] on row 0"):
        rows(d)
