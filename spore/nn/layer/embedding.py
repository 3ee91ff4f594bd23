"""Embedding: a lookup table of (vocab_size, embedding_size) rows."""
from __future__ import annotations

from ... import ops
from ..._dtype import bool_, float32
from ..._parameter import Parameter
from ...common.initializer import initializer
from ..cell import Cell
from . import _checks as C

__all__ = ["Embedding"]


class Embedding(Cell):
    """Look up rows of ``embedding_table`` by integer ids.

    Args:
        vocab_size (int), embedding_size (int): table shape.
        use_one_hot (bool): compute as one_hot(ids) @ table instead of a gather. Default:
            ``False``.
        embedding_table: initializer of the table. Default: ``'normal'`` (N(0, 0.01)).
        dtype: dtype of the one-hot encoding (the table is float32). Default:
            ``mstype.float32``.
        padding_idx (int, None): a row set to zero at initialisation (its gradient is not
            masked, as in MindSpore). Default: ``None``.

    Inputs:
        - **ids** (Tensor) - int32/int64 of any shape.

    Outputs:
        Tensor of shape ``ids.shape + (embedding_size,)``.
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=float32, padding_idx=None):
        super().__init__()
        self.vocab_size = C.positive_int(vocab_size, "vocab_size", "Embedding")
        self.embedding_size = C.positive_int(embedding_size, "embedding_size", "Embedding")
        self.use_one_hot = C.boolean(use_one_hot, "use_one_hot", "Embedding")
        self.dtype = dtype
        table = initializer(embedding_table, [vocab_size, embedding_size])
        if padding_idx is not None:
            if isinstance(padding_idx, bool) or not isinstance(padding_idx, int) or \
                    not 0 <= padding_idx < vocab_size:
                raise ValueError(f"For 'Embedding', the 'padding_idx' must be in range of "
                                 f"[0, {vocab_size}), but got {padding_idx} with type "
                                 f"'{type(padding_idx).__name__}'.")
            table[padding_idx] = 0
        self.padding_idx = padding_idx
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        if ids.dtype.is_floating_point or ids.dtype == bool_:
            raise TypeError(f"For 'Embedding', the input ids must be an int32 or int64 tensor, but "
                            f"got {ids.dtype}.")
        table = self._cast_weight(self.embedding_table)
        flat = ops.reshape(ids, (-1,))
        if self.use_one_hot:
            one_hot = ops.one_hot(flat, self.vocab_size, ops.ones((), self.dtype),
                                  ops.zeros((), self.dtype))
            rows = ops.matmul(ops.cast(one_hot, table.dtype), table)
        else:
            rows = ops.gather(table, flat, 0)
        return ops.reshape(rows, tuple(ids.shape) + (self.embedding_size,))

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table}, "
                f"dtype={self.dtype}, padding_idx={self.padding_idx}")

