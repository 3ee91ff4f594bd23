"""Writes the golden checkpoints in this folder with the reference MindSpore 2.10.

Run from outside the repository (MindSpore must not see Spore's sources):
    cd /tmp && /work/venvs/ms/bin/python /work/main/tests/data/make_golden_ckpt.py /work/main/tests/data
The weights are closed-form (``golden_values`` below), so tests recompute them with NumPy.
"""
import sys

import numpy as np
import mindspore as ms
from mindspore import nn


def golden_values():
    return {
        "fc.weight": (np.arange(12, dtype=np.float32).reshape(4, 3) - 5.5) / 8,
        "fc.bias": np.array([0.5, -0.25, 1.0, 2.0], np.float32),
        "bn.moving_mean": np.array([0.1, 0.2, 0.3, 0.4], np.float32),
        "bn.moving_variance": np.array([1.5, 2.5, 3.5, 4.5], np.float32),
        "bn.gamma": np.array([1.0, 0.5, 2.0, -1.0], np.float32),
        "bn.beta": np.array([0.0, 0.125, -0.125, 3.0], np.float32),
    }


APPEND = {"epoch_num": 7, "lr": 0.125, "note": "golden ckpt", "use_bn": True}


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4)
        self.bn = nn.BatchNorm1d(4)

    def construct(self, x):
        return self.bn(self.fc(x))


def main(out_dir):
    net = Net()
    values = golden_values()
    for p in net.get_parameters():
        p.set_data(ms.Tensor(values[p.name]))
    ms.save_checkpoint(net, f"{out_dir}/golden_dense_bn.ckpt", append_dict=dict(APPEND))
    ms.save_checkpoint(net, f"{out_dir}/golden_dense_bn_crc.ckpt", append_dict=dict(APPEND),
                       crc_check=True)
    ms.save_checkpoint(net, f"{out_dir}/golden_dense_bn.safetensors", format="safetensors")


if __name__ == "__main__":
    main(sys.argv[1])
