"""Where MindSpore exposes the training names, Spore does too."""
import pytest

import spore as ms
from spore import amp, nn, train

# names of mindspore.train (2.10) that Spore implements; each is also mindspore.<name>
TRAIN_NAMES = ["Model", "DatasetHelper", "connect_network_with_dataset", "save_checkpoint",
               "load_checkpoint", "load_checkpoint_async", "load_param_into_net",
               "ckpt_to_safetensors", "safetensors_to_ckpt", "build_train_network",
               "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "Callback",
               "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
               "History", "LambdaCallback", "EarlyStopping", "ReduceLROnPlateau",
               "LearningRateScheduler", "Metric", "rearrange_inputs", "get_metric_fn", "names",
               "Accuracy", "Precision", "Recall", "Fbeta", "F1", "MAE", "MSE", "Loss",
               "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
               "ConfusionMatrix"]


@pytest.mark.parametrize("name", TRAIN_NAMES)
def test_train_names_are_top_level_too(name):
    assert getattr(ms, name) is getattr(train, name)


def test_aliases_of_other_packages():
    assert train.TrainOneStepCell is nn.TrainOneStepCell     # a seed program uses train.X
    from spore.train import TrainOneStepCell, FixedLossScaleManager
    assert TrainOneStepCell is nn.TrainOneStepCell
    assert FixedLossScaleManager is amp.FixedLossScaleManager
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        train.Nope
