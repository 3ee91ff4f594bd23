"""``mindspore.nn.utils``: ``no_init_parameters``."""
from __future__ import annotations

from contextlib import contextmanager

__all__ = ["no_init_parameters"]


@contextmanager
def no_init_parameters():
    """MindSpore defers the initialisation of Parameters created inside this context until
    their data is first read or a checkpoint replaces it, to save device memory. Spore
    initialises them at once: the values are the same (a checkpoint loaded afterwards
    replaces them as usual), only the memory is spent earlier."""
    yield
