"""``spore.train`` (``mindspore.train``): Model, callbacks, metrics and checkpoints."""
from .serialization import (save_checkpoint as save_checkpoint,  # noqa: F401
                            load_checkpoint as load_checkpoint,
                            load_checkpoint_async as load_checkpoint_async,
                            load_param_into_net as load_param_into_net,
                            ckpt_to_safetensors as ckpt_to_safetensors,
                            safetensors_to_ckpt as safetensors_to_ckpt)
from .metrics import *  # noqa: F401,F403,E402
from .callback import *  # noqa: F401,F403,E402
from . import callback as callback  # noqa: E402
from . import metrics as metrics  # noqa: E402
