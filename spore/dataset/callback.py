"""``mindspore.dataset.callback``: callbacks of ``map`` (``DSCallback``,
``WaitedDSCallback``)."""
from .engine.ops_extra import (DSCallback as DSCallback,  # noqa: F401
                               WaitedDSCallback as WaitedDSCallback)
