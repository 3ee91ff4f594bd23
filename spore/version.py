"""``mindspore.version``: the version string (Spore's own)."""
__version__ = "0.1.0"
