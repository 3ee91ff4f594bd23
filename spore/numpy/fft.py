"""``mindspore.numpy.fft``: the Fourier transforms of ``spore.ops`` under NumPy's module
name (same functions, PyTorch-style arguments, as MindSpore's)."""
from ..ops._fft import (fft, ifft, rfft, irfft, hfft, ihfft, fft2, ifft2, rfft2, irfft2,  # noqa
                        hfft2, ihfft2, fftn, ifftn, rfftn, irfftn, hfftn, ihfftn, fftshift,
                        ifftshift, fftfreq, rfftfreq)

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
           "fftshift", "ifftshift", "fftfreq", "rfftfreq"]
