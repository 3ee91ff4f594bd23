"""Small MindSpore programs written once against a module argument ``ms``.

``generate_golden.py`` runs them on the reference MindSpore 2.10 and stores the results;
``test_golden.py`` runs the identical code on Spore (``import spore as ms``) and compares.
These modules must not import Spore or MindSpore: the framework is always the argument.

Every program is ``program(ms, seed) -> {name: numpy array}``. Weights and inputs come from
``numpy.random.default_rng(seed)`` only; random ops are never used (the two frameworks'
generators differ). Parameters are set in sorted-name order, so both frameworks receive the
same values as long as their parameter names agree (the names are returned too).
"""
from . import (prog_cell, prog_data_sources, prog_dataset, prog_experimental,  # noqa: F401
               prog_layers, prog_losses, prog_math, prog_ops, prog_training)
from ._helpers import PROGRAMS  # noqa: F401  (filled by the imports above)
