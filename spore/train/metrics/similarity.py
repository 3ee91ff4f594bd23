"""Dice coefficient and cosine-similarity matrices (MindSpore's ``Dice``,
``CosineSimilarity``)."""
from __future__ import annotations

import numpy as np

from .metric import Metric, check_input_count, rearrange_inputs


class Dice(Metric):
    r"""Dice coefficient :math:`2|A \cap B| / (|A|^2 + |B|^2 + smooth)` between predictions
    and targets.

    As in MindSpore, each ``update`` computes one coefficient over its whole batch, and
    ``eval`` returns the sum of these coefficients divided by the number of samples seen.

    Args:
        smooth (float): > 0, added to the denominator. Default: ``1e-5``.
    """

    def __init__(self, smooth=1e-5):
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, float):
            raise TypeError(f"For 'Dice', the type of 'smooth' should be 'float', but got "
                            f"'{type(smooth).__name__}'.")
        if smooth <= 0:
            raise ValueError(f"For 'Dice', the 'smooth' must be positive float, but got {smooth}.")
        self.smooth = smooth
        self.clear()

    def clear(self):
        self._dice_coeff_sum = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        check_input_count("Dice", inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self._samples_num += y.shape[0]
        if y_pred.shape != y.shape:
            raise ValueError(f"For 'Dice.update', predicted value (input[0]) and true value "
                             f"(input[1]) should have same shape, but got predicted value shape: "
                             f"{y_pred.shape}, true value shape: {y.shape}.")
        p, t = y_pred.reshape(-1), y.reshape(-1)
        overlap = float(np.dot(p, t))
        total = float(np.dot(p, p) + np.dot(t, t))
        self._dice_coeff_sum += 2 * overlap / (total + self.smooth)

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError("The 'Dice coefficient' can not be calculated, because the number "
                               "of samples is 0, please check whether your inputs(predicted "
                               "value, true value) are empty, or has called update method before "
                               "calling eval method.")
        return self._dice_coeff_sum / float(self._samples_num)


def _choice(value, arg, choices):
    if not isinstance(value, str):
        raise TypeError(f"For 'CosineSimilarity', the type of '{arg}' should be 'str', but got "
                        f"'{type(value).__name__}'.")
    if value not in choices:
        raise ValueError(f"For 'CosineSimilarity', the '{arg}' should be in {choices}, but got "
                         f"{value}.")
    return value


class CosineSimilarity(Metric):
    """The (N, N) similarity matrix of the rows of one (N, D) input: ``'cosine'`` (rows
    normalised to unit length) or ``'dot'``; the diagonal zeroed by default; reduced over
    the last axis with ``'sum'`` / ``'mean'``. Each ``update`` replaces the matrix.

    Args:
        similarity (str): ``'cosine'`` or ``'dot'``. Default: ``'cosine'``.
        reduction (str): ``'none'``, ``'sum'`` or ``'mean'``. Default: ``'none'``.
        zero_diagonal (bool): Default: ``True``.
    """

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        self.similarity = _choice(similarity, "similarity", ["dot", "cosine"])
        self.reduction = _choice(reduction, "reduction", ["none", "sum", "mean"])
        if not isinstance(zero_diagonal, bool):
            raise TypeError(f"For 'CosineSimilarity', the type of 'zero_diagonal' should be "
                            f"'bool', but got '{type(zero_diagonal).__name__}'.")
        self.zero_diagonal = zero_diagonal
        self.clear()

    def clear(self):
        self.sqr_mtx_res = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, inputs):
        rows = self._convert_data(inputs)
        if self.similarity == "cosine":
            rows = rows / np.linalg.norm(rows, ord=2, axis=1)[:, None]
        self.sqr_mtx_res = rows @ rows.T
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        result = self.sqr_mtx_res
        if self.zero_diagonal:
            np.fill_diagonal(result, 0)
        if self.reduction == "mean":
            result = result.mean(axis=-1)
        elif self.reduction == "sum":
            result = result.sum(axis=-1)
        self.sqr_mtx_res = result
        return result
