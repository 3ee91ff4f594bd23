"""PyTorch eager for the workloads the anchor scripts do not cover (W1a-grad, W1b-grad).

usage: python ref_torch_extra.py WORKLOAD eager      (run with a python that has torch)
"""
import sys

import harness as H
from harness import measure, emit

import torch


def w1_grad(workload):
    x, y = (torch.from_numpy(a).requires_grad_() for a in H.w1_data(workload[:3]))

    def step():
        z = x
        for _ in range(H.W1_ITERS):
            z = torch.tanh(torch.matmul(z, y))
        return torch.autograd.grad(z.sum(), (x, y))
    out, stats = measure(step, lambda g: [t.detach().numpy() for t in g])
    return stats, float(out[0].sum() + out[1].sum())


def main(argv):
    if len(argv) != 3 or argv[1] not in ("W1a-grad", "W1b-grad") or argv[2] != "eager":
        sys.exit(f"usage: {argv[0]} {{W1a-grad|W1b-grad}} eager")
    torch.set_num_threads(H.THREADS)
    stats, check = w1_grad(argv[1])
    emit("torch", "eager", argv[1], stats, check)


if __name__ == "__main__":
    main(sys.argv)
