"""``spore.mint.optim`` (``mindspore.mint.optim``): PyTorch-style optimizers.

They are ``spore.experimental.optim``'s classes (the same signatures, update rules and
``param_groups``); ``FusedAdamW`` is ``AdamW`` (fusing its kernels is an Ascend concern;
the numbers are the same).
"""
from .. import _absent
from ..experimental.optim import Adam as Adam, AdamW as AdamW, SGD as SGD  # noqa: F401
from ..experimental.optim import adam as adam, adamw as adamw, sgd as sgd  # noqa: F401

FusedAdamW = AdamW
fused_adamw = adamw          # the module defining FusedAdamW


def __getattr__(name):
    return _absent.missing(__name__, name)
