"""``spore.nn`` wrapper cells: loss, training step, loss scaling, evaluation."""
from .cell_wrapper import (WithLossCell as WithLossCell, WithEvalCell as WithEvalCell,
                           WithGradCell as WithGradCell, TrainOneStepCell as TrainOneStepCell,
                           ForwardValueAndGrad as ForwardValueAndGrad,
                           ParameterUpdate as ParameterUpdate)
from .grad_reducer import DistributedGradReducer as DistributedGradReducer
from .loss_scale import (TrainOneStepWithLossScaleCell as TrainOneStepWithLossScaleCell,
                         DynamicLossScaleUpdateCell as DynamicLossScaleUpdateCell,
                         FixedLossScaleUpdateCell as FixedLossScaleUpdateCell)

__all__ = ["WithLossCell", "WithEvalCell", "WithGradCell", "TrainOneStepCell",
           "ForwardValueAndGrad", "ParameterUpdate", "TrainOneStepWithLossScaleCell",
           "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "DistributedGradReducer"]
