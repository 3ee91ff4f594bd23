"""``nn.EmbeddingLookup`` and ``nn.MultiFieldEmbeddingLookup``: MindSpore's embedding
tables for recommendation models. Their ``target``, ``slice_mode`` and ``sparse`` choose
where the lookup runs and how a table is sharded across devices; on Spore's CPU they are
checked and recorded, and the lookup is one gather (a dense gradient)."""
from __future__ import annotations

import numpy as np

from ... import ops
from ..._dtype import float32
from ..._parameter import Parameter
from ...common.initializer import initializer
from ..cell import Cell
from . import _checks as C

__all__ = ["EmbeddingLookup", "MultiFieldEmbeddingLookup"]

_TARGETS = ("CPU", "DEVICE")
_SLICE_MODES = ("field_slice", "table_row_slice", "table_column_slice", "batch_slice")


class EmbeddingLookup(Cell):
    """Rows of ``embedding_table`` (vocab_size, embedding_size) for integer ids; with
    ``max_norm``, a row whose L2 norm exceeds it is scaled down to it."""

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", manual_shapes=None, max_norm=None, sparse=True,
                 dtype=float32):
        super().__init__()
        owner = type(self).__name__
        self.vocab_size = C.positive_int(vocab_size, "vocab_size", owner)
        self.embedding_size = C.positive_int(embedding_size, "embedding_size", owner)
        if target not in _TARGETS:
            raise ValueError(f"For '{owner}', the 'target' must be one of {list(_TARGETS)}, "
                             f"but got {target!r}.")
        if slice_mode not in _SLICE_MODES:
            raise ValueError(f"For '{owner}', the 'slice_mode' must be one of "
                             f"{list(_SLICE_MODES)}, but got {slice_mode!r}.")
        if target == "CPU" and not sparse:
            raise ValueError(f"For '{owner}', 'sparse' must be True when 'target' is 'CPU'.")
        if max_norm is not None and (isinstance(max_norm, bool) or
                                     not isinstance(max_norm, (int, float)) or max_norm <= 0):
            raise ValueError(f"For '{owner}', the 'max_norm' must be a positive float or None, "
                             f"but got {max_norm!r}.")
        self.target, self.slice_mode, self.sparse = target, slice_mode, bool(sparse)
        self.manual_shapes = manual_shapes
        self.max_norm = max_norm
        self.dtype = dtype
        self.embedding_table = Parameter(initializer(param_init, [vocab_size, embedding_size],
                                                     dtype), name="embedding_table")

    def _rows(self, ids):
        flat = ops.reshape(ids, (-1,))
        rows = ops.gather(self.embedding_table, flat, 0)
        if self.max_norm is not None:
            norm = ops.sqrt((rows * rows).sum(-1, keepdims=True))
            rows = rows * ops.minimum(self.max_norm / ops.maximum(norm, 1e-12), 1.0)
        return ops.reshape(rows, tuple(ids.shape) + (self.embedding_size,))

    def construct(self, indices):
        return self._rows(indices)

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"target={self.target}, slice_mode={self.slice_mode}")


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """For each row of a batch, the embeddings of ``input_indices`` times
    ``input_values``, combined per field id (``field_ids``) by ``operator`` (``'SUM'``,
    ``'MEAN'`` — the sum over the field's summed absolute values — or ``'MAX'``); entries
    of value 0 are padding, and a field without others is zeros. Output: (batch,
    field_size, embedding_size)."""

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal",
                 target="CPU", slice_mode="batch_slice", feature_num_list=None, max_norm=None,
                 sparse=True, operator="SUM", dtype=float32):
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, None,
                         max_norm, sparse, dtype)
        self.field_size = C.positive_int(field_size, "field_size", type(self).__name__)
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', the 'operator' must be one of "
                             f"['SUM', 'MAX', 'MEAN'], but got {operator!r}.")
        self.operator = operator
        self.feature_num_list = feature_num_list

    def construct(self, input_indices, input_values, field_ids):
        for name, t in (("input_indices", input_indices), ("input_values", input_values),
                        ("field_ids", field_ids)):
            if t.ndim != 2:
                raise ValueError(f"For 'MultiFieldEmbeddingLookup', the '{name}' must be 2-D "
                                 f"(batch, seq_length), but got {t.ndim}-D.")
        weighted = self._rows(input_indices) * input_values.astype(float32)[..., None]
        fields = ops.one_hot(field_ids.astype(np.int32), self.field_size,
                             ops.ones((), float32), ops.zeros((), float32))   # (B, L, F)
        active = fields * (input_values != 0).astype(float32)[..., None]
        by_field = active.swapaxes(1, 2)                                        # (B, F, L)
        if self.operator == "MAX":
            chosen = by_field[..., None] > 0                                    # (B, F, L, 1)
            expanded = ops.broadcast_to(weighted[:, None], chosen.shape[:3] + (
                self.embedding_size,))
            best = ops.where(chosen, expanded, ops.full_like(expanded, -np.inf)).max(axis=2)
            present = chosen.any(axis=2)
            return ops.where(present, best, ops.zeros_like(best))
        out = ops.matmul(by_field, weighted)                                    # (B, F, E)
        if self.operator == "MEAN":
            weight = ops.matmul(by_field, ops.abs(input_values.astype(float32))[..., None])
            out = out / ops.where(weight == 0, ops.ones_like(weight), weight)
        return out
