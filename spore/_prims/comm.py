"""Collective communication primitives: AllReduce, AllGather, ReduceScatter, Broadcast,
Barrier, Send/Receive, and the fused all-reduce of gradient buckets.

Every one goes through the one dispatch point with ``effect="comm"``: each rank of
a group must run the group's collectives in the same order, so graph capture keeps
them, in program order, like state effects. Attributes are static: the reduction
(``op``: "sum" / "max" / "min" / "prod") and the group *name*; the kernel looks the
group's communicator up when it runs (see NOTE: [Communication backend]).

Gradient rules follow from the sum of every rank's loss: the cotangent of an
all-reduced sum is the all-reduced sum of the cotangents, of an all-gather the
reduce-scatter (sum) of its cotangent, of a reduce-scatter the all-gather.
"""
from __future__ import annotations

import sys
from weakref import getweakrefcount

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray
from ._base import dtype_name

Primitive = P.Primitive

REDUCE_OPS = ("sum", "max", "min", "prod")


_management = None


def _load_management():
    """``spore.communication.management`` (imported late: it imports the ops)."""
    global _management
    if _management is None:
        from ..communication import management
        _management = management
    return _management


def _comm(group):
    """The communicator of ``group`` (looked up at run time: groups come and go)."""
    comm = (_management or _load_management())._groups.get(group)
    return comm if comm is not None else _management.group_comm(group)


def _direct_eager(prim, run):
    """Give ``prim`` (one tensor input) an eager path that calls ``run(array, attrs)``
    for a NumPy-backed Tensor: a small all-reduce takes about 1 us in MPI, and the
    generic dispatch (input scan, keyword unpacking, wrapping) cost more than that.
    Other inputs take the generic path; errors are explained as there."""
    generic = prim._eager_generic
    ndarray = np.ndarray

    def eager(args, attrs):
        if len(args) == 1:
            t = args[0]
            tt = type(t)
            if tt is P._Tensor or tt is P._Parameter:
                a = t._data
                if type(a) is ndarray:
                    try:
                        out = run(a, attrs)
                    except Exception as e:
                        raise prim._explain(e, (a,), attrs) from None
                    return P.wrap(out)
        return generic(args, attrs)
    prim.eager = eager


def _check_reduce(name, x, op):
    if op not in REDUCE_OPS:
        raise ValueError(f"For '{name}', 'op' must be one of {list(REDUCE_OPS)}, but got "
                         f"{op!r}.")
    dt = np.dtype(x.dtype)
    if dt.kind not in "iuf" and dt.name != "bfloat16":
        raise TypeError(f"For '{name}', the input must be an integer or floating-point tensor "
                        f"(reductions over MPI), but got {dtype_name(dt)}.")


# ----------------------------------------------------------------- AllReduce
def _make_all_reduce(xp):
    def all_reduce(x, op, group):
        return _comm(group).allreduce(x, op)
    return all_reduce


def _all_reduce_infer(attrs, x):
    _check_reduce("AllReduce", x, attrs["op"])
    return ShapedArray(x.shape, x.dtype)


all_reduce_p = Primitive("AllReduce", _make_all_reduce, kind="opaque", effect="comm",
                         n_inputs=1, infer=_all_reduce_infer)

_direct_eager(all_reduce_p, lambda x, a: _comm(a["group"]).allreduce(x, a["op"]))


