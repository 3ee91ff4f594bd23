"""The float32 approximations of spore/_jit/approx.py: within the stated 2 ulp of the
correctly rounded result over the whole float32 range (a dense stratified sample: every
exponent and sign, random and edge mantissas, and the special values; the exhaustive
check over all 2^32 inputs is ``tools/check_approx.py``)."""
import math

import numpy as np
import pytest

from spore import _native

pytestmark = pytest.mark.skipif(not _native.enabled(), reason="needs Numba (the fast extra)")

BOUND_ULP = 2


def stratified_sample(per_exponent=512, seed=0):
    """Every sign and biased exponent (denormals, infinities and NaNs included) with
    random mantissas plus the smallest, largest and middle ones."""
    rng = np.random.default_rng(seed)
    high = np.arange(512, dtype=np.uint32) << 23               # sign and exponent bits
    mant = rng.integers(0, 1 << 23, (512, per_exponent), dtype=np.uint32)
    mant[:, :4] = [0, 1, (1 << 22), (1 << 23) - 1]
    bits = (high[:, None] | mant).ravel()
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45,
                         np.finfo(np.float32).max, -np.finfo(np.float32).max,
                         np.finfo(np.float32).tiny, 88.72283, 88.72284, -87.33655,
                         -103.97208, -103.97209, 0.0625, -0.0625, 1.0, -1.0, 4.0, 3.92,
                         20.0, 9.01, -16.6355, 16.6355], np.float32)
    return np.concatenate([bits.view(np.float32), specials])


def reference(name, x):
    """The float64 function rounded once to float32 (a correctly rounded result except
    within 1e-16 relative of a rounding boundary)."""
    with np.errstate(all="ignore"):
        d = x.astype(np.float64)
        if name == "exp":
            r = np.exp(d)
        elif name == "tanh":
            r = np.tanh(d)
        elif name == "sigmoid":
            r = 1.0 / (1.0 + np.exp(-d))
        else:
            r = np.frompyfunc(math.erf, 1, 1)(d).astype(np.float64)
        return r.astype(np.float32)


def ulp_distance(a, b):
    """Distance in units in the last place between float32 arrays (as ordered integers)."""
    def ordered(v):
        i = v.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    return np.abs(ordered(a) - ordered(b))


def evaluate(name, x):
    from numba import njit
    from spore._jit import approx
    fn = getattr(approx, name + "_f32")

    @njit(nogil=True, boundscheck=False)
    def loop(x, out):
        for i in range(x.size):
            out[i] = fn(x[i])
    out = np.empty_like(x)
    loop(x, out)
    return out


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "erf"])
def test_within_two_ulp_over_the_float32_range(name):
    x = stratified_sample(per_exponent=256 if name == "erf" else 2048)
    got, want = evaluate(name, x), reference(name, x)
    assert got.dtype == np.float32
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    dist = ulp_distance(got[~nan], want[~nan])
    assert dist.max() <= BOUND_ULP, x[~nan][dist.argmax()]
    assert (dist == 0).mean() > 0.95             # mostly the correctly rounded value


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "erf"])
def test_special_values(name):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45], np.float32)
    got = evaluate(name, x)
    want = {"exp": [1, 1, np.inf, 0, np.nan, 1, 1],
            "tanh": [0, -0.0, 1, -1, np.nan, 1e-45, -1e-45],
            "sigmoid": [0.5, 0.5, 1, 0, np.nan, 0.5, 0.5],
            "erf": [0, -0.0, 1, -1, np.nan, 1e-45, -1e-45]}[name]
    np.testing.assert_array_equal(got, np.array(want, np.float32))
    if name in ("tanh", "erf"):                  # odd functions keep the sign of zero
        assert np.signbit(got[1]) and not np.signbit(got[0])
    if name == "erf":                            # erf(x) ~ 2x/sqrt(pi): a denormal result
        tiny = np.array([1e-40, -3e-39], np.float32)
        np.testing.assert_array_equal(evaluate(name, tiny), reference(name, tiny))


