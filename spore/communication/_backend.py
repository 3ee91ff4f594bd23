"""The transport under ``spore.communication``: MPI through mpi4py, or one process alone.

NOTE: [Communication backend]
Collectives run on MPI (mpi4py + an MPI runtime, the ``dist`` extra: ``pip install
'spore[dist]'`` brings mpi4py and MPICH's wheel). A process started by an MPI
launcher (``mpirun``/``mpiexec``, ``msrun``) sees the launcher's variables
(``PMI_RANK``/``PMI_SIZE`` for MPICH, ``OMPI_COMM_WORLD_SIZE`` for Open MPI) and
joins the job; a process started alone runs as a job of one rank, without
importing MPI at all, so the same training script runs alone unchanged.

Arrays go to MPI as buffers (mpi4py's uppercase methods, never pickle). The
kernels hand MPI contiguous NumPy arrays, receive into preallocated outputs and
reduce in place where the caller owns the buffer (the gradient buckets).
float16 and bfloat16 have no MPI reduction: they are reduced in float32 and cast
back; data-movement collectives send every dtype as raw bytes.

NOTE: [Buffer reuse]
A collective's result is a new array (functional semantics), but a fresh large
array costs: glibc maps blocks above its mmap threshold (at most 32 MB) from the
kernel on each allocation and unmaps them on free, so a 64 MB all-reduce paid as
much in first-touch page faults as in the reduction itself. ``POOL`` keeps the
last result of each (shape, dtype) of at least ``MIN_POOLED_BYTES`` and hands
the same array out again when its reference count shows that only the pool holds
it: every Tensor, view, ``asnumpy()`` result or buffer export of it holds a
reference, so a result that anyone can still reach is never overwritten; while
it is reachable the pool allocates a new one instead.
"""
from __future__ import annotations

import os
import sys
import threading
import time

import numpy as np

EXTRA_HINT = ("install the 'dist' extra: pip install 'spore[dist]' (mpi4py and the MPICH "
              "runtime)")

REDUCE_OPS = ("sum", "max", "min", "prod")

# the names MindSpore gives the world group on each backend; all mean the whole job here
WORLD_NAMES = ("hccl_world_group", "nccl_world_group", "mccl_world_group")


def under_launcher():
    """Whether an MPI launcher started this process (so MPI must be used)."""
    env = os.environ
    return any(k in env for k in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE",
                                  "PMIX_RANK", "MPI_LOCALNRANKS"))


def load_mpi():
    """mpi4py's ``MPI`` module (initialises MPI); a clear RuntimeError when it is missing."""
    try:
        from mpi4py import MPI
    except ImportError as e:        # mpi4py absent, or its MPI library cannot be loaded
        raise RuntimeError(f"spore.communication: MPI is not available ({e}); "
                           f"{EXTRA_HINT}.") from None
    except RuntimeError as e:
        raise RuntimeError(f"spore.communication: the MPI runtime failed to start ({e}); "
                           f"{EXTRA_HINT}.") from None
    return MPI


