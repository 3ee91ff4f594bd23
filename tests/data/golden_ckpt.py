"""The closed-form contents of the golden checkpoints in this folder (NumPy only).

``make_golden_ckpt.py`` writes them with MindSpore; the tests recompute them from here.
"""
import numpy as np


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
