"""Issue #17, mindspore.ops names I-Z, second part: STFT/stft, TensorDump/tensordump,
jet/derivative/linearize, InsertGradientOf, RNNTLoss, NoRepeatNGram, PyFunc and Morph.
Values probed on MindSpore 2.10's CPU build (RNNTLoss has no CPU kernel there: it is checked
against a brute-force sum over all alignments and finite differences)."""
import itertools
import os

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore import Tensor
from tests.helpers.optable import OpCase, table_tests


def _v(t):
    return t.asnumpy().tolist()


X10 = Tensor(np.arange(10, dtype=np.float32))


# ----------------------------------------------------------------- STFT
def _stft_ref(x, n_fft=4, hop=2):
    frames = np.stack([x[i:i + n_fft] for i in range(0, len(x) - n_fft + 1, hop)])
    spec = np.fft.rfft(frames, axis=-1).T
    return np.stack([spec.real, spec.imag], -1).astype(np.float32)


CASES = [
    OpCase("stft-real", lambda x: ops.stft(x, 4, 2, center=False), _stft_ref, (11,),
           rtol=1e-5, atol=1e-5),
    OpCase("stft-center", lambda x: ops.stft(x, 4, 2),
           lambda x: _stft_ref(np.pad(x, 2, mode="reflect")), (9,), rtol=1e-5, atol=1e-5),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)


def test_stft_matches_mindspore():
    out = ops.stft(X10, 4, return_complex=True)
    assert out.dtype == ms.complex64 and out.shape == (3, 11)
    assert _v(ops.real(out))[0] == [4, 4, 6, 10, 14, 18, 22, 26, 30, 32, 32]
    np.testing.assert_allclose(out.asnumpy()[1, :3], [2, 2j, -2 + 2j], atol=1e-5)
    out = ops.stft(X10, 4, 2, center=False, return_complex=True)
    np.testing.assert_allclose(out.asnumpy()[:, 0], [6, -2 + 2j, -2], atol=1e-5)
    out = ops.stft(X10, 4, 2, 3, window=Tensor([1., 2, 3]), center=False, normalized=True,
                   return_complex=True)
    np.testing.assert_allclose(out.asnumpy()[:, 1], [10, -5 - 3j, 4], atol=1e-5)
    assert ops.stft(X10, 4, 2, center=False, onesided=False, return_complex=True).shape == (4, 4)
    out = ops.stft(X10, 4, 2)                         # return_complex None: real pairs
    assert out.dtype == ms.float32 and out.shape == (3, 6, 2)
    assert ops.stft(X10, 4, 2, pad_mode="CONSTANT", return_complex=True).shape == (3, 6)
    assert ops.stft(Tensor(np.ones((2, 10), np.float32)), 4, 2).shape == (2, 3, 6, 2)
    assert ops.stft(Tensor(np.arange(10.)), 4, return_complex=True).dtype == ms.complex128
    cls = ops.STFT(4, 2, 4, False, True, True)(X10, Tensor(np.ones(4, np.float32)))
    np.testing.assert_allclose(cls.asnumpy(), ops.stft(X10, 4, 2, center=False,
                                                       return_complex=True).asnumpy())
    with pytest.raises(ValueError, match="pad_mode"):
        ops.stft(X10, 4, pad_mode="EDGE")
    with pytest.raises(ValueError, match="window"):
        ops.stft(X10, 4, window=Tensor([1., 2.]))
    with pytest.raises(ValueError, match="1-D or 2-D"):
        ops.stft(Tensor(np.ones((1, 1, 8), np.float32)), 4)


# ----------------------------------------------------------------- TensorDump
def test_tensordump_writes_npy_files_named_as_mindspore(tmp_path, monkeypatch):
    from spore._prims import ops_b
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(ops_b, "_dump_count", [0])
    assert ops.tensordump("foo", Tensor([1., 2.])) is None
    ops.tensordump("foo", Tensor([1, 2]))
    ops.tensordump(str(tmp_path / "sub" / "bar.npy"), Tensor([[1, 2]], ms.int32))
    ops.TensorDump()("baz", Tensor([True]))
    ops.TensorDump("in")("qq", Tensor([1.5], ms.float16))
    names = sorted(os.path.relpath(os.path.join(d, f), tmp_path)
                   for d, _, fs in os.walk(tmp_path) for f in fs)
    assert names == ["baz_bool_3.npy", "foo_float32_0.npy", "foo_int64_1.npy",
                     "qq_float16_4.npy", os.path.join("sub", "bar_int32_2.npy")]
    assert np.load(tmp_path / "sub" / "bar_int32_2.npy").tolist() == [[1, 2]]
    with pytest.raises(ValueError, match="mode"):
        ops.tensordump("x", Tensor([1.]), "all")
    with pytest.raises(TypeError, match="file_name"):
        ops.tensordump(3, Tensor([1.]))


