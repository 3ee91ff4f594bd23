"""Shape, creation, indexing and array primitives.

View primitives (``kind="view"``) return NumPy views, as MindSpore's views share
memory with their base (``v = a[0]; v[0] = 1`` changes ``a``).

NOTE: [Dynamic shapes]
A few primitives have an output shape that depends on input *values* (boolean
masks, ``NonZero``, ``Unique``). Their ``infer`` computes the exact shape when it
is given concrete arrays (PyNative, and the kernel-failure explanation) and
marks the value-dependent dimension as ``-1`` when given shape-only avals.
"""
from __future__ import annotations

import math
import re

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._core.aval import ShapedArray, is_scalar
from ._base import grad_for, np_dtype

Primitive = P.Primitive

_INDEX_KINDS = "iu"
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)


def _dname(dt):
    return str(D.dtype_of(dt))


def _is_concrete(x):
    """Whether ``x`` carries values (a backend array), not only shape and dtype."""
    return not isinstance(x, ShapedArray) and not is_scalar(x)


def _check_index_dtype(op, arg, idx):
    if np.dtype(idx.dtype).kind not in _INDEX_KINDS:
        raise TypeError(f"For '{op}', the '{arg}' must be a tensor of Int32 or Int64, but got "
                        f"{_dname(idx.dtype)}.")


def _check_axis(op, axis, ndim, arg="axis"):
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ValueError(f"For '{op}', the '{arg}' must be in range [{-max(ndim, 1)}, "
                         f"{max(ndim, 1)}), but got {axis}.")


# ----------------------------------------------------------------- reshape / transpose / cast
def _reshape_infer(attrs, x):
    shape = tuple(attrs["shape"])
    size = int(np.prod(x.shape, dtype=np.int64))
    if int(np.prod(shape, dtype=np.int64)) != size or any(s < 0 for s in shape):
        raise ValueError(f"For 'Reshape', the product of the target shape {list(shape)} must equal "
                         f"the number of elements of the input {size} (input shape "
                         f"{list(x.shape)}).")
    return ShapedArray(shape, x.dtype)


reshape_p = Primitive("Reshape", lambda xp: lambda x, shape: xp.reshape(x, shape),
                      kind="view", n_inputs=1, infer=_reshape_infer)


@reshape_p.def_grad()
def _reshape_grad(attrs, inputs, out, dout):
    (x,) = inputs
    return (reshape_p(dout, shape=tuple(x.shape)),)


def _transpose_infer(attrs, x):
    perm = tuple(attrs["perm"])
    if sorted(perm) != list(range(len(x.shape))):
        raise ValueError(f"For 'Transpose', size of perm should equal to rank of x and be a "
                         f"permutation of its axes, but got perm {perm} for rank {len(x.shape)}.")
    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)


transpose_p = Primitive("Transpose", lambda xp: lambda x, perm: xp.transpose(x, perm),
                        kind="view", n_inputs=1, infer=_transpose_infer)


@transpose_p.def_grad()
def _transpose_grad(attrs, inputs, out, dout):
    inv = tuple(int(i) for i in np.argsort(attrs["perm"]))
    return (transpose_p(dout, perm=inv),)


def _cast_infer(attrs, x):
    return ShapedArray(tuple(getattr(x, "shape", ())), attrs["dtype"])


def _make_cast(xp):
    def cast(x, dtype):
        return x.astype(dtype)
    return cast


def _cast_prepare(args):
    (x,) = args
    a = P._unwrap_input(cast_p, x)
    if is_scalar(a):
        a = np.asarray(a, dtype=D.result_type(a).np)
    return [a]


cast_p = Primitive("Cast", _make_cast, kind="elementwise", n_inputs=1, infer=_cast_infer,
                   prepare=_cast_prepare)


@cast_p.def_grad()
def _cast_grad(attrs, inputs, out, dout):
    (x,) = inputs
    if np_dtype(x).kind not in "fcV":
        return (None,)
    return (cast_p(dout, dtype=np_dtype(x)),)


def _broadcast_to_infer(attrs, x):
    shape = tuple(attrs["shape"])
    try:
        out = np.broadcast_shapes(tuple(x.shape), shape)
    except ValueError:
        out = None
    if out != shape:
        raise ValueError(f"For 'BroadcastTo', in order to broadcast, each dimension pair must be "
                         f"equal or input dimension is 1 or target dimension is -1. But got "
                         f"x_shape: {tuple(x.shape)}, target shape: {shape}.")
    return ShapedArray(shape, x.dtype)


broadcast_to_p = Primitive("BroadcastTo", lambda xp: lambda x, shape: xp.broadcast_to(x, shape),
                           kind="view", n_inputs=1, infer=_broadcast_to_infer)


@broadcast_to_p.def_grad()
def _broadcast_to_grad(attrs, inputs, out, dout):
    (x,) = inputs
    return (grad_for(x, dout),)


