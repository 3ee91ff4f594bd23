"""DatasetHelper: a dataset seen as a sequence of training steps."""
from __future__ import annotations

from .._tensor import Tensor


class DatasetHelper:
    """Iterate ``dataset`` once per ``for`` loop, giving each step's inputs as a tuple of
    Tensors. Sink mode (several steps per device launch) runs one step per call here, as
    MindSpore's CPU build does; ``sink_size`` is still reported.

    Args:
        dataset: a dataset (``get_dataset_size``, ``create_tuple_iterator``).
        dataset_sink_mode (bool): accepted for compatibility.
        sink_size (int): steps per sink (-1: the dataset size).
        epoch_num (int): how many passes the iterator will be asked for.
    """

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1):
        if not isinstance(dataset_sink_mode, bool):
            raise TypeError(f"The input value must be a bool, but got "
                            f"{type(dataset_sink_mode).__name__}.")
        if isinstance(sink_size, bool) or not isinstance(sink_size, int):
            raise TypeError(f"The input value must be int, but got '{type(sink_size).__name__}'")
        self._dataset = dataset
        self._sink_size = dataset.get_dataset_size() if sink_size == -1 else sink_size
        self._iterator = dataset.create_tuple_iterator(num_epochs=epoch_num, do_copy=True)

    def __iter__(self):
        for row in self._iterator:
            yield row if isinstance(row, tuple) else (row,) if isinstance(row, Tensor) \
                else tuple(row)

    def __len__(self):
        return self._dataset.get_dataset_size()

    def sink_size(self):
        return self._sink_size

    def types_shapes(self):
        return self._dataset.output_types(), self._dataset.output_shapes()

    def continue_send(self):
        """Nothing is sent ahead to a device here."""

    def stop_send(self):
        """Nothing is sent ahead to a device here."""

    def release(self):
        """No device queue to release."""


def connect_network_with_dataset(network, dataset_helper):
    """Sink mode wraps ``network`` to read from a device queue; without a device queue the
    network is returned unchanged and is called with each step's inputs."""
    if not isinstance(dataset_helper, DatasetHelper):
        raise TypeError(f"For 'connect_network_with_dataset', the type of 'dataset_helper' must be "
                        f"DatasetHelper, but got {type(dataset_helper).__name__}.")
    return network