def test_tensordump_runs_at_every_call_of_a_compiled_function(tmp_path, monkeypatch):
    from spore._prims import ops_b
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(ops_b, "_dump_count", [0])

    @ms.jit
    def f(x):
        ops.tensordump("y", x * 2)
        return x + 1
    f(Tensor([1.]))
    f(Tensor([2.]))
    assert sorted(os.listdir(tmp_path)) == ["y_float32_0.npy", "y_float32_1.npy"]
    assert np.load(tmp_path / "y_float32_1.npy").tolist() == [4.]


# ----------------------------------------------------------------- Taylor mode
def _f1(x):
    return ops.exp(ops.sin(x))


def _f2(x, y):
    return x * ops.sin(y)


def test_jet_and_derivative_match_mindspore():
    x = Tensor([0.5, 1.0])
    out, d3 = ops.derivative(_f1, x, 3)
    np.testing.assert_allclose(out.asnumpy(), [1.6151463, 2.319777], rtol=1e-6)
    np.testing.assert_allclose(d3.asnumpy(), [-2.3644414, -4.0515366], rtol=1e-5)
    _, d1 = ops.derivative(_f1, x, 1)
    np.testing.assert_allclose(d1.asnumpy(), [1.4174242, 1.2533808], rtol=1e-6)
    out, d2 = ops.derivative(_f2, (Tensor([0.5]), Tensor([1.0])), 2)
    np.testing.assert_allclose(d2.asnumpy(), [0.6598691], rtol=1e-5)
    out, series = ops.jet(_f1, x, Tensor([[1., 1.], [2., 3.], [1., 0.5]]))
    assert series.shape == (3, 2)
    np.testing.assert_allclose(series.asnumpy(), [[1.4174242, 1.2533808],
                                                  [3.3044128, 2.485322],
                                                  [1.870369, -14.898229]], rtol=1e-5)
    out, series = ops.jet(_f2, (Tensor([0.5]), Tensor([1.0])),
                          (Tensor([[1.], [0.]]), Tensor([[1.], [0.]])))
    np.testing.assert_allclose(series.asnumpy(), [[1.1116221], [0.6598691]], rtol=1e-5)
    _, d = ops.derivative(lambda v: v * v * v, Tensor([2]), 2)   # ints become Float32
    assert d.dtype == ms.float32 and _v(d) == [12]
    with pytest.raises(ValueError, match="order"):
        ops.derivative(_f1, x, 0)
    with pytest.raises(ValueError, match="series"):
        ops.jet(_f1, x, Tensor([1., 1.]))


def test_linearize_matches_mindspore():
    a = Tensor(np.ones((2, 3), np.float32))
    b = Tensor(np.arange(6).reshape(3, 2).astype(np.float32))
    out, jvp_fn = ops.linearize(lambda x, y: ops.matmul(x, y), (a, b))
    assert _v(out) == [[6, 9], [6, 9]]
    ones = (Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 2), np.float32)))
    assert _v(jvp_fn(ones)) == [[9, 12], [9, 12]]
    assert _v(jvp_fn(*ones)) == [[9, 12], [9, 12]]
    out, jvp_fn = ops.linearize(ops.sin, Tensor([1.0, 2.0]))
    np.testing.assert_allclose(jvp_fn(Tensor([2.0, 3.0])).asnumpy(), [1.0806046, -1.2484405],
                               rtol=1e-6)
    with pytest.raises(TypeError, match="inputs"):
        ops.linearize(ops.sin, [1.0])


