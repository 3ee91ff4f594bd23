"""``mindspore.train.loss_scale_manager``: the module path older MindSpore programs import
the loss-scale managers from. They are defined in :mod:`spore.amp`."""
from ..amp import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]
