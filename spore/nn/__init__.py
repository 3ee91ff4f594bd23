"""``spore.nn`` (``mindspore.nn``): Cell, layers, losses, optimizers and wrappers."""
from .cell import Cell as Cell
from .graph_cell import GraphCell as GraphCell
from .layer.sparse import (SparseToDense as SparseToDense,  # noqa: F401
                           SparseTensorDenseMatmul as SparseTensorDenseMatmul)
from .._parameter import Parameter as Parameter, ParameterTuple as ParameterTuple
from .layer import *                   # noqa: F401,F403
from .loss import *                    # noqa: F401,F403
from .optim import *                   # noqa: F401,F403
from .wrap import *                    # noqa: F401,F403
from .learning_rate_schedule import *  # noqa: F401,F403
from .dynamic_lr import *              # noqa: F401,F403
from ..train.metrics import *          # noqa: F401,F403,E402  (MindSpore exposes metrics in nn too)
from .layer.more_layers import *       # noqa: F401,F403,E402
from .layer.embedding_lookup import (EmbeddingLookup as EmbeddingLookup,  # noqa: E402
                                     MultiFieldEmbeddingLookup as MultiFieldEmbeddingLookup)
from .optim.adam import AdamOffload as AdamOffload  # noqa: E402
from .utils import no_init_parameters as no_init_parameters  # noqa: E402
from . import utils as utils  # noqa: E402
from .layer.pool3d_more import *       # noqa: F401,F403,E402
from .layer.msssim import *            # noqa: F401,F403,E402
from .layer.special import *           # noqa: F401,F403,E402
from .layer.fractional_pool import *   # noqa: F401,F403,E402
from .loss.sampled import *            # noqa: F401,F403,E402
from .layer.extra import (Dropout3d, MatDet, MatInverse, MatrixDiag, MatrixDiagPart,  # noqa
                          MatrixSetDiag, ReduceLogSumExp, DiGamma, LGamma, CentralCrop,
                          ImageGradients, TimeDistributed)


def __getattr__(name):
    """MindSpore names Spore leaves out on purpose raise NotImplementedError saying why
    (spore/_absent.py)."""
    import importlib
    from .layer import extra
    if name in extra.__all__:
        return getattr(extra, name)        # the *Ext layers are mint.nn's, looked up on use
    if name in ("metrics", "grad", "sparse", "probability"):     # MindSpore's module paths
        return importlib.import_module(f"{__name__}.{name}")
    if name in ("Jvp", "Vjp"):
        return getattr(importlib.import_module(f"{__name__}.grad"), name)
    from .. import _absent
    return _absent.missing(__name__, name)