# ----------------------------------------------------------------- InsertGradientOf
def test_insert_gradient_of_replaces_the_gradient():
    times10 = ops.InsertGradientOf(lambda dx: dx * 10)
    assert _v(times10(Tensor([1.]))) == [1]
    assert _v(ms.grad(lambda x: times10(x) * 3)(Tensor([1.]))) == [30]
    clip = ops.InsertGradientOf(lambda dx: ops.clamp(dx, 0.2, 1.0))
    g = ms.grad(lambda x, y: clip(x) * clip(y), grad_position=(0, 1))(Tensor([1.5]),
                                                                       Tensor([0.1]))
    np.testing.assert_allclose([g[0].asnumpy()[0], g[1].asnumpy()[0]], [0.2, 1.0], rtol=1e-6)
    assert times10(3) == 3
    with pytest.raises(TypeError, match="function"):
        ops.InsertGradientOf(3)


# ----------------------------------------------------------------- RNNTLoss
def _log_softmax(a):
    return a - np.log(np.exp(a).sum(-1, keepdims=True))


def _rnnt_brute(acts, labels, t_len, u_len, blank=0):
    """-log of the summed probability of every alignment (T blanks, U labels)."""
    lp = _log_softmax(acts.astype(np.float64))
    total = 0.0
    for where in itertools.combinations(range(t_len + u_len - 1), u_len):
        t = u = 0
        logp = 0.0
        for step in range(t_len + u_len - 1):
            if step in where:
                logp += lp[t, u, labels[u]]
                u += 1
            else:
                logp += lp[t, u, blank]
                t += 1
        total += np.exp(logp + lp[t_len - 1, u_len, blank])
    return -np.log(total)


def test_rnnt_loss_costs_and_gradients():
    rng = np.random.default_rng(0)
    acts = rng.random((2, 4, 3, 5)).astype(np.float32)
    labels = np.array([[1, 2], [3, 0]], np.int32)
    t_len, u_len = np.array([4, 3], np.int32), np.array([2, 1], np.int32)
    costs, grads = ops.RNNTLoss(0)(Tensor(acts), Tensor(labels), Tensor(t_len), Tensor(u_len))
    assert costs.shape == (2,) and costs.dtype == ms.float32 and grads.shape == acts.shape
    want = [_rnnt_brute(acts[b], labels[b], t_len[b], u_len[b]) for b in range(2)]
    np.testing.assert_allclose(costs.asnumpy(), want, rtol=1e-5)
    a64, eps = acts.astype(np.float64), 1e-5
    for idx in [(0, 0, 0, 0), (0, 1, 1, 2), (1, 2, 1, 3), (0, 3, 2, 0), (1, 3, 0, 1)]:
        b = idx[0]
        up, down = a64.copy(), a64.copy()
        up[idx] += eps
        down[idx] -= eps
        num = (_rnnt_brute(up[b], labels[b], t_len[b], u_len[b])
               - _rnnt_brute(down[b], labels[b], t_len[b], u_len[b])) / (2 * eps)
        np.testing.assert_allclose(grads.asnumpy()[idx], num, rtol=1e-4, atol=1e-6)
    # a step beyond a sequence's length gets no gradient
    assert np.all(grads.asnumpy()[1, 3] == 0)
    with pytest.raises(TypeError, match="int32"):
        ops.RNNTLoss()(Tensor(acts), Tensor(labels.astype(np.int64)), Tensor(t_len),
                       Tensor(u_len))
    with pytest.raises(ValueError, match="lengths"):
        ops.RNNTLoss()(Tensor(acts), Tensor(labels), Tensor(np.array([5, 1], np.int32)),
                       Tensor(u_len))


# ----------------------------------------------------------------- NoRepeatNGram, PyFunc, Morph
def test_no_repeat_ngram_matches_mindspore():
    state = Tensor([[[1, 2, 1, 2, 5, 1, 2], [9, 3, 9, 5, 4, 1, 5]],
                    [[4, 8, 6, 4, 5, 6, 4], [4, 8, 8, 4, 3, 4, 8]]], ms.int32)
    lp = Tensor(np.arange(40).reshape(2, 2, 10).astype(np.float32))
    low = np.finfo(np.float32).min
    banned = ops.NoRepeatNGram(3)(state, lp).asnumpy() == low
    assert [np.flatnonzero(banned[b, k]).tolist() for b in range(2) for k in range(2)] == [
        [1, 5], [], [5], [8]]
    banned = ops.NoRepeatNGram(1)(state, lp).asnumpy() == low
    assert np.flatnonzero(banned[0, 0]).tolist() == [1, 2, 5]
    assert np.flatnonzero(banned[1, 0]).tolist() == [4, 5, 6, 8]
    with pytest.raises(ValueError, match="ngram_size"):
        ops.NoRepeatNGram(8)(state, lp)
    with pytest.raises(ValueError, match="greater than 0"):
        ops.NoRepeatNGram(0)


