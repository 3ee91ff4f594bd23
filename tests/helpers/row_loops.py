"""Spying on the compiled row loops (spore/_prims/vecmath.py, softmax.py)."""
import numpy as np


def recording(monkeypatch, loop, n_arrays):
    """Record the size of the first block of every call of the compiled ``loop``, a
    row loop over ``n_arrays`` float32 ``(rows, n)`` arrays."""
    blocks = [np.ones((1, 8), np.float32) for _ in range(n_arrays)]
    loop(*blocks)                                       # loaded: _compiled is set
    calls, real = [], loop._compiled

    def spy(*blocks):
        calls.append(blocks[0].size)
        return real(*blocks)
    monkeypatch.setattr(loop, "_compiled", spy)
    return calls
