"""``mindspore.ops.functional`` (often imported as ``F``): the functional ops."""
from . import _math, _reduce, _array, _linalg, _misc, _creation, _nn, _random

for _m in (_math, _reduce, _array, _linalg, _misc, _creation, _nn, _random):
    globals().update({k: getattr(_m, k) for k in _m.__all__})
del _m