def test_py_func_runs_the_python_function():
    def add(x, y):
        return x + y
    f = ops.PyFunc(add, [ms.float32, ms.float32], [(3,), (3,)], [ms.float32], [(3,)])
    out = f(Tensor([1., 2, 3]), Tensor([1., 2, 3]))
    assert isinstance(out, tuple) and _v(out[0]) == [2, 4, 6]
    with pytest.raises(RuntimeError, match="Tuple/List inputs"):
        f((Tensor([1., 2, 3]), Tensor([1., 2, 3])))
    with pytest.raises(ValueError, match="out_shapes"):
        ops.PyFunc(add, [ms.float32] * 2, [(3,)] * 2, [ms.float32], [(2,)])(
            Tensor([1., 2, 3]), Tensor([1., 2, 3]))


def test_morph_applies_fn_and_its_bprop():
    def mul_by_100(x):
        return x * 100

    def same(*args):
        return args[0]
    w0, w1 = Tensor([1., 2., 3.]), Tensor([4., 5., 6.])
    morph = ops.Morph(mul_by_100, same, same)

    def net(x):
        return morph(x * w0) * w1
    x = Tensor([7., 8., 9.])
    assert _v(ms.grad(net)(x)) == [400, 1000, 1800]      # MindSpore's documented example

    def bprop(x, out, dout):
        return (dout * 2,)
    custom = ops.Morph(mul_by_100, same, same, bprop)
    assert _v(custom(Tensor([1.]))) == [100]
    assert _v(ms.grad(lambda v: custom(v) * 3)(Tensor([1.]))) == [6]
    with pytest.raises(ValueError, match="infer_shape"):
        ops.Morph(mul_by_100, lambda s: [5], same)(Tensor([1.]))


# ----------------------------------------------------------------- ScaleAndTranslate
_IMG = Tensor(np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1) ** 1.5)


@pytest.mark.parametrize("kernel,antialias,size,scale,shift,want", [
    ("lanczos3", True, (4, 6), (1.4, 1.5), (0.3, -0.5),
     [[-0.6903, -0.2243, 0.5359, 1.9967, 3.5012, 4.1073],
      [1.0514, 2.1052, 3.3923, 5.2332, 7.108, 7.8434],
      [9.6495, 12.0082, 14.4961, 17.2642, 20.0382, 21.0914],
      [21.1427, 24.1512, 27.2849, 30.6418, 33.9812, 35.2402]]),
    ("triangle", True, (2, 2), (0.6, 0.5), (0.0, 0.2), [[4.2597, 8.1698], [20.1478, 27.0802]]),
    ("keyscubic", False, (2, 2), (0.6, 0.5), (0.0, 0.2), [[1.7887, 5.7962], [22.8764, 32.1406]]),
])
def test_scale_and_translate_matches_mindspore(kernel, antialias, size, scale, shift, want):
    out = ops.ScaleAndTranslate(kernel, antialias)(
        _IMG, Tensor(np.array(size, np.int32)), Tensor(np.array(scale, np.float32)),
        Tensor(np.array(shift, np.float32)))
    assert out.dtype == ms.float32 and out.shape == (1,) + size + (1,)
    np.testing.assert_allclose(out.asnumpy()[0, :, :, 0], want, atol=1e-4)


def test_scale_and_translate_gradient_and_errors():
    op = ops.ScaleAndTranslate("lanczos3")
    args = (Tensor(np.array([4, 5], np.int32)), Tensor(np.array([1.3, 0.8], np.float32)),
            Tensor(np.array([0.1, 0.2], np.float32)))
    img = np.random.default_rng(0).random((2, 3, 4, 2))
    x = Tensor(img.astype(np.float32))
    g = ms.grad(lambda v: (op(v, *args) ** 2).sum())(x).asnumpy()
    eps = 1e-2
    for idx in [(0, 0, 0, 0), (1, 2, 3, 1), (0, 1, 2, 1)]:
        up, down = img.copy(), img.copy()
        up[idx] += eps
        down[idx] -= eps
        f = lambda a: float((op(Tensor(a.astype(np.float32)), *args) ** 2).sum().asnumpy())
        np.testing.assert_allclose(g[idx], (f(up) - f(down)) / (2 * eps), rtol=2e-3)
    with pytest.raises(ValueError, match="kernel_type"):
        ops.ScaleAndTranslate("cubic")
    with pytest.raises(ValueError, match="4-D"):
        op(Tensor(np.ones((3, 4, 2), np.float32)), *args)
    with pytest.raises(TypeError, match="int32"):
        op(x, Tensor(np.array([4, 5], np.int64)), *args[1:])


