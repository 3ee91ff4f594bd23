"""NOTE: [Cores per rank]: started by a launcher with no thread variables set, each of
the node's ranks takes its share of the cores, in Spore's pool and NumPy's OpenBLAS.
Prints 'threads N' (what this rank got)."""
import ctypes
import os

import numpy as np  # noqa: F401  (OpenBLAS loaded before init, as in a training script)

from spore._core import threads
from spore.communication import init, get_local_rank_size
from spore.communication._backend import THREAD_VARS

assert not any(os.environ.get(v) for v in THREAD_VARS)
init()
want = max(1, len(os.sched_getaffinity(0)) // get_local_rank_size())
assert os.environ["OMP_NUM_THREADS"] == str(want)
assert threads.count() == want
libs = {line.split()[-1] for line in open("/proc/self/maps") if "openblas" in line.lower()
        and ".so" in line}
for path in libs:
    lib = ctypes.CDLL(path)
    for name in ("openblas_get_num_threads", "openblas_get_num_threads64_",
                 "scipy_openblas_get_num_threads64_"):
        if hasattr(lib, name):
            assert getattr(lib, name)() == want, (name, getattr(lib, name)())
            break
print(f"threads {want}", flush=True)
