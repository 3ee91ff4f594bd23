"""``mindspore.boost``: MindSpore's training accelerations (``Model(boost_level=...)``):
less-BN heads, gradient freezing, gradient accumulation, grouped optimizers, the
dimension-reduction step
(see docs/boost.md)."""
from .base import OptimizerProcess, ParameterProcess
from .boost import AutoBoost
from .dim_reduce import DimReduce
from .boost_cell_wrapper import BoostTrainOneStepCell, BoostTrainOneStepWithLossScaleCell
from .grad_accumulation import GradientAccumulation
from .grad_freeze import FreezeOpt, GradientFreeze, freeze_cell
from .less_batch_normalization import LessBN

__all__ = ["AutoBoost", "OptimizerProcess", "ParameterProcess", "BoostTrainOneStepCell",
           "BoostTrainOneStepWithLossScaleCell", "LessBN", "GradientFreeze", "FreezeOpt",
           "freeze_cell", "GradientAccumulation", "DimReduce"]
