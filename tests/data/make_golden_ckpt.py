"""Writes the golden checkpoints in this folder with the reference MindSpore 2.10.

Run from outside the repository (MindSpore must not see Spore's sources):
    cd /tmp && /work/venvs/ms/bin/python /work/main/tests/data/make_golden_ckpt.py /work/main/tests/data
The weights are closed-form (``golden_ckpt.py`` beside this file), so tests recompute them.
"""
import sys

import mindspore as ms
from mindspore import nn

from golden_ckpt import APPEND, golden_values   # this script's folder is on sys.path


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
