"""nn.AdamW: PyTorch-style AdamW, the same class as ``mindspore.experimental.optim.AdamW``
(MindSpore 2.10 has no ``nn.AdamW``; Spore keeps the name as an extension)."""
from __future__ import annotations

from ...experimental.optim.adamw import AdamW

__all__ = ["AdamW"]
