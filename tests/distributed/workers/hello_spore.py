"""A data-parallel script that imports spore (``mpirun -n 2 python hello_spore.py``)."""
import numpy as np

import spore as ms
from spore import ops
from spore.communication import init, get_rank, get_group_size

init()
total = ops.AllReduce()(ms.Tensor(np.array([get_rank() + 1.0], np.float32)))
print(f"rank {get_rank()} of {get_group_size()} sum {total.asnumpy()[0]:.0f}", flush=True)
