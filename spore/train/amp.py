"""``mindspore.train.amp``: the module path of MindSpore's mixed-precision functions
(``from mindspore.train.amp import build_train_network``). Defined in :mod:`spore.amp`."""
from ..amp import (auto_mixed_precision, build_train_network, custom_mixed_precision,
                   get_black_list, get_white_list)

__all__ = ["auto_mixed_precision", "build_train_network", "custom_mixed_precision",
           "get_white_list", "get_black_list"]