def _view_dtype_infer(attrs, x):
    src, dst = np.dtype(x.dtype), np.dtype(attrs["dtype"])
    shape = tuple(x.shape)
    if src.itemsize == dst.itemsize:
        return ShapedArray(shape, dst)
    if not shape:
        raise ValueError(f"For 'ViewDtype', a scalar tensor cannot be viewed as {_dname(dst)} "
                         f"from {_dname(src)} (different element sizes).")
    last = shape[-1] * src.itemsize
    if last % dst.itemsize:
        raise ValueError(f"For 'ViewDtype', the last dimension ({shape[-1]}) must be divisible "
                         f"by {dst.itemsize // src.itemsize} to view {_dname(src)} as "
                         f"{_dname(dst)} (different element sizes).")
    return ShapedArray(shape[:-1] + (last // dst.itemsize,), dst)


def _make_view_dtype(xp):
    def view_dtype(x, dtype):
        if not x.flags.c_contiguous:
            x = x.copy()
        return x.view(dtype)
    return view_dtype


view_dtype_p = Primitive("ViewDtype", _make_view_dtype, kind="view", n_inputs=1, nondiff=True,
                         infer=_view_dtype_infer)


# ----------------------------------------------------------------- creation
# Creation primitives take no tensor inputs: shape, dtype and values are
# attributes, so a compiled graph holds them as constant-producing nodes.
def _check_shape(op, shape):
    for i, s in enumerate(shape):
        if s < 0:
            raise ValueError(f"For '{op}', each dimension of 'shape' must be greater than or "
                             f"equal to 0, but got {s} at position {i}.")


def _full_infer(attrs):
    _check_shape("Fill", attrs["shape"])
    return ShapedArray(attrs["shape"], attrs["dtype"])


def _make_full(xp):
    def full(shape, dtype, value):
        if value == 0:
            return xp.zeros(shape, dtype)
        # casting the value first gives C-style conversion (3.7 -> 3, -1 -> 255 for uint8)
        return xp.full(shape, xp.asarray(value).astype(dtype), dtype=dtype)
    return full


full_p = Primitive("Fill", _make_full, kind="opaque", n_inputs=0, nondiff=True,
                   infer=_full_infer)


def arange_length(start, stop, step):
    """Number of elements of ``arange(start, stop, step)`` (MindSpore's Range errors)."""
    if step == 0:
        raise ValueError("For 'Range', the 'step' cannot be equal to zero.")
    if not all(math.isfinite(v) for v in (start, stop, step)):
        raise ValueError(f"For 'Range', 'start', 'end' and 'step' must be finite, but got "
                         f"{start}, {stop} and {step}.")
    if (stop - start) * step < 0:
        sign = "positive" if step > 0 else "negative"
        raise ValueError(f"For 'Range', the 'step' cannot be {sign} when 'end' ({stop}) "
                         f"{'<' if step > 0 else '>'} 'start' ({start}).")
    return max(0, math.ceil((stop - start) / step))


def _arange_infer(attrs):
    n = arange_length(attrs["start"], attrs["stop"], attrs["step"])
    return ShapedArray((n,), attrs["dtype"])


def _make_arange(xp):
    def arange(start, stop, step, dtype):
        n = arange_length(start, stop, step)
        if all(isinstance(v, int) for v in (start, stop, step)):
            return xp.arange(start, start + n * step, step, dtype=np.int64)[:n].astype(dtype)
        # start + i * step in double precision, then rounded once to the target dtype
        return (xp.arange(n, dtype=np.float64) * step + start).astype(dtype)
    return arange


arange_p = Primitive("Range", _make_arange, kind="opaque", n_inputs=0, nondiff=True,
                    infer=_arange_infer)


def _linspace_infer(attrs):
    if attrs["num"] <= 0:
        raise ValueError(f"For 'LinSpace', the 'steps' must be greater than 0, but got "
                         f"{attrs['num']}.")
    return ShapedArray((attrs["num"],), attrs["dtype"])


def _make_linspace(xp):
    def linspace(start, stop, num, dtype):
        _linspace_infer({"num": num, "dtype": dtype})
        return xp.linspace(start, stop, num, dtype=np.float64).astype(dtype)
    return linspace


linspace_p = Primitive("LinSpace", _make_linspace, kind="opaque", n_inputs=0, nondiff=True,
                       infer=_linspace_infer)


def _eye_infer(attrs):
    _check_shape("Eye", (attrs["n"], attrs["m"]))
    return ShapedArray((attrs["n"], attrs["m"]), attrs["dtype"])


eye_p = Primitive("Eye", lambda xp: lambda n, m, dtype: xp.eye(n, m, dtype=dtype),
                  kind="opaque", n_inputs=0, nondiff=True, infer=_eye_infer)


def _tri_infer(attrs):
    _check_shape("Tri", (attrs["n"], attrs["m"]))
    return ShapedArray((attrs["n"], attrs["m"]), np.bool_)


def _make_tri(xp):
    def tri(n, m, k, lower):
        """Mask of ``col - row <= k`` (lower) or ``col - row >= k`` (upper)."""
        if lower:
            return xp.tri(n, m, k, dtype=bool)
        return ~xp.tri(n, m, k - 1, dtype=bool)
    return tri


tri_p = Primitive("Tri", _make_tri, kind="opaque", n_inputs=0, nondiff=True, infer=_tri_infer)


def zeros_of(x):
    """Zeros with the shape and dtype of ``x`` (a Tensor or aval), for gradient rules."""
    return full_p(shape=tuple(x.shape), dtype=np_dtype(x), value=0)


# ----------------------------------------------------------------- concat / split
def _concat_infer(attrs, *xs):
    if not xs:
        raise ValueError("For 'Concat', the number of input tensors must be greater than 0, "
                         "but got 0.")
    ref = tuple(xs[0].shape)
    nd = len(ref)
    for i, x in enumerate(xs):
        if is_scalar(x) or len(x.shape) == 0:
            raise ValueError(f"For 'Concat', the input tensors must not be 0-D, but the tensor at "
                             f"position {i} is 0-D.")
    axis = attrs["axis"]
    _check_axis("Concat", axis, nd)
    axis %= nd
    total = 0
    for i, x in enumerate(xs):
        s = tuple(x.shape)
        if len(s) != nd or s[:axis] + s[axis + 1:] != ref[:axis] + ref[axis + 1:]:
            raise ValueError(f"For 'Concat', all input shapes must be equal except in dimension "
                             f"{axis}, but got {list(ref)} and {list(s)} (tensor {i}).")
        total += s[axis]
    dtype = D.result_type(*[D.dtype_of(x.dtype) for x in xs]).np
    return ShapedArray(ref[:axis] + (total,) + ref[axis + 1:], dtype)


def _concat_prepare(args):
    arrays = [P._unwrap_input(concat_p, a) for a in args]
    for i, a in enumerate(arrays):
        if is_scalar(a) or a is None:
            raise TypeError(f"For 'Concat', every element of 'tensors' must be a Tensor, but "
                            f"element {i} is {type(a).__name__}.")
    if len({a.dtype for a in arrays}) <= 1:
        return arrays
    dtype = D.result_type(*[D.dtype_of(a.dtype) for a in arrays]).np
    return [a if a.dtype == dtype else a.astype(dtype) for a in arrays]


concat_p = Primitive("Concat", lambda xp: lambda *xs, axis: xp.concatenate(xs, axis=axis),
                     kind="opaque", infer=_concat_infer, prepare=_concat_prepare)


@concat_p.def_grad()
def _concat_grad(attrs, inputs, out, dout):
    axis = attrs["axis"] % len(dout.shape)
    sizes = tuple(x.shape[axis] for x in inputs)
    parts = split_p(dout, sizes=sizes, axis=axis) if len(sizes) > 1 else (dout,)
    return tuple(grad_for(x, g) for x, g in zip(inputs, parts))


def _split_infer(attrs, x):
    sizes, axis = attrs["sizes"], attrs["axis"]
    shape = tuple(x.shape)
    _check_axis("Split", axis, len(shape))
    axis %= len(shape)
    if sum(sizes) != shape[axis] or any(s < 0 for s in sizes):
        raise ValueError(f"For 'Split', the section sizes {list(sizes)} must be non-negative and "
                         f"sum to the size of dimension {axis}, which is {shape[axis]}.")
    return tuple(ShapedArray(shape[:axis] + (s,) + shape[axis + 1:], x.dtype) for s in sizes)


def _make_split(xp):
    def split(x, sizes, axis):
        lead = (slice(None),) * (axis % x.ndim)
        pieces, start = [], 0
        for size in sizes:
            pieces.append(x[lead + (slice(start, start + size),)])
            start += size
        return tuple(pieces)
    return split


split_p = Primitive("Split", _make_split, kind="view", n_inputs=1, multiple_results=True,
                    infer=_split_infer)


@split_p.def_grad()
def _split_grad(attrs, inputs, out, douts):
    (x,) = inputs
    shape = tuple(x.shape)
    axis = attrs["axis"] % len(shape)
    parts = []
    for size, g in zip(attrs["sizes"], douts):
        if g is None:
            g = full_p(shape=shape[:axis] + (size,) + shape[axis + 1:], dtype=np_dtype(x), value=0)
        parts.append(g)
    return (concat_p(*parts, axis=axis),)


# ----------------------------------------------------------------- indexing
# An index is a static *spec* (a tuple of entries) plus dynamic index tensors:
#   ("int", i) | ("slice", start, stop, step) | ("none",) | ("ellipsis",) | ("const", v)
#   | ("tensor", k)
# where k numbers the index-tensor inputs that follow the data input(s).

def build_index(spec, tensors):
    out = []
    for e in spec:
        tag = e[0]
        if tag == "int":
            out.append(e[1])
        elif tag == "slice":
            out.append(slice(e[1], e[2], e[3]))
        elif tag == "none":
            out.append(None)
        elif tag == "ellipsis":
            out.append(Ellipsis)
        elif tag == "const":
            out.append(e[1])
        else:
            out.append(tensors[e[1]])
    return tuple(out)


def _index_is_basic(spec):
    return all(e[0] != "tensor" for e in spec)


_NP_OUT_OF_BOUNDS = re.compile(r"index (-?\d+) is out of bounds for axis \d+ with size (\d+)")
_NP_TOO_MANY = re.compile(r"too many indices for array: array is (\d+)-dimensional")


def _index_error(exc):
    """NumPy's indexing errors in MindSpore's words, naming the op the user called."""
    from ..ops._utils import calling_op
    error = _index_error_text(exc)
    return type(error)(f"For '{calling_op()[0]}', {error}")


def _index_error_text(exc):
    msg = str(exc)
    m = _NP_OUT_OF_BOUNDS.search(msg)
    if m:
        return IndexError(f"index {m.group(1)} is out of bounds for dimension with size "
                          f"{m.group(2)}")
    m = _NP_TOO_MANY.search(msg)
    if m:
        return IndexError(f"too many indices for tensor of dimension {m.group(1)}")
    if "step cannot be zero" in msg:
        return ValueError("the step of a slice cannot be 0.")
    return IndexError(f"Invalid index: {msg}")


def index_shape(shape, spec, idx):
    """Shape of ``x[index]`` for an ``x`` of ``shape`` (see NOTE: [Dynamic shapes])."""
    probe = np.broadcast_to(np.zeros((), np.int8), tuple(shape))
    full = [i if _is_concrete(i) else _placeholder(i, True) for i in idx]
    try:
        out = probe[build_index(spec, full)].shape
    except (IndexError, ValueError) as e:
        raise _index_error(e) from None
    if all(_is_concrete(i) or i.dtype != np.bool_ for i in idx):
        return out
    # the dimensions that change when the symbolic masks select nothing are dynamic
    empty = [i if _is_concrete(i) else _placeholder(i, False) for i in idx]
    other = probe[build_index(spec, empty)].shape
    return tuple(-1 if s != o else s for s, o in zip(out, other))


def _placeholder(aval, mask_value):
    if aval.dtype == np.bool_:
        return np.full(aval.shape, mask_value)
    return np.zeros(aval.shape, aval.dtype)


def _getitem_infer(attrs, x, *idx):
    return ShapedArray(index_shape(x.shape, attrs["spec"], idx), x.dtype)


def _make_getitem(xp):
    def getitem(x, *index_arrays, spec):
        r = x[build_index(spec, index_arrays)]
        if index_arrays and getattr(r, "base", None) is not None:
            # advanced indexing copies; NumPy may hand back a view of its private buffer,
            # which would look like an alias of something to the gradient tape
            r = r.copy()
        return r
    return getitem


getitem_p = Primitive("Getitem", _make_getitem, kind="view", infer=_getitem_infer)


def _make_index_add(xp):
    def index_add_into_zeros(g, *index_arrays, spec, shape):
        out = xp.zeros(shape, dtype=g.dtype)
        idx = build_index(spec, index_arrays)
        if _index_is_basic(spec):
            out[idx] = g
        else:
            xp.add.at(out, idx, g)
        return out
    return index_add_into_zeros


def _index_add_infer(attrs, g, *idx):
    return ShapedArray(tuple(attrs["shape"]), g.dtype)


getitem_grad_p = Primitive("GetitemGrad", _make_index_add, kind="opaque", infer=_index_add_infer)

_ALL_BUT_FIRST = tuple(range(1, 33))


@getitem_p.def_grad(inputs=_ALL_BUT_FIRST)   # index tensors by value; x only by shape
def _getitem_grad(attrs, inputs, out, dout):
    x, *idx = inputs
    g = getitem_grad_p(dout, *idx, spec=attrs["spec"], shape=tuple(x.shape))
    return (g,) + (None,) * len(idx)


@getitem_grad_p.def_grad(inputs=_ALL_BUT_FIRST)
def _getitem_grad_grad(attrs, inputs, out, dout):
    g, *idx = inputs
    return (getitem_p(dout, *idx, spec=attrs["spec"]),) + (None,) * len(idx)


def _make_index_put(xp):
    def index_put(x, value, *index_arrays, spec, accumulate=False):
        out = x.copy()
        idx = build_index(spec, index_arrays)
        if accumulate:
            xp.add.at(out, idx, value)
        else:
            out[idx] = value
        return out
    return index_put


def _index_put_infer(attrs, x, value, *idx, op="IndexPut"):
    selected = index_shape(x.shape, attrs["spec"], idx)
    vshape = () if is_scalar(value) else tuple(value.shape)
    if -1 not in selected:
        try:
            ok = np.broadcast_shapes(vshape, selected) == tuple(selected)
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"For '{op}', the value of shape {list(vshape)} cannot be "
                             f"broadcast to the indexed shape {list(selected)}.")
    return ShapedArray(tuple(x.shape), x.dtype)


index_put_p = Primitive("IndexPut", _make_index_put, kind="opaque", infer=_index_put_infer)

_ALL_BUT_TWO = tuple(range(2, 34))


@index_put_p.def_grad(inputs=_ALL_BUT_TWO)
def _index_put_grad(attrs, inputs, out, dout):
    x, value, *idx = inputs
    spec = attrs["spec"]
    gx = dout if attrs.get("accumulate") else index_put_p(dout, 0, *idx, spec=spec)
    gv = None
    if not is_scalar(value):
        gv = grad_for(value, getitem_p(dout, *idx, spec=spec))
    return (gx, gv) + (None,) * len(idx)


def _check_writeable(x):
    if not x.flags.writeable:
        raise ValueError("cannot write into this tensor: it is a broadcast (expanded) view; "
                         "make a copy first (e.g. t.copy())")


def _make_setitem(xp):
    def setitem(x, value, *index_arrays, spec):
        _check_writeable(x)
        x[build_index(spec, index_arrays)] = value
        return x
    return setitem


setitem_p = Primitive("SetitemInplace", _make_setitem, kind="opaque", effect="state",
                      inplace_of="IndexPut",
                      infer=lambda attrs, *xs: _index_put_infer(attrs, *xs, op="Setitem"))


# ----------------------------------------------------------------- along-axis gather / scatter
def _along_axis_index(xp, index, axis):
    """Index tuple picking ``x[i0, .., index[i0, ..], ..]`` for every position of ``index``."""
    nd = index.ndim
    grid = [xp.arange(s).reshape((1,) * d + (s,) + (1,) * (nd - d - 1))
            for d, s in enumerate(index.shape)]
    grid[axis] = index
    return tuple(grid)


def _check_along_axis(op, x, index, axis):
    _check_index_dtype(op, "index", index)
    xs, ishape = tuple(x.shape), tuple(index.shape)
    if len(ishape) != len(xs):
        raise ValueError(f"For '{op}', the rank of 'index' ({len(ishape)}) must equal the rank "
                         f"of the input ({len(xs)}).")
    _check_axis(op, axis, len(xs))
    axis %= max(len(xs), 1)
    for d, (i, s) in enumerate(zip(ishape, xs)):
        if d != axis and i > s:
            raise ValueError(f"For '{op}', 'index' may not be larger than the input outside "
                             f"dimension {axis}, but got index shape {list(ishape)} and input "
                             f"shape {list(xs)}.")
    if _is_concrete(index) and index.size:
        lo, hi = int(index.min()), int(index.max())
        n = xs[axis]
        if lo < -n or hi >= n:
            bad = lo if lo < -n else hi
            raise IndexError(f"For '{op}', the value of 'index' must be in [{-n}, {n}), "
                             f"but got {bad}.")
    return axis


def _gather_d_infer(attrs, x, index):
    _check_along_axis("GatherD", x, index, attrs["axis"])
    return ShapedArray(tuple(index.shape), x.dtype)


def _make_gather_d(xp):
    def gather_d(x, index, axis):
        return x[_along_axis_index(xp, index, axis)]
    return gather_d


gather_d_p = Primitive("GatherD", _make_gather_d, kind="opaque", n_inputs=2,
                       infer=_gather_d_infer)


@gather_d_p.def_grad(inputs=(1,))
def _gather_d_grad(attrs, inputs, out, dout):
    x, index = inputs
    gx = scatter_elements_p(zeros_of(x), index, dout, axis=attrs["axis"], reduction="add")
    return (gx, None)


def _scatter_elements_infer(attrs, x, index, src):
    op = "TensorScatterElements"
    _check_along_axis(op, x, index, attrs["axis"])
    if tuple(src.shape) != tuple(index.shape):
        raise ValueError(f"For '{op}', 'updates' must have the shape of 'indices', but got "
                         f"{list(src.shape)} and {list(index.shape)}.")
    if np.dtype(src.dtype) != np.dtype(x.dtype):
        raise TypeError(f"For '{op}', 'updates' must have the dtype of the input, but got "
                        f"{_dname(src.dtype)} and {_dname(x.dtype)}.")
    if attrs["reduction"] not in ("none", "add"):
        raise ValueError(f"For '{op}', 'reduction' must be 'none' or 'add', but got "
                         f"{attrs['reduction']!r}.")
    return ShapedArray(tuple(x.shape), x.dtype)


def _make_scatter_elements(xp):
    def scatter_elements(x, index, src, axis, reduction):
        _scatter_elements_infer({"axis": axis, "reduction": reduction}, x, index, src)
        out = x.copy()
        idx = _along_axis_index(xp, index, axis)
        if reduction == "add":
            xp.add.at(out, idx, src)
        else:
            out[idx] = src
        return out
    return scatter_elements


scatter_elements_p = Primitive("TensorScatterElements", _make_scatter_elements, kind="opaque",
                               n_inputs=3, infer=_scatter_elements_infer)


@scatter_elements_p.def_grad(inputs=(1,))
def _scatter_elements_grad(attrs, inputs, out, dout):
    x, index, src = inputs
    axis = attrs["axis"]
    gx = dout
    if attrs["reduction"] == "none":    # overwritten positions take no gradient
        gx = scatter_elements_p(dout, index, zeros_of(src), axis=axis, reduction="none")
    return (gx, None, gather_d_p(dout, index, axis=axis))


# ----------------------------------------------------------------- roll / sort / top-k
def _roll_infer(attrs, x):
    axes = attrs["axes"]
    if axes is not None:
        for a in axes:
            _check_axis("Roll", a, len(x.shape), "dims")
    return ShapedArray(tuple(x.shape), x.dtype)


roll_p = Primitive("Roll", lambda xp: lambda x, shifts, axes: xp.roll(x, shifts, axes),
                   kind="opaque", n_inputs=1, infer=_roll_infer)


@roll_p.def_grad()
def _roll_grad(attrs, inputs, out, dout):
    back = tuple(-s for s in attrs["shifts"])
    return (roll_p(dout, shifts=back, axes=attrs["axes"]),)


def _stable_order(xp, x, axis, descending):
    """Stable argsort; descending keeps equal elements in their original order."""
    if not descending:
        return xp.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    order = xp.argsort(xp.flip(x, axis), axis=axis, kind="stable")
    return (n - 1) - xp.flip(order, axis)


def _sort_infer(attrs, x):
    _check_axis("Sort", attrs["axis"], len(x.shape))
    shape = tuple(x.shape)
    return ShapedArray(shape, x.dtype), ShapedArray(shape, _INT32)


def _make_sort(xp):
    def sort(x, axis, descending):
        if x.ndim == 0:
            return x.copy(), xp.zeros((), _INT32)
        order = _stable_order(xp, x, axis, descending)
        return xp.take_along_axis(x, order, axis), order.astype(_INT32)
    return sort


sort_p = Primitive("Sort", _make_sort, kind="opaque", n_inputs=1, multiple_results=True,
                   infer=_sort_infer)


def _sorted_values_grad(attrs, inputs, out, douts):
    """Values picked by index along an axis send their cotangent back to where they came from."""
    (x,) = inputs
    dvalues = douts[0]
    if dvalues is None:
        return (None,)
    if len(x.shape) == 0:
        return (dvalues,)
    gx = scatter_elements_p(zeros_of(x), out[1], dvalues, axis=attrs["axis"], reduction="add")
    return (gx,)


sort_p.def_grad(output=True)(_sorted_values_grad)


def _topk_infer(attrs, x):
    shape = tuple(x.shape)
    axis, k = attrs["axis"], attrs["k"]
    _check_axis("TopK", axis, len(shape), "dim")
    n = shape[axis % len(shape)] if shape else 1
    if not 0 <= k <= n:
        raise ValueError(f"For 'TopK', the 'k' must be in [0, {n}], but got {k}.")
    out = shape[:axis % len(shape)] + (k,) + shape[axis % len(shape) + 1:] if shape else ()
    return ShapedArray(out, x.dtype), ShapedArray(out, _INT32)


def _make_topk(xp):
    def topk(x, k, axis, largest):
        _topk_infer({"k": k, "axis": axis}, x)
        if x.ndim == 0:
            return x.copy(), xp.zeros((), _INT32)
        if _select_first(xp, x, k, axis):
            order = _topk_positions(xp, x, k, axis, largest)
        else:
            order = xp.take(_stable_order(xp, x, axis, largest), xp.arange(k), axis=axis)
        return xp.take_along_axis(x, order, axis), order.astype(_INT32)
    return topk


def _select_first(xp, x, k, axis):
    """Whether selecting k of n before sorting pays off (and is exact: no NaNs)."""
    n = x.shape[axis]
    if not 0 < 8 * k <= n or x.dtype.kind not in "iuf":
        return False
    return x.dtype.kind != "f" or not bool(xp.isnan(x).any())


def _topk_positions(xp, x, k, axis, largest):
    """Positions of the top k along ``axis`` in the order a stable sort would give them:
    partition finds the k-th value, equal values are taken lowest position first."""
    rows = xp.moveaxis(x, axis, -1)
    n = rows.shape[-1]
    cut = n - k if largest else k - 1
    kth = xp.partition(rows, cut, axis=-1)[..., cut:cut + 1]
    beyond = rows > kth if largest else rows < kth
    tied = rows == kth
    room = k - beyond.sum(axis=-1, keepdims=True)
    if bool((tied.sum(axis=-1, keepdims=True) == room).all()):
        chosen = beyond | tied       # no row has more ties than room: skip the running count
    else:
        chosen = beyond | (tied & (xp.cumsum(tied, axis=-1) <= room))
    cols = xp.nonzero(chosen.reshape(-1, n))[1].reshape(rows.shape[:-1] + (k,))
    picked = xp.take_along_axis(rows, cols, -1)
    cols = xp.take_along_axis(cols, _stable_order(xp, picked, -1, largest), -1)
    return xp.moveaxis(cols, -1, axis)


topk_p = Primitive("TopK", _make_topk, kind="opaque", n_inputs=1, multiple_results=True,
                   infer=_topk_infer)
topk_p.def_grad(output=True)(_sorted_values_grad)


# ----------------------------------------------------------------- value-dependent shapes
def _unique_infer(attrs, x):
    axis = attrs["axis"]
    inv_dtype = attrs["inverse_dtype"]
    if axis is None:
        n = len(np.unique(x)) if _is_concrete(x) else -1
        shape = (n,)
        inv_shape = tuple(x.shape)
    else:
        _check_axis("Unique", axis, len(x.shape), "dim")
        axis %= len(x.shape)
        n = np.unique(x, axis=axis).shape[axis] if _is_concrete(x) else -1
        shape = tuple(x.shape[:axis]) + (n,) + tuple(x.shape[axis + 1:])
        inv_shape = (x.shape[axis],)
    return (ShapedArray(shape, x.dtype), ShapedArray(inv_shape, inv_dtype),
            ShapedArray((n,), inv_dtype))


def _make_unique(xp):
    def unique(x, sorted, axis, inverse_dtype):
        values, first, inverse, counts = xp.unique(
            x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
        inverse = inverse.reshape(x.shape if axis is None else (x.shape[axis],))
        if not sorted:   # order of first appearance
            order = xp.argsort(first, kind="stable")
            rank = xp.empty_like(order)
            rank[order] = xp.arange(order.size)
            values = xp.take(values, order, axis=0 if axis is None else axis)
            counts = counts[order]
            inverse = rank[inverse]
        return values, inverse.astype(inverse_dtype), counts.astype(inverse_dtype)
    return unique


unique_p = Primitive("Unique", _make_unique, kind="opaque", n_inputs=1, multiple_results=True,
                     nondiff=True, infer=_unique_infer)


def _nonzero_infer(attrs, x):
    n = int(np.count_nonzero(x)) if _is_concrete(x) else -1
    return ShapedArray((n, len(x.shape)), _INT64)


def _make_nonzero(xp):
    def nonzero(x):
        if x.ndim == 0:
            return xp.zeros((int(bool(x)), 0), _INT64)
        return xp.stack(xp.nonzero(x), axis=1).astype(_INT64)
    return nonzero


nonzero_p = Primitive("NonZero", _make_nonzero, kind="opaque", n_inputs=1, nondiff=True,
                      infer=_nonzero_infer)


# ----------------------------------------------------------------- padding
# ``pads`` holds one (before, after) pair per dimension in dimension order;
# negative amounts crop. ``mode`` uses NumPy's names. As in MindSpore 2.10 (and
# PyTorch), constant and wrap modes crop before padding, while reflect, symmetric
# and edge pad before cropping: a reflection may reach into the cropped positions.
PAD_MODES = ("constant", "reflect", "symmetric", "edge", "wrap")


def _pad_infer(attrs, x):
    pads, mode = attrs["pads"], attrs["mode"]
    shape = tuple(x.shape)
    if mode not in PAD_MODES:
        raise ValueError(f"For 'Pad', the 'mode' must be one of {PAD_MODES}, but got {mode!r}.")
    if len(pads) != len(shape):
        raise ValueError(f"For 'Pad', there must be one (before, after) pair per dimension, but "
                         f"got {len(pads)} pairs for rank {len(shape)}.")
    out = []
    for d, ((b, a), n) in enumerate(zip(pads, shape)):
        if mode == "reflect" and (b >= n or a >= n) and (b > 0 or a > 0):
            raise ValueError(f"For 'Pad' reflect mode, the padding size must be less than the "
                             f"corresponding input dimension, but got ({b}, {a}) at dimension "
                             f"{d} of size {n}.")
        if mode == "symmetric" and (b > n or a > n):
            raise ValueError(f"For 'Pad' symmetric mode, the padding size must be at most the "
                             f"corresponding input dimension, but got ({b}, {a}) at dimension "
                             f"{d} of size {n}.")
        kept = n - max(-b, 0) - max(-a, 0)    # wrap pads what is left after cropping
        if (mode == "edge" and (b > 0 or a > 0) and n == 0) or (
                mode == "wrap" and (b > 0 or a > 0) and max(b, a) > max(kept, 0)):
            raise ValueError(f"For 'Pad' {mode} mode, the padding ({b}, {a}) is too large for "
                             f"dimension {d} of size {n}.")
        if n + b + a < 0:
            raise ValueError(f"For 'Pad', the padded size of dimension {d} would be negative "
                             f"({n} + {b} + {a}).")
        out.append(n + b + a)
    return ShapedArray(tuple(out), x.dtype)


def _make_pad(xp):
    def pad(x, pads, mode, value):
        _pad_infer({"pads": pads, "mode": mode}, x)   # NumPy would accept some invalid pads
        if mode == "constant":
            x = x[tuple(slice(max(-b, 0), n - max(-a, 0)) for (b, a), n in zip(pads, x.shape))]
            widths = tuple((max(b, 0), max(a, 0)) for b, a in pads)
            shape = tuple(n + b + a for (b, a), n in zip(widths, x.shape))
            out = xp.full(shape, xp.asarray(value).astype(x.dtype), dtype=x.dtype)
            out[tuple(slice(b, b + n) for (b, _), n in zip(widths, x.shape))] = x
            return out
        for d, (b, a) in enumerate(pads):
            if b or a:
                x = xp.take(x, _pad_source(xp, x.shape[d], b, a, mode), axis=d)
        return x
    return pad


def _pad_source(xp, n, before, after, mode):
    """For each position of a padded axis, the input position its value comes from
    (negative amounts crop; see the note above)."""
    grow = (max(before, 0), max(after, 0))
    if mode == "wrap":
        kept = np.arange(max(-before, 0), n - max(-after, 0))
        return xp.asarray(np.pad(kept, grow, mode=mode))
    padded = np.pad(np.arange(n), grow, mode=mode)
    return xp.asarray(padded[max(-before, 0):len(padded) - max(-after, 0)])


pad_p = Primitive("Pad", _make_pad, kind="opaque", n_inputs=1, infer=_pad_infer)


@pad_p.def_grad()
def _pad_grad(attrs, inputs, out, dout):
    pads, mode = attrs["pads"], attrs["mode"]
    if mode == "constant":   # the adjoint of padding/cropping is the opposite crop/zero-pad
        back = tuple((-b, -a) for b, a in pads)
        return (pad_p(dout, pads=back, mode="constant", value=0),)
    return (pad_grad_p(dout, pads=pads, mode=mode),)


def _pad_grad_infer(attrs, g):
    shape = tuple(n - b - a for (b, a), n in zip(attrs["pads"], g.shape))
    return ShapedArray(shape, g.dtype)


def _make_pad_grad(xp):
    def pad_grad(g, pads, mode):
        """Fold each padded border back onto the input element it was copied from."""
        for d, (b, a) in enumerate(pads):
            if not (b or a):
                continue
            n = g.shape[d] - b - a
            source = _pad_source(xp, n, b, a, mode)
            moved = xp.moveaxis(g, d, 0)
            lo, hi = max(b, 0), moved.shape[0] - max(a, 0)   # copied straight from the input
            folded = xp.zeros((n,) + moved.shape[1:], dtype=g.dtype)
            folded[source[lo:hi]] = moved[lo:hi]
            xp.add.at(folded, source[:lo], moved[:lo])
            xp.add.at(folded, source[hi:], moved[hi:])
            g = xp.moveaxis(folded, 0, d)
        return g
    return pad_grad


pad_grad_p = Primitive("PadGrad", _make_pad_grad, kind="opaque", n_inputs=1,
                       infer=_pad_grad_infer)


@pad_grad_p.def_grad()
def _pad_grad_grad(attrs, inputs, out, dout):
    return (pad_p(dout, pads=attrs["pads"], mode=attrs["mode"], value=0),)


# ----------------------------------------------------------------- assignment (in place)
def _make_assign_value(xp):
    def assign_value(x, value):
        return xp.broadcast_to(xp.asarray(value, dtype=x.dtype), x.shape).copy()
    return assign_value


def _assign_infer(attrs, x, value):
    vshape = () if is_scalar(value) else tuple(value.shape)
    try:
        ok = np.broadcast_shapes(vshape, tuple(x.shape)) == tuple(x.shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"For 'Assign', the value of shape {list(vshape)} cannot be broadcast "
                         f"to the variable's shape {list(x.shape)}.")
    return ShapedArray(tuple(x.shape), x.dtype)


assign_value_p = Primitive("AssignValue", _make_assign_value, kind="opaque", n_inputs=2,
                           infer=_assign_infer)


@assign_value_p.def_grad()
def _assign_value_grad(attrs, inputs, out, dout):
    x, value = inputs
    return (None, grad_for(value, dout))


def _make_assign(xp):
    def assign(x, value):
        _check_writeable(x)
        xp.copyto(x, value, casting="unsafe")
        return x
    return assign


def _assign_prepare(args):
    x, value = args
    if not isinstance(x, P._Tensor):
        raise TypeError(f"For 'Assign', the 'variable' must be a Tensor or Parameter, "
                        f"but got {type(x).__name__}.")
    v = P._unwrap_input(assign_p, value)
    return [x._data, v]


assign_p = Primitive("Assign", _make_assign, kind="opaque", effect="state", n_inputs=2,
                     inplace_of="AssignValue", infer=_assign_infer, prepare=_assign_prepare)


assign_p.returns_written_input()
setitem_p.returns_written_input()
