"""Neural-network functional ops (``mindspore.ops``): softmax, dropout, convolution,
pooling, normalisation, embedding, resizing and losses, with MindSpore 2.10's
signatures and defaults.

Which names are primitives: softmax/log_softmax, Conv2D, max/average pooling,
LayerNorm, NLLLoss, Dropout and the embedding lookup (``spore/_prims/nn``);
everything else here composes primitives.
"""
from . import activation, conv, loss, misc, norm, pool
from . import conv3d as conv3d_module  # the star import below rebinds `conv3d`
from . import pool3d as pool3d_module
from .activation import *  # noqa: F401,F403
from .conv import *        # noqa: F401,F403
from .conv import conv2d_ms as conv2d_ms  # noqa: F401  (ops.Conv2D, nn.Conv2d)
from .conv3d import *      # noqa: F401,F403
from .conv3d import conv3d_ms as conv3d_ms  # noqa: F401  (ops.Conv3D, nn.Conv3d)
from .pool3d import *      # noqa: F401,F403
from .loss import *        # noqa: F401,F403
from .misc import *        # noqa: F401,F403
from .norm import *        # noqa: F401,F403
from .pool import *        # noqa: F401,F403

__all__ = sorted(activation.__all__ + conv.__all__ + conv3d_module.__all__ + pool3d_module.__all__
                 + loss.__all__ + misc.__all__
                 + norm.__all__ + pool.__all__)
