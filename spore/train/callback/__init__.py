"""Callbacks (``mindspore.train.callback``): hooks run by ``Model`` during train/eval."""
from ._callback import (Callback as Callback, RunContext as RunContext,  # noqa: F401
                        CallbackManager as _CallbackManager,
                        InternalCallbackParam as _InternalCallbackParam)
from ._monitors import LossMonitor as LossMonitor, TimeMonitor as TimeMonitor
from ._checkpoint import (CheckpointConfig as CheckpointConfig,  # noqa: F401
                          ModelCheckpoint as ModelCheckpoint,
                          CheckpointManager as _CheckpointManager)
from ._history import History as History, LambdaCallback as LambdaCallback
from ._early_stop import EarlyStopping as EarlyStopping, ReduceLROnPlateau as ReduceLROnPlateau
from ._lr_scheduler import LearningRateScheduler as LearningRateScheduler
from ._progress import ProgressBar as ProgressBar
from ._backup import BackupAndRestore as BackupAndRestore
from ._on_request_exit import OnRequestExit as OnRequestExit

__all__ = ["Callback", "RunContext", "LossMonitor", "TimeMonitor", "CheckpointConfig",
           "ModelCheckpoint", "History", "LambdaCallback", "EarlyStopping", "ReduceLROnPlateau",
           "LearningRateScheduler", "ProgressBar", "BackupAndRestore", "OnRequestExit"]
