"""More primitive classes (``ops.Cdist(p)(x1, x2)``, ``ops.Tril(diagonal)(x)``, ...): each
stores MindSpore's attributes and forwards to the functional op, as in ``__init__``."""
from __future__ import annotations

from . import Primitive, _forward, _ops

__all__ = []


def _simple(**mapping):
    """Attribute-free classes forwarding to ``ops.<name>``."""
    for cls, op in mapping.items():
        globals()[cls] = _forward(cls, op)
        __all__.append(cls)


_simple(Addcdiv="addcdiv", Addcmul="addcmul", Dense="dense", SeLU="selu", Sinc="sinc",
        Xdivy="xdivy", Hypot="hypot", Fmax="fmax", Fmin="fmin", Inv="inv",
        Heaviside="heaviside", LeftShift="bitwise_left_shift",
        RightShift="bitwise_right_shift", TruncateMod="fmod", Erfinv="erfinv",
        Digamma="digamma", Lgamma="lgamma", Polygamma="polygamma", NonZero="nonzero",
        LinSpace="linspace", MatrixDeterminant="det", LogMatrixDeterminant="slogdet",
        MatrixBandPart="matrix_band_part", Slice="slice", Ger="ger", AddN="addn",
        AccumulateNV2="addn", UnsortedSegmentSum="unsorted_segment_sum",
        UnsortedSegmentMax="unsorted_segment_max", UnsortedSegmentMin="unsorted_segment_min",
        UnsortedSegmentProd="unsorted_segment_prod", TensorScatterSub="tensor_scatter_sub",
        IndexFill="index_fill", Expand="expand")


def _export(cls):
    __all__.append(cls.__name__)
    return cls


@_export
class Rint(Primitive):
    """Round half to even."""

    def __call__(self, x):
        return _ops().round(x)


@_export
class MulNoNan(Primitive):
    """``x * y``, and 0 wherever ``y`` is 0 (even for an infinite or NaN ``x``)."""

    def __call__(self, x, y):
        ops = _ops()
        zero = ops.eq(y, 0)
        product = ops.mul(ops.where(zero, ops.zeros_like(ops.add(x, y)), x), y)
        return ops.where(zero, ops.zeros_like(product), product)


@_export
class DivNoNan(Primitive):
    """``x / y``, and 0 wherever ``y`` is 0."""

    def __call__(self, x, y):
        ops = _ops()
        safe = ops.where(ops.eq(y, 0), ops.ones_like(ops.add(x, y)), y)
        quotient = ops.div(x, safe)
        return ops.where(ops.eq(y, 0), ops.zeros_like(quotient), quotient)


class _WithAttrs(Primitive):
    """A primitive class whose constructor arguments become attributes."""
    _attrs = ()

    def __init__(self, *args, **kwargs):
        super().__init__()
        values = dict(self._attrs)
        names = list(values)
        if len(args) > len(names):
            raise TypeError(f"For '{self.name}', expected at most {len(names)} arguments, but "
                            f"got {len(args)}.")
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"For '{self.name}', unexpected argument {key!r}.")
            values[key] = value
        for key, value in values.items():
            if value is _REQUIRED:
                raise TypeError(f"For '{self.name}', the argument {key!r} is required.")
            setattr(self, key, value)
            self.attrs[key] = value


_REQUIRED = object()


def _sequence(prim, xs):
    if not isinstance(xs, (list, tuple)):
        raise TypeError(f"For '{prim.name}', the input must be a list or tuple of Tensors, but "
                        f"got {type(xs).__name__}.")
    return list(xs)


def _real_number(prim, arg, value):
    from ..._tensor import Tensor
    if isinstance(value, Tensor) and value.size == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{prim.name}', '{arg}' must be a number or a one-element Tensor, "
                        f"but got {type(value).__name__}.")
    return float(value)


def _with_attrs(name, attrs, call, doc):
    cls = type(name, (_WithAttrs,), {"_attrs": tuple(attrs), "__call__": call, "__doc__": doc})
    globals()[name] = cls
    __all__.append(name)
    return cls


_with_attrs("Cdist", [("p", 2.0)], lambda s, x1, x2: _ops().cdist(x1, x2, s.p),
            "p-norm distances between the rows of two batches.")
