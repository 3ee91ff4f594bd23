"""``spore.multiprocessing`` (``mindspore.multiprocessing``): the standard
``multiprocessing`` module under MindSpore's name.

MindSpore wraps ``Process`` and ``Pool`` to reset its runtime in a forked child. Spore
does that for every fork, however it is started (an at-fork hook forgets the parent's
thread pool: spore/_core/threads.py), so the standard classes serve as they are.
Tensors and Parameters pass through queues and pipes by value, as their arrays.
"""
from multiprocessing import *  # noqa: F401,F403
from multiprocessing import __all__ as _names

__all__ = list(_names)