def test_exp_overflows_and_underflows_at_the_float32_edges():
    x = np.array([88.72283, 88.72284, 89.0, -103.27893, -103.97208, -104.0, -150.0],
                 np.float32)
    got = evaluate("exp", x)
    np.testing.assert_array_equal(got, reference("exp", x))
    assert np.isinf(got[1]) and got[-1] == 0 and got[-3] > 0


def evaluate_pair(x):
    """``approx.tanh_sigmoid_f32`` over ``x``: its two results as arrays."""
    from numba import njit
    from spore._jit.approx import tanh_sigmoid_f32

    @njit(nogil=True, boundscheck=False)
    def loop(x, t, s):
        for i in range(x.size):
            t[i], s[i] = tanh_sigmoid_f32(x[i])
    t, s = np.empty_like(x), np.empty_like(x)
    loop(x, t, s)
    return t, s


def test_the_shared_tanh_sigmoid_is_within_two_ulp_of_both():
    x = stratified_sample(per_exponent=2048)
    for name, got in zip(("tanh", "sigmoid"), evaluate_pair(x)):
        want = reference(name, x)
        assert got.dtype == np.float32
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        dist = ulp_distance(got[~nan], want[~nan])
        assert dist.max() <= BOUND_ULP, (name, x[~nan][dist.argmax()])
        assert (dist == 0).mean() > 0.95


def test_the_shared_tanh_sigmoid_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, -103.97208, -120.5,
                  0.625, -0.625, 0.62499994, -0.62499994], np.float32)
    t, s = evaluate_pair(x)
    np.testing.assert_array_equal(t[:7], np.array([0, -0.0, 1, -1, np.nan, 1e-45, -1e-45],
                                                  np.float32))
    assert np.signbit(t[1]) and not np.signbit(t[0])
    np.testing.assert_array_equal(s[:7], np.array([0.5, 0.5, 1, 0, np.nan, 0.5, 0.5],
                                                  np.float32))
    np.testing.assert_array_equal(s[7:9], reference("sigmoid", x[7:9]))  # denormal, 0
    assert ulp_distance(s[9:], reference("sigmoid", x[9:])).max() <= 1
    assert ulp_distance(t[9:], reference("tanh", x[9:])).max() <= 1     # the cut-over


def test_the_shared_pair_gives_the_bits_of_the_single_functions():
    x = stratified_sample(per_exponent=256)
    t, s = evaluate_pair(x)
    np.testing.assert_array_equal(t, evaluate("tanh", x))
    np.testing.assert_array_equal(s, evaluate("sigmoid", x))


@pytest.mark.parametrize("name", ["exp", "sigmoid"])
def test_denormal_results_near_the_underflow_edge(name):
    # every float32 whose exp (sigmoid) is a denormal or rounds to the smallest normals
    lo, hi = (-104.0, -86.0) if name == "exp" else (-104.0, -86.0)
    bits = np.arange(np.float32(hi).view(np.int32), np.float32(lo).view(np.int32) + 1,
                     dtype=np.int32)
    x = bits.view(np.float32)
    got, want = evaluate(name, x), reference(name, x)
    assert ulp_distance(got, want).max() <= 1
    assert got.min() == 0 and (got > 0).any() and (got < np.finfo(np.float32).tiny).any()


def test_tanh_is_odd_and_monotone_around_its_switch():
    # the polynomial below |x| = 0.625 and the exponential form above meet without a step
    steps = np.arange(-2000, 2000) * np.float32(2.0 ** -24)
    x = (np.float32(0.625) + steps).astype(np.float32)
    got = evaluate("tanh", x)
    assert (np.diff(got) >= 0).all()
    np.testing.assert_array_equal(evaluate("tanh", -x), -got)
    assert ulp_distance(got, reference("tanh", x)).max() <= 1


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "tanh_sigmoid"])
def test_the_float32_approximations_vectorise_in_float32(name):
    """A loop over one of them compiles to vectors of float32 (8 lanes on AVX2), with no
    float64 vector arithmetic and no call left in the loop (NOTE: [Vectorisable
    approximations])."""
    from numba import njit
    from spore._jit import approx
    fn = getattr(approx, name + "_f32")

    @njit(nogil=True, boundscheck=False, error_model="numpy")
    def loop(x, out):
        for i in range(x.size):
            out[i] = fn(x[i])[0] if name == "tanh_sigmoid" else fn(x[i])

    assert_vectorised_in_float32(loop, 256)


