"""nn.MSSSIM: multi-scale structural similarity (Wang, Simoncelli and Bovik, 2004)."""
from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import ops
from ..._tensor import Tensor
from ..cell import Cell

__all__ = ["MSSSIM"]


def _window(size, sigma):
    """MindSpore's Gaussian window: offsets ``(-size)//2 + 1 ... size//2`` per axis."""
    offsets = np.arange(size, dtype=np.float64) + ((-size) // 2 + 1)
    g = np.exp(-(offsets[:, None] ** 2 + offsets[None, :] ** 2) / (2 * sigma ** 2))
    return (g / g.sum()).astype(np.float32)


class MSSSIM(Cell):
    r"""Multi-scale SSIM of each image pair of (N, C, H, W) batches: at each of
    ``len(power_factors)`` scales (2x2 average pooling between them) the per-channel
    contrast-structure term ``cs`` (and at the last scale the full SSIM), each a mean over
    positions under a ``filter_size`` Gaussian window (no padding); the result
    ``prod_i relu(cs_i)^{p_i} * relu(ssim)^{p_last}`` averaged over channels (N values).
    Integer images are scaled by their dtype's maximum first.

    Args:
        max_val (float): the dynamic range. Default ``1.0``.
        power_factors (tuple): the scale weights. Default ``(0.0448, 0.2856, 0.3001,
            0.2363, 0.1333)``.
        filter_size (int): Default ``11``. filter_sigma (float): Default ``1.5``.
        k1, k2 (float): Defaults ``0.01``, ``0.03``.
    """

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                 filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        name = "MSSSIM"
        if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
            raise TypeError(f"For '{name}', the 'max_val' must be an int or float, but got "
                            f"{type(max_val).__name__}.")
        if max_val <= 0:
            raise ValueError(f"For '{name}', the 'max_val' must be > 0, but got {max_val}.")
        if not isinstance(power_factors, (tuple, list)) or not power_factors:
            raise TypeError(f"For '{name}', the 'power_factors' must be a non-empty tuple or "
                            f"list, but got {power_factors!r}.")
        if isinstance(filter_size, bool) or not isinstance(filter_size, int) or filter_size < 1:
            raise ValueError(f"For '{name}', the 'filter_size' must be an int >= 1, but got "
                             f"{filter_size!r}.")
        if not isinstance(filter_sigma, float) or filter_sigma <= 0:
            raise ValueError(f"For '{name}', the 'filter_sigma' must be a positive float, but "
                             f"got {filter_sigma!r}.")
        for arg, v in (("k1", k1), ("k2", k2)):
            if not isinstance(v, float):
                raise TypeError(f"For '{name}', the '{arg}' must be a float, but got "
                                f"{type(v).__name__}.")
        self.max_val, self.k1, self.k2 = float(max_val), k1, k2
        self.power_factors = tuple(float(p) for p in power_factors)
        self.filter_size, self.filter_sigma = filter_size, filter_sigma
        self._window = _window(filter_size, filter_sigma)

    def _stats(self, a, b, c1, c2):
        """(N, C) means of the SSIM map and of its contrast-structure part."""
        c = a.shape[1]
        weight = Tensor(np.broadcast_to(self._window, (c, 1) + self._window.shape).copy())

        def blur(t):
            return ops.conv2d(t, weight, None, 1, "valid", 0, 1, c)
        mu1, mu2 = blur(a), blur(b)
        mu11, mu22, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
        v1 = 2 * (blur(a * b) - mu12) + c2
        v2 = (blur(a * a) - mu11) + (blur(b * b) - mu22) + c2
        cs = v1 / v2
        ssim = (2 * mu12 + c1) / (mu11 + mu22 + c1) * cs
        return ssim.mean((2, 3)), cs.mean((2, 3))

    def construct(self, img1, img2):
        name = "MSSSIM"
        for arg, img in (("img1", img1), ("img2", img2)):
            if not isinstance(img, Tensor) or img.ndim != 4:
                raise ValueError(f"For '{name}', the '{arg}' must be a 4-D (N, C, H, W) "
                                 f"Tensor.")
        if img1.shape != img2.shape or img1.dtype != img2.dtype:
            raise TypeError(f"For '{name}', 'img1' and 'img2' must have one shape and dtype, "
                            f"but got {img1.shape} {img1.dtype} and {img2.shape} {img2.dtype}.")
        scale = 1.0
        if not img1.dtype.is_floating_point:
            scale = float(np.iinfo(img1.dtype.np).max)
        a, b = img1.astype(D.float32), img2.astype(D.float32)
        max_val = self.max_val
        if scale > 1:
            a, b, max_val = a / scale, b / scale, max_val / scale
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        terms = []
        for level in range(len(self.power_factors)):
            ssim, cs = self._stats(a, b, c1, c2)
            if level < len(self.power_factors) - 1:
                terms.append(ops.relu(cs))
                a, b = ops.avg_pool2d(a, 2, 2), ops.avg_pool2d(b, 2, 2)
        terms.append(ops.relu(ssim))
        stacked = ops.stack(terms, -1)
        powered = ops.pow(stacked, Tensor(np.array(self.power_factors, np.float32)))
        return ops.prod(powered, -1).mean(-1)
