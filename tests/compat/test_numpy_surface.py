"""The rest of ``mindspore.numpy`` (selection, sets, index grids, pad, convolve/correlate,
interp, gradient, unwrap, histograms, windows, cov/corrcoef, fft) and ``mint.triangular_solve``:
values and dtypes probed on MindSpore 2.10, NumPy as the reference elsewhere, and the
op-table checks (gradients, jit) for the differentiable composites."""
import numpy as np
import pytest

import spore as ms
import spore.numpy as mnp
from spore import mint
from tests.helpers.optable import OpCase, table_tests


def _v(t):
    return t.asnumpy().tolist()


def test_selection_matches_mindspore():
    out = mnp.select([mnp.array([True, False, False]), mnp.array([False, True, False])],
                     [mnp.array([1, 2, 3]), mnp.array([4, 5, 6])], 9)
    assert out.dtype == ms.int32 and _v(out) == [1, 5, 9]
    choices = [mnp.array([0, 1, 2, 3]), mnp.array([10, 11, 12, 13]), mnp.array([20, 21, 22, 23])]
    assert _v(mnp.choose(mnp.array([2, 0, 1, 5]), choices)) == [20, 1, 12, 23]
    assert _v(mnp.choose(mnp.array([2, 0, 1, 4]), choices, mode="wrap")) == [20, 1, 12, 13]
    out = mnp.piecewise(mnp.array([-2., 0., 3.]), [mnp.array([True, False, False]),
                                                   mnp.array([False, False, True])],
                        [-1, lambda x: x * 2])
    assert _v(out) == [-1, 0, 6]
    with pytest.raises(ValueError, match="same length"):
        mnp.select([mnp.array([True])], [])


def test_sets_match_mindspore():
    values, inverse = mnp.unique(mnp.array([3, 1, 3, 2]), return_inverse=True)
    assert values.dtype == ms.int32 and _v(values) == [3, 1, 2] and _v(inverse) == [0, 1, 0, 2]
    v, i1, i2 = mnp.intersect1d(mnp.array([1, 3, 4, 3]), mnp.array([3, 1, 2, 1]),
                                return_indices=True)
    assert (_v(v), _v(i1), _v(i2)) == ([1, 3], [0, 1], [1, 0])
    assert _v(mnp.setdiff1d(mnp.array([1, 2, 3, 2, 4, 1]), mnp.array([3, 4, 5, 6]))) == [1, 2]


def test_index_grids_match_mindspore():
    out = mnp.ravel_multi_index(mnp.array([[3, 9, 6], [4, 5, 1]]), (7, 6))
    assert out.dtype == ms.float32 and _v(out) == [22, 41, 37]
    r, c = mnp.unravel_index(mnp.array([22, 41, 37]), (7, 6))
    assert r.dtype == ms.int32 and (_v(r), _v(c)) == ([3, 6, 6], [4, 5, 1])
    assert [_v(t) for t in mnp.unravel_index(1621, (6, 7, 8, 9))] == [3, 1, 4, 1]
    a, b = mnp.indices((2, 3))
    assert (_v(a), _v(b)) == ([[0, 0, 0], [1, 1, 1]], [[0, 1, 2], [0, 1, 2]])
    a, b = mnp.indices((2, 3), sparse=True)
    assert a.shape == (2, 1) and b.shape == (1, 3)
    a, b = mnp.ix_(mnp.array([0, 1]), mnp.array([2, 4]))
    assert (_v(a), _v(b)) == ([[0], [1]], [[2, 4]])
    grid = mnp.mgrid[0:2, 0:3]
    assert grid.dtype == ms.int32 and grid.shape == (2, 2, 3)
    assert _v(mnp.mgrid[-1:1:5j]) == [-1, -0.5, 0, 0.5, 1]
    a, b = mnp.ogrid[0:2, 0:3]
    assert a.shape == (2, 1) and b.shape == (1, 3)


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap", "edge", "constant", "mean",
                                  "maximum", "linear_ramp"])
def test_pad_matches_numpy(mode):
    a = np.arange(6).reshape(2, 3).astype(np.float32)
    for width in (((0, 3), (2, 1)), 1, ((2, 2), (4, 5))):
        if mode == "reflect" and width == ((2, 2), (4, 5)):
            continue            # wider than twice the axis: NumPy repeats the reflection too
        got = mnp.pad(mnp.array(a), width, mode)
        np.testing.assert_array_equal(got.asnumpy(), np.pad(a, width, mode), err_msg=mode)


