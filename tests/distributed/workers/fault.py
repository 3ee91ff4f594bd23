"""Rank 1 raises while rank 0 waits in a collective (mode 'collective'), in a gradient
bucket's shared-window barrier (mode 'bucket'), or rank 1 raises before init() while rank
0 joins the job (mode 'before_init')."""
import sys
import time

import numpy as np

import spore as ms
from spore import ops
from spore.communication import init, get_rank

mode = sys.argv[1]
if mode == "before_init":
    import os
    if os.environ.get("PMI_RANK") == "1":
        raise ValueError("rank one failed before init")
    init()
    ops.AllReduce()(ms.Tensor(np.ones(3, np.float32)))
    time.sleep(120)
init()
if get_rank() == 1:
    time.sleep(0.5)
    raise ValueError("rank one failed on purpose")
if mode == "bucket":        # waits for rank 1 forever, sleeping between polls
    from spore._prims import comm as C
    C.fused_all_reduce_p(ms.Tensor(np.ones(3, np.float32)), op="sum",
                         group="hccl_world_group", scale=None, bucket_bytes=1 << 20)
else:
    ops.AllReduce()(ms.Tensor(np.ones(3, np.float32)))     # waits for rank 1 forever
time.sleep(120)
