"""A MindSpore data-parallel script (imports mindspore only): all-reduces its rank."""
import numpy as np
import mindspore as ms
from mindspore import ops
from mindspore.communication import init, get_rank, get_group_size

init()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
total = ops.AllReduce()(ms.Tensor(np.array([get_rank() + 1.0], np.float32)))
print(f"rank {get_rank()} of {get_group_size()} sum {total.asnumpy()[0]:.0f}", flush=True)
