"""``mindspore.dataset.core``: the ``config`` module."""
from .. import config as config  # noqa: F401