# ----------------------------------------------------------------- deformable attention
def _bilinear(fm, x, y):
    """fm (H, W, D) sampled at normalised (x, y), align_corners=False, zeros outside."""
    h, w, d = fm.shape
    px, py = x * w - 0.5, y * h - 0.5
    x0, y0 = int(np.floor(px)), int(np.floor(py))
    acc = np.zeros(d)
    for yy in (y0, y0 + 1):
        for xx in (x0, x0 + 1):
            if 0 <= yy < h and 0 <= xx < w:
                acc += (1 - abs(px - xx)) * (1 - abs(py - yy)) * fm[yy, xx]
    return acc


_MSDA_SHAPES, _MSDA_STARTS = [(3, 4), (2, 2)], [0, 12]


def _msda_ref(value, loc, wt):
    bs, _, heads, dims = value.shape
    queries, points = loc.shape[1], loc.shape[4]
    out = np.zeros((bs, queries, heads, dims))
    for b, q, h in np.ndindex(bs, queries, heads):
        for lvl, ((hh, ww), s) in enumerate(zip(_MSDA_SHAPES, _MSDA_STARTS)):
            fm = value[b, s:s + hh * ww, h].reshape(hh, ww, dims)
            for p in range(points):
                out[b, q, h] += wt[b, q, h, lvl, p] * _bilinear(fm, *loc[b, q, h, lvl, p])
    return out.reshape(bs, queries, heads * dims).astype(value.dtype)


def _msda(value, loc, wt):
    return ops.multi_scale_deformable_attn_function(
        value, Tensor(np.array(_MSDA_SHAPES, np.int32)), Tensor(np.array(_MSDA_STARTS, np.int64)),
        loc, wt)


MSDA = [OpCase("multi_scale_deformable_attn_function", _msda, _msda_ref,
               [(2, 16, 2, 8), lambda r: r.uniform(0.05, 0.95, (2, 3, 2, 2, 4, 2)),
                lambda r: r.random((2, 3, 2, 2, 4))], grad_argnums=(0, 2), rtol=1e-5,
               atol=1e-5)]

test_msda_forward, test_msda_infer, test_msda_gradient, test_msda_jit = table_tests(MSDA)


def test_msda_checks_its_inputs():
    v = Tensor(np.zeros((1, 16, 2, 6), np.float32))
    loc = Tensor(np.zeros((1, 1, 2, 2, 1, 2), np.float32))
    wt = Tensor(np.zeros((1, 1, 2, 2, 1), np.float32))
    shapes = Tensor(np.array(_MSDA_SHAPES, np.int32))
    starts = Tensor(np.array(_MSDA_STARTS, np.int32))
    with pytest.raises(RuntimeError, match="multiple of 8"):
        ops.multi_scale_deformable_attn_function(v, shapes, starts, loc, wt)
    with pytest.raises(RuntimeError, match="int32 or int64"):
        ops.multi_scale_deformable_attn_function(
            Tensor(np.zeros((1, 16, 2, 8), np.float32)), shapes.astype(ms.float32), starts,
            loc, wt)


# ----------------------------------------------------------------- rotated_iou
def test_rotated_iou_of_known_overlaps():
    b = Tensor(np.array([[[0, 0, 2, 2, 0], [0, 0, 2, 2, 45], [5, 5, 1, 1, 0]]], np.float32))
    q = Tensor(np.array([[[1, 0, 2, 2, 0], [0, 0, 2, 2, 90]]], np.float32))
    octagon = 8 * (np.sqrt(2) - 1)          # two 2x2 squares at 45 degrees
    out = ops.rotated_iou(b, q)
    assert out.shape == (1, 3, 2) and out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy()[0], [[1 / 3, 1], [0.296266, octagon / (8 - octagon)],
                                                  [0, 0]], rtol=1e-5, atol=1e-7)
    iof = ops.rotated_iou(b, q, mode=1).asnumpy()[0]
    np.testing.assert_allclose(iof[:2], [[0.5, 1], [0.4571068, octagon / 4]], rtol=1e-5)
    out = ops.rotated_iou(Tensor(np.array([[[-1, -1, 1, 1, 0]]], np.float32)),
                          Tensor(np.array([[[0, 0, 2, 2, 0]]], np.float32)), trans=True,
                          is_cross=False)
    assert out.shape == (1, 1)
    np.testing.assert_allclose(out.asnumpy(), [[1 / 7]], rtol=1e-6)
    with pytest.raises(ValueError, match="third dimension"):
        ops.rotated_iou(Tensor(np.zeros((1, 2, 4), np.float32)), q)
    with pytest.raises(ValueError, match="first dimension"):
        ops.rotated_iou(Tensor(np.zeros((2, 2, 5), np.float32)), q)