class Comm:
    """One communication group: its ranks (world ranks) and an MPI communicator."""

    def __init__(self, name, mpi_comm, world_ranks, local_rank=0, local_size=1):
        self.name = name
        self.mpi = mpi_comm
        self.world_ranks = tuple(world_ranks)
        self.rank = mpi_comm.Get_rank()
        self.size = mpi_comm.Get_size()
        self.local_rank = local_rank
        self.local_size = local_size
        self.reducers = _reducers(mpi_comm.Allreduce)
        self.inplace_reducers = {op: (mpi_comm.Allreduce, _MPI.IN_PLACE, mpi_op)
                                 for op, mpi_op in _MPI_OPS.items()}
        self._shared = None         # the SharedSum of the gradient buckets; False: none

    # -- collectives on NumPy arrays ------------------------------------------
    def allreduce(self, x, op, out=None):
        """``op`` over the group of ``x``; into ``out`` (may be ``x`` itself: in place),
        else into a new (or free pooled) array. Kept lean: at small sizes this Python is
        most of the call's cost (see BENCHMARKS.md, data parallel)."""
        mpi_op = _MPI_OPS[op]
        dtype = x.dtype
        if dtype in _WIDE or dtype.kind == "V":      # float16 / bfloat16: in float32
            buf = np.array(x, dtype=np.float32, order="C")
            self.mpi.Allreduce(_MPI.IN_PLACE, buf, op=mpi_op)
            if out is None:
                return buf.astype(dtype)
            out[...] = buf
            return out
        if out is x:
            self.mpi.Allreduce(_MPI.IN_PLACE, x, op=mpi_op)
            return x
        if not x.flags.c_contiguous:      # (not ascontiguousarray always: it makes 0-d 1-d)
            x = np.ascontiguousarray(x)
        if out is None:
            out = (np.empty(x.shape, dtype) if x.nbytes < MIN_POOLED_BYTES
                   else POOL.empty(x.shape, dtype))
        self.mpi.Allreduce(x, out, op=mpi_op)
        return out

    @staticmethod
    def spec(a):
        """``a`` (contiguous, of a native dtype) as an mpi4py message ``(buffer, count, MPI
        datatype)``, made once for a plan that reuses it call after call: mpi4py then skips
        the buffer protocol, the dtype look-up and the count's division (NOTE: [Eager
        all-reduce] in ``spore/_prims/comm.py``). BufferError when ``a`` is not
        contiguous."""
        return (_MPI.buffer(a), a.size, _DATATYPES[a.dtype])

    @staticmethod
    def result_buffer(shape, dtype):
        """An uninitialised array for a result (pooled: NOTE: [Buffer reuse])."""
        return POOL.empty(shape, dtype)

    def allgather(self, x):
        x = np.ascontiguousarray(x)
        out = POOL.empty((self.size * x.shape[0],) + x.shape[1:] if x.ndim else (self.size,),
                         x.dtype)
        self.mpi.Allgather(_bytes(x), _bytes(out))
        return out

    def bcast(self, x, root):
        out = POOL.empty(x.shape, x.dtype)
        if self.rank == root:               # the others' values are overwritten: no copy
            np.copyto(out, x)
        self.mpi.Bcast(_bytes(out), root=root)
        return out

    def bcast_inplace(self, x, root):
        """Broadcast into a contiguous array the caller owns (parameter broadcast)."""
        self.mpi.Bcast(_bytes(x), root=root)
        return x

    def reduce_scatter(self, x, op):
        x = np.ascontiguousarray(x)
        wide = _reduce_dtype(x.dtype)
        src = x if wide is x.dtype else x.astype(wide)
        out = POOL.empty((x.shape[0] // self.size,) + x.shape[1:], wide)
        self.mpi.Reduce_scatter_block(src, out, op=_MPI_OPS[op])
        return out if wide is x.dtype else out.astype(x.dtype)

    def barrier(self):
        self.mpi.Barrier()

    def send(self, x, dst, tag):
        self.mpi.Send(_bytes(np.ascontiguousarray(x)), dest=dst, tag=tag)

    def recv(self, shape, dtype, src, tag):
        out = POOL.empty(tuple(shape), dtype)
        self.mpi.Recv(_bytes(out), source=src, tag=tag)
        return out

    # -- uneven, rooted and point-to-point collectives (mindspore.ops / mint.distributed)
    def allgatherv(self, x, counts):
        """Every rank's flat ``x`` (``counts[r]`` elements from rank r) concatenated."""
        x = np.ascontiguousarray(x).reshape(-1)
        out = np.empty(sum(counts), x.dtype)
        self.mpi.Allgatherv(_bytes(x), _vbytes(out, counts))
        return out

    def reduce_scatterv(self, x, op, counts):
        """``op`` over every rank's flat ``x``; rank r gets the ``counts[r]`` elements
        after the first ``sum(counts[:r])``."""
        x = np.ascontiguousarray(x).reshape(-1)
        wide = _reduce_dtype(x.dtype)
        src = x if wide is x.dtype else x.astype(wide)
        out = np.empty(counts[self.rank], wide)
        self.mpi.Reduce_scatter(src, out, recvcounts=list(counts), op=_MPI_OPS[op])
        return out if wide is x.dtype else out.astype(x.dtype)

    def alltoallv(self, x, send_counts, recv_counts):
        """Rank r's flat ``x`` split by ``send_counts`` (piece j to rank j); the pieces
        received, ``recv_counts[j]`` elements from rank j, concatenated in rank order."""
        x = np.ascontiguousarray(x).reshape(-1)
        out = np.empty(sum(recv_counts), x.dtype)
        self.mpi.Alltoallv(_vbytes(x, send_counts), _vbytes(out, recv_counts))
        return out

    def reduce(self, x, op, root):
        """``op`` over every rank's ``x`` on rank ``root`` (None on the others)."""
        x = np.ascontiguousarray(x)
        wide = _reduce_dtype(x.dtype)
        src = x if wide is x.dtype else x.astype(wide)
        out = np.empty(x.shape, wide) if self.rank == root else None
        self.mpi.Reduce(src, out, op=_MPI_OPS[op], root=root)
        if out is None or wide is x.dtype:
            return out
        return out.astype(x.dtype)

    def gatherv(self, x, root, counts):
        """Every rank's flat ``x`` concatenated on rank ``root`` (None on the others)."""
        x = np.ascontiguousarray(x).reshape(-1)
        out = np.empty(sum(counts), x.dtype) if self.rank == root else None
        self.mpi.Gatherv(_bytes(x), _vbytes(out, counts) if out is not None else None,
                         root=root)
        return out

    def scatterv(self, x, root, counts, dtype):
        """Rank ``root``'s flat ``x`` split by ``counts``: rank r gets piece r."""
        out = np.empty(counts[self.rank], dtype)
        src = None
        if self.rank == root:
            src = _vbytes(np.ascontiguousarray(x).reshape(-1), counts)
        self.mpi.Scatterv(src, _bytes(out), root=root)
        return out

    def isend(self, x, dst, tag):
        """Start sending ``x`` (contiguous, kept alive by the caller until the wait)."""
        return self.mpi.Isend(_bytes(x), dest=dst, tag=tag)

    def irecv(self, out, src, tag):
        """Start receiving into the contiguous ``out``."""
        return self.mpi.Irecv(_bytes(out), source=src, tag=tag)

    def iallreduce(self, x, op):
        """Start ``op`` over the group of the contiguous native-dtype ``x``, in place:
        the request to wait for (the gradient buckets overlapped with backward)."""
        return self.mpi.Iallreduce(_MPI.IN_PLACE, x, op=_MPI_OPS[op])

    def split(self, name, world_ranks):
        """A new group over ``world_ranks`` of this (world) group; only the members call
        it (MPI's ``Comm.Create_group``, as MindSpore's create_group)."""
        members = self.mpi.Get_group().Incl(list(world_ranks))
        sub = self.mpi.Create_group(members)
        members.Free()
        return Comm(name, sub, world_ranks)

    def shared_sum(self, op, n, dtype):
        """A SharedSum ready for one bucket of ``n`` elements of ``dtype`` (its ``mine``
        to fill, then ``sum(out)``), or None where MPI's Allreduce reduces it instead
        (NOTE: [Shared-memory buckets]). Collective: every rank asks for the same buckets."""
        if op != "sum" or dtype not in NATIVE_DTYPES or self.size == 1 \
                or n * dtype.itemsize > SHARED_MAX_BYTES:
            return None
        shared = self._shared
        if shared is None:
            shared = self._shared = SharedSum.create(self)
        return shared.prepare(n, dtype) if shared else None

    def free_shared(self):
        """Free the buckets' shared window (collective, as the communicator's free)."""
        if self._shared:
            self._shared.free()
        self._shared = None

    def free(self):
        self.free_shared()
        if self.mpi is not None and self.mpi is not _MPI.COMM_WORLD:
            self.mpi.Free()
        self.mpi = None


class SharedSum:
    """The sum of one buffer per rank through memory every rank of a one-node group maps
    (an MPI-3 shared window): NOTE: [Shared-memory buckets]."""

    def __init__(self, node):
        self.node = node
        self.rank, self.size = node.Get_rank(), node.Get_size()
        self.win, self.mem, self.capacity, self.exchanges = None, None, 0, 0
        self.slots = self.mine = None
        self.flag = self.others = None
        self._views = {}

    @classmethod
    def create(cls, comm):
        """A SharedSum for ``comm``, or False where it does not apply: disabled, more
        than SHARED_MAX_RANKS ranks, or ranks on more than one node."""
        if not SHARED_BUCKETS or comm.size > SHARED_MAX_RANKS:
            return False
        node = comm.mpi.Split_type(_MPI.COMM_TYPE_SHARED, key=comm.rank)
        if node.Get_size() != comm.size:
            node.Free()
            return False
        return cls(node)

    def prepare(self, n, dtype):
        """Point ``mine`` (this rank's slot) and ``slots`` (every rank's, in rank order) at
        the next exchange's half of the window, grown first when it is too small."""
        nbytes = n * dtype.itemsize
        if nbytes > self.capacity:
            self._grow(nbytes)
        key = (self.exchanges & 1, nbytes, dtype)
        self.exchanges += 1
        slots = self._views.get(key)
        if slots is None:
            if len(self._views) >= 64:
                self._views.clear()
            half = self.mem[key[0]]
            slots = self._views[key] = [half[r, :nbytes].view(dtype) for r in range(self.size)]
        self.slots = slots
        self.mine = slots[self.rank]
        return self

    def sum(self, out):
        """Every rank's ``mine`` summed in rank order into ``out`` (the same bits on every
        rank), once all have filled theirs."""
        win = self.win
        win.Sync()                  # this rank's stores are visible before its flag ...
        seq = self.exchanges
        self.flag[0] = seq
        wait_for_flags(self.others, seq)    # ... once every rank has raised its flag
        win.Sync()
        slots = self.slots
        np.add(slots[0], slots[1], out=out)
        for other in slots[2:]:
            np.add(out, other, out=out)
        self.slots = self.mine = None
        return out

    def _grow(self, nbytes):
        """A window of every rank's flag and two halves of one slot per rank of at least
        ``nbytes`` each (collective); the flags start at 0 on every rank before any rank
        raises one."""
        self.free()
        cap = max(-(-nbytes // 64) * 64, 1 << 16)       # 64-byte aligned slots
        flag_bytes = 64 * self.size                     # a cache line per rank's flag
        total = flag_bytes + 2 * self.size * cap
        win = _MPI.Win.Allocate_shared(total if self.rank == 0 else 0, 1, comm=self.node)
        buf, _ = win.Shared_query(0)
        win.Lock_all(_MPI.MODE_NOCHECK)
        self.win, self.capacity = win, cap
        flags = np.ndarray((self.size, 8), np.int64, buffer=buf)
        self.flag = flags[self.rank, :1]
        self.others = [flags[r, :1] for r in range(self.size) if r != self.rank]
        self.mem = np.ndarray((2, self.size, cap), np.uint8, buffer=buf, offset=flag_bytes)
        self.flag[0] = 0
        win.Sync()
        self.node.Barrier()
        win.Sync()

    def free(self):
        """Collective: no rank may still read the window when it goes."""
        if self.win is not None:
            self.node.Barrier()
            self.mem = self.slots = self.mine = self.flag = self.others = None
            self._views = {}
            self.win.Unlock_all()
            self.win.Free()
            self.win, self.capacity = None, 0


class SoloComm(Comm):
    """The group of a process started alone: every collective is the identity."""

    def __init__(self, name, world_ranks=(0,)):
        self.name = name
        self.mpi = None
        self.world_ranks = tuple(world_ranks)
        self.rank, self.size, self.local_rank, self.local_size = 0, 1, 0, 1
        self.reducers = dict.fromkeys(REDUCE_OPS, (_copy_into, None))
        self.inplace_reducers = dict.fromkeys(REDUCE_OPS, (_solo_in_place, None, None))
        self._shared = False

    @staticmethod
    def spec(a):
        """The array itself (its reducer copies it); BufferError when not contiguous, as
        MPI's."""
        if not (a.flags.c_contiguous or a.flags.f_contiguous):
            raise BufferError("not contiguous")
        return a

    def allreduce(self, x, op, out=None):
        if out is None:
            return np.array(x, order="C", copy=True)
        if out is not x:
            out[...] = x
        return out

    def allgather(self, x):
        return np.array(x if x.ndim else x.reshape(1), order="C", copy=True)

    def bcast(self, x, root):
        return np.array(x, order="C", copy=True)

    def bcast_inplace(self, x, root):
        return x

    def reduce_scatter(self, x, op):
        return np.array(x, order="C", copy=True)

    def barrier(self):
        pass

    def send(self, x, dst, tag):
        raise RuntimeError("spore.communication: send needs a peer rank, but this job has "
                           "one rank (start it with msrun or mpirun)")

    recv = send

    def allgatherv(self, x, counts):
        return np.array(x, order="C", copy=True).reshape(-1)

    def reduce_scatterv(self, x, op, counts):
        return np.array(x, order="C", copy=True).reshape(-1)

    def alltoallv(self, x, send_counts, recv_counts):
        return np.array(x, order="C", copy=True).reshape(-1)

    def reduce(self, x, op, root):
        return np.array(x, order="C", copy=True)

    def gatherv(self, x, root, counts):
        return np.array(x, order="C", copy=True).reshape(-1)

    def scatterv(self, x, root, counts, dtype):
        return np.array(x, order="C", copy=True).reshape(-1)

    isend = irecv = send

    def iallreduce(self, x, op):
        return _DONE

    def split(self, name, world_ranks):
        return SoloComm(name, world_ranks)

    def free(self):
        pass


_MPI = None
_MPI_OPS = {}
_DATATYPES = {}     # native dtype -> MPI datatype (for ``Comm.spec``)


def start():
    """The world group: MPI's COMM_WORLD under a launcher, a SoloComm otherwise."""
    global _MPI, _MPI_OPS
    if not under_launcher():
        return SoloComm(WORLD_NAMES[2])
    MPI = load_mpi()
    _MPI = MPI
    _MPI_OPS = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}
    _DATATYPES.update((np.dtype(t), d) for t, d in (
        (np.int8, MPI.INT8_T), (np.int16, MPI.INT16_T), (np.int32, MPI.INT32_T),
        (np.int64, MPI.INT64_T), (np.uint8, MPI.UINT8_T), (np.uint16, MPI.UINT16_T),
        (np.uint32, MPI.UINT32_T), (np.uint64, MPI.UINT64_T), (np.float32, MPI.FLOAT),
        (np.float64, MPI.DOUBLE)))
    world = MPI.COMM_WORLD
    node = world.Split_type(MPI.COMM_TYPE_SHARED, key=world.Get_rank())
    local_rank, local_size = node.Get_rank(), node.Get_size()
    node.Free()
    share_cores(local_size)
    return Comm(WORLD_NAMES[2], world, range(world.Get_size()), local_rank, local_size)


# NOTE: [Cores per rank]
# N ranks on one node each start with BLAS and Spore's pool sized for every core of the
# node, so 2 ranks on 2 cores ran 4 BLAS threads (+ Spore's workers) that preempt each
# other, and a rank waiting in a collective waits for the one whose thread lost its
# core. When a job of several ranks per node starts and the user has set none of the
# thread variables (THREAD_VARS), each rank takes its share of the cores it may run
# on: ``OMP_NUM_THREADS`` (read by Spore's pool, NOTE: [Threads] in _core/threads.py,
# and by the BLAS of child processes) and the thread count of the OpenBLAS already
# loaded in this process (NumPy's: its variable was read when NumPy was imported, so
# it is set through the library's ``*openblas_set_num_threads*`` function).
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "SPORE_NUM_THREADS")


def share_cores(local_size):
    """Give this rank its share of the node's cores (NOTE: [Cores per rank]); the thread
    count it set, or None where it left the threads alone."""
    if local_size <= 1 or any(os.environ.get(v) for v in THREAD_VARS):
        return None
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:          # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    n = max(1, cpus // local_size)
    os.environ["OMP_NUM_THREADS"] = str(n)
    for setter in _blas_thread_setters():
        setter(n)
    return n


def _blas_thread_setters():
    """The ``set_num_threads`` functions of the OpenBLAS libraries loaded in this process
    (found in its memory map; none where that cannot be read)."""
    import ctypes
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line.lower()
                     and ".so" in line}
    except OSError:
        return []
    setters = []
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("openblas_set_num_threads", "openblas_set_num_threads64_",
                     "scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.argtypes, fn.restype = [ctypes.c_int], None
                setters.append(fn)
                break
    return setters


def abort(code=1):
    """End every rank of the job (the fault path: one rank raised). A rank that fails
    before ``init()`` joins MPI first, which the launcher needs to end the others."""
    try:
        MPI = _MPI or load_mpi()
    except RuntimeError:
        return
    MPI.COMM_WORLD.Abort(code)


_WIDE = {np.dtype(np.float16): np.dtype(np.float32)}

# NOTE: [Shared-memory buckets]
# MPI's all-reduce of a 245 KB gradient bucket between two ranks on one node moves the
# data through shared-memory cells in several hand-offs, each needing both ranks on a
# core at once; on busy cores every hand-off can wait a scheduler slice. Where every
# rank of the group is on one node, the buckets (sums of native dtypes) go instead
# through an MPI-3 shared window (``Win.Allocate_shared``): each rank copies its bucket
# into its own slot, one barrier, then each rank adds the slots in rank order into its
# result, so the ranks meet once per bucket and all get the same bits. The barrier is
# the window's own: a flag per rank (an int64 on a cache line of its own, ahead of the
# slots) that the rank raises to the exchange's number once its slot is filled
# (``Win.Sync`` before the flag is raised and after the others' are seen: the memory
# barriers of MPI's shared-memory model), and the ranks wait until every flag reached it
# (``wait_for_flags``). MPI's non-blocking barrier (``Ibarrier``, the first version) ran
# a schedule of messages through MPI's progress engine: ~4 us a meeting of 2 ranks
# that arrive together, against ~2 us with the flags (one store, one load per other
# rank; BENCHMARKS.md, helper dist7). The flags are
# waited for without spinning for long (``wait_for_flags``: polls for SPIN_SECONDS,
# then sleeps between polls), so a rank that arrives first leaves its core to the
# others. The window has two halves used in turn: a rank writes
# exchange k + 2's half only after the barrier of exchange k + 1, which every rank
# passes only after it has read exchange k. Each rank reads every slot, so this stays
# at SHARED_MAX_RANKS ranks or fewer; and the window lives in
# the node's shared-memory file system (a container's /dev/shm may hold only 64 MB, and
# a window larger than what is free fails on first touch, not with an error), so
# buckets above SHARED_MAX_BYTES do not use it: the window stays under
# 2 * ranks * SHARED_MAX_BYTES (16 MB on 2 ranks). Other groups, reductions, dtypes and
# larger buckets use MPI's Allreduce. ``SPORE_SHARED_BUCKETS=0`` turns it off.
SHARED_BUCKETS = os.environ.get("SPORE_SHARED_BUCKETS", "1") != "0"
SHARED_MAX_RANKS = 8
SHARED_MAX_BYTES = 4 << 20

# a rank waiting for the others polls this long, then sleeps between polls
SPIN_SECONDS = 5e-4
POLL_SLEEP_SECONDS = 5e-5


def wait_for_flags(flags, seq):
    """Wait until every flag of ``flags`` (one-element int64 views of the shared window)
    has reached ``seq``, as patiently as ``wait_patiently`` (NOTE: [Shared-memory
    buckets]): the last rank to arrive sees every flag raised and goes on at once."""
    for flag in flags:
        if flag[0] < seq:
            break
    else:
        return
    _wait_until(lambda: all(f[0] >= seq for f in flags))


def wait_patiently(request):
    """Wait for an MPI request without holding a core: MPI's blocking waits spin, and a
    rank that spins while another rank of the job waits for a core (more processes
    than cores) takes CPU time from it. Polls for SPIN_SECONDS (a quick arrival costs
    nothing more), then sleeps POLL_SLEEP_SECONDS between polls (W4 on 2 ranks of
    a busy 2-core machine: rank 0's CPU time per step stayed near the one-rank
    figure, against +1.7-3.8 ms spinning in MPI; BENCHMARKS.md, data parallel)."""
    if not request.Test():
        _wait_until(request.Test)


def _wait_until(ready):
    """Poll ``ready()`` until it is true: for SPIN_SECONDS at full speed, then sleeping
    POLL_SLEEP_SECONDS between polls (the policy of ``wait_patiently``)."""
    clock = time.perf_counter
    give_up = clock() + SPIN_SECONDS
    while not ready():
        if clock() > give_up:
            time.sleep(POLL_SLEEP_SECONDS)


# the dtypes MPI reduces as they are (float16 / bfloat16 go through float32)
NATIVE_DTYPES = frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float32, np.float64))


