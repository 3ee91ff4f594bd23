"""More of spore.numpy (spore/numpy/_more.py) against NumPy and MindSpore's probed results."""
import math

import numpy as np
import pytest

import spore as ms
import spore.numpy as mnp

a = np.array([[1.5, -2.0, 0.0], [3.0, np.nan, -0.5]], np.float32)
i = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
CHECKS = [
    ("cbrt", mnp.cbrt(np.array([8, -27], np.int32)), np.cbrt([8., -27.])),
    ("copysign", mnp.copysign(np.array([1., -2.], np.float32), np.array([-1., 1.], np.float32)), [-1., 2.]),
    ("deg2rad", mnp.deg2rad(np.array([180.], np.float32)), [np.pi]),
    ("rad2deg", mnp.rad2deg(np.array([np.pi], np.float32)), [180.]),
    ("heaviside", mnp.heaviside(np.array([-1., 0., 2.], np.float32), 0.5), [0, .5, 1]),
    ("fix", mnp.fix(np.array([-1.5, 1.5], np.float32)), [-1, 1]),
    ("divmod0", mnp.divmod(np.array([5, -5], np.int32), 3)[0], [1, -2]),
    ("divmod1", mnp.divmod(np.array([5, -5], np.int32), 3)[1], [2, 1]),
    ("atleast_3d", mnp.atleast_3d(np.ones(3, np.float32)).shape, (1, 3, 1)),
    ("array_split", [t.shape for t in mnp.array_split(np.ones((7,), np.float32), 3)], [(3,), (2,), (2,)]),
    ("hsplit", [t.shape for t in mnp.hsplit(np.ones((2, 4), np.float32), 2)], [(2, 2), (2, 2)]),
    ("dstack", mnp.dstack([np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)]).shape, (2, 2, 2)),
    ("column_stack", mnp.column_stack([np.ones(3, np.float32), np.zeros(3, np.float32)]), np.column_stack([np.ones(3), np.zeros(3)])),
    ("append", mnp.append(i, i), np.append(i, i)),
    ("rot90", mnp.rot90(i), np.rot90(i)), ("rot90-3", mnp.rot90(i, 3), np.rot90(i, 3)), ("rot90-2", mnp.rot90(i, 2), np.rot90(i, 2)),
    ("roll", mnp.roll(i, 2), np.roll(i, 2)), ("rollaxis", mnp.rollaxis(np.ones((2,3,4),np.float32), 2).shape, (4, 2, 3)),
    ("take", mnp.take(i, np.array([0, 5, 9])), [1, 6, 6]), ("take-wrap", mnp.take(i, np.array([[0, 7]]), axis=1, mode="wrap"), np.take(i, [[0, 7]], axis=1, mode="wrap")),
    ("take_along", mnp.take_along_axis(i, np.array([[2], [0]]), 1), np.take_along_axis(i, np.array([[2], [0]]), 1)),
    ("repeat", mnp.repeat(i, 2), np.repeat(i, 2)), ("tri", mnp.tri(2, 3, 1), np.tri(2, 3, 1)),
    ("tril_indices", mnp.tril_indices(3)[1], np.tril_indices(3)[1]),
    ("nanmax", mnp.nanmax(a, 1), np.nanmax(a, 1)), ("nanmin", mnp.nanmin(a), np.nanmin(a)),
    ("nanmean", mnp.nanmean(a, 0), np.nanmean(a, 0)), ("nanvar", mnp.nanvar(a, 1, ddof=1), np.nanvar(a, 1, ddof=1)),
    ("nanstd", mnp.nanstd(a), np.nanstd(a)), ("nancumsum", mnp.nancumsum(a, 1), np.nancumsum(a, 1)),
    ("cumprod", mnp.cumprod(i), np.cumprod(i)), ("diff", mnp.diff(i, axis=0), np.diff(i, axis=0)),
    ("diff-pre", mnp.diff(np.array([1., 4., 9.], np.float32), prepend=0), np.diff([1., 4., 9.], prepend=0)),
    ("ediff1d", mnp.ediff1d(np.array([1, 4, 9], np.int32), to_begin=0), [0, 3, 5]),
    ("trapz", mnp.trapz(np.array([1., 2., 3.], np.float32)), 4.0), ("trapz-x", mnp.trapz(np.array([[1., 2., 3.]], np.float32), np.array([0., 1., 3.], np.float32)), [6.5]),
    ("matrix_power", mnp.matrix_power(np.array([[1., 1.], [0., 1.]], np.float32), 5), [[1, 5], [0, 1]]),
    ("cross", mnp.cross(np.array([1., 0., 0.], np.float32), np.array([0., 1., 0.], np.float32)), [0, 0, 1]),
    ("norm", mnp.norm(np.array([[3., 4.]], np.float32)), 5.0),
    ("searchsorted", mnp.searchsorted(np.array([1., 2., 3.], np.float32), np.array([2.5, 2.], np.float32), side="right"), [2, 2]),
    ("digitize", mnp.digitize(np.array([0.2, 6.4, 3.0], np.float32), np.array([0., 1., 2.5, 4.], np.float32)), [1, 4, 3]),
    ("digitize-dec", mnp.digitize(np.array([0.2, 6.4, 3.0], np.float32), np.array([4., 2.5, 1., 0.], np.float32)), np.digitize([0.2, 6.4, 3.0], [4., 2.5, 1., 0.])),
    ("bincount", mnp.bincount(np.array([1, 1, 3], np.int32)), [0, 2, 0, 1]),
    ("isin", mnp.isin(i, np.array([2, 6])), np.isin(i, [2, 6])), ("in1d", mnp.in1d(i, np.array([2]), invert=True), np.isin(i.ravel(), [2], invert=True)),
    ("polyadd", mnp.polyadd(np.array([1., 2.], np.float32), np.array([1., 1., 1.], np.float32)), [1, 2, 3]),
    ("polymul", mnp.polymul(np.array([1, 2], np.int32), np.array([1, 3], np.int32)), [1, 5, 6]),
    ("polyval", mnp.polyval(np.array([1., 2., 3.], np.float32), np.array([2.], np.float32)), [11.]),
    ("polyder", mnp.polyder(np.array([1., 2., 3.], np.float32)), [2., 2.]), ("polyint", mnp.polyint(np.array([3., 2.], np.float32)), [1.5, 2., 0.]),
    ("vander", mnp.vander(np.array([1, 2, 3], np.int32)), np.vander([1, 2, 3])),
    ("geomspace", mnp.geomspace(1, 1000, 4), [1, 10, 100, 1000]),
    ("array_equal", mnp.array_equal([1, 2], [1, 2]), True), ("array_equiv", mnp.array_equiv([1, 2], [[1, 2], [1, 2]]), True),
    ("argwhere", mnp.argwhere(np.array([[0, 1], [2, 0]])), [[0, 1], [1, 0]]),
    ("signbit", mnp.signbit(np.array([-0., 1., -2.], np.float32)), [False, False, True]),
    ("isposinf", mnp.isposinf(np.array([np.inf, -np.inf], np.float32)), [True, False]),
    ("broadcast", [t.shape for t in mnp.broadcast_arrays(np.ones((2, 1)), np.ones(3))], [(2, 3), (2, 3)]),
    ("fliplr", mnp.fliplr(i), np.fliplr(i)), ("diagflat", mnp.diagflat(i, 1), np.diagflat(i, 1)), ("diagonal", mnp.diagonal(i, 1), np.diagonal(i, 1)),
    ("result_type", mnp.result_type(mnp.array([1]), 1.0), "Float32"), ("promote", mnp.promote_types(mnp.int32, mnp.float32), "Float32"),
    ("sometrue", mnp.sometrue(i > 5, 1), [False, True]), ("fabs", mnp.fabs(np.array([-1, 2], np.int32)), [1, 2]),
    ("hypot", mnp.hypot(np.array([3.], np.float32), np.array([4.], np.float32)), [5.]),
    ("size", mnp.size(np.ones((2, 3))), 6), ("isscalar", mnp.isscalar(3), True),
]


