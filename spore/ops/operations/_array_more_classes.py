"""Primitive classes of ``ops/_array_more.py`` and of a few reductions and searches
(``ops.InplaceAdd(indices)``, ``ops.DepthToSpace(block_size)``, ``ops.LowerBound()``,
``ops.LpNorm(axis, p)``, ``ops.Median(...)``, ``ops.IOU(mode)``, ...): each stores
MindSpore's attributes and forwards to the functional op."""
from __future__ import annotations

from ... import _dtype as D
from ..._tensor import Tensor
from . import Primitive, _forward, _ops

__all__ = []


def _export(cls):
    __all__.append(cls.__name__)
    return cls


for _cls, _op in {"Eps": "eps", "CheckValid": "check_valid"}.items():
    globals()[_cls] = _forward(_cls, _op)
    __all__.append(_cls)
del _cls, _op


class _Attrs(Primitive):
    """A class whose constructor keywords are stored as attributes (``_names``)."""
    _names = ()

    def __init__(self, *args, **kwargs):
        super().__init__()
        values = dict(zip(self._names, args), **kwargs)
        for name, default in self._defaults.items():
            values.setdefault(name, default)
        unknown = set(values) - set(self._names)
        if unknown or set(self._names) - set(values):
            raise TypeError(f"For '{type(self).__name__}', the arguments are "
                            f"{list(self._names)}, but got {sorted(values)}.")
        for name, value in values.items():
            setattr(self, name, value)
            self.add_prim_attr(name, value)

    _defaults = {}


@_export
class InplaceAdd(_Attrs):
    """``ops.inplace_add(x, v, indices)``."""
    _names = ("indices",)

    def __call__(self, x, v):
        return _ops().inplace_add(x, v, self.indices)


@_export
class InplaceSub(_Attrs):
    """``ops.inplace_sub(x, v, indices)``."""
    _names = ("indices",)

    def __call__(self, x, v):
        return _ops().inplace_sub(x, v, self.indices)


@_export
class InplaceUpdate(_Attrs):
    """``ops.inplace_update(x, v, indices)``."""
    _names = ("indices",)

    def __call__(self, x, v):
        return _ops().inplace_update(x, v, self.indices)


@_export
class InplaceUpdateV2(Primitive):
    """``ops.inplace_update(x, v, indices)`` with the indices an input."""

    def __call__(self, x, indices, v):
        return _ops().inplace_update(x, v, indices)


@_export
class InplaceIndexAdd(_Attrs):
    """``ops.inplace_index_add(var, indices, updates, axis)``."""
    _names = ("axis",)

    def __call__(self, var, indices, updates):
        return _ops().inplace_index_add(var, indices, updates, self.axis)


@_export
class DepthToSpace(_Attrs):
    """(N, C * b^2, H, W) to (N, C, H * b, W * b)."""
    _names = ("block_size",)

    def __call__(self, x):
        from .._array_more import depth_to_space
        return depth_to_space(x, self.block_size)


@_export
class SpaceToDepth(_Attrs):
    """(N, C, H, W) to (N, C * b^2, H / b, W / b)."""
    _names = ("block_size",)

    def __call__(self, x):
        from .._array_more import space_to_depth
        return space_to_depth(x, self.block_size)


@_export
class CumulativeLogsumexp(_Attrs):
    """``log(cumsum(exp(x)))`` along ``axis`` (``exclusive``, ``reverse``)."""
    _names = ("exclusive", "reverse")
    _defaults = {"exclusive": False, "reverse": False}

    def __call__(self, x, axis):
        from .._array_more import cumulative_logsumexp
        from .._utils import static_int
        return cumulative_logsumexp(x, static_int("CumulativeLogsumexp", "axis", axis),
                                    self.exclusive, self.reverse)


class _Bound(_Attrs):
    _names = ("out_type",)
    _defaults = {"out_type": D.int32}
    right = False

    def __call__(self, sorted_x, values):
        out = _ops().searchsorted(sorted_x, values, right=self.right)
        return out.astype(self.out_type)


@_export
class LowerBound(_Bound):
    """For each value, the first position of its row of ``sorted_x`` not less than it."""


@_export
class UpperBound(_Bound):
    """For each value, the first position of its row of ``sorted_x`` greater than it."""
    right = True


@_export
class SearchSorted(_Attrs):
    """``ops.searchsorted`` with the output dtype an attribute."""
    _names = ("dtype", "right")
    _defaults = {"dtype": D.int64, "right": False}

    def __call__(self, sorted_sequence, values):
        return _ops().searchsorted(sorted_sequence, values, right=self.right).astype(self.dtype)


@_export
class LpNorm(_Attrs):
    """``sum(|x|^p) ** (1/p)`` over ``axis`` (an int or a list)."""
    _names = ("axis", "p", "keep_dims", "epsilon")
    _defaults = {"p": 2, "keep_dims": False, "epsilon": 1e-12}

    def __call__(self, input):
        ops = _ops()
        axis = tuple(self.axis) if isinstance(self.axis, (list, tuple)) else (self.axis,)
        if self.p == 0:
            return (input != 0).astype(input.dtype).sum(axis, keepdims=self.keep_dims)
        total = (ops.abs(input) ** self.p).sum(axis, keepdims=self.keep_dims)
        return total ** (1.0 / self.p)


