"""Spore runs the programs of ``programs.py`` with the results MindSpore 2.10 gave.

The golden ``tests/data/compat/<program>.npz`` files were written by the reference MindSpore 2.10
(CPU, PyNative) with ``generate_golden.py``; see that script to regenerate them.
"""
import pathlib

import numpy as np
import pytest

import spore as ms
from tests.compat.programs import PROGRAMS

GOLDEN_DIR = pathlib.Path(__file__).resolve().parents[1] / "data" / "compat"
SEED = 0
RTOL, ATOL = 2e-4, 2e-5


def load_golden(name):
    with np.load(GOLDEN_DIR / f"{name}.npz", allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def mismatches(got, want):
    """A line for every missing, extra or differing result (empty when they agree)."""
    problems = [f"{key}: missing" for key in sorted(set(want) - set(got))]
    problems += [f"{key}: not in the golden file" for key in sorted(set(got) - set(want))]
    for key in sorted(set(got) & set(want)):
        a, b = np.asarray(got[key]), want[key]
        if a.shape != b.shape:
            problems.append(f"{key}: shape {a.shape} != {b.shape}")
        elif a.dtype.kind in "OUSb" or b.dtype.kind in "USb":
            if not np.array_equal(a, b):
                problems.append(f"{key}: {a.tolist()} != {b.tolist()}")
        elif a.dtype != b.dtype:
            problems.append(f"{key}: dtype {a.dtype} != {b.dtype}")
        elif not np.allclose(a, b, rtol=RTOL, atol=ATOL):
            err = np.max(np.abs(a.astype(np.float64) - b))
            problems.append(f"{key}: max abs error {err:.3g}")
    return problems


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_mindspore(name):
    got = PROGRAMS[name](ms, SEED)
    problems = mismatches(got, load_golden(name))
    assert not problems, "\n".join(problems)


def test_golden_files_cover_every_program():
    assert sorted(p.stem for p in GOLDEN_DIR.glob("*.npz")) == sorted(PROGRAMS)
