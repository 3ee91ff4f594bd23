"""``spore.train`` (``mindspore.train``): Model, callbacks, metrics and checkpoints."""
from .serialization import (save_checkpoint as save_checkpoint,  # noqa: F401
                            async_ckpt_thread_status as async_ckpt_thread_status,
                            load_checkpoint as load_checkpoint,
                            load_checkpoint_async as load_checkpoint_async,
                            load_param_into_net as load_param_into_net,
                            ckpt_to_safetensors as ckpt_to_safetensors,
                            safetensors_to_ckpt as safetensors_to_ckpt)
from .metrics import *  # noqa: F401,F403,E402
from .callback import *  # noqa: F401,F403,E402
from . import callback as callback  # noqa: E402
from . import metrics as metrics  # noqa: E402
from .dataset_helper import (DatasetHelper as DatasetHelper,  # noqa: E402
                             connect_network_with_dataset as connect_network_with_dataset)
from .model import Model as Model  # noqa: E402
from .mindir import export as export, load as load  # noqa: E402
from .callback import __all__ as _callback_names  # noqa: E402
from .metrics import __all__ as _metric_names  # noqa: E402

__all__ = ["Model", "DatasetHelper", "connect_network_with_dataset", "save_checkpoint",
           "load_checkpoint", "load_checkpoint_async", "load_param_into_net",
           "ckpt_to_safetensors", "safetensors_to_ckpt", "build_train_network", "export", "load",
           "async_ckpt_thread_status",
           "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager",
           *_callback_names, *_metric_names]

# Names MindSpore also offers here but defines elsewhere (wrapper cells in ``nn``, loss
# scaling in ``amp``); looked up on use so this package does not import them eagerly.
_ALIASES = {"TrainOneStepCell": "nn", "build_train_network": "amp",
            "LossScaleManager": "amp", "FixedLossScaleManager": "amp",
            "DynamicLossScaleManager": "amp"}


def __getattr__(name):
    import importlib
    if name in _ALIASES:
        return getattr(importlib.import_module(f"spore.{_ALIASES[name]}"), name)
    if name in ("amp", "loss_scale_manager"):          # MindSpore's module paths
        return importlib.import_module(f"{__name__}.{name}")
    from .. import _absent
    return _absent.missing(__name__, name)
