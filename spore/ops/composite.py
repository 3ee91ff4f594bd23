"""``mindspore.ops.composite`` (``C``): higher-order functions."""
from .._autodiff.api import (GradOperation as GradOperation, grad as grad,  # noqa: F401
                             value_and_grad as value_and_grad, vjp as vjp, jvp as jvp,
                             jacrev as jacrev, jacfwd as jacfwd)
from ._higher_order import (HyperMap as HyperMap, Map as Map,  # noqa: F401
                            MultitypeFuncGraph as MultitypeFuncGraph, partial as partial)
