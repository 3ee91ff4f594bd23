"""``mindspore.dataset.utils``: ``LineReader``."""
from .line_reader import LineReader as LineReader  # noqa: F401
