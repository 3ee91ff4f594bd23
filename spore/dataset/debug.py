"""``mindspore.dataset.debug``: hooks of the debug mode (``config.set_debug_mode``)."""
from .engine.debug import DebugHook as DebugHook, PrintMetaDataHook as PrintMetaDataHook  # noqa