# NOTE: [Eager all-reduce]
# A small all-reduce takes ~1-2 us inside MPI, so every layer above it shows: the
# dispatch point's keyword attributes, the eager path, the group lookup, dtype and
# layout checks (together ~2.5 us before this path). ``all_reduce_call`` gives the
# callers that checked ``op`` and ``group`` once (``ops.AllReduce()``, and
# ``comm_func.all_reduce`` on the first call with them) one function that does the call
# with nothing else. Outside any trace or tape (``_scopes == 0``, the dispatch point's
# own test) a NumPy-backed Tensor of a dtype MPI reduces natively goes straight to the
# group's reducer (mpi4py's Allreduce) into a new array laid out like the input.
# A small call keeps a *plan*: the input Tensor and its array, the array's shape, the
# group table's epoch, the result (a Tensor and its array), and both arrays as mpi4py
# message specs made once (``Comm.spec``: the buffer and MPI datatype, which spares
# mpi4py the buffer protocol and the dtype look-up on every call, ~0.25 us). The next call
# on the same Tensor, still holding the same array of the same shape, with no group made
# or freed since (``_epoch``, replaced by ``groups_changed()`` whenever the group table
# changes, so one identity test stands for the group look-up) and whose previous result
# nobody holds any more runs the plan: the MPI call into the old result's memory, and the
# old result Tensor handed out again. "Nobody holds it": the reference counts of the
# result Tensor, of its array and of the array's memory (a view of the array refers to
# the memory, not to the array) are the plan's own (every Tensor, view, ``asnumpy()``
# result or buffer export holds one, as the pool tests: NOTE: [Buffer reuse]), the Tensor
# still wraps that array, and no weak reference to it exists (the result of a call is a
# new Tensor as far as anything reachable can tell: a dropped Tensor taken again is not
# told apart from a fresh one, except that a finalizer on a dropped result runs when its
# plan is replaced rather than when it is dropped). Handing the Tensor out again spares
# making one and freeing it (~0.1 us of a ~1.2 us call). The input's shape is tested as
# its ``ndim`` where the plan's array has at most one dimension (an in-place
# ``arr.shape = ...`` keeps the size, so a 0-d or 1-d array changes shape only by changing
# ndim; ~0.06 us less than building the shape tuple), as its whole shape otherwise. A
# plan's result starts half a page from its input (``_placed_like``: MPI's all-reduce
# copies the input into the result first, and a result allocated right after its input
# made that a copy 16 bytes ahead modulo 4 KB, which stalls). The message specs give
# mpi4py the element count too (``Comm.spec``). The
# Tensor's identity is tested first, so nothing else needs its type. Any other small
# call makes a new plan (a new result unless the old one is free and laid out alike). For
# anything else (a trace, a tape, float16 / bfloat16, a strided view, a
# non-Tensor) it calls ``self._checked(x)`` (``all_reduce_p`` with the caller's checks),
# so capture, gradients and error messages are those of the primitive.
# ``lean_all_reduce_inplace`` is the same for the in-place ``ops.all_reduce(tensor)``
# (MindSpore 2.10's function): MPI's Allreduce(IN_PLACE) on the tensor's own memory,
# nothing allocated, with a plan of the tensor's memory as a message spec (and its dtype
# and writeability checked, which in-place assignments to the array could change).
# Measured costs and the 2-rank ratios: BENCHMARKS.md, data parallel.
def lean_setup():
    """Bind what ``all_reduce_call`` reads as globals (the group table, the Tensor
    classes; imported late: management imports the ops); called by the classes that
    use it, when they are made."""
    global _groups, _Tensor, _Parameter, _NATIVE, _POOL_FROM, _POOL
    if _groups is None:
        backend = _load_management()._backend
        _NATIVE, _POOL_FROM, _POOL = (backend.NATIVE_DTYPES, backend.MIN_POOLED_BYTES,
                                      backend.POOL)
        _Tensor, _Parameter = P._Tensor, P._Parameter
        _groups = _management._groups


def groups_changed():
    """Called by ``communication.management`` whenever a group is made or freed: every
    plan made before then is stale (its group may be gone or another communicator)."""
    global _epoch
    _epoch = object()


_groups = _Tensor = _Parameter = _NATIVE = _POOL_FROM = _POOL = None
_epoch = object()
_NOTHING = object()         # no plan's Tensor (not None: ``op(None)`` must fail as checked)
NO_PLAN = (_NOTHING,) + (None,) * 11


def all_reduce_call(self, x):
    """``self(x)``: ``all_reduce_p(x, op=self.op, group=self.group)`` without the
    dispatch point where it can, else ``self._checked(x)`` (NOTE: [Eager all-reduce]).
    A method of the callers' classes (``ops.AllReduce``, comm_func's), so a call is one
    Python frame; ``self._plan`` starts as NO_PLAN (after ``lean_setup()``): (input
    Tensor, its array, epoch, its ndim or shape, result Tensor, result array, input spec,
    result spec, reducer, MPI op, the result's memory, whether it has 2 or more dimensions:
    the shape is then tested whole)."""
    p = self._plan
    t = p[4]
    if x is p[0] and P._scopes == 0 and x._data is p[1] and p[2] is _epoch \
            and getrefcount(t) == _FREE_TENSOR and t._data is p[5] \
            and getrefcount(p[5]) == _FREE_ARRAY and getrefcount(p[10]) == _FREE_MEMORY \
            and getweakrefcount(t) == 0 and (p[1].shape if p[11] else p[1].ndim) == p[3]:
        try:
            p[8](p[6], p[7], p[9])
        except Exception as e:
            raise all_reduce_p._explain(e, (p[1],), {"op": self.op, "group": self.group}) \
                from None
        t._tape_ref = None
        return t
    t = None                    # (not a holder of the old result while a new plan looks)
    tx = type(x)
    if (tx is _Tensor or tx is _Parameter) and P._scopes == 0:
        a = x._data
        if type(a) is np.ndarray and a.dtype in _NATIVE:
            if a.nbytes < _POOL_FROM:
                t = _new_plan(self, x, a)
                if t is not None:
                    return t
            else:
                out = _large(self, a)
                if out is not None:
                    t = _new_tensor(_Tensor)
                    t._data = out
                    t._tape_ref = None
                    return t
    return self._checked(x)