_with_attrs("CeLU", [("alpha", 1.0)], lambda s, x: _ops().celu(x, s.alpha), "CeLU.")
_with_attrs("Cummax", [("axis", _REQUIRED)], lambda s, x: _ops().cummax(x, s.axis),
            "(values, indices) of the running maximum.")
_with_attrs("Cummin", [("axis", _REQUIRED)], lambda s, x: _ops().cummin(x, s.axis),
            "(values, indices) of the running minimum.")
_with_attrs("Cross", [("dim", -65530)],
            lambda s, x1, x2: _ops().cross(x1, x2, None if s.dim == -65530 else s.dim),
            "Cross product along ``dim`` (the first size-3 dimension by default).")
_with_attrs("HShrink", [("lambd", 0.5)], lambda s, x: _ops().hardshrink(x, s.lambd),
            "Hard shrink.")
_with_attrs("SoftShrink", [("lambd", 0.5)], lambda s, x: _ops().softshrink(x, s.lambd),
            "Soft shrink.")
_with_attrs("GLU", [("axis", -1)], lambda s, x: _ops().glu(x, s.axis), "Gated linear unit.")
_with_attrs("Logit", [("eps", -1.0)],
            lambda s, x: _ops().logit(x, None if s.eps < 0 else s.eps),
            "``log(x / (1 - x))``, ``x`` clamped to [eps, 1 - eps] when eps >= 0.")
_with_attrs("IsClose", [("rtol", 1e-05), ("atol", 1e-08), ("equal_nan", False)],
            lambda s, x1, x2: _ops().isclose(x1, x2, s.rtol, s.atol, s.equal_nan),
            "Element-wise closeness.")
_with_attrs("Tril", [("diagonal", 0)], lambda s, x: _ops().tril(x, s.diagonal),
            "Lower triangle.")
_with_attrs("Triu", [("diagonal", 0)], lambda s, x: _ops().triu(x, s.diagonal),
            "Upper triangle.")
_with_attrs("UniqueConsecutive", [("return_inverse", False), ("return_counts", False),
                                  ("dim", None)],
            lambda s, x: _ops().unique_consecutive(x, s.return_inverse, s.return_counts, s.dim),
            "Collapse runs of equal elements.")
_with_attrs("Pack", [("axis", 0)], lambda s, xs: _ops().stack(_sequence(s, xs), s.axis),
            "Stack a list of tensors along a new ``axis``.")
_with_attrs("Unpack", [("axis", 0)], lambda s, x: _ops().unstack(x, s.axis),
            "Split along ``axis`` into tensors without that axis.")
_with_attrs("ReverseV2", [("axis", _REQUIRED)], lambda s, x: _ops().flip(x, tuple(s.axis)),
            "Reverse along the dimensions ``axis``.")
_with_attrs("MatrixPower", [("n", _REQUIRED)], lambda s, x: _ops().matrix_power(x, s.n),
            "Integer power of (a batch of) square matrices.")
_with_attrs("MatrixInverse", [("adjoint", False)],
            lambda s, x: _ops().inverse(_ops().swapaxes(x, -1, -2) if s.adjoint else x),
            "Inverse of (a batch of) square matrices (of the transpose with ``adjoint``).")
_with_attrs("CountNonZero", [("dims", None)],
            lambda s, x: _ops().count_nonzero(x, () if s.dims is None else tuple(s.dims)),
            "Number of non-zero elements over ``dims`` (all when None).")
_with_attrs("TensorScatterElements", [("axis", 0), ("reduction", "none")],
            lambda s, x, indices, updates: _ops().tensor_scatter_elements(
                x, indices, updates, s.axis, s.reduction),
            "Write (or add) ``updates`` at ``indices`` along ``axis``.")
_with_attrs("ScatterAdd", [("use_locking", False)],
            lambda s, x, indices, updates: _ops().scatter_add(x, indices, updates),
            "Add ``updates`` into the Parameter ``x`` at ``indices`` (in place).")
_with_attrs("ScatterUpdate", [("use_locking", True)],
            lambda s, x, indices, updates: _ops().scatter_update(x, indices, updates),
            "Write ``updates`` into the Parameter ``x`` at ``indices`` (in place).")
_with_attrs("IndexAdd", [("axis", _REQUIRED), ("use_lock", True), ("check_index_bound", True)],
            lambda s, x, indices, y: _ops().index_add(x, indices, y, s.axis),
            "Add ``y`` into the Parameter ``x`` at ``indices`` along ``axis``.")
