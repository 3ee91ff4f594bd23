"""nn.FractionalMaxPool2d / nn.FractionalMaxPool3d over ``ops.fractional_max_pool2d``/``3d``."""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


class _FractionalMaxPool(Cell):
    _fn = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"For '{name}', 'output_size' and 'output_ratio' can not be None "
                             f"at the same time.")
        if not isinstance(return_indices, bool):
            raise TypeError(f"For '{name}', the 'return_indices' must be a bool, but got "
                            f"{type(return_indices).__name__}.")
        self.kernel_size, self.output_size = kernel_size, output_size
        self.output_ratio, self.return_indices = output_ratio, return_indices
        self._random_samples = _random_samples

    def construct(self, input):
        return type(self)._fn(input, self.kernel_size, self.output_size, self.output_ratio,
                              self.return_indices, self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """Fractional max pooling of (N, C, H, W) or (C, H, W) inputs (Graham 2014): windows of
    ``kernel_size`` at pseudo-random starts giving ``output_size`` or ``output_ratio`` of
    the input; ``return_indices`` adds the flat H*W indices. See
    ``ops.fractional_max_pool2d``."""
    _fn = staticmethod(ops.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPool):
    """3-D fractional max pooling of (N, C, D, H, W) or (C, D, H, W) inputs; see
    ``ops.fractional_max_pool3d``."""
    _fn = staticmethod(ops.fractional_max_pool3d)