def assert_vectorised_in_float32(loop, n, inplace=False, args=()):
    """``loop(x, *args, out)`` (``loop(x)`` in place) over ``n`` float32 elements compiles
    to float32 vectors, with no float64 vector arithmetic and no call into approx.py
    left."""
    import re
    x = np.linspace(-5, 5, n, dtype=np.float32)
    loop(x) if inplace else loop(x, *args, np.empty_like(x))
    llvm = "\n".join(loop.inspect_llvm().values())
    lanes = {int(n) for n in re.findall(r"<(\d+) x float>", llvm)}
    assert lanes and max(lanes) >= 4, lanes
    assert not re.search(r"<\d+ x double>", llvm)
    called = re.findall(r"call \w+ @_ZN5spore4_jit6approx(\d+)(\w+)", llvm)
    called = {name[:int(length)] for length, name in called}      # mangled: length, name
    assert called <= {loop.__name__}, called     # inlined (a wrapper calls the loop)


def span_inputs():
    """Spans of SPAN elements that take the polynomial alone, the exponential form alone
    (NaN and infinities among them) or both, and lengths that end inside a span."""
    from spore._jit.approx import SPAN
    rng = np.random.default_rng(7)
    small = (rng.standard_normal(3 * SPAN) * 0.1).astype(np.float32)
    large = (np.where(rng.random(3 * SPAN) < 0.5, -1, 1)
             * (0.625 + rng.random(3 * SPAN) * 20)).astype(np.float32)
    mixed = (rng.standard_normal(3 * SPAN) * 2).astype(np.float32)
    edges = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 0.625, -0.625,
                      0.62499994, -0.62499994, 1e-45, -1e-45, 9.5, 1e30], np.float32)
    nan = np.full(SPAN, np.nan, np.float32)
    return np.concatenate([small[:SPAN], large[:SPAN], mixed, nan, small, edges, large,
                           small[:3]])


def evaluate_span(x, inplace):
    from numba import njit
    from spore._jit.approx import tanh_span

    @njit(nogil=True, boundscheck=False)
    def run(x, out):
        tanh_span(x, out)
    out = x.copy() if inplace else np.empty_like(x)
    run(out if inplace else x, out)
    return out


@pytest.mark.parametrize("inplace", [False, True])
def test_tanh_over_spans_gives_the_bits_of_tanh_f32(inplace):
    # NOTE: [Tanh over spans]: whichever path a span takes, each lane's bits are tanh_f32's
    from spore._jit.approx import SPAN
    x = span_inputs()
    for start, stop in [(0, x.size), (100, x.size), (0, 0), (0, 1), (0, SPAN - 1),
                        (0, SPAN), (0, SPAN + 1), (SPAN + 7, 3 * SPAN + 2)]:
        part = x[start:stop]
        got, want = evaluate_span(part, inplace), evaluate("tanh", part)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_tanh_spans_of_small_values_take_the_polynomial_alone():
    from numba import njit
    from spore._jit.approx import MAX_SKIP, SPAN, _all_small, _next_span

    @njit
    def small(x):
        return _all_small(x, 0, x.size)

    @njit
    def plan(x, spans):
        """For each of ``spans`` equal spans of ``x``: (checked, polynomial alone)."""
        got, skip, wait = [], 0, 0
        for i in range(spans):
            checked = skip == 0
            alone, skip, wait = _next_span(x, i * SPAN, (i + 1) * SPAN, skip, wait)
            got.append((checked, alone))
        return got
    x = span_inputs()
    assert small(x[:SPAN]) and not small(x[SPAN:2 * SPAN])
    assert not small(x[2 * SPAN:3 * SPAN])                       # mixed
    assert not small(np.full(SPAN, np.nan, np.float32))
    assert small(np.array([0.62499994, -0.62499994, -0.0], np.float32))
    assert not small(np.array([0.0, 0.625], np.float32))
    assert small(np.array([], np.float32))
    # after a span that needs both forms the next 1, 2, 4, then MAX_SKIP spans run
    # both without a check; a small span found by a check resets that
    tiny = np.zeros(40 * SPAN, np.float32)
    assert plan(tiny, 40) == [(True, True)] * 40
    mixed = (np.arange(40 * SPAN) % 2).astype(np.float32)
    got = plan(mixed, 40)
    assert not any(alone for _, alone in got)
    assert [i for i, (checked, _) in enumerate(got) if checked] == [0, 2, 5, 10, 19, 28, 37]
    tiny[:3 * SPAN] = 1.0                                        # three large spans first
    assert [alone for _, alone in plan(tiny, 12)] == [False] * 5 + [True] * 7
    assert MAX_SKIP == 8


