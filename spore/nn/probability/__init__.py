"""``spore.nn.probability`` (``mindspore.nn.probability``): probability distributions and
bijectors as Cells (NOTE: [Distributions] in distribution.py)."""
from . import bijector as bijector, distribution as distribution

__all__ = ["bijector", "distribution"]