@pytest.mark.parametrize("name,got,want", CHECKS, ids=[c[0] for c in CHECKS])
def test_matches_numpy(name, got, want):
    g = got.asnumpy() if hasattr(got, "asnumpy") else got
    if isinstance(want, str):
        assert str(g) == want
    else:
        np.testing.assert_allclose(np.asarray(g, float), np.asarray(want, float), atol=1e-5,
                                   equal_nan=True)


def test_constants_and_dtypes_as_mindspore():
    assert (mnp.NINF, mnp.PINF, mnp.inf, mnp.pi) == (-math.inf, math.inf, math.inf, math.pi)
    assert math.isnan(mnp.nan)
    assert (mnp.float_, mnp.int_, mnp.uint, mnp.uint16, mnp.uint32, mnp.uint64) == (
        ms.float32, ms.int32, ms.uint32, ms.uint16, ms.uint32, ms.uint64)
    # MindSpore 2.10: cbrt of ints is Float32, tri is Float32, index helpers are Int32
    assert mnp.cbrt(mnp.array([8, -27])).dtype == ms.float32
    assert mnp.tri(2, 3).dtype == ms.float32
    assert mnp.tril_indices(3)[0].dtype == ms.int32 and mnp.diff(mnp.array([1, 4, 9])).dtype == ms.int32
    assert mnp.vander(mnp.array([1, 2, 3])).dtype == ms.int32
    assert mnp.searchsorted(mnp.array([1.0, 2.0]), 1.5).dtype == ms.int32


def test_errors_name_the_function():
    with pytest.raises(ValueError, match="hsplit"):
        mnp.hsplit(np.ones((2, 3), np.float32), 2)
    with pytest.raises(ValueError, match="matrix_power"):
        mnp.matrix_power(np.eye(2, dtype=np.float32), -1)
    with pytest.raises(ValueError, match="cross"):
        mnp.cross(np.ones(2, np.float32), np.ones(2, np.float32))
    with pytest.raises(ValueError, match="take"):
        mnp.take(np.ones(2, np.float32), np.array([0]), mode="bad")
