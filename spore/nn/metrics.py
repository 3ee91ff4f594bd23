"""``mindspore.nn.metrics``: the metrics' old module path (they live in
``spore.train.metrics``, as in MindSpore 2.x)."""
from ..train.metrics import *  # noqa: F401,F403
from ..train.metrics import __all__ as __all__  # noqa: F401
