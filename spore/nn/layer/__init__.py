"""``mindspore.nn`` layers: containers, activations, dense/conv/pooling/normalisation,
embedding, dropout, recurrent and transformer layers."""
from . import (activation, basic, container, conv, embedding, math, normalization, padding,
               pooling, rnns, transformer)
from .activation import *      # noqa: F401,F403
from .basic import *           # noqa: F401,F403
from .container import *       # noqa: F401,F403
from .conv import *            # noqa: F401,F403
from .embedding import *       # noqa: F401,F403
from .math import *            # noqa: F401,F403
from .normalization import *   # noqa: F401,F403
from .padding import *         # noqa: F401,F403
from .pooling import *         # noqa: F401,F403
from .rnns import *            # noqa: F401,F403
from .transformer import *     # noqa: F401,F403

__all__ = (activation.__all__ + basic.__all__ + container.__all__ + conv.__all__
           + embedding.__all__ + math.__all__ + normalization.__all__ + padding.__all__
           + pooling.__all__ + rnns.__all__ + transformer.__all__)