@_export
class EuclideanNorm(_Attrs):
    """``sqrt(sum(x^2))`` over the dimensions listed in ``axes``."""
    _names = ("keep_dims",)
    _defaults = {"keep_dims": False}

    def __call__(self, x, axes):
        from .._extra import _tensor, int_sequence
        from .._utils import normalize_dim
        x = _tensor("EuclideanNorm", "x", x)
        if isinstance(axes, Tensor):
            if axes.dtype.is_floating_point or axes.dtype.is_complex or axes.ndim > 1:
                raise TypeError(f"For 'EuclideanNorm', the 'axes' must be a 1-D integer "
                                f"tensor, but got {axes.dtype} of rank {axes.ndim}.")
            axes = axes.asnumpy().reshape(-1).tolist()
        axes = [axes] if isinstance(axes, int) and not isinstance(axes, bool) else \
            list(int_sequence("EuclideanNorm", "axes", axes))
        axes = tuple(normalize_dim("EuclideanNorm", a, x.ndim, "axes") for a in axes)
        return _ops().sqrt((x * x).sum(axes, keepdims=self.keep_dims))


@_export
class Median(_Attrs):
    """``(values, indices)`` of the lower median along ``axis`` (of everything with
    ``global_median``); ``ignore_nan`` skips NaN."""
    _names = ("global_median", "axis", "keep_dims", "ignore_nan")
    _defaults = {"global_median": False, "axis": 0, "keep_dims": False, "ignore_nan": False}

    def __call__(self, x):
        ops = _ops()
        if self.global_median:
            flat = x.reshape(-1)
            v, i = ops.nanmedian(flat, 0) if self.ignore_nan else ops.median(flat, 0)
            return v, i
        if self.ignore_nan:
            return ops.nanmedian(x, self.axis, self.keep_dims)
        return ops.median(x, self.axis, self.keep_dims)


@_export
class IdentityN(Primitive):
    """The list (or tuple) of tensors itself."""

    def __call__(self, x):
        if not isinstance(x, (list, tuple)):
            raise TypeError(f"For 'IdentityN', the input must be a list or tuple of Tensors, "
                            f"but got {type(x).__name__}.")
        return type(x)(x)


@_export
class ReverseSequence(_Attrs):
    """``ops.reverse_sequence(x, seq_lengths, seq_dim, batch_dim)``."""
    _names = ("seq_dim", "batch_dim")
    _defaults = {"batch_dim": 0}

    def __call__(self, x, seq_lengths):
        return _ops().reverse_sequence(x, seq_lengths, self.seq_dim, self.batch_dim)


@_export
class SpaceToBatchND(_Attrs):
    """``ops.space_to_batch_nd(x, block_shape, paddings)``."""
    _names = ("block_shape", "paddings")

    def __call__(self, x):
        return _ops().space_to_batch_nd(x, self.block_shape, self.paddings)


@_export
class BatchToSpaceND(_Attrs):
    """``ops.batch_to_space_nd(x, block_shape, crops)``."""
    _names = ("block_shape", "crops")

    def __call__(self, x):
        return _ops().batch_to_space_nd(x, self.block_shape, self.crops)


@_export
class IOU(_Attrs):
    """``ops.iou(anchor_boxes, gt_boxes, mode)``."""
    _names = ("mode",)
    _defaults = {"mode": "iou"}

    def __call__(self, anchor_boxes, gt_boxes):
        return _ops().iou(anchor_boxes, gt_boxes, self.mode)


@_export
class InTopK(_Attrs):
    """``ops.intopk(x1, x2, k)``."""
    _names = ("k",)

    def __call__(self, x1, x2):
        return _ops().intopk(x1, x2, self.k)


@_export
class BoundingBoxEncode(_Attrs):
    """``ops.bounding_box_encode(anchor_box, groundtruth_box, means, stds)``."""
    _names = ("means", "stds")
    _defaults = {"means": (0.0, 0.0, 0.0, 0.0), "stds": (1.0, 1.0, 1.0, 1.0)}

    def __call__(self, anchor_box, groundtruth_box):
        return _ops().bounding_box_encode(anchor_box, groundtruth_box, self.means, self.stds)


@_export
class BoundingBoxDecode(_Attrs):
    """``ops.bounding_box_decode(anchor_box, deltas, max_shape, ...)``."""
    _names = ("max_shape", "means", "stds", "wh_ratio_clip")
    _defaults = {"means": (0.0, 0.0, 0.0, 0.0), "stds": (1.0, 1.0, 1.0, 1.0),
                 "wh_ratio_clip": 0.016}

    def __call__(self, anchor_box, deltas):
        return _ops().bounding_box_decode(anchor_box, deltas, self.max_shape, self.means,
                                          self.stds, self.wh_ratio_clip)
