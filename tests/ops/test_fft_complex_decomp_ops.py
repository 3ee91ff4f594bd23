"""Fourier transforms, complex numbers, matrix decompositions and the number-theory /
Bessel / statistics ops of issue 17: the op-table checks (NumPy references, shape rules,
numerical gradients, jit) for the differentiable ones."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from tests.helpers.optable import OpCase, table_tests

try:
    from scipy import special as _sp
except ImportError:     # pragma: no cover
    _sp = None


def _c(re, im):
    return ops.polar(ops.sqrt(re * re + im * im + 0.5), ops.atan2(im, re))


def _cnp(re, im):
    return np.sqrt(re * re + im * im + 0.5) * np.exp(1j * np.arctan2(im, re))


def _vr(z):
    return np.stack([z.real, z.imag], -1)


def _spd(a):
    return a @ np.swapaxes(a, -1, -2) + a.shape[-1] * np.eye(a.shape[-1])


def _spd_t(a):
    return ops.matmul(a, a.swapaxes(-1, -2)) + a.shape[-1] * ops.eye(a.shape[-1], a.shape[-1],
                                                                     a.dtype)


def _i1(x):
    return _sp.i1(x) if _sp is not None else None


FFT = [
    OpCase("fft", lambda x: ops.view_as_real(ops.fft(x)), lambda x: _vr(np.fft.fft(x)), [(3, 5)],
           rtol=1e-4, atol=1e-5),
    OpCase("fft-n-ortho", lambda x: ops.view_as_real(ops.fft(x, n=7, dim=0, norm="ortho")),
           lambda x: _vr(np.fft.fft(x, 7, 0, norm="ortho")), [(4, 3)], rtol=1e-4, atol=1e-5),
    OpCase("ifft-complex", lambda a, b: ops.view_as_real(ops.ifft(_c(a, b), n=3)),
           lambda a, b: _vr(np.fft.ifft(_cnp(a, b), 3)), [(2, 5), (2, 5)], rtol=1e-4,
           atol=1e-5),
    OpCase("rfft", lambda x: ops.view_as_real(ops.rfft(x)), lambda x: _vr(np.fft.rfft(x)),
           [(2, 6)], rtol=1e-4, atol=1e-5),
    OpCase("rfft-odd-forward", lambda x: ops.view_as_real(ops.rfft(x, n=5, norm="forward")),
           lambda x: _vr(np.fft.rfft(x, 5, norm="forward")), [(2, 7)], rtol=1e-4, atol=1e-5),
    OpCase("irfft", lambda a, b: ops.irfft(_c(a, b)), lambda a, b: np.fft.irfft(_cnp(a, b)),
           [(2, 4), (2, 4)], rtol=1e-4, atol=1e-5),
    OpCase("irfft-odd-n", lambda a, b: ops.irfft(_c(a, b), n=5, norm="ortho"),
           lambda a, b: np.fft.irfft(_cnp(a, b), 5, norm="ortho"), [(4,), (4,)], rtol=1e-4,
           atol=1e-5),
    OpCase("fft2", lambda x: ops.view_as_real(ops.fft2(x)), lambda x: _vr(np.fft.fft2(x)),
           [(2, 3, 4)], rtol=1e-4, atol=1e-5),
    OpCase("ifftn-s", lambda a, b: ops.view_as_real(ops.ifftn(_c(a, b), s=(2, 5))),
           lambda a, b: _vr(np.fft.ifftn(_cnp(a, b), (2, 5), axes=(-2, -1))),
           [(3, 4), (3, 4)], rtol=1e-4, atol=1e-5),
    OpCase("rfftn", lambda x: ops.view_as_real(ops.rfftn(x)), lambda x: _vr(np.fft.rfftn(x)),
           [(3, 4)], rtol=1e-4, atol=1e-5),
    OpCase("irfft2", lambda a, b: ops.irfft2(_c(a, b)), lambda a, b: np.fft.irfft2(_cnp(a, b)),
           [(3, 3), (3, 3)], rtol=1e-4, atol=1e-5),
    OpCase("hfft", lambda a, b: ops.hfft(_c(a, b)), lambda a, b: np.fft.hfft(_cnp(a, b)),
           [(4,), (4,)], rtol=1e-4, atol=1e-4),
    OpCase("ihfft", lambda x: ops.view_as_real(ops.ihfft(x)), lambda x: _vr(np.fft.ihfft(x)),
           [(6,)], rtol=1e-4, atol=1e-5),
    OpCase("fftshift", lambda x: ops.fftshift(x, dim=1), lambda x: np.fft.fftshift(x, axes=1),
           [(2, 5)]),
    OpCase("ifftshift", lambda x: ops.ifftshift(x), lambda x: np.fft.ifftshift(x), [(3, 4)]),
]

COMPLEX = [
    OpCase("real-imag", lambda a, b: ops.real(ops.polar(a, b)) * 2 + ops.imag(ops.polar(a, b)),
           lambda a, b: 2 * a * np.cos(b) + a * np.sin(b), [(3,), (3,)]),
    OpCase("conj", lambda a, b: ops.view_as_real(ops.conj(_c(a, b))),
           lambda a, b: _vr(np.conj(_cnp(a, b))), [(4,), (4,)], rtol=1e-4, atol=1e-5),
    OpCase("angle", lambda a, b: ops.angle(_c(a, b)), lambda a, b: np.angle(_cnp(a, b)),
           [(5,), (5,)], domain=(0.2, 2.0), rtol=1e-4, atol=1e-5),
    OpCase("ComplexAbs", lambda a, b: ops.ComplexAbs()(_c(a, b)),
           lambda a, b: np.abs(_cnp(a, b)), [(5,), (5,)], rtol=1e-4, atol=1e-5),
]

DECOMP = [
    OpCase("cholesky", lambda a: ops.cholesky(_spd_t(a)), lambda a: np.linalg.cholesky(_spd(a)),
           [(3, 3)], rtol=1e-4, atol=1e-5),
    OpCase("cholesky-upper-batch", lambda a: ops.cholesky(_spd_t(a), upper=True),
           lambda a: np.swapaxes(np.linalg.cholesky(_spd(a)), -1, -2), [(2, 3, 3)], rtol=1e-4,
           atol=1e-5),
    OpCase("matrix_solve", lambda a, b: ops.matrix_solve(_spd_t(a), b),
           lambda a, b: np.linalg.solve(_spd(a), b), [(3, 3), (3, 2)], rtol=1e-4, atol=1e-5),
    OpCase("matrix_solve-adjoint", lambda a, b: ops.matrix_solve(a + 3 * ops.eye(3), b, True),
           lambda a, b: np.linalg.solve((a + 3 * np.eye(3)).T, b), [(3, 3), (3, 1)],
           rtol=1e-4, atol=1e-5),
    OpCase("cholesky_solve", lambda a, b: ops.cholesky_solve(b, ops.cholesky(_spd_t(a))),
           lambda a, b: np.linalg.solve(_spd(a), b), [(3, 3), (3, 2)], rtol=1e-4, atol=1e-5),
    OpCase("cholesky_inverse", lambda a: ops.cholesky_inverse(ops.cholesky(_spd_t(a))),
           lambda a: np.linalg.inv(_spd(a)), [(3, 3)], rtol=1e-4, atol=1e-5),
    OpCase("matrix_exp", lambda a: ops.matrix_exp(a), None, [(2, 3, 3)], rtol=1e-4,
           atol=1e-5),
    OpCase("pinv-wide", lambda a: ops.pinv(a), lambda a: np.linalg.pinv(a), [(2, 4)],
           rtol=1e-3, atol=1e-4),
    OpCase("pinv-tall", lambda a: ops.pinv(a), lambda a: np.linalg.pinv(a), [(4, 3)],
           rtol=1e-3, atol=1e-4),
    OpCase("lstsq", lambda a, b: ops.lstsq(a, b), lambda a, b: np.linalg.lstsq(a, b, None)[0],
           [(5, 3), (5, 2)], rtol=1e-3, atol=1e-4),
    OpCase("qr", lambda a: ops.qr(a), lambda a: np.linalg.qr(a), [(4, 3)], rtol=1e-4,
           atol=1e-5),
    OpCase("qr-square-complete", lambda a: ops.qr(a, "complete"), lambda a: np.linalg.qr(a),
           [(3, 3)], rtol=1e-4, atol=1e-5),
]

MISC = [
    OpCase("copysign", lambda x, y: ops.copysign(x, y),
           lambda x, y: np.where(y < 0, -np.abs(x), np.abs(x)),
           [lambda r: r.uniform(0.2, 2, 6) * r.choice([-1, 1], 6), (6,)], grad_argnums=[0]),
    OpCase("ldexp", lambda x: ops.ldexp(x, ms.Tensor(np.array([0, 1, -2, 3]))),
           lambda x: np.ldexp(x, np.array([0, 1, -2, 3])), [(2, 4)]),
    OpCase("trapz-dx", lambda y: ops.trapz(y, dx=0.5), lambda y: np.trapezoid(y, dx=0.5)
           if hasattr(np, "trapezoid") else np.trapz(y, dx=0.5), [(3, 5)]),
    OpCase("trapz-x", lambda y, x: ops.trapz(y, x, dim=0),
           lambda y, x: np.trapezoid(y, x, axis=0) if hasattr(np, "trapezoid")
           else np.trapz(y, x, axis=0), [(4, 2), (4, 2)]),
    OpCase("cov", lambda x: ops.cov(x), lambda x: np.cov(x), [(3, 6)]),
    OpCase("cov-weights", lambda x, a: ops.cov(x, correction=0, aweights=a,
                                               fweights=ms.Tensor(np.array([1, 2, 1, 3]))),
           lambda x, a: np.cov(x, ddof=0, aweights=a, fweights=np.array([1, 2, 1, 3])),
           [(2, 4), lambda r: r.uniform(0.5, 2, 4)], grad_argnums=[0, 1]),
    OpCase("quantile", lambda x: ops.quantile(x, 0.3, axis=1),
           lambda x: np.quantile(x, 0.3, axis=1), [(3, 6)]),
    OpCase("quantile-vector-q", lambda x: ops.quantile(x, ms.Tensor([0.1, 0.75]), keepdims=True),
           lambda x: np.quantile(x, [0.1, 0.75], keepdims=True), [(2, 5)]),
    OpCase("nanquantile", lambda x: ops.nanquantile(x, 0.6, axis=0),
           lambda x: np.nanquantile(x, 0.6, axis=0),
           [lambda r: np.where(r.uniform(size=(5, 3)) < 0.3, np.nan, r.uniform(-2, 2, (5, 3)))
            ], grad=False),
    OpCase("diagonal_scatter", lambda x, s: ops.diagonal_scatter(x, s, 1),
           None, [(3, 4), (3,)]),
    OpCase("diagonal_scatter-dims", lambda x, s: ops.diagonal_scatter(x, s, -1, 0, 2),
           None, [(3, 2, 4), (2, 2)]),
    OpCase("renorm", lambda x: ops.renorm(x, 2, 0, 1.5), None, [(3, 4)]),
    OpCase("swiglu", lambda x: ops.swiglu(x, 0), None, [(4, 3)]),
    OpCase("rms_norm", lambda x, g: ops.rms_norm(x, g), None, [(2, 5), (5,)], rtol=1e-4),
    OpCase("vander", lambda x: ops.vander(x, 4), lambda x: np.vander(x, 4), [(3,)]),
    OpCase("combinations", lambda x: ops.combinations(x, 2),
           lambda x: np.array([[x[i], x[j]] for i in range(4) for j in range(i + 1, 4)]),
           [(4,)]),
    OpCase("channel_shuffle", lambda x: ops.channel_shuffle(x, 2),
           lambda x: x.reshape(1, 2, 2, 2, 1).swapaxes(1, 2).reshape(1, 4, 2, 1),
           [(1, 4, 2, 1)]),
    OpCase("mvlgamma", lambda x: ops.mvlgamma(x, 3), None, [(4,)], domain=(1.5, 4.0)),
    OpCase("bessel_i0", lambda x: ops.bessel_i0(x), lambda x: np.i0(x), [(7,)],
           domain=(-4, 4), rtol=1e-4),
    OpCase("bessel_i1", lambda x: ops.bessel_i1(x), None, [(7,)], domain=(-4, 4), rtol=1e-4),
    OpCase("bessel_i0e", lambda x: ops.bessel_i0e(x), lambda x: np.i0(x) * np.exp(-np.abs(x)),
           [(7,)], domain=(-4, 4), rtol=1e-4),
    OpCase("bessel_i1e", lambda x: ops.bessel_i1e(x), None, [(7,)], domain=(-4, 4), rtol=1e-4),
    OpCase("sgn", lambda x: ops.sgn(x) * x, lambda x: np.abs(x), [(5,)], grad=False),
]

ALL = FFT + COMPLEX + DECOMP + MISC
test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(ALL)


# ------------------------------------------------------------ values probed on MindSpore 2.10
def test_fft_values_and_dtypes_match_mindspore():
    x = ms.Tensor(np.array([1., 2., 0., -1.], np.float32))
    y = ops.fft(x)
    assert y.dtype == ms.complex64
    np.testing.assert_allclose(y.asnumpy(), [2, 1 - 3j, 0, 1 + 3j], atol=1e-6)
    assert ops.fft(ms.Tensor([1, 2, 3])).dtype == ms.complex64
    assert ops.fft(ms.Tensor(np.array([1., 2.]))).dtype == ms.complex128
    np.testing.assert_allclose(ops.irfft(ops.rfft(x), n=5).asnumpy(),
                               [0.8, 1.6649, 0.7817, -0.6289, -0.6177], atol=1e-4)
    np.testing.assert_allclose(ops.hfft(ms.Tensor(np.array([1., 2., 0.], np.float32))).asnumpy(),
                               [5, 1, -3, 1], atol=1e-6)
    assert ops.irfft(ops.rfft(x)).dtype == ms.float32


def test_fft_gradients_match_mindspore():
    x = ms.Tensor(np.array([1., 2., 0., -1.], np.float32))
    g = ops.grad(lambda t: (ops.real(ops.rfft(t)) * ms.Tensor([1., 2., 3.])).sum()
                 + 2 * ops.imag(ops.rfft(t)).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [6, -4, 2, 0], atol=1e-5)
    ga, gb = ops.grad(lambda a, b: (ops.irfft(ops.Complex()(a, b))
                                    * ms.Tensor([1., 2., 3., 4.])).sum(), (0, 1))(
        ms.Tensor([1., 2., 3.]), ms.Tensor([0.5, 1., 2.]))
    np.testing.assert_allclose(ga.asnumpy(), [2.5, -1, -0.5], atol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), [0, 1, 0], atol=1e-6)


def test_fft_frequencies_and_shifts():
    np.testing.assert_allclose(ops.fftfreq(5).asnumpy(), [0, 0.2, 0.4, -0.4, -0.2], atol=1e-7)
    assert ops.fftfreq(4, dtype=ms.float64).dtype == ms.float64
    np.testing.assert_allclose(ops.rfftfreq(5, 0.5).asnumpy(), [0, 0.4, 0.8], atol=1e-7)
    assert ops.fftshift(ms.Tensor([0, 1, 2, 3, 4])).asnumpy().tolist() == [3, 4, 0, 1, 2]
    assert ops.ifftshift(ms.Tensor([0, 1, 2, 3, 4])).asnumpy().tolist() == [2, 3, 4, 0, 1]


def test_fft_bad_arguments():
    x = ms.Tensor(np.ones(4, np.float32))
    with pytest.raises(ValueError, match="norm"):
        ops.fft(x, norm="half")
    with pytest.raises(TypeError, match="rfft"):
        ops.rfft(ops.fft(x))
    with pytest.raises(TypeError, match="fft"):
        ops.fft([1.0, 2.0])


def test_complex_helpers():
    z = ops.Complex()(ms.Tensor([3.]), ms.Tensor([4.]))
    assert z.dtype == ms.complex64
    assert ops.ComplexAbs()(z).asnumpy().tolist() == [5.0]
    x = ms.Tensor([1., 2.])
    assert ops.real(x).asnumpy().tolist() == [1, 2] and ops.imag(x).asnumpy().tolist() == [0, 0]
    assert ops.isreal(z).asnumpy().tolist() == [False]
    assert ops.is_complex(z) and not ops.is_complex(x)
    np.testing.assert_allclose(ops.polar(ms.Tensor([1., 2.]), ms.Tensor([0., 1.])).asnumpy(),
                               [1, 1.0806 + 1.6829j], atol=1e-4)
    with pytest.raises(TypeError, match="angle"):
        ops.angle(x)


def test_decompositions_match_mindspore():
    a = ms.Tensor(np.array([[4., 1.], [1., 3.]], np.float32))
    b = ms.Tensor(np.array([[1.], [2.]], np.float32))
    np.testing.assert_allclose(ops.cholesky(a).asnumpy(), [[2, 0], [0.5, 1.6583]], atol=1e-4)
    np.testing.assert_allclose(ops.cholesky_solve(b, ops.cholesky(a)).asnumpy(),
                               [[0.0909], [0.6364]], atol=1e-4)
    np.testing.assert_allclose(ops.cholesky_inverse(ops.cholesky(a, True), True).asnumpy(),
                               [[0.2727, -0.0909], [-0.0909, 0.3636]], atol=1e-4)
    ga, gb = ops.grad(lambda m, r: (ops.matrix_solve(m, r) * ms.Tensor([[1.], [3.]])).sum(),
                      (0, 1))(a, b)
    np.testing.assert_allclose(ga.asnumpy(), [[0, 0], [-0.0909, -0.6364]], atol=1e-4)
    np.testing.assert_allclose(gb.asnumpy(), [[0], [1]], atol=1e-6)
    np.testing.assert_allclose(ops.matrix_exp(ms.Tensor([[0., 1.], [-1., 0.]])).asnumpy(),
                               [[np.cos(1), np.sin(1)], [-np.sin(1), np.cos(1)]], atol=1e-6)
    m = ms.Tensor(np.array([[1., 2.], [3., 4.], [5., 7.]], np.float32))
    np.testing.assert_allclose(ops.lstsq(m, ms.Tensor([[1.], [2.], [4.]])).asnumpy(),
                               [[0.0714], [0.5]], atol=1e-4)
    s, u, v = ops.svd(m)
    np.testing.assert_allclose(s.asnumpy(), [10.1914, 0.3671], atol=1e-4)
    np.testing.assert_allclose((u * s) @ v.T, m.asnumpy(), atol=1e-5)
    s, u, v = ops.svd(m, full_matrices=True)
    assert u.shape == (3, 3) and v.shape == (2, 2)
    w, vecs = ops.eig(a)
    assert w.dtype == ms.complex64
    np.testing.assert_allclose(sorted(w.asnumpy().real), [2.382, 4.618], atol=1e-3)
    np.testing.assert_allclose(a.asnumpy() @ vecs.asnumpy(), vecs.asnumpy() * w.asnumpy(),
                               atol=1e-5)
    assert ops.Eig()(a)[1].shape == ()
    q, r = ops.qr(m, "complete")
    assert q.shape == (3, 3) and r.shape == (3, 2)


def test_qr_gradient_refused_where_undefined():
    m = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(NotImplementedError, match="qr"):
        ops.grad(lambda t: ops.qr(t)[1].sum())(m)


def test_number_theory_matches_mindspore():
    i32 = ms.int32
    assert ops.gcd(ms.Tensor([12, -18, 0], i32), ms.Tensor([8, 12, 5], i32)).asnumpy().tolist() \
        == [4, 6, 5]
    out = ops.lcm(ms.Tensor([4, -6, 0], i32), ms.Tensor([6, 4, 5], i32))
    assert out.dtype == i32 and out.asnumpy().tolist() == [12, 12, 0]
    with pytest.raises(TypeError, match="Gcd"):
        ops.gcd(ms.Tensor([4.]), ms.Tensor([6.]))
    assert ops.copysign(ms.Tensor([1, -2, 3]), ms.Tensor([-1., 1., -0.])).asnumpy().tolist() \
        == [-1, 2, 3]
    assert ops.copysign(ms.Tensor([1., -2.]), -1.0).asnumpy().tolist() == [-1, -2]
    out = ops.ldexp(ms.Tensor([1, 2]), ms.Tensor([2, 3]))
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [4, 16]
    assert ops.signbit(ms.Tensor([1., -0., -2.])).asnumpy().tolist() == [False, True, True]
    out = ops.nextafter(ms.Tensor(np.array([1.], np.float64)), ms.Tensor(np.array([2.])))
    assert out.asnumpy()[0] - 1 == np.finfo(np.float64).eps
    out = ops.population_count(ms.Tensor([1, 7, -1], ms.int16))
    assert out.dtype == ms.uint8 and out.asnumpy().tolist() == [1, 3, 16]
    np.testing.assert_allclose(ops.i0(ms.Tensor([0., 1., 2.])).asnumpy(), [1, 1.266066, 2.279585],
                               rtol=1e-6)
    with pytest.raises(TypeError):
        ops.i0(ms.Tensor([0, 1]))
    np.testing.assert_allclose(ops.bessel_i1(ms.Tensor([1., 2.])).asnumpy(),
                               [0.5651591, 1.5906369], rtol=1e-6)


def test_i1_fallback_series_matches_scipy_values():
    from spore._prims.numbertheory import _i1_series
    np.testing.assert_allclose(_i1_series(np.array([0., 0.5, 1., 5., -3., 20.])),
                               [0, 0.2578943, 0.5651591, 24.3356421, -3.9533702,
                                42454973.38], rtol=1e-6)


def test_windows_match_mindspore():
    np.testing.assert_allclose(ops.hann_window(5).asnumpy(), [0, 0.345492, 0.904508, 0.904508,
                                                              0.345492], atol=1e-6)
    assert ops.hann_window(5).dtype == ms.float64
    assert ops.hann_window(5, dtype=ms.float32).dtype == ms.float32
    w = ops.hamming_window(5, False)
    assert w.dtype == ms.float32
    np.testing.assert_allclose(w.asnumpy(), [0.08, 0.54, 1, 0.54, 0.08], atol=1e-6)
    w = ops.bartlett_window(ms.Tensor(5, ms.int32))
    np.testing.assert_allclose(w.asnumpy(), [0, 0.4, 0.8, 0.8, 0.4], atol=1e-7)
    with pytest.raises(TypeError, match="Tensor"):
        ops.bartlett_window(5)
    np.testing.assert_allclose(ops.blackman_window(ms.Tensor(5, ms.int32)).asnumpy(),
                               [0, 0.20077, 0.84923, 0.84923, 0.20077], atol=1e-5)
    np.testing.assert_allclose(ops.kaiser_window(5).asnumpy(),
                               [5.27734e-05, 0.101720, 0.792940, 0.792940, 0.101720], atol=1e-6)
    np.testing.assert_allclose(ops.kaiser_window(5, False, 8.0, dtype=ms.float32).asnumpy(),
                               [0.0023388, 0.368973, 1, 0.368973, 0.0023388], atol=1e-6)
    assert ops.kaiser_window(1).asnumpy().tolist() == [1.0]
    assert ops.hann_window(0).shape == (0,)
    with pytest.raises(TypeError, match="floating"):
        ops.hann_window(3, dtype=ms.int32)
    np.testing.assert_allclose(ops.HammingWindow()(ms.Tensor([5], ms.int32)).asnumpy(),
                               np.hamming(6)[:5], atol=1e-6)


def test_predicates_and_small_ops_match_mindspore():
    assert ops.is_tensor(ms.Tensor(1)) and not ops.is_tensor(1)
    assert not ops.is_floating_point(ms.Tensor([1])) and ops.is_floating_point(ms.Tensor([1.]))
    assert ops.is_nonzero(ms.Tensor([0.5])) and not ops.is_nonzero(ms.Tensor([0]))
    with pytest.raises(ValueError, match="numel"):
        ops.is_nonzero(ms.Tensor([1, 2]))
    out = ops.bias_add(ms.Tensor(np.ones((2, 3, 2), np.float32)), ms.Tensor([1., 2., 3.]))
    assert out.asnumpy()[:, :, 0].tolist() == [[2, 3, 4], [2, 3, 4]]
    with pytest.raises(ValueError, match="rank"):
        ops.bias_add(ms.Tensor([1., 2., 3.]), ms.Tensor([1., 2., 3.]))
    with pytest.raises(TypeError, match="same"):
        ops.bias_add(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor([1, 2, 3], ms.int32))
    out = ops.bincount(ms.Tensor([1, 1, 3]))
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [0, 2, 0, 1]
    out = ops.bincount(ms.Tensor([1, 1, 3]), ms.Tensor([0.5, 1., 2.]), minlength=5)
    assert out.asnumpy().tolist() == [0, 1.5, 0, 2, 0]
    assert ops.Bincount()(ms.Tensor([1, 1, 3, 7], ms.int32), ms.Tensor(5, ms.int32),
                          ms.Tensor([1., 1., 2., 9.])).asnumpy().tolist() == [0, 2, 0, 2, 0]
    assert ops.vander(ms.Tensor([1, 2, 3])).dtype == ms.int64
    out = ops.trapz(ms.Tensor([1, 2, 4]))
    assert out.dtype == ms.float32 and out.asnumpy() == 4.5
    np.testing.assert_allclose(ops.cov(ms.Tensor([0., 1., 5.])).asnumpy(), 7.0)
    v, i = ops.nanmedian(ms.Tensor([[1., np.nan, 3., 4.]]))
    assert v.asnumpy().tolist() == [3.0] and i.asnumpy().tolist() == [2]
    np.testing.assert_allclose(ops.mvlgamma(ms.Tensor([2.5]), 2).asnumpy(), [0.857048], atol=1e-6)
    with pytest.raises(ValueError, match="greater"):
        ops.mvlgamma(ms.Tensor([0.5]), 2)
    assert ops.approximate_equal(ms.Tensor([1., 2.]), ms.Tensor([1., 2.1])).asnumpy().tolist() \
        == [True, False]
    out = ops.clip_by_global_norm((ms.Tensor([3., 4.]),), 1.0)
    np.testing.assert_allclose(out[0].asnumpy(), [0.6, 0.8], atol=1e-7)
    out = ops.mirror_pad(ms.Tensor([[1., 2., 3.]]), ms.Tensor([[0, 0], [2, 2]]), "SYMMETRIC")
    assert out.asnumpy().tolist() == [[2, 1, 1, 2, 3, 3, 2]]
    with pytest.raises(ValueError, match="MirrorPad"):
        ops.mirror_pad(ms.Tensor([[1., 2., 3.]]), ms.Tensor([[0, 0], [3, 3]]), "REFLECT")
    with pytest.raises(TypeError, match="ChannelShuffle"):
        ops.channel_shuffle(ms.Tensor(np.ones((1, 4, 2), np.float32)), 2)
    out = ops.combinations(ms.Tensor([1., 2.]), 2, True)
    assert out.asnumpy().tolist() == [[1, 1], [1, 2], [2, 2]]
    np.testing.assert_allclose(ops.renorm(ms.Tensor([[1., 2.], [3., 4.]]), 2, 0, 2.).asnumpy(),
                               [[0.894427, 1.788854], [1.2, 1.6]], atol=1e-6)
    out = ops.swiglu(ms.Tensor([[-0.12, 0.123, 31.122], [2.1223, 4.1212121217, 0.3123]]), 0)
    np.testing.assert_allclose(out.asnumpy(), [[-0.11970687, 0.2690224, 9.7194]], rtol=1e-5)
    y, rstd = ops.rms_norm(ms.Tensor([[1., 2., 3.], [1., 2., 3.]]), ms.Tensor([1., 1., 1.]))
    np.testing.assert_allclose(y.asnumpy()[0], [0.46290997, 0.92581993, 1.3887299], rtol=1e-6)
    assert rstd.shape == (2, 1)
    assert ops.type_as(ms.Tensor([1.5]), ms.Tensor([1])).dtype == ms.int64


def test_numpy_and_mint_additions():
    import spore.numpy as mnp
    from spore import mint
    np.testing.assert_allclose(mnp.hamming(5).asnumpy(), np.hamming(5), atol=1e-6)
    np.testing.assert_allclose(mnp.hanning(4).asnumpy(), np.hanning(4), atol=1e-6)
    np.testing.assert_allclose(mnp.bartlett(5).asnumpy(), np.bartlett(5), atol=1e-6)
    np.testing.assert_allclose(mnp.blackman(5).asnumpy(), np.blackman(5), atol=1e-6)
    assert mnp.hamming(5).dtype == ms.float32
    assert mnp.gcd(mnp.array([12, 18]), 8).asnumpy().tolist() == [4, 2]
    assert mnp.lcm(mnp.array([4, 6]), 4).asnumpy().tolist() == [4, 12]
    x = np.array([[0., 1., 2.], [2., 1., 5.]])
    np.testing.assert_allclose(mnp.cov(mnp.array(x)).asnumpy(), np.cov(x), rtol=1e-6)
    np.testing.assert_allclose(mnp.cov(mnp.array(x.T), rowvar=False, bias=True).asnumpy(),
                               np.cov(x, bias=True), rtol=1e-6)
    np.testing.assert_allclose(mnp.corrcoef(mnp.array(x)).asnumpy(), np.corrcoef(x), rtol=1e-6)
    a, b = mnp.meshgrid(mnp.array([1, 2, 3]), mnp.array([4, 5]), sparse=True)
    assert a.shape == (1, 3) and b.shape == (2, 1)
    a, b = mnp.meshgrid(mnp.array([1, 2, 3]), mnp.array([4, 5]), indexing="ij")
    assert a.shape == (3, 2)
    assert mint.vdot(ms.Tensor([1., 2.]), ms.Tensor([3., 4.])).asnumpy() == 11
    z = ops.Complex()(ms.Tensor([1., 2.]), ms.Tensor([1., -1.]))
    np.testing.assert_allclose(mint.vdot(z, z).asnumpy(), 7)
    assert mint.gcd(ms.Tensor([6]), ms.Tensor([4])).asnumpy().tolist() == [2]
    q, r = mint.linalg.qr(ms.Tensor([[1., 2.], [3., 4.]]))
    np.testing.assert_allclose((q @ r).asnumpy(), [[1, 2], [3, 4]], atol=1e-5)
