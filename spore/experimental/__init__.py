"""mindspore.experimental: APIs MindSpore marks experimental (``optim``)."""
from . import optim

__all__ = ["optim"]
