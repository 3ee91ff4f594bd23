"""``OcclusionSensitivity``: how much a model's score for a label drops when each part of
the input is hidden (which regions its decision rests on)."""
from __future__ import annotations

import numpy as np

from .metric import Metric


class OcclusionSensitivity(Metric):
    """For every position of one input (batch of 1), the input with the window
    ``[position - margin, position + margin)`` along every non-batch axis set to
    ``pad_val`` is scored by the model; ``eval()`` gives the baseline score of ``label``
    minus each occluded score, shaped like the input (or the ``b_box`` region:
    ``[min1, max1, min2, max2, ...]``, inclusive, a negative max meaning the last index).
    Occluded inputs are scored ``n_batch`` at a time."""

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        if not isinstance(pad_val, float):
            raise TypeError(f"For 'OcclusionSensitivity', the 'pad_val' must be float, but got "
                            f"{type(pad_val).__name__}.")
        if isinstance(margin, bool) or not isinstance(margin, (int, list)):
            raise TypeError(f"For 'OcclusionSensitivity', the 'margin' must be int or list, but "
                            f"got {type(margin).__name__}.")
        if isinstance(n_batch, bool) or not isinstance(n_batch, int) or n_batch <= 0:
            raise TypeError(f"For 'OcclusionSensitivity', the 'n_batch' must be a positive int, "
                            f"but got {n_batch!r}.")
        if b_box is not None and not isinstance(b_box, list):
            raise TypeError(f"For 'OcclusionSensitivity', the 'b_box' must be a list, but got "
                            f"{type(b_box).__name__}.")
        self.pad_val, self.margin, self.n_batch, self.b_box = pad_val, margin, n_batch, b_box
        self.clear()

    def clear(self):
        self._baseline = 0.0
        self._scores = None

    def update(self, *inputs):
        from ...nn.cell import Cell
        from ..._tensor import Tensor
        if len(inputs) != 3:
            raise ValueError(f"For 'OcclusionSensitivity.update', it needs 3 inputs "
                             f"(classification model, predicted value, label), but got "
                             f"{len(inputs)}.")
        model = inputs[0]
        if not isinstance(model, Cell):
            raise TypeError(f"For 'OcclusionSensitivity.update', the 'model' must be a Cell, "
                            f"but got {type(model).__name__}.")
        image = self._convert_data(inputs[1])
        label = inputs[2] if isinstance(inputs[2], int) else self._convert_data(inputs[2])
        if image.shape[0] > 1:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the shape at index 0 of "
                               f"the predicted value (input[1]) must be 1, but got "
                               f"{image.shape[0]}.")
        if not isinstance(label, int) and np.prod(label.shape) != image.shape[0]:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the number of the label "
                               f"(input[2]) must be same as the batches, but got the label "
                               f"number {np.prod(label.shape)}, and batches {image.shape[0]}.")
        label = int(np.asarray(label).reshape(-1)[0])
        shape = np.array(image.shape[1:])
        low, high = self._box(shape)
        out_shape = tuple(high - low + 1)
        self._baseline = float(model(Tensor(image)).asnumpy()[0, label])
        margins = np.broadcast_to(np.asarray(self.margin), shape.shape)
        scores, batch = [], []
        positions = list(np.ndindex(*out_shape))
        for k, pos in enumerate(positions):
            centre = np.asarray(pos) + low
            lo = np.maximum(centre - margins, 0)
            hi = np.minimum(centre + margins, shape)
            occluded = image.copy()
            occluded[(slice(None),) + tuple(slice(a, b) for a, b in zip(lo, hi))] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch or k == len(positions) - 1:
                out = model(Tensor(np.concatenate(batch))).asnumpy()
                scores.append(out[:, label])
                batch = []
        self._scores = np.concatenate(scores).reshape(out_shape)

    def _box(self, shape):
        if self.b_box is None:
            return np.zeros(len(shape), int), shape - 1
        if len(self.b_box) != 2 * len(shape):
            raise ValueError(f"For 'OcclusionSensitivity', the length of 'b_box' must be twice "
                             f"the predicted value's rank without the batch axis ({len(shape)}), "
                             f"but got {len(self.b_box)}.")
        low = np.maximum(np.array(self.b_box[::2]), 0)
        high = np.array(self.b_box[1::2])
        high = np.where(high < 0, shape - 1, high)
        if np.any(high >= shape):
            raise ValueError("For 'OcclusionSensitivity', maximum bounding box must be smaller "
                             "than image size for all values.")
        if np.any(low > high):
            raise ValueError("For 'OcclusionSensitivity', minimum bounding box must be smaller "
                             "than maximum bounding box for all values.")
        return low, high

    def eval(self):
        if self._scores is None:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        return self._baseline - np.squeeze(self._scores)
