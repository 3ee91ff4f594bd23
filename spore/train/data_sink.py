"""``ms.data_sink``: a step function that takes its batches from a dataset itself."""
from __future__ import annotations

import numbers

from .._core.aval import conforms


def data_sink(fn, dataset, sink_size=1, jit_config=None, input_signature=None):
    """Wrap ``fn(*columns)`` so that each call runs it on the next ``sink_size`` batches of
    ``dataset`` (looping over epochs) and returns the last result. With a ``JitConfig``
    the step is compiled (``ms.jit``). On Ascend/GPU MindSpore moves the batches to the
    device ahead of time; here they are read in the call."""
    from ..dataset.engine.dataset import Dataset
    from .._jit.api import jit
    if not isinstance(sink_size, numbers.Integral) or isinstance(sink_size, bool):
        raise TypeError(f"For 'Data sink', the type of 'sink_size' should be 'int', but got "
                        f"type '{type(sink_size).__name__}'.")
    if sink_size <= 0:
        raise ValueError(f"The 'sink_size' must be positive, but got sink_size {sink_size}.")
    if not isinstance(dataset, Dataset):
        raise TypeError(f"For 'data_sink', 'dataset' must be a mindspore.dataset Dataset, but "
                        f"got {type(dataset).__name__}.")
    if not callable(fn):
        raise TypeError(f"For 'data_sink', 'fn' must be callable, but got {type(fn).__name__}.")
    step = fn
    if jit_config is not None:
        step = jit(fn, jit_level=getattr(jit_config, "jit_level", None) or None)
    signature = None
    if input_signature is not None:
        signature = tuple(input_signature) if isinstance(input_signature, (tuple, list)) \
            else (input_signature,)
    state = {"it": None}

    def next_batch():
        for _ in range(2):
            if state["it"] is None:
                state["it"] = dataset.create_tuple_iterator(num_epochs=1)
            try:
                return next(state["it"])
            except StopIteration:
                state["it"] = None
        raise ValueError("For 'data_sink', the dataset is empty.")

    def sink_process(*args):
        out = None
        for _ in range(sink_size):
            batch = next_batch()
            if signature is not None:
                _check_signature(signature, batch)
            out = step(*args, *batch)
        return out
    sink_process.__name__ = getattr(fn, "__name__", "sink_process")
    return sink_process


def _check_signature(signature, batch):
    if len(signature) != len(batch):
        raise TypeError(f"For 'data_sink', 'input_signature' describes {len(signature)} inputs "
                        f"but the dataset gives {len(batch)} columns.")
    for k, (want, got) in enumerate(zip(signature, batch)):
        if got.dtype != want.dtype or not conforms(want.shape, got.shape):
            raise TypeError(f"For 'data_sink', column {k} is Tensor{list(got.shape)} "
                            f"{got.dtype}, but 'input_signature' declares "
                            f"Tensor{list(want.shape)} {want.dtype}.")
