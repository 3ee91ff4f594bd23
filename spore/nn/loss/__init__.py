"""``mindspore.nn`` loss cells."""
from . import loss, margin, regression, segmentation
from .loss import *            # noqa: F401,F403
from .margin import *          # noqa: F401,F403
from .regression import *      # noqa: F401,F403
from .segmentation import *    # noqa: F401,F403

__all__ = loss.__all__ + margin.__all__ + regression.__all__ + segmentation.__all__