def test_tanh_spans_vectorise_in_float32():
    # the check and the four span loops (the loops are functions of their own: NOTE:
    # [Tanh over spans])
    from numba import njit
    from spore._jit import approx

    @njit(nogil=True, boundscheck=False, error_model="numpy")
    def check(x, out):
        out[0] = approx._all_small(x, 0, x.size)

    assert_vectorised_in_float32(check, 1000)
    for loop in (approx._small_into, approx._tanh_into):
        assert_vectorised_in_float32(loop, 1000)
    for loop in (approx._small_inplace, approx._tanh_inplace):
        assert_vectorised_in_float32(loop, 1000, inplace=True)


def shifted_rows(seed=9):
    """Rows with their maxima, differences ``x - m`` from 0 down past -104: float32
    pairs whose difference rounds (x and m far apart in magnitude) included."""
    rng = np.random.default_rng(seed)
    rows = []
    for scale, shift in ((1.0, 0.0), (10.0, 0.0), (30.0, 1e3), (3.0, -5e4), (50.0, 7.0)):
        x = (rng.standard_normal(4096) * scale + shift).astype(np.float32)
        rows.append((x, x.max()))
    m = np.float32(100.5)
    x = np.array([100.5, 100.49999, 0.1, -3.7e-3, 1e-30, -0.0, 0.0, -3.5, 96.0, 13.25],
                 np.float32)
    rows.append((x, m))
    return rows


def exact_shifted_exp(x, m):
    """e^(x - m) from the exact float64 difference, rounded once to float32."""
    return np.exp(x.astype(np.float64) - np.float64(m)).astype(np.float32)


def test_shifted_exp_rows_keep_exp_f32_accuracy():
    # NOTE: [Shifted exp rows]: the difference x - m carried exactly, so e^(x - m) is
    # within exp_f32's bound of the exact value even far below the maximum, where
    # rounding x - m to float32 first is tens of ulp off
    from spore._jit.approx import exp_shifted_row
    worst_naive = 0
    for x, m in shifted_rows():
        out = np.empty_like(x)
        exp_shifted_row(x, m, out)
        want = exact_shifted_exp(x, m)
        assert ulp_distance(out, want).max() <= BOUND_ULP
        naive = evaluate("exp", (x - m).astype(np.float32))
        worst_naive = max(worst_naive, ulp_distance(naive, want).max())
    assert worst_naive > 10 * BOUND_ULP          # the compensation is what keeps the bound


def test_shifted_exp_rows_special_values():
    from spore._jit.approx import exp_shifted_row
    m = np.float32(2.0)
    x = np.array([2.0, -np.inf, np.nan, -102.0, -110.0, -np.finfo(np.float32).max], np.float32)
    out = np.empty_like(x)
    exp_shifted_row(x, m, out)
    np.testing.assert_array_equal(out[[0, 1, 4, 5]], [1.0, 0.0, 0.0, 0.0])
    assert np.isnan(out[2])
    assert ulp_distance(out[3:4], exact_shifted_exp(x[3:4], m)).max() <= BOUND_ULP  # denormal
    out_inf = np.empty(2, np.float32)                # an infinite maximum: NaN and 0 as
    exp_shifted_row(np.array([np.inf, 1.0], np.float32), np.float32(np.inf), out_inf)
    assert np.isnan(out_inf[0]) and out_inf[1] == 0.0    # inf - inf and 1 - inf give


def test_shifted_exp_rows_vectorise_in_float32():
    from spore._jit.approx import exp_shifted_row
    assert_vectorised_in_float32(exp_shifted_row, 4096, args=(np.float32(5.0),))