def _reducers(allreduce):
    """``{op: (fn, arg)}``: ``fn(x, out, arg)`` all-reduces a contiguous array of a native
    dtype into a same-layout ``out`` (mpi4py's Allreduce and MPI's op): the lean path of
    a small eager all-reduce (NOTE: [Eager all-reduce] in ``spore/_prims/comm.py``). A
    non-contiguous ``x`` makes it raise BufferError before anything is sent."""
    return {op: (allreduce, mpi_op) for op, mpi_op in _MPI_OPS.items()}


def _solo_in_place(_in_place, x, _op):
    """The in-place all-reduce of a one-rank group (``inplace_reducers``: called as
    ``fn(IN_PLACE, x, op)``, mpi4py's Allreduce): nothing to do, on an array MPI could
    write (else ValueError, as mpi4py: the caller takes the checked path)."""
    if not x.flags.writeable:
        raise ValueError("read-only")


def _copy_into(x, out, _op):
    """The all-reduce of a one-rank group, as a reducer (see ``_reducers``)."""
    if not (x.flags.c_contiguous or x.flags.f_contiguous):
        raise BufferError("not contiguous")     # as mpi4py: the caller takes the slow path
    np.copyto(out, x)


# results below this are allocated fresh (cheaper than the pool's bookkeeping, and
# below glibc's mmap threshold, so without page faults). 128 KB: with 64 KB, a 64 KB
# new-output all-reduce between 2 ranks ran at 0.66-0.82x mpi4py's bus bandwidth
# against 0.95-1.00x allocated fresh (quiet machine, 9 rounds x 2, alternating)
MIN_POOLED_BYTES = 1 << 17