getrefcount = sys.getrefcount
_new_tensor = object.__new__


def _result_free(p):
    """Whether plan ``p``'s result (Tensor and array) may be handed out again: the
    result tests of ``all_reduce_call``, made the same way (so with the same counts)."""
    t = p[4]
    return getrefcount(t) == _FREE_TENSOR and t._data is p[5] \
        and getrefcount(p[5]) == _FREE_ARRAY and getrefcount(p[10]) == _FREE_MEMORY \
        and getweakrefcount(t) == 0


def _new_plan(self, x, a):
    """Reduce the small ``a`` (``x``'s array) into the result of a new plan,
    ``self._plan`` (see ``all_reduce_call``), one tuple swapped whole, so another thread
    never pairs one plan's parts with another's; the result Tensor. None: not here (no
    such group, or a strided view: nothing was sent)."""
    epoch = _epoch
    comm = _groups.get(self.group)
    if comm is None:
        return None
    p = self._plan
    try:
        a_spec = comm.spec(a)
    except BufferError:
        return None
    if p[4] is not None and _result_free(p) and p[2] is epoch and p[5].dtype == a.dtype \
            and p[5].shape == a.shape and p[5].strides == a.strides \
            and (_address(p[5]) - _address(a)) % _PAGE == _PAGE // 2:
        t, out, out_spec, memory = p[4], p[5], p[7], p[10]
    else:
        out = _placed_like(a)
        memory = out.base
        out_spec = comm.spec(out)
        t = _new_tensor(_Tensor)
        t._data = out
    reduce, mpi_op = comm.reducers[self.op]
    self._plan = (x, a, epoch, a.shape if a.ndim > 1 else a.ndim, t, out, a_spec, out_spec,
                  reduce, mpi_op, memory, a.ndim > 1)
    try:
        reduce(a_spec, out_spec, mpi_op)
    except Exception as e:
        raise all_reduce_p._explain(e, (a,), {"op": self.op, "group": self.group}) from None
    t._tape_ref = None
    return t


_PAGE = 4096


def _address(a):
    return a.__array_interface__["data"][0]


