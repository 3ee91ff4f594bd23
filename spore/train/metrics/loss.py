"""Loss: the average of the loss values it is given (one per batch)."""
from __future__ import annotations

from .metric import Metric, check_input_count, rearrange_inputs


class Loss(Metric):
    """Mean of the batch losses passed to ``update`` (a 0-d or 1-d loss is averaged first)."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._sum_loss = 0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        check_input_count("Loss", inputs, 1, "(loss)")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the dimension of your input (loss) must be 1, "
                             f"but got {loss.ndim}.")
        self._sum_loss += float(loss.mean(-1))
        self._total_num += 1

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("The 'Loss' can not be calculated, because the number of samples "
                               "is 0, please check whether has called update method before calling "
                               "eval method.")
        return self._sum_loss / self._total_num
