"""Shape, dtype and indexing primitives.

View primitives (``kind="view"``) return NumPy views, as MindSpore's views share
memory with their base (``v = a[0]; v[0] = 1`` changes ``a``).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._core.aval import ShapedArray, is_scalar
from ._base import grad_for, np_dtype

Primitive = P.Primitive


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


def _make_getitem(xp):
    def getitem(x, *index_arrays, spec):
        return x[build_index(spec, index_arrays)]
    return getitem


def _getitem_infer(attrs, x, *idx):
    probe = np.broadcast_to(np.zeros((), np.int8), tuple(x.shape))
    fake = [np.zeros(i.shape, i.dtype) if i.dtype != np.bool_ else np.ones(i.shape, bool)
            for i in idx]
    try:
        r = probe[build_index(attrs["spec"], fake)]
    except IndexError as e:
        raise IndexError(str(e)) from None
    return ShapedArray(r.shape, x.dtype)


def _index_is_basic(spec):
    return all(e[0] != "tensor" for e in spec)


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


@getitem_p.def_grad(inputs=tuple(range(1, 33)))   # index tensors by value; x only by shape
def _getitem_grad(attrs, inputs, out, dout):
    x, *idx = inputs
    g = getitem_grad_p(dout, *[_as_index_tensor(i) for i in idx], spec=attrs["spec"],
                       shape=tuple(x.shape))
    return (g,) + (None,) * len(idx)


@getitem_grad_p.def_grad(inputs=tuple(range(1, 33)))
def _getitem_grad_grad(attrs, inputs, out, dout):
    g, *idx = inputs
    return (getitem_p(dout, *[_as_index_tensor(i) for i in idx], spec=attrs["spec"]),) \
        + (None,) * len(idx)


def _as_index_tensor(i):
    if isinstance(i, ShapedArray):
        raise RuntimeError("index tensors must be saved for the gradient of indexing")
    return i




def _make_index_put(xp):
    def index_put(x, value, *index_arrays, spec):
        out = x.copy()
        out[build_index(spec, index_arrays)] = value
        return out
    return index_put


def _index_put_infer(attrs, x, value, *idx):
    return ShapedArray(tuple(x.shape), x.dtype)


index_put_p = Primitive("IndexPut", _make_index_put, kind="opaque", infer=_index_put_infer)


@index_put_p.def_grad(inputs=tuple(range(2, 34)))
def _index_put_grad(attrs, inputs, out, dout):
    x, value, *idx = inputs
    spec = attrs["spec"]
    gx = index_put_p(dout, 0, *idx, spec=spec)
    gv = None
    if not is_scalar(value):
        gv = grad_for(value, getitem_p(dout, *idx, spec=spec))
    return (gx, gv) + (None,) * len(idx)


def _make_setitem(xp):
    def setitem(x, value, *index_arrays, spec):
        if not x.flags.writeable:
            raise ValueError("cannot write into this tensor: it is a broadcast (expanded) view; "
                             "make a copy first (e.g. t.copy())")
        x[build_index(spec, index_arrays)] = value
        return x
    return setitem


setitem_p = Primitive("SetitemInplace", _make_setitem, kind="opaque", effect="state",
                      inplace_of="IndexPut", infer=_index_put_infer)


# ----------------------------------------------------------------- assignment (in place)
def _make_assign_value(xp):
    def assign_value(x, value):
        return xp.broadcast_to(xp.asarray(value, dtype=x.dtype), x.shape).copy()
    return assign_value


def _assign_infer(attrs, x, value):
    return ShapedArray(tuple(x.shape), x.dtype)


assign_value_p = Primitive("AssignValue", _make_assign_value, kind="opaque", n_inputs=2,
                           infer=_assign_infer)


@assign_value_p.def_grad()
def _assign_value_grad(attrs, inputs, out, dout):
    x, value = inputs
    return (None, grad_for(value, dout))


def _make_assign(xp):
    def assign(x, value):
        if not x.flags.writeable:
            raise ValueError("cannot write into this tensor: it is a broadcast (expanded) view; "
                             "make a copy first (e.g. t.copy())")
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


def _inplace_result(prim):
    """In-place primitives return the *same* Tensor object they wrote into."""
    eager = prim._eager_generic

    def run(args, attrs):
        eager(args, attrs)
        return args[0]
    prim.eager = run


_inplace_result(assign_p)
_inplace_result(setitem_p)
