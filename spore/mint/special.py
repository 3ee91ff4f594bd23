"""``spore.mint.special`` (``mindspore.mint.special``): special functions."""
from .. import ops as _ops
from .. import _absent
from ..ops import erfc as erfc, exp2 as exp2, expm1 as expm1, log1p as log1p, sinc as sinc  # noqa


def round(input):
    """Round half to even."""
    return _ops.round(input)


def log_softmax(input, dim=None, *, dtype=None):
    """Log-softmax along ``dim``."""
    from .nn.functional import log_softmax as _log_softmax
    return _log_softmax(input, dim, dtype=dtype)


def __getattr__(name):
    return _absent.missing(__name__, name)
