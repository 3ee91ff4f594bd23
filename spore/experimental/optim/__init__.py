"""mindspore.experimental.optim: PyTorch-style optimizers and learning-rate schedulers.

NOTE: [Experimental optimizers] in ``optimizer.py`` describes the design.
"""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "AdamW", "SGD", "Adam", "Adadelta", "Adagrad", "ASGD", "Adamax",
           "RMSprop", "Rprop", "RAdam", "NAdam"]
