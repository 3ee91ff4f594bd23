"""ProgressBar (a Spore extension): a live per-epoch bar with loss and throughput."""
from __future__ import annotations

import sys
import time

from ..._tensor import Tensor
from ._callback import Callback, handle_loss


def _tqdm_class():
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


class ProgressBar(Callback):
    """Show one progress bar per training epoch: step, loss and throughput.

    Uses ``tqdm`` when it is installed (and ``use_tqdm`` is not False); otherwise draws
    a plain bar redrawn with a carriage return::

        Epoch 1/3 [=========>..........] 12/25 loss: 0.6931 3.1 ms/step 10240 samples/s

    Args:
        width (int): characters in the plain bar.
        file: where to write (default: ``sys.stdout`` at the time of writing).
        use_tqdm (bool): force (True) or avoid (False) tqdm; None picks it when available.
    """

    def __init__(self, width=30, file=None, use_tqdm=None):
        super().__init__()
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(f"For 'ProgressBar', 'width' must be a positive int, but got "
                             f"{width!r}.")
        self._width = width
        self._file = file
        tqdm = _tqdm_class() if use_tqdm is not False else None
        if use_tqdm and tqdm is None:
            raise ImportError("For 'ProgressBar', use_tqdm=True needs the 'tqdm' package.")
        self._tqdm = tqdm
        self._bar = None
        self._start = 0.0
        self._samples = 0

    @property
    def _out(self):
        return self._file if self._file is not None else sys.stdout

    def on_train_epoch_begin(self, run_context):
        cb_params = run_context.original_args()
        self._start = time.perf_counter()
        self._samples = 0
        if self._tqdm is not None:
            epochs = cb_params.get("epoch_num", "?")
            self._bar = self._tqdm(total=cb_params.batch_num, unit="step", file=self._out,
                                   desc=f"Epoch {cb_params.cur_epoch_num}/{epochs}")

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        self._samples += _batch_size(cb_params.get("train_dataset_element"))
        step = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        stats = self._stats(cb_params, step)
        if self._bar is not None:
            self._bar.set_postfix_str(stats, refresh=False)
            self._bar.update(1)
        else:
            self._draw(cb_params, step, stats)

    def on_train_epoch_end(self, run_context):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        else:
            self._out.write("\n")
            self._out.flush()

    def _stats(self, cb_params, step):
        elapsed = max(time.perf_counter() - self._start, 1e-9)
        loss = handle_loss(cb_params.get("net_outputs"))
        if isinstance(loss, Tensor):
            loss = float(loss.asnumpy().mean())
        text = f"loss: {loss:.4f} " if isinstance(loss, float) else ""
        text += f"{elapsed * 1000 / step:.1f} ms/step"
        if self._samples:
            text += f" {self._samples / elapsed:.0f} samples/s"
        return text

    def _draw(self, cb_params, step, stats):
        total = cb_params.batch_num
        done = self._width * step // total
        arrow = ">" if done < self._width else ""
        bar = "=" * max(done - len(arrow), 0) + arrow + "." * (self._width - done)
        epochs = cb_params.get("epoch_num", "?")
        self._out.write(f"\rEpoch {cb_params.cur_epoch_num}/{epochs} [{bar}] {step}/{total} "
                        f"{stats}")
        self._out.flush()


def _batch_size(element):
    """Rows in the step's first input (0 when unknown)."""
    if isinstance(element, (tuple, list)) and element:
        element = element[0]
    shape = getattr(element, "shape", None)
    return int(shape[0]) if shape else 0
