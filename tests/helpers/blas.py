"""NumPy's OpenBLAS thread count, for tests that compare results across thread counts."""
import ctypes

from spore._core.backend import _numpy_blas


def blas_threads():
    """(set, get) of the number of threads of NumPy's OpenBLAS, or None."""
    lib = _numpy_blas()
    if lib is None:
        return None
    for suffix in ("64_", ""):
        setn = getattr(lib, f"scipy_openblas_set_num_threads{suffix}", None) or \
            getattr(lib, f"openblas_set_num_threads{suffix}", None)
        getn = getattr(lib, f"scipy_openblas_get_num_threads{suffix}", None) or \
            getattr(lib, f"openblas_get_num_threads{suffix}", None)
        if setn is not None and getn is not None:
            setn.argtypes, getn.restype = (ctypes.c_int,), ctypes.c_int
            return setn, getn
    return None
