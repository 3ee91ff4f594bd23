"""Type promotion of add / mul / div against MindSpore 2.10.

How the tables were generated: on MindSpore 2.10 (CPU, PyNative, numpy 1.26) every
pair below was computed as ``a + b``, ``a * b``, ``a / b`` and as ``ops.add``,
``ops.mul``, ``ops.div`` (both operand orders for scalars) on tensors made with
``Tensor([1, 0, 1], float32).astype(dtype)``, and ``str(result.dtype)`` recorded.
Each case that raised was re-run in a fresh process to rule out MindSpore's stale
errors. What remained were missing CPU kernels, which Spore implements with the
same rule as the rest of the table:

* ``ops.add(bool, bool)`` (and with bool scalars): TypeError in MindSpore while
  ``bool + bool`` gives Bool; Spore gives Bool for both.
* bfloat16 with a float scalar under ``ops.mul``/``ops.div``, and ``scalar / bfloat16``:
  "Unsupported data type" in MindSpore; ``bfloat16 + 2.5`` gives BFloat16 and so do these.

Findings the tables encode: tensor-tensor promotion is the same for add and mul;
div computes bool and integers in Float32; Python scalars are weak (they never widen
a tensor of the same or a higher category, and pick Int64 / Float32 otherwise); NumPy
scalars behave exactly like the Python scalar of their kind (np.bool_ like True, any
NumPy integer like 2, any NumPy float like 2.5), in either operand position of the
functional ops. (``np.float32(2.5) + tensor`` with the NumPy scalar on the left returns
a NumPy array in MindSpore, because NumPy's operator wins; that case is not a promotion
rule and is not tested.)
"""
import numpy as np
import pytest

import spore as ms
from spore import ops

NAMES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64"]
DTYPES = dict(zip(NAMES, [ms.bool_, ms.int8, ms.uint8, ms.int16, ms.int32, ms.int64,
                          ms.float16, ms.bfloat16, ms.float32, ms.float64]))


def _grid(text):
    """Rows and columns follow NAMES; each cell is a MindSpore dtype name."""
    rows = [line.split() for line in text.strip().splitlines()]
    return {(r[0], c): cell for r in rows for c, cell in zip(NAMES, r[1:])}


# a + b and a * b (identical tables); row = dtype of a, column = dtype of b
ADD_MUL = _grid("""
bool     Bool     Int8     UInt8    Int16    Int32    Int64    Float16  BFloat16 Float32  Float64
int8     Int8     Int8     Int16    Int16    Int32    Int64    Float16  BFloat16 Float32  Float64
uint8    UInt8    Int16    UInt8    Int16    Int32    Int64    Float16  BFloat16 Float32  Float64
int16    Int16    Int16    Int16    Int16    Int32    Int64    Float16  BFloat16 Float32  Float64
int32    Int32    Int32    Int32    Int32    Int32    Int64    Float16  BFloat16 Float32  Float64
int64    Int64    Int64    Int64    Int64    Int64    Int64    Float16  BFloat16 Float32  Float64
float16  Float16  Float16  Float16  Float16  Float16  Float16  Float16  Float32  Float32  Float64
bfloat16 BFloat16 BFloat16 BFloat16 BFloat16 BFloat16 BFloat16 Float32  BFloat16 Float32  Float64
float32  Float32  Float32  Float32  Float32  Float32  Float32  Float32  Float32  Float32  Float64
float64  Float64  Float64  Float64  Float64  Float64  Float64  Float64  Float64  Float64  Float64
""")

DIV = _grid("""
bool     Float32  Float32  Float32  Float32  Float32  Float32  Float16  BFloat16 Float32  Float64
int8     Float32  Float32  Float32  Float32  Float32  Float32  Float16  BFloat16 Float32  Float64
uint8    Float32  Float32  Float32  Float32  Float32  Float32  Float16  BFloat16 Float32  Float64
int16    Float32  Float32  Float32  Float32  Float32  Float32  Float16  BFloat16 Float32  Float64
int32    Float32  Float32  Float32  Float32  Float32  Float32  Float16  BFloat16 Float32  Float64
int64    Float32  Float32  Float32  Float32  Float32  Float32  Float16  BFloat16 Float32  Float64
float16  Float16  Float16  Float16  Float16  Float16  Float16  Float16  Float32  Float32  Float64
bfloat16 BFloat16 BFloat16 BFloat16 BFloat16 BFloat16 BFloat16 Float32  BFloat16 Float32  Float64
float32  Float32  Float32  Float32  Float32  Float32  Float32  Float32  Float32  Float32  Float64
float64  Float64  Float64  Float64  Float64  Float64  Float64  Float64  Float64  Float64  Float64
""")