def test_pad_values_match_mindspore():
    assert _v(mnp.pad(mnp.array([1., 2., 3.]), (2, 3), "constant",
                      constant_values=(4, 6))) == [4, 4, 1, 2, 3, 6, 6, 6]
    out = mnp.pad(mnp.array([1, 2, 3, 4]), 2, "reflect")
    assert out.dtype == ms.int32 and _v(out) == [3, 2, 1, 2, 3, 4, 3, 2]
    assert _v(mnp.pad(mnp.array([1., 2., 3., 4.]), 2, "linear_ramp", end_values=(5, -4))) == \
        [5, 3, 1, 2, 3, 4, 0, -4]
    assert _v(mnp.pad(mnp.array([1, 2, 3, 4]), 2, "symmetric", reflect_type="odd")) == \
        [0, 1, 1, 2, 3, 4, 4, 5]


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_match_numpy(mode):
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 6):
        for m in (1, 3, 4, 7):
            a, v = rng.uniform(-1, 1, n), rng.uniform(-1, 1, m)
            np.testing.assert_allclose(mnp.correlate(mnp.array(a), mnp.array(v), mode).asnumpy(),
                                       np.correlate(a, v, mode), atol=1e-5)
            np.testing.assert_allclose(mnp.convolve(mnp.array(a), mnp.array(v), mode).asnumpy(),
                                       np.convolve(a, v, mode), atol=1e-5)
    out = mnp.convolve(mnp.array([1, 2, 3]), mnp.array([0, 1, 2, 1]), "same")
    assert out.dtype == ms.int32 and _v(out) == [1, 4, 8, 8]


def test_interp_gradient_unwrap_match_mindspore():
    out = mnp.interp(mnp.array([0., 1., 1.5, 2.72, 3.14]), mnp.array([1., 2., 3.]),
                     mnp.array([3., 2., 0.]))
    np.testing.assert_allclose(out.asnumpy(), [3, 3, 2.5, 0.56, 0], atol=1e-6)
    assert _v(mnp.interp(mnp.array([0., 4.]), mnp.array([1., 2., 3.]),
                         mnp.array([3., 2., 0.]), -1, 9)) == [-1, 9]
    assert _v(mnp.gradient(mnp.array([1., 2., 4., 7., 11., 16.]))) == [1, 1.5, 2.5, 3.5, 4.5, 5]
    out = mnp.gradient(mnp.array([1, 2, 4, 7, 11, 16]), 2.)
    assert out.dtype == ms.float32 and _v(out) == [0.5, 0.75, 1.25, 1.75, 2.25, 2.5]
    d0, d1 = mnp.gradient(mnp.array([[1., 2., 6.], [3., 4., 5.]]))
    assert (_v(d0), _v(d1)) == ([[2, 2, -1], [2, 2, -1]], [[1, 2.5, 4], [1, 1, 1]])
    x = np.array([1., 2., 4., 7., 11., 16.])
    np.testing.assert_allclose(mnp.gradient(mnp.array(x), edge_order=2).asnumpy(),
                               np.gradient(x, edge_order=2), atol=1e-6)
    np.testing.assert_allclose(mnp.unwrap(mnp.array([0., 0.78, 5.49, 6.28])).asnumpy(),
                               [0, 0.78, -0.793185, -0.003185], atol=1e-5)
    phases = np.random.default_rng(1).uniform(-10, 10, (3, 20))
    np.testing.assert_allclose(mnp.unwrap(mnp.array(phases)).asnumpy(), np.unwrap(phases),
                               atol=1e-4)