# ----------------------------------------------------------------- SampleDistortedBoundingBoxV2
def _crop_checks(begin, size, bbox, h, w, box, ar, area, covered):
    y, x, _ = begin.asnumpy().tolist()
    ch, cw, last = size.asnumpy().tolist()
    assert last == -1 and begin.asnumpy()[2] == 0
    assert 0 <= y and y + ch <= h and 0 <= x and x + cw <= w
    np.testing.assert_allclose(bbox.asnumpy()[0, 0], [y / h, x / w, (y + ch) / h, (x + cw) / w],
                               rtol=1e-6)
    if (ch, cw) != (h, w):      # a sampled crop, not the whole-image fallback
        assert ar[0] - 0.01 <= cw / ch <= ar[1] + 0.01
        assert area[0] * h * w <= ch * cw <= area[1] * h * w
        y0, x0, y1, x1 = box[0] * h, box[1] * w, box[2] * h, box[3] * w
        inter = max(0, min(y1, y + ch) - max(y0, y)) * max(0, min(x1, x + cw) - max(x0, x))
        assert inter / ((y1 - y0) * (x1 - x0)) >= covered - 1e-6


def test_sample_distorted_bounding_box_v2_satisfies_its_constraints():
    img = Tensor(np.array([640, 480, 3], np.int32))
    box = [0.38, 0.17, 0.95, 0.40]
    boxes = Tensor(np.array([[box]], np.float32))
    ms.set_seed(1)
    op = ops.SampleDistortedBoundingBoxV2(aspect_ratio_range=(0.9, 1.1), area_range=(0.1, 1.0))
    seen = set()
    for _ in range(20):
        begin, size, bbox = op(img, boxes, Tensor([0.8]))
        assert begin.dtype == ms.int32 and size.dtype == ms.int32 and bbox.shape == (1, 1, 4)
        _crop_checks(begin, size, bbox, 640, 480, box, (0.9, 1.1), (0.1, 1.0), 0.8)
        seen.add(tuple(begin.asnumpy().tolist()))
    assert len(seen) > 5
    seeded = ops.SampleDistortedBoundingBoxV2(seed=1, aspect_ratio_range=(0.9, 1.1))
    first = [t.asnumpy().tolist() for t in seeded(img, boxes, Tensor([0.8]))]
    assert [t.asnumpy().tolist() for t in seeded(img, boxes, Tensor([0.8]))] == first
    out = ops.SampleDistortedBoundingBoxV2(use_image_if_no_bounding_boxes=True)(
        Tensor(np.array([64, 48, 3], np.int64)), Tensor(np.zeros((1, 0, 4), np.float32)),
        Tensor([0.1]))
    assert out[0].dtype == ms.int64
    # impossible constraints: the whole image
    begin, size, _ = ops.SampleDistortedBoundingBoxV2(area_range=(0.05, 0.06), max_attempts=5)(
        img, Tensor(np.array([[[0., 0., 1., 1.]]], np.float32)), Tensor([0.9]))
    assert begin.asnumpy().tolist() == [0, 0, 0] and size.asnumpy().tolist() == [640, 480, -1]
    with pytest.raises(ValueError, match="min_object_covered"):
        op(img, boxes, Tensor(0.8))
    with pytest.raises(ValueError, match="use_image_if_no_bounding_boxes"):
        op(img, Tensor(np.zeros((1, 0, 4), np.float32)), Tensor([0.1]))
    with pytest.raises(ValueError, match="area_range"):
        ops.SampleDistortedBoundingBoxV2(area_range=(0.5, 1.5))
