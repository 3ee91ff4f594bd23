"""Writes the golden results of ``programs.py`` with the reference MindSpore 2.10.

Run with the reference interpreter from outside the repository, so that MindSpore never sees
Spore's sources (and Spore is never imported):

    cd /tmp && /work/venvs/ms/bin/python /work/main/tests/compat/generate_golden.py [NAME ...]

Each program's result goes to ``tests/data/compat/<program>.npz`` (plain NumPy arrays, read
with ``allow_pickle=False``). With names, only those programs are regenerated.
"""
import pathlib
import sys

import numpy as np
import mindspore as ms

TESTS_DIR = pathlib.Path(__file__).resolve().parents[1]
sys.path[0] = str(TESTS_DIR)       # import ``compat`` as a package, never the repository root
from compat.programs import PROGRAMS  # noqa: E402

SEED = 0
OUT_DIR = TESTS_DIR / "data" / "compat"


def main(names):
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for name in names or sorted(PROGRAMS):
        result = PROGRAMS[name](ms, SEED)
        arrays = {key: np.asarray(value) for key, value in result.items()}
        np.savez_compressed(OUT_DIR / f"{name}.npz", **arrays)
        print(f"{name}: {len(arrays)} arrays")


if __name__ == "__main__":
    main(sys.argv[1:])