def test_histograms_match_mindspore():
    hist, edges = mnp.histogram(mnp.array([1, 2, 1]), bins=[0, 1, 2, 3])
    assert hist.dtype == ms.float32 and edges.dtype == ms.int32
    assert (_v(hist), _v(edges)) == ([0, 2, 1], [0, 1, 2, 3])
    hist, edges = mnp.histogram(mnp.array([0.5, 1.2, 3.3, 1.1]), bins=4, density=True,
                                weights=mnp.array([1., 2., 1., 1.]))
    np.testing.assert_allclose(hist.asnumpy(), [0.571429, 0.571429, 0, 0.285714], atol=1e-6)
    assert _v(mnp.histogram_bin_edges(mnp.array([0, 0, 0, 1, 2, 1, 1, 0, 1, 3]), bins=2)) == \
        [0, 1.5, 3]
    hist, ex, ey = mnp.histogram2d(mnp.array([0., 1., 1.5]), mnp.array([1., 0., 2.]), bins=2)
    assert (_v(hist), _v(ex), _v(ey)) == ([[0, 1], [1, 1]], [0, 0.75, 1.5], [0, 1, 2])
    hist, edges = mnp.histogramdd(mnp.array([[0., 1.], [1., 0.], [1.5, 2.]]), bins=2)
    assert _v(hist) == [[0, 1], [1, 1]] and len(edges) == 2


def test_functional_helpers_match_mindspore():
    out = mnp.apply_along_axis(lambda v: v.sum(), 1, mnp.array([[1, 2], [3, 4]]))
    assert _v(out) == [3, 7]
    out = mnp.apply_along_axis(lambda v: v * 2, 0, mnp.array([[1, 2], [3, 4]]))
    assert _v(out) == [[2, 4], [6, 8]]
    out = mnp.apply_over_axes(mnp.sum, mnp.arange(24).reshape(2, 3, 4), [0, 2])
    assert out.shape == (1, 3, 1) and _v(out) == [[[60], [92], [124]]]
    assert mnp.array_str(mnp.array([1, 2, 3])) == "[1 2 3]"


def test_fft_module_and_triangular_solve():
    np.testing.assert_allclose(mnp.fft.rfft(mnp.array([1., 2., 0., -1.])).asnumpy(),
                               np.fft.rfft([1., 2., 0., -1.]), atol=1e-6)
    assert mnp.fft.fftshift is ms.ops.fftshift
    x, a = mint.triangular_solve(ms.Tensor([[1.], [2.]]), ms.Tensor([[2., 1.], [5., 4.]]))
    np.testing.assert_allclose(x.asnumpy(), [[0.25], [0.5]], atol=1e-6)
    x, _ = mint.triangular_solve(ms.Tensor([[1.], [2.]]), ms.Tensor([[2., 1.], [5., 4.]]),
                                 upper=False, transpose=True, unitriangular=True)
    np.testing.assert_allclose(x.asnumpy(), [[-9.], [2.]], atol=1e-6)


CASES = [
    OpCase("mnp.pad-reflect", lambda x: mnp.pad(x, ((1, 2), (2, 0)), "reflect"),
           lambda x: np.pad(x, ((1, 2), (2, 0)), "reflect"), [(3, 4)]),
    OpCase("mnp.pad-constant", lambda x: mnp.pad(x, 1, constant_values=2.0),
           lambda x: np.pad(x, 1, constant_values=2.0), [(2, 3)]),
    OpCase("mnp.convolve", lambda a, v: mnp.convolve(a, v, "same"),
           lambda a, v: np.convolve(a, v, "same"), [(5,), (3,)]),
    OpCase("mnp.correlate", lambda a, v: mnp.correlate(a, v, "full"),
           lambda a, v: np.correlate(a, v, "full"), [(4,), (3,)]),
    OpCase("mnp.interp", lambda x, f: mnp.interp(x, mnp.array([-1., 0., 1.5]), f),
           lambda x, f: np.interp(x, [-1., 0., 1.5], f), [(6,), (3,)], domain=(-1.9, 1.9),
           grad_argnums=[1]),
    OpCase("mnp.gradient", lambda f: mnp.gradient(f, 0.5, axis=1),
           lambda f: np.gradient(f, 0.5, axis=1), [(2, 5)]),
    OpCase("mnp.select", lambda a, b: mnp.select([a > 0, b > 0], [a, b], 0.5),
           lambda a, b: np.select([a > 0, b > 0], [a, b], 0.5), [(6,), (6,)]),
    OpCase("mnp.choose", lambda a, b: mnp.choose(mnp.array([1, 0, 1, 1]), [a, b]),
           lambda a, b: np.choose([1, 0, 1, 1], [a, b]), [(4,), (4,)]),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)
