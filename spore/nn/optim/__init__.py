"""``spore.nn`` optimizers (``mindspore.nn.optim``): the Optimizer base and its family.

Momentum, SGD and Adam update through fused in-place primitives (see
``_updates.py``); the others are composites of public ops and ``ops.assign``.
"""
from .optimizer import Optimizer as Optimizer
from .sgd import SGD as SGD
from .momentum import Momentum as Momentum
from .adam import Adam as Adam, AdamWeightDecay as AdamWeightDecay
from .adamw import AdamW as AdamW
from .rmsprop import RMSProp as RMSProp
from .adagrad import Adagrad as Adagrad
from .lamb import Lamb as Lamb
from .ftrl import FTRL as FTRL
from .adadelta import Adadelta as Adadelta, AdaMax as AdaMax
from .asgd import ASGD as ASGD, Rprop as Rprop
from .proximal_adagrad import LazyAdam as LazyAdam, ProximalAdagrad as ProximalAdagrad
from .lars import LARS as LARS
from .adafactor import AdaFactor as AdaFactor

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "AdamW", "RMSProp",
           "Adagrad", "Lamb", "FTRL", "Adadelta", "AdaMax", "ASGD", "Rprop", "LazyAdam",
           "ProximalAdagrad", "LARS", "AdaFactor"]
