"""``ms.JitConfig``: the compile options a Cell carries (``Cell.set_jit_config``)."""
from __future__ import annotations

_LEVELS = ("", "O0", "O1", "O2")


class JitConfig:
    """Options for compiling a Cell: ``jit_level`` ("O0" plain graph, "O1" with fusion),
    ``exc_mode``, ``jit_syntax_level``, ``debug_level``, ``infer_boost``; other keyword
    options are kept in ``jit_config_dict``.

    Examples:
        >>> import spore as ms
        >>> ms.JitConfig(jit_level="O0").jit_level
        'O0'
    """

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
                 infer_boost="off", **kwargs):
        if jit_level not in _LEVELS:
            raise ValueError(f"For 'jit_level' must be one of ['O0', 'O1', 'O2'], but got "
                             f"{jit_level!r}.")
        if exc_mode not in ("auto", "sink", "no_sink"):
            raise ValueError(f"For 'exc_mode' must be one of ['auto', 'sink', 'no_sink'], but "
                             f"got {exc_mode!r}.")
        if infer_boost not in ("on", "off"):
            raise ValueError(f"For 'infer_boost' must be one of ['on', 'off'], but got "
                             f"{infer_boost!r}.")
        self.jit_level = jit_level
        self.exc_mode = exc_mode
        self.jit_syntax_level = jit_syntax_level
        self.debug_level = debug_level
        self.infer_boost = infer_boost
        self.jit_config_dict = dict(jit_level=jit_level, exc_mode=exc_mode,
                                    jit_syntax_level=jit_syntax_level, debug_level=debug_level,
                                    infer_boost=infer_boost, **kwargs)

    def __repr__(self):
        return f"JitConfig({self.jit_config_dict})"