_with_attrs("TrilIndices", [("row", _REQUIRED), ("col", _REQUIRED), ("offset", 0),
                            ("dtype", None)],
            lambda s: _ops().tril_indices(s.row, s.col, s.offset, dtype=s.dtype),
            "(2, n) indices of the lower triangle of a row x col matrix.")
_with_attrs("TriuIndices", [("row", _REQUIRED), ("col", _REQUIRED), ("offset", 0),
                            ("dtype", None)],
            lambda s: _ops().triu_indices(s.row, s.col, s.offset, dtype=s.dtype),
            "(2, n) indices of the upper triangle of a row x col matrix.")
_with_attrs("LogSpace", [("steps", 10), ("base", 10), ("dtype", None)],
            lambda s, start, end: _ops().logspace(start, end, s.steps, s.base, dtype=s.dtype),
            "``base ** linspace(start, end, steps)``.")
_with_attrs("ReduceStd", [("axis", ()), ("unbiased", True), ("keep_dims", False)],
            lambda s, x: _ops().std_mean(x, tuple(s.axis) if s.axis not in ((), []) else None,
                                         1 if s.unbiased else 0, s.keep_dims),
            "(standard deviation, mean) over ``axis`` (all when empty).")
_with_attrs("Bernoulli", [("seed", -1), ("offset", 0)],
            lambda s, x, p: _ops().bernoulli(x, p),
            "0/1 samples shaped like ``x``, 1 with probability ``p``.")
_with_attrs("Multinomial", [("seed", 0), ("seed2", 0), ("dtype", None)],
            lambda s, x, num_samples: _ops().cast(_ops().multinomial(x, num_samples, True),
                                                  s.dtype or "int32"),
            "Indices drawn with replacement from the rows of ``x``.")
_with_attrs("Pdist", [("p", 2.0)], lambda s, x: _ops().pdist(x, s.p),
            "Distances between all pairs of rows (upper triangle, flattened).")
_with_attrs("SmoothL1Loss", [("beta", 1.0), ("reduction", "none")],
            lambda s, x, y: _ops().smooth_l1_loss(x, y, s.beta, s.reduction), "Smooth L1 loss.")
_with_attrs("SoftMarginLoss", [("reduction", "mean")],
            lambda s, x, y: _ops().soft_margin_loss(x, y, s.reduction), "Soft-margin loss.")
_with_attrs("KLDivLoss", [("reduction", "mean")],
            lambda s, x, y: _ops().kl_div(x, y, s.reduction), "KL divergence loss.")
_with_attrs("BinaryCrossEntropy", [("reduction", "mean")],
            lambda s, x, y, weight=None: _ops().binary_cross_entropy(x, y, weight, s.reduction),
            "Binary cross-entropy of probabilities.")
_with_attrs("TripletMarginLoss", [("p", 2), ("swap", False), ("eps", 1e-06),
                                  ("reduction", "mean")],
            lambda s, x, positive, negative, margin: _ops().triplet_margin_loss(
                x, positive, negative, _real_number(s, "margin", margin), s.p, s.eps, s.swap,
                s.reduction),
            "Triplet margin loss (``margin`` is an input here).")


@_export
class SquareSumAll(Primitive):
    """(sum of x², sum of y²)."""

    def __call__(self, x, y):
        ops = _ops()
        return ops.sum(ops.square(x)), ops.sum(ops.square(y))


@_export
class EqualCount(Primitive):
    """The number of equal elements, as a (1,) tensor of the inputs' dtype."""

    def __call__(self, x, y):
        from . import _tensor_input
        ops = _ops()
        x, y = _tensor_input(self, x, "x"), _tensor_input(self, y, "y")
        return ops.reshape(ops.cast(ops.sum(ops.cast(ops.eq(x, y), "int32")), x.dtype), (1,))


@_export
class NLLLoss(_WithAttrs):
    """(loss, total weight) of log-probabilities ``logits`` (N, C) at ``labels``."""
    _attrs = (("reduction", "mean"), ("ignore_index", -100))

    def __call__(self, logits, labels, weight):
        ops = _ops()
        loss = ops.nll_loss(logits, labels, weight, self.ignore_index, self.reduction)
        picked = ops.gather(weight, ops.cast(labels, "int32"), 0)
        kept = ops.cast(ops.ne(labels, self.ignore_index), picked.dtype)
        return loss, ops.sum(ops.mul(picked, kept))
