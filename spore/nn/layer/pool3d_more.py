"""nn.AdaptiveMaxPool3d: adaptive 3-D max pooling over ``ops.adaptive_max_pool3d``."""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["AdaptiveMaxPool3d"]


class AdaptiveMaxPool3d(Cell):
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) inputs to a fixed (D_out, H_out,
    W_out).

    Args:
        output_size (int, tuple): one size for the three axes, or three (None keeps one).
        return_indices (bool): also return the flat (D*H*W) Int32 index of each maximum.
            Default ``False``.
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        if not isinstance(return_indices, bool):
            raise TypeError(f"For 'AdaptiveMaxPool3d', the 'return_indices' must be a bool, "
                            f"but got {type(return_indices).__name__}.")
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, input):
        return ops.adaptive_max_pool3d(input, self.output_size, self.return_indices)
