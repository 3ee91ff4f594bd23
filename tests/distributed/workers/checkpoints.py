"""Checkpoints in a 2-rank data-parallel job: one file from rank 0 by default (save_checkpoint
and ModelCheckpoint), one per rank in MindSpore's rank_<r> layout, loadable on every rank."""
import os
import sys

import numpy as np

import spore as ms
from spore import nn
from spore.communication import init, get_rank, comm_func
from spore.train import ModelCheckpoint, CheckpointConfig

out = sys.argv[1]
init()
rank = get_rank()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
ms.set_seed(0)
net = nn.Dense(4, 2)
rows = ms.dataset.NumpySlicesDataset(
    {"x": np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32),
     "y": np.zeros((16, 2), np.float32)}, shuffle=False, num_shards=2, shard_id=rank).batch(4)
shared = ModelCheckpoint("net", os.path.join(out, "shared"),
                         CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=2))
own = ModelCheckpoint("net", os.path.join(out, f"rank_{rank}"),
                      CheckpointConfig(save_checkpoint_steps=2))
model = ms.Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
model.train(2, rows, callbacks=[shared, own])
ms.save_checkpoint(net, os.path.join(out, "final.ckpt"))
comm_func.barrier()
loaded = ms.load_checkpoint(os.path.join(out, "final.ckpt"))
for p in net.get_parameters():
    np.testing.assert_array_equal(loaded[p.name].asnumpy(), p.asnumpy())
mine = ms.load_checkpoint(own.latest_ckpt_file_name)
np.testing.assert_array_equal(mine["weight"].asnumpy(), net.weight.asnumpy())
print(f"rank {rank} ok", flush=True)