# tensor (row) with a scalar of each kind: (add/mul with bool, int, float), (div with ...)
WITH_SCALAR = {row[0]: (row[1:4], row[4:7]) for row in (line.split() for line in """
bool     Bool     Int64    Float32   Float32  Float32  Float32
int8     Int8     Int8     Float32   Float32  Float32  Float32
uint8    UInt8    UInt8    Float32   Float32  Float32  Float32
int16    Int16    Int16    Float32   Float32  Float32  Float32
int32    Int32    Int32    Float32   Float32  Float32  Float32
int64    Int64    Int64    Float32   Float32  Float32  Float32
float16  Float16  Float16  Float16   Float16  Float16  Float16
bfloat16 BFloat16 BFloat16 BFloat16  BFloat16 BFloat16 BFloat16
float32  Float32  Float32  Float32   Float32  Float32  Float32
float64  Float64  Float64  Float64   Float64  Float64  Float64
""".strip().splitlines())}

SCALARS = {"bool": [True, np.bool_(True)],
           "int": [2, np.int32(2), np.int64(2)],
           "float": [2.5, np.float16(2.5), np.float32(2.5), np.float64(2.5)]}


def _tensor(name):
    """Nonzero values (the probe used [1, 0, 1]; dtypes do not depend on values)."""
    return ms.Tensor(np.array([1, 2, 3]), ms.float32).astype(DTYPES[name])


PAIRS = [(a, b) for a in NAMES for b in NAMES]
BINARY = {"add": (lambda a, b: a + b, ops.add), "mul": (lambda a, b: a * b, ops.mul),
          "div": (lambda a, b: a / b, ops.div)}


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("a, b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_tensor_tensor(op, a, b):
    table = DIV if op == "div" else ADD_MUL
    operator, functional = BINARY[op]
    x, y = _tensor(a), _tensor(b)
    for fn in (operator, functional):
        out = fn(x, y)
        assert str(out.dtype) == table[(a, b)]
    _check_values(op, x, y, out)


def _check_values(op, x, y, out):
    """The result equals the NumPy computation in float64, rounded to the result dtype."""
    fx, fy = (t.astype(ms.float64).asnumpy() for t in (x, y))
    with np.errstate(divide="ignore", invalid="ignore"):
        want = {"add": fx + fy, "mul": fx * fy, "div": fx / fy}[op]
    got = out.astype(ms.float64).asnumpy()
    if out.dtype == ms.bool_:
        want = want != 0
    np.testing.assert_allclose(got, want, rtol=1e-2)


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("kind", sorted(SCALARS))
@pytest.mark.parametrize("name", NAMES)
def test_tensor_scalar(op, kind, name):
    add_mul, div = WITH_SCALAR[name]
    want = (div if op == "div" else add_mul)[["bool", "int", "float"].index(kind)]
    operator, functional = BINARY[op]
    x = _tensor(name)
    for s in SCALARS[kind]:
        results = [operator(x, s), functional(x, s), functional(s, x)]
        if not isinstance(s, np.generic):
            results.append(operator(s, x))
        for out in results:
            assert str(out.dtype) == want, (s, type(s))


def test_scalar_scalar_gives_default_dtypes():
    # MindSpore 2.10: ops.add(1, 2) -> 0-d Int64
    assert ops.add(1, 2).dtype == ms.int64
    assert ops.add(1, 2.5).dtype == ms.float32
    assert ops.div(1, 2).dtype == ms.float32


def test_python_scalars_do_not_widen():
    x = ms.Tensor(np.array([100], np.int8))
    assert (x + 2).dtype == ms.int8
    f = ms.Tensor(np.array([1.5], np.float16))
    assert (f * 1e-3).dtype == ms.float16
    b = ms.Tensor(np.array([1.5], np.float32)).astype(ms.bfloat16)
    out = b + 0.25
    assert out.dtype == ms.bfloat16 and out.astype(ms.float32).item() == 1.75
