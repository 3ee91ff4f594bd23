"""spore.mint: values against NumPy (PyTorch's documented semantics), gradients numerically."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, mint, ops

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype(np.float32)
Y = RNG.standard_normal((3, 4)).astype(np.float32)


def T(a):
    return Tensor(a)


def close(t, ref, tol=1e-5):
    np.testing.assert_allclose(t.asnumpy(), ref, rtol=tol, atol=tol)


def test_add_sub_alpha():
    close(mint.add(T(X), T(Y), alpha=2), X + 2 * Y)
    close(mint.sub(T(X), 1.0, alpha=2), X - 2)
    close(mint.add(T(X), T(Y)), X + Y)


def test_reductions_dim_keepdim():
    close(mint.sum(T(X), 1, True), X.sum(1, keepdims=True))
    close(mint.sum(T(X)), X.sum())
    close(mint.mean(T(X), dim=(0, 1)), X.mean())
    close(mint.mean(T(X), 0, keepdim=True), X.mean(0, keepdims=True))
    close(mint.prod(T(X), 1), X.prod(1))
    close(mint.amax(T(X)), X.max())
    close(mint.amin(T(X), 1), X.min(1))
    assert mint.mean(T(np.arange(4)), dtype=ms.float32).asnumpy() == 1.5
    close(mint.nansum(T(np.array([1.0, np.nan, 2.0], np.float32))), 3.0)


def test_max_min_overloads():
    close(mint.max(T(X)), X.max())
    values, indices = mint.max(T(X), 1)
    close(values, X.max(1))
    assert indices.dtype == ms.int64 and (indices.asnumpy() == X.argmax(1)).all()
    values, indices = mint.min(T(X), dim=0, keepdim=True)
    close(values, X.min(0, keepdims=True))
    assert indices.shape == (1, 4) and (indices.asnumpy()[0] == X.argmin(0)).all()
    close(mint.max(T(X), T(Y)), np.maximum(X, Y))
    close(mint.min(T(X), T(Y)), np.minimum(X, Y))
    assert mint.argmin(T(X)).asnumpy() == X.argmin()


def test_var_std_correction():
    close(mint.var(T(X)), X.var(ddof=1))
    close(mint.std(T(X), 1), X.std(1, ddof=1))
    close(mint.std(T(X), 1, correction=0, keepdim=True), X.std(1, keepdims=True))
    v, m = mint.var_mean(T(X), 0)
    close(v, X.var(0, ddof=1)); close(m, X.mean(0))
    s, m = mint.std_mean(T(X), 0, correction=0)
    close(s, X.std(0)); close(m, X.mean(0))


def test_median_lower_and_indices():
    a = np.array([[3.0, 1.0, 2.0, 4.0], [1.0, 1.0, 0.0, 5.0]], np.float32)
    assert mint.median(T(a)).asnumpy() == 1.0          # lower median of 8 values
    values, indices = mint.median(T(a), 1)
    close(values, [2.0, 1.0])
    assert indices.dtype == ms.int64
    assert (a[np.arange(2), indices.asnumpy()] == values.asnumpy()).all()


def test_joins_and_shapes():
    close(mint.cat([T(X), T(Y)], 1), np.concatenate([X, Y], 1))
    close(mint.concat([T(X), T(Y)]), np.concatenate([X, Y]))
    close(mint.stack([T(X), T(Y)], dim=2), np.stack([X, Y], 2))
    assert [t.shape for t in mint.split(T(X), 3, 1)] == [(3, 3), (3, 1)]
    assert [t.shape for t in mint.split(T(X), [1, 3], dim=1)] == [(3, 1), (3, 3)]
    assert [t.shape for t in mint.chunk(T(X), 2, 1)] == [(3, 2), (3, 2)]
    assert mint.flatten(T(np.zeros((2, 3, 4)))).shape == (24,)
    assert mint.flatten(T(np.zeros((2, 3, 4))), 1).shape == (2, 12)
    assert mint.squeeze(T(np.zeros((1, 2, 1))), 0).shape == (2, 1)
    assert mint.squeeze(T(np.zeros((1, 2, 1))), (0, 1, 2)).shape == (2,)
    assert mint.squeeze(T(np.zeros((3, 2))), 0).shape == (3, 2)     # not size 1: unchanged
    assert mint.transpose(T(np.zeros((2, 3, 4))), 0, 2).shape == (4, 3, 2)
    assert mint.permute(T(X), (1, 0)).shape == (4, 3)
    assert mint.t(T(X)).shape == (4, 3)
    close(mint.narrow(T(X), 1, 1, 2), X[:, 1:3])
    close(mint.select(T(X), 1, -1), X[:, -1])
    close(mint.reshape(T(X), (2, 6)), X.reshape(2, 6))
    close(mint.repeat_interleave(T(X), 2), np.repeat(X.ravel(), 2))
    close(mint.repeat_interleave(T(X), 2, 1), np.repeat(X, 2, 1))
    close(mint.tile(T(X), (2, 1)), np.tile(X, (2, 1)))
    close(mint.flip(T(X), (0,)), X[::-1])
    close(mint.roll(T(X), 1, 1), np.roll(X, 1, 1))


def test_diag_diff_meshgrid():
    close(mint.diag(T(np.array([1.0, 2.0], np.float32)), 1), np.diag([1.0, 2.0], 1))
    close(mint.diag(T(X), -1), np.diag(X, -1))
    close(mint.diff(T(X)), np.diff(X))
    close(mint.diff(T(X), n=2, dim=0), np.diff(X, 2, 0))
    pre = np.ones((3, 1), np.float32)
    close(mint.diff(T(X), prepend=T(pre)), np.diff(X, prepend=pre))
    a, b = mint.meshgrid(T(np.arange(2.0)), T(np.arange(3.0)))
    ra, rb = np.meshgrid(np.arange(2.0), np.arange(3.0), indexing="ij")
    close(a, ra); close(b, rb)
    a, b = mint.meshgrid(T(np.arange(2.0)), T(np.arange(3.0)), indexing="xy")
    assert a.shape == (3, 2)


def test_indexing():
    idx = np.array([[0, 3], [1, 1], [2, 0]])
    close(mint.gather(T(X), 1, T(idx)), np.take_along_axis(X, idx, 1))
    close(mint.index_select(T(X), 1, T(np.array([3, 0]))), X[:, [3, 0]])
    src = np.ones((3, 2), np.float32)
    ref = X.copy(); np.put_along_axis(ref, idx, 1.0, 1)
    close(mint.scatter(T(X), 1, T(idx), T(src)), ref)
    close(mint.scatter(T(X), 1, T(idx), value=1.0), ref)
    ref = X.copy()
    for i in range(3):
        for j in range(2):
            ref[i, idx[i, j]] += 1.0
    close(mint.scatter_add(T(X), 1, T(idx), T(src)), ref)
    close(mint.scatter(T(X), 1, T(idx), T(src), reduce="add"), ref)
    ref = X.copy(); ref[[0, 2]] += 2 * np.ones((2, 4), np.float32)
    close(mint.index_add(T(X), 0, T(np.array([0, 2])), T(np.ones((2, 4), np.float32)), alpha=2),
          ref)
    w = mint.where(T(X) > 0)
    assert isinstance(w, tuple) and (w[0].asnumpy() == np.nonzero(X > 0)[0]).all()
    close(mint.where(T(X) > 0, T(X), 0.0), np.where(X > 0, X, 0))


def test_searchsorted():
    seq = np.array([1.0, 3.0, 5.0, 7.0], np.float32)
    vals = np.array([[3.0, 6.0], [9.0, 1.0]], np.float32)
    out = mint.searchsorted(T(seq), T(vals))
    assert out.dtype == ms.int64 and (out.asnumpy() == np.searchsorted(seq, vals)).all()
    out = mint.searchsorted(T(seq), T(vals), right=True, out_int32=True)
    assert out.dtype == ms.int32 and (out.asnumpy() == np.searchsorted(seq, vals, "right")).all()
    seq2 = np.sort(RNG.standard_normal((2, 5)).astype(np.float32), 1)
    v2 = RNG.standard_normal((2, 3)).astype(np.float32)
    ref = np.stack([np.searchsorted(seq2[i], v2[i], "right") for i in range(2)])
    assert (mint.searchsorted(T(seq2), T(v2), side="right").asnumpy() == ref).all()
    assert mint.searchsorted(T(seq), 4.0).asnumpy() == 2
    with pytest.raises(ValueError, match="side"):
        mint.searchsorted(T(seq), T(vals), side="middle")


def test_sorting():
    values, indices = mint.sort(T(X), dim=0, descending=True)
    close(values, -np.sort(-X, 0))
    assert indices.dtype == ms.int64
    assert (mint.argsort(T(X), 1).asnumpy() == np.argsort(X, 1)).all()
    values, indices = mint.topk(T(X), 2)
    close(values, -np.sort(-X, 1)[:, :2])
    assert indices.dtype == ms.int64
    values, indices = mint.kthvalue(T(X), 2, 1)
    close(values, np.sort(X, 1)[:, 1])
    assert (X[np.arange(3), indices.asnumpy()] == values.asnumpy()).all()
    with pytest.raises(ValueError, match="kthvalue"):
        mint.kthvalue(T(X), 5, 1)


def test_unique():
    a = np.array([[3, 1], [1, 2]], np.int32)
    out, inverse, counts = mint.unique(T(a), return_inverse=True, return_counts=True)
    ref, rinv, rcount = np.unique(a, return_inverse=True, return_counts=True)
    assert (out.asnumpy() == ref).all() and (counts.asnumpy() == rcount).all()
    assert inverse.shape == (2, 2) and (inverse.asnumpy().ravel() == rinv.ravel()).all()
    assert (mint.unique(T(a)).asnumpy() == ref).all()


def test_creation():
    assert mint.zeros((2, 3)).dtype == ms.float32 and mint.zeros(2).shape == (2,)
    assert mint.ones(2, dtype=ms.int32).asnumpy().tolist() == [1, 1]
    close(mint.linspace(0, 1, 5), np.linspace(0, 1, 5))
    assert mint.linspace(0, 4, 5, dtype=ms.int32).dtype == ms.int32
    close(mint.arange(0, 1, 0.25), np.arange(0, 1, 0.25))
    assert mint.rand(2, 3).shape == (2, 3) and mint.rand((2, 3)).dtype == ms.float32
    assert mint.randn(2, 3, dtype=ms.float64).dtype == ms.float64
    r = mint.randint(5, (100,))
    assert r.dtype == ms.int64 and 0 <= r.asnumpy().min() and r.asnumpy().max() < 5
    r = mint.randint(3, 5, (100,))
    assert set(r.asnumpy().tolist()) <= {3, 4}
    r = mint.randint_like(T(np.zeros((4,), np.int32)), 2, 4)
    assert r.dtype == ms.int32 and set(r.asnumpy().tolist()) <= {2, 3}
    p = mint.randperm(10)
    assert p.dtype == ms.int64 and sorted(p.asnumpy().tolist()) == list(range(10))
    assert mint.normal(0.0, 1.0, (2, 3)).shape == (2, 3)
    n = mint.normal(T(np.array([0.0, 100.0], np.float32)), 1e-3)
    assert n.shape == (2,) and abs(n.asnumpy()[1] - 100) < 0.1
    b = mint.bernoulli(T(np.array([0.0, 1.0, 1.0], np.float32)))
    assert b.asnumpy().tolist() == [0.0, 1.0, 1.0]
    m = mint.multinomial(T(np.array([0.0, 0.0, 1.0], np.float32)), 2, True)
    assert m.dtype == ms.int64 and m.asnumpy().tolist() == [2, 2]


def test_misc_math():
    close(mint.div(T(X), 0.5, rounding_mode="floor"), np.floor(X / 0.5))
    close(mint.addcmul(T(X), T(X), T(Y), value=0.5), X + 0.5 * X * Y)
    close(mint.addcdiv(T(X), T(X), T(Y + 10), value=2), X + 2 * X / (Y + 10))
    close(mint.clamp(T(X), -0.5, 0.5), np.clip(X, -0.5, 0.5))
    close(mint.nan_to_num(T(np.array([np.nan, 1.0], np.float32))), [0.0, 1.0])
    close(mint.softmax(T(X), 1), np.exp(X) / np.exp(X).sum(1, keepdims=True))
    assert mint.count_nonzero(T(np.array([[0, 1], [2, 0]]))).asnumpy() == 2
    assert mint.count_nonzero(T(np.array([[0, 1], [2, 3]])), 1).asnumpy().tolist() == [1, 2]
    close(mint.norm(T(X)), np.linalg.norm(X))
    close(mint.norm(T(X), 1, dim=1), np.abs(X).sum(1))
    close(mint.norm(T(X), "nuc"), np.linalg.norm(X, "nuc"), 1e-4)
    close(mint.cumsum(T(X), 1), np.cumsum(X, 1))
    close(mint.cdist(T(X), T(Y)), np.linalg.norm(X[:, None] - Y[None], axis=-1), 1e-4)
    assert mint.item(T(np.array([2.5]))) == 2.5
    c = T(X); d = mint.clone(c)
    assert d is not c and (d.asnumpy() == X).all()
    close(mint.bmm(T(np.ones((2, 2, 3), np.float32)), T(np.ones((2, 3, 1), np.float32))),
          np.full((2, 2, 1), 3.0))
    close(mint.baddbmm(T(np.ones((2, 2, 1), np.float32)), T(np.ones((2, 2, 3), np.float32)),
                       T(np.ones((2, 3, 1), np.float32)), beta=0.5, alpha=2),
          np.full((2, 2, 1), 6.5))


def test_identical_names_are_ops():
    for name in ("abs", "matmul", "exp", "zeros_like", "tril", "einsum"):
        assert getattr(mint, name) is getattr(ops, name)


def test_gradients():
    x = T(X)

    def f(a):
        return mint.sum(mint.max(a, 1)[0] * 2) + mint.mean(mint.std(a, 0))

    g = ms.grad(f)(x).asnumpy()
    eps = 1e-3
    num = np.zeros_like(X)
    for i in np.ndindex(*X.shape):
        d = np.zeros_like(X); d[i] = eps
        num[i] = (f(T(X + d)).asnumpy() - f(T(X - d)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-2, atol=1e-2)
    g = ms.grad(lambda a: mint.sum(mint.gather(a, 1, T(np.array([[0], [1], [1]])))))(x)
    assert g.asnumpy().sum() == 3 and g.asnumpy()[2, 1] == 1


def test_addr_in_place():
    a = T(np.ones((2, 3), np.float32))
    out = mint.addr_(a, T(np.array([1.0, 2.0], np.float32)), T(np.array([1.0, 0.0, -1.0], np.float32)),
                     beta=2, alpha=0.5)
    assert out is a
    close(a, 2 + 0.5 * np.outer([1, 2], [1, 0, -1]))


def test_bincount_and_histc():
    a = np.array([1, 3, 3, 0, 1, 1])
    c = mint.bincount(T(a))
    assert c.dtype == ms.int64 and c.asnumpy().tolist() == np.bincount(a).tolist()
    assert mint.bincount(T(a), minlength=6).shape == (6,)
    w = np.array([0.5, 1, 1, 2, 0.25, 0.25], np.float32)
    close(mint.bincount(T(a), T(w)), np.bincount(a, w))
    with pytest.raises(ValueError, match="non-negative"):
        mint.bincount(T(np.array([-1, 2])))
    x = np.array([1.0, 2.0, 1.0, 4.0, 2.5, -3.0], np.float32)
    close(mint.histc(T(x), bins=4, min=0, max=4), [0, 2, 2, 1])       # 4 falls in the last bin
    close(mint.histc(T(x), bins=2), np.histogram(x, 2)[0])
    assert mint.histc(T(x), 4, 0, 4).dtype == ms.float32


def test_batch_norm_stats_elemt_gather():
    x = RNG.standard_normal((4, 3, 5)).astype(np.float32)
    mean, invstd = mint.batch_norm_stats(T(x), 1e-5)
    close(mean, x.mean((0, 2))); close(invstd, 1 / np.sqrt(x.var((0, 2)) + 1e-5), 1e-4)
    w, b = np.array([1.0, 2.0, 0.5], np.float32), np.array([0.0, 1.0, -1.0], np.float32)
    out = mint.batch_norm_elemt(T(x), T(w), T(b), mean, invstd)
    ref = (x - x.mean((0, 2))[None, :, None]) / np.sqrt(x.var((0, 2)) + 1e-5)[None, :, None]
    close(out, ref * w[None, :, None] + b[None, :, None], 1e-4)
    # two "processes" holding halves of the batch give the whole batch's statistics
    m1, i1 = mint.batch_norm_stats(T(x[:1]), 1e-5)
    m2, i2 = mint.batch_norm_stats(T(x[1:]), 1e-5)
    rm, rv = ms.Parameter(T(np.zeros(3, np.float32))), ms.Parameter(T(np.ones(3, np.float32)))
    gm, gi = mint.batch_norm_gather_stats_with_counts(
        T(x), mint.stack([m1, m2]), mint.stack([i1, i2]), rm, rv, 0.1, 1e-5,
        T(np.array([5.0, 15.0], np.float32)))
    close(gm, mean, 1e-5); close(gi, invstd, 1e-3)
    close(rm, 0.1 * x.mean((0, 2)), 1e-5)
    close(rv, 0.9 + 0.1 * x.var((0, 2), ddof=1), 1e-3)


def test_conv_tbc():
    x = RNG.standard_normal((7, 2, 3)).astype(np.float32)       # (time, batch, in)
    w = RNG.standard_normal((3, 3, 4)).astype(np.float32)       # (k, in, out)
    b = RNG.standard_normal(4).astype(np.float32)
    out = mint.conv_tbc(T(x), T(w), T(b), 1)
    xp = np.pad(x, ((1, 1), (0, 0), (0, 0)))
    ref = np.stack([np.einsum("kbi,kio->bo", xp[t:t + 3], w) for t in range(7)]) + b
    close(out, ref, 1e-4)