def _placed_like(a):
    """An uninitialised array laid out like the contiguous ``a`` (shape, dtype, strides),
    starting half a page after ``a``'s offset in its page: MPI's all-reduce first copies
    the input into the result, and a copy whose destination lies a few bytes after its
    source modulo 4 KB stalls on false store-to-load dependences (4K aliasing: a 4 KB
    all-reduce between 2 ranks ran at 0.75-0.78x the speed with the result 16 bytes past
    the input than 2 KB past it, where a result allocated right after its input lands;
    other places within a few percent). NOTE: [Eager all-reduce]."""
    memory = np.empty(a.nbytes + _PAGE, np.uint8)
    start = (_address(a) + _PAGE // 2 - _address(memory)) % _PAGE
    return np.ndarray(a.shape, a.dtype, buffer=memory, offset=start, strides=a.strides)


def _large(self, a):
    """Reduce the large ``a`` into a pooled result (NOTE: [Buffer reuse]); None: not here."""
    comm = _groups.get(self.group)
    if comm is None:
        return None
    out = _POOL.empty(a.shape, a.dtype) if a.flags.c_contiguous else np.empty_like(a)
    reduce, mpi_op = comm.reducers[self.op]
    try:
        reduce(a, out, mpi_op)
    except BufferError:                                 # a strided view: nothing was sent
        return None
    except Exception as e:
        raise all_reduce_p._explain(e, (a,), {"op": self.op, "group": self.group}) from None
    return out


def _free_refs():
    """The reference counts ``all_reduce_call`` sees for its plan's result Tensor and
    array when nothing but the plan holds them (the array: the plan's tuple, the result's
    spec and the Tensor), measured the way it measures: interpreters count temporaries
    differently."""
    memory = np.empty(8, np.uint8)
    out = memory[:4].view(np.float32)
    t = _new_tensor(_Probe)
    t._data = out

    class Holder:
        _plan = (None,) * 4 + (t, out, None, [out], None, None, memory)
    del memory, out, t

    def probe(self):
        p = self._plan
        t = p[4]
        return getrefcount(t), getrefcount(p[5]), getrefcount(p[10])
    return probe(Holder())


class _Probe:
    """A stand-in with a Tensor's slots (Tensor is defined after this module)."""
    __slots__ = ("_data", "_tape_ref", "__weakref__")


_FREE_TENSOR, _FREE_ARRAY, _FREE_MEMORY = _free_refs()


def lean_all_reduce_inplace(op, group):
    """``x -> bool``: whether ``x``'s memory was all-reduced in place (``op`` over the
    ranks of ``group``, both checked by the caller), which is what the in-place
    ``ops.all_reduce(x)`` does where it can skip its checks and the dispatch point:
    eager, a NumPy-backed Tensor of a dtype MPI reduces, contiguous and writeable (else
    False, nothing sent: the caller takes its checked path). A plan keeps the last
    Tensor, its array and dtype, the group table's epoch and the array as a message spec
    (NOTE: [Eager all-reduce])."""
    groups = _load_management()._groups
    native = _management._backend.NATIVE_DTYPES
    ndarray, Tensor, Parameter = np.ndarray, P._Tensor, P._Parameter
    # (Tensor, its array, epoch, dtype, spec, reducer, IN_PLACE, MPI op)
    plan = [NO_PLAN[:8]]

    def run(x):
        p = plan[0]
        if x is p[0] and P._scopes == 0 and x._data is p[1] and p[2] is _epoch:
            a = p[1]
            if a.dtype is p[3] and a.flags.writeable:
                p[5](p[6], p[4], p[7])              # Allreduce(IN_PLACE, spec, op)
                return True
        return first(x)

    def first(x):
        """A new plan for ``x`` and its first call (False: not here, nothing sent)."""
        tx = type(x)
        if P._scopes == 0 and (tx is Tensor or tx is Parameter):
            a = x._data
            if type(a) is ndarray and a.dtype in native and a.flags.writeable:
                epoch = _epoch
                comm = groups.get(group)
                if comm is not None:
                    try:
                        spec = comm.spec(a)
                    except (BufferError, ValueError):   # strided: not sent
                        return False
                    fn, in_place, mpi_op = comm.inplace_reducers[op]
                    plan[0] = (x, a, epoch, a.dtype, spec, fn, in_place, mpi_op)
                    fn(in_place, spec, mpi_op)
                    return True
        return False
    return run


@all_reduce_p.def_grad(inputs=(0,), output=True)
def _all_reduce_grad(attrs, inputs, out, dout):
    from .math import div_p, equal_p, mul_p, cast_bool_like
    op, group = attrs["op"], attrs["group"]
    if op == "sum":
        return (all_reduce_p(dout, op="sum", group=group),)
    if op == "prod":      # d(prod_r x_r)/dx = prod / x on every rank's x
        return (div_p(all_reduce_p(mul_p(dout, out), op="sum", group=group), inputs[0]),)
    total = all_reduce_p(dout, op="sum", group=group)      # max / min: to the winners
    return (mul_p(total, cast_bool_like(equal_p(inputs[0], out), total)),)


# ----------------------------------------------------------------- AllGather
def _make_all_gather(xp):
    def all_gather(x, group):
        return _comm(group).allgather(x)
    return all_gather


def _all_gather_infer(attrs, x):
    if len(x.shape) == 0:
        raise ValueError("For 'AllGather', the input must have at least 1 dimension, but got "
                         "a 0-d tensor.")
    n = _comm(attrs["group"]).size
    return ShapedArray((n * x.shape[0],) + tuple(x.shape[1:]), x.dtype)


all_gather_p = Primitive("AllGather", _make_all_gather, kind="opaque", effect="comm",
                         n_inputs=1, infer=_all_gather_infer)

_direct_eager(all_gather_p, lambda x, a: _comm(a["group"]).allgather(x))


@all_gather_p.def_grad()
def _all_gather_grad(attrs, inputs, out, dout):
    return (reduce_scatter_p(dout, op="sum", group=attrs["group"]),)


# ----------------------------------------------------------------- ReduceScatter
def _make_reduce_scatter(xp):
    def reduce_scatter(x, op, group):
        return _comm(group).reduce_scatter(x, op)
    return reduce_scatter


def _reduce_scatter_infer(attrs, x):
    _check_reduce("ReduceScatter", x, attrs["op"])
    n = _comm(attrs["group"]).size
    if len(x.shape) == 0 or x.shape[0] % n:
        raise ValueError(f"For 'ReduceScatter', the first dimension of the input must be "
                         f"divisible by the group size {n}, but got shape {tuple(x.shape)}.")
    return ShapedArray((x.shape[0] // n,) + tuple(x.shape[1:]), x.dtype)


reduce_scatter_p = Primitive("ReduceScatter", _make_reduce_scatter, kind="opaque",
                             effect="comm", n_inputs=1, infer=_reduce_scatter_infer)

_direct_eager(reduce_scatter_p,
              lambda x, a: _comm(a["group"]).reduce_scatter(x, a["op"]))


@reduce_scatter_p.def_grad()
def _reduce_scatter_grad(attrs, inputs, out, dout):
    if attrs["op"] != "sum":
        raise NotImplementedError("ReduceScatter's gradient is defined for op='sum' only.")
    return (all_gather_p(dout, group=attrs["group"]),)


# ----------------------------------------------------------------- Broadcast
def _make_broadcast(xp):
    def broadcast(x, root, group):
        return _comm(group).bcast(x, root)
    return broadcast


def _broadcast_infer(attrs, x):
    n = _comm(attrs["group"]).size
    root = attrs["root"]
    if not isinstance(root, int) or not 0 <= root < n:
        raise ValueError(f"For 'Broadcast', 'root_rank' must be in [0, {n}), but got {root}.")
    return ShapedArray(x.shape, x.dtype)


broadcast_p = Primitive("Broadcast", _make_broadcast, kind="opaque", effect="comm",
                        n_inputs=1, infer=_broadcast_infer)

_direct_eager(broadcast_p, lambda x, a: _comm(a["group"]).bcast(x, a["root"]))


@broadcast_p.def_grad()
def _broadcast_grad(attrs, inputs, out, dout):
    """Every rank's output is the root's input: the root gets the sum of all cotangents."""
    from .math import mul_p
    total = all_reduce_p(dout, op="sum", group=attrs["group"])
    return (mul_p(total, 1 if _comm(attrs["group"]).rank == attrs["root"] else 0),)


# ----------------------------------------------------------------- Barrier, Send, Receive
def _make_barrier(xp):
    def barrier(group):
        _comm(group).barrier()
        return np.zeros((), np.bool_)
    return barrier


barrier_p = Primitive("Barrier", _make_barrier, kind="opaque", effect="comm", nondiff=True,
                      n_inputs=0, infer=lambda attrs: ShapedArray((), np.bool_))


def _make_send(xp):
    def send(x, dst, group, tag):
        _comm(group).send(x, dst, tag)
        return np.zeros((), np.bool_)
    return send


send_p = Primitive("Send", _make_send, kind="opaque", effect="comm", nondiff=True, n_inputs=1,
                   infer=lambda attrs, x: ShapedArray((), np.bool_))


def _make_receive(xp):
    def receive(src, shape, dtype, group, tag):
        return _comm(group).recv(shape, np.dtype(dtype), src, tag)
    return receive


receive_p = Primitive("Receive", _make_receive, kind="opaque", effect="comm", nondiff=True,
                      n_inputs=0,
                      infer=lambda attrs: ShapedArray(attrs["shape"], np.dtype(attrs["dtype"])))


# ----------------------------------------------------------------- uneven collectives
# The flat "V" collectives of mindspore.ops (AllGatherV, ReduceScatterV, AlltoAllV) and
# the functions built on them: the split sizes are static attributes (tuples, one per
# rank of the group, in elements).
def _sizes(name, sizes, n, what):
    """``sizes`` as a tuple of ``n`` non-negative ints (the static attribute form)."""
    if hasattr(sizes, "asnumpy"):
        sizes = sizes.asnumpy().tolist()
    if not isinstance(sizes, (list, tuple)) or len(sizes) != n or any(
            isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0
            for s in sizes):
        raise ValueError(f"For '{name}', '{what}' must be {n} non-negative ints (one per "
                         f"rank of the group), but got {sizes}.")
    return tuple(int(s) for s in sizes)


def _flat_infer(name, total):
    def infer(attrs, *xs):
        for x in xs:
            if len(x.shape) > 1:
                raise ValueError(f"For '{name}', the input must be a flat (1-D) tensor, but "
                                 f"got shape {tuple(x.shape)}.")
        return ShapedArray((total(attrs, _comm(attrs["group"])),), xs[0].dtype)
    return infer


all_gather_v_p = Primitive(
    "AllGatherV", lambda xp: lambda x, sizes, group: _comm(group).allgatherv(x, sizes),
    kind="opaque", effect="comm", n_inputs=1,
    infer=_flat_infer("AllGatherV", lambda a, c: sum(a["sizes"])))


def _reduce_scatter_v_infer(attrs, x):
    _check_reduce("ReduceScatterV", x, attrs["op"])
    return _flat_infer("ReduceScatterV",
                       lambda a, c: a["sizes"][c.rank])(attrs, x)


reduce_scatter_v_p = Primitive(
    "ReduceScatterV",
    lambda xp: lambda x, sizes, op, group: _comm(group).reduce_scatterv(x, op, sizes),
    kind="opaque", effect="comm", n_inputs=1, infer=_reduce_scatter_v_infer)


@all_gather_v_p.def_grad()
def _all_gather_v_grad(attrs, inputs, out, dout):
    return (reduce_scatter_v_p(dout, sizes=attrs["sizes"], op="sum", group=attrs["group"]),)


@reduce_scatter_v_p.def_grad()
def _reduce_scatter_v_grad(attrs, inputs, out, dout):
    if attrs["op"] != "sum":
        raise NotImplementedError("ReduceScatterV's gradient is defined for op='sum' only.")
    return (all_gather_v_p(dout, sizes=attrs["sizes"], group=attrs["group"]),)


all_to_all_v_p = Primitive(
    "AlltoAllV",
    lambda xp: lambda x, send, recv, group: _comm(group).alltoallv(x, send, recv),
    kind="opaque", effect="comm", n_inputs=1,
    infer=_flat_infer("AlltoAllV", lambda a, c: sum(a["recv"])))


@all_to_all_v_p.def_grad()
def _all_to_all_v_grad(attrs, inputs, out, dout):
    """What rank r sent to rank j comes back from j: the same exchange reversed."""
    return (all_to_all_v_p(dout, send=attrs["recv"], recv=attrs["send"],
                           group=attrs["group"]),)


def _make_all_to_all(xp):
    def all_to_all(x, split_count, split_dim, concat_dim, group):
        _all_to_all_infer(dict(split_count=split_count, split_dim=split_dim,
                               concat_dim=concat_dim, group=group), x)
        comm = _comm(group)
        blocks = np.split(x, split_count, axis=split_dim)
        count = blocks[0].size
        flat = comm.alltoallv(np.concatenate([b.reshape(-1) for b in blocks]),
                              (count,) * split_count, (count,) * split_count)
        shape = blocks[0].shape
        return np.concatenate([flat[i * count:(i + 1) * count].reshape(shape)
                               for i in range(split_count)], axis=concat_dim)
    return all_to_all


def _all_to_all_infer(attrs, x):
    n, split, concat = attrs["split_count"], attrs["split_dim"], attrs["concat_dim"]
    if n != _comm(attrs["group"]).size:
        raise ValueError(f"For 'AlltoAll', 'split_count' must equal the group size "
                         f"{_comm(attrs['group']).size}, but got {n}.")
    shape = list(x.shape)
    for what, d in (("split_dim", split), ("concat_dim", concat)):
        if not -len(shape) <= d < len(shape):
            raise ValueError(f"For 'AlltoAll', '{what}' must be in [{-len(shape)}, "
                             f"{len(shape)}), but got {d}.")
    if shape[split] % n:
        raise ValueError(f"For 'AlltoAll', the input's dimension {split} ({shape[split]}) "
                         f"must be divisible by 'split_count' {n}.")
    shape[split] //= n
    shape[concat] *= n
    return ShapedArray(tuple(shape), x.dtype)


all_to_all_p = Primitive("AlltoAll", _make_all_to_all, kind="opaque", effect="comm",
                         n_inputs=1, infer=_all_to_all_infer)


@all_to_all_p.def_grad()
def _all_to_all_grad(attrs, inputs, out, dout):
    """Block j of the output came from rank j's block r: the exchange with the split
    and concat dimensions swapped sends every block back."""
    return (all_to_all_p(dout, split_count=attrs["split_count"], split_dim=attrs["concat_dim"],
                         concat_dim=attrs["split_dim"], group=attrs["group"]),)


# ----------------------------------------------------------------- rooted collectives
# MindSpore's Reduce and CollectiveGather leave a placeholder of shape (1,) on the ranks
# other than the root (its value means nothing); Spore's placeholder is zeros.
def _rooted_infer(name, shape_on_root):
    def infer(attrs, x):
        comm = _comm(attrs["group"])
        root = attrs["root"]
        if not isinstance(root, int) or not 0 <= root < comm.size:
            raise ValueError(f"For '{name}', the root rank must be in [0, {comm.size}), but "
                             f"got {root}.")
        if "op" in attrs:
            _check_reduce(name, x, attrs["op"])
        if comm.rank != root:
            return ShapedArray((1,), x.dtype)
        return ShapedArray(shape_on_root(tuple(x.shape), comm.size), x.dtype)
    return infer


def _make_reduce(xp):
    def reduce(x, root, op, group):
        _reduce_infer(dict(root=root, op=op, group=group), x)
        out = _comm(group).reduce(x, op, root)
        return out if out is not None else np.zeros((1,), x.dtype)
    return reduce


_reduce_infer = _rooted_infer("Reduce", lambda shape, n: shape)
reduce_p = Primitive("Reduce", _make_reduce, kind="opaque", effect="comm", n_inputs=1,
                     infer=_reduce_infer)


def _make_collective_gather(xp):
    def collective_gather(x, root, group):
        _collective_gather_infer(dict(root=root, group=group), x)
        comm = _comm(group)
        out = comm.gatherv(x, root, (x.size,) * comm.size)
        if out is None:
            return np.zeros((1,), x.dtype)
        return out.reshape((comm.size * x.shape[0],) + x.shape[1:])
    return collective_gather


def _gathered(shape, n):
    if not shape:
        raise ValueError("For 'CollectiveGather', the input must have at least 1 dimension.")
    return (n * shape[0],) + shape[1:]


_collective_gather_infer = _rooted_infer("CollectiveGather", _gathered)
collective_gather_p = Primitive("CollectiveGather", _make_collective_gather, kind="opaque",
                                effect="comm", n_inputs=1, infer=_collective_gather_infer)


def _root_or_zeros(attrs, d, shape, dtype):
    """The root's cotangent ``d``; zeros of ``shape`` elsewhere (where ``d`` belongs to
    the placeholder output), so that every rank joins the exchange of the gradient."""
    if _comm(attrs["group"]).rank == attrs["root"]:
        return d
    return P.wrap(np.zeros(shape, dtype))


@reduce_p.def_grad()
def _reduce_grad(attrs, inputs, out, dout):
    """Every rank's input adds into the root's output: each gets the root's cotangent."""
    if attrs["op"] != "sum":
        raise NotImplementedError("Reduce's gradient is defined for op='sum' only.")
    x = inputs[0]
    d = _root_or_zeros(attrs, dout, tuple(x.shape), x.dtype)
    return (broadcast_p(d, root=attrs["root"], group=attrs["group"]),)


@collective_gather_p.def_grad()
def _collective_gather_grad(attrs, inputs, out, dout):
    """Rank r's input is block r of the root's output: the root's cotangent scattered."""
    x = inputs[0]
    n = _comm(attrs["group"]).size
    d = _root_or_zeros(attrs, dout, (n * x.shape[0],) + tuple(x.shape[1:]), x.dtype)
    return (collective_scatter_p(d, root=attrs["root"], group=attrs["group"]),)


def _make_collective_scatter(xp):
    def collective_scatter(x, root, group):
        _collective_scatter_infer(dict(root=root, group=group), x)
        comm = _comm(group)
        piece = (x.shape[0] // comm.size,) + x.shape[1:]
        count = int(np.prod(piece))
        out = comm.scatterv(x, root, (count,) * comm.size, x.dtype)
        return out.reshape(piece)
    return collective_scatter


def _collective_scatter_infer(attrs, x):
    comm = _comm(attrs["group"])
    root = attrs["root"]
    if not isinstance(root, int) or not 0 <= root < comm.size:
        raise ValueError(f"For 'CollectiveScatter', 'src_rank' must be in [0, {comm.size}), "
                         f"but got {root}.")
    if len(x.shape) == 0 or x.shape[0] % comm.size:
        raise ValueError(f"For 'CollectiveScatter', the first dimension of the input must be "
                         f"divisible by the group size {comm.size}, but got shape "
                         f"{tuple(x.shape)}.")
    return ShapedArray((x.shape[0] // comm.size,) + tuple(x.shape[1:]), x.dtype)


collective_scatter_p = Primitive("CollectiveScatter", _make_collective_scatter, kind="opaque",
                                 effect="comm", n_inputs=1, infer=_collective_scatter_infer)


@collective_scatter_p.def_grad()
def _collective_scatter_grad(attrs, inputs, out, dout):
    """Block r of the root's input went to rank r: the cotangents gathered on the root
    (the other ranks' inputs were not read: zeros)."""
    x = inputs[0]
    g = collective_gather_p(dout, root=attrs["root"], group=attrs["group"])
    if _comm(attrs["group"]).rank == attrs["root"]:
        return (g,)
    return (P.wrap(np.zeros(tuple(x.shape), x.dtype)),)


# ----------------------------------------------------------------- gradient buckets
def _make_fused_all_reduce(xp):
    def fused_all_reduce(*xs, op, group, scale, bucket_bytes):
        comm = _comm(group)
        outs = [None] * len(xs)
        for bucket in _buckets(xs, bucket_bytes):
            _reduce_bucket(comm, xs, bucket, op, scale, outs)
        return tuple(outs)
    return fused_all_reduce


def _buckets(xs, bucket_bytes):
    """Consecutive runs of same-dtype arrays of at most ``bucket_bytes`` bytes each (one
    larger array makes a bucket of its own)."""
    run, size, dtype = [], 0, None
    for i, x in enumerate(xs):
        if run and (x.dtype != dtype or size + x.nbytes > bucket_bytes):
            yield run
            run, size = [], 0
        run.append(i)
        size += x.nbytes
        dtype = x.dtype
    if run:
        yield run


def _reduce_bucket(comm, xs, bucket, op, scale, outs):
    """Reduce the bucket's arrays as one buffer, scale, and hand out views of it reshaped
    to each array. A sum within one node: copied into this rank's slot of the shared
    window and summed from every rank's slot (NOTE: [Shared-memory buckets]); else copied
    into one buffer and all-reduced in place (a bucket of one array is reduced straight
    into a new buffer, without the copy). The result buffers come from the pool (NOTE:
    [Buffer reuse]): last step's bucket is free again once the optimizer has dropped its
    views."""
    arrays = [xs[i] for i in bucket]
    n = sum(a.size for a in arrays)
    shared = comm.shared_sum(op, n, arrays[0].dtype)
    if shared is not None:          # NOTE: [Shared-memory buckets] in communication/_backend
        np.concatenate([a.reshape(-1) for a in arrays], out=shared.mine)
        flat = shared.sum(comm.result_buffer((n,), arrays[0].dtype))
    elif len(arrays) > 1:
        flat = comm.result_buffer((n,), arrays[0].dtype)
        np.concatenate([a.reshape(-1) for a in arrays], out=flat)
        comm.allreduce(flat, op, out=flat)
    else:
        flat = comm.allreduce(arrays[0].reshape(-1), op)
    if scale is not None:
        if flat.dtype.kind == "f" or flat.dtype.name == "bfloat16":
            np.multiply(flat, flat.dtype.type(scale), out=flat)
        else:
            flat //= int(round(1 / scale))
    start = 0
    for i, a in zip(bucket, arrays):
        outs[i] = flat[start:start + a.size].reshape(a.shape)
        start += a.size


def _fused_infer(attrs, *xs):
    for x in xs:
        _check_reduce("FusedAllReduce", x, attrs["op"])
    return tuple(ShapedArray(x.shape, x.dtype) for x in xs)


fused_all_reduce_p = Primitive("FusedAllReduce", _make_fused_all_reduce, kind="opaque",
                               effect="comm", multiple_results=True, infer=_fused_infer)


@fused_all_reduce_p.def_grad()
def _fused_all_reduce_grad(attrs, inputs, out, dout):
    if attrs["op"] != "sum":
        raise NotImplementedError("FusedAllReduce's gradient is defined for op='sum' only.")
    # every rank must join the same reductions: an output without a cotangent takes zeros
    douts = tuple(d if d is not None else P.wrap(np.zeros(x.shape, x.dtype))
                  for d, x in zip(dout, inputs))
    return fused_all_reduce_p(*douts, **attrs)