class BufferPool:
    """Result arrays kept for reuse once nothing else refers to them (NOTE: [Buffer
    reuse]): at most ``slots`` of them, each of at least ``min_bytes``."""

    def __init__(self, slots=8, min_bytes=None):
        self.slots = slots
        self.min_bytes = MIN_POOLED_BYTES if min_bytes is None else min_bytes
        self._bufs = {}
        self._lock = threading.Lock()
        # the count of a buffer only the pool holds, measured the way ``empty`` measures
        # it (interpreters differ in which temporary references they count)
        self._bufs[None] = np.empty(0)
        self._free_refs = _refs(self._bufs, None)
        self._bufs.clear()

    def empty(self, shape, dtype):
        """An uninitialised ``(shape, dtype)`` array: a free pooled one when there is one."""
        dtype = np.dtype(dtype)
        n = dtype.itemsize
        for d in shape:
            n *= d
        if n < self.min_bytes:
            return np.empty(shape, dtype)
        key = (shape, dtype)
        bufs = self._bufs
        with self._lock:        # another thread must not take the same free array
            if key in bufs:
                if _refs(bufs, key) == self._free_refs:
                    buf = bufs[key]
                    return buf
                del bufs[key]                   # still in use: its holders keep it alive
            elif len(bufs) >= self.slots:
                del bufs[next(iter(bufs))]      # the oldest slot
            buf = bufs[key] = np.empty(shape, dtype)
            return buf

    def clear(self):
        self._bufs.clear()


def _refs(bufs, key):
    return sys.getrefcount(bufs[key])


POOL = BufferPool()


def _reduce_dtype(dtype):
    """The dtype MPI reduces ``dtype`` in: float32 for the 2-byte floats, else itself."""
    wide = _WIDE.get(dtype)
    if wide is not None:
        return wide
    return np.dtype(np.float32) if dtype.kind == "V" else dtype


class _Done:
    """The request of a collective that completed when it started (one rank)."""

    @staticmethod
    def Wait():
        return None

    @staticmethod
    def Test():
        return True


_DONE = _Done()


def _vbytes(a, counts):
    """A byte view of a contiguous array cut in pieces of ``counts`` elements, for MPI's
    v-collectives (byte counts and displacements, so any dtype moves)."""
    size = a.dtype.itemsize
    sizes = [int(c) * size for c in counts]
    displs = [0] * len(sizes)
    for i in range(1, len(sizes)):
        displs[i] = displs[i - 1] + sizes[i - 1]
    return [a.reshape(-1).view(np.uint8), (sizes, displs), _MPI.BYTE]


def _bytes(a):
    """A byte view of a contiguous array for data movement (any dtype, bfloat16 too)."""
    return [a.reshape(-1).view(np.uint8), _MPI.BYTE]
