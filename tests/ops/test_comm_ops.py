"""The collective primitives' op table on one rank (``init()`` outside a launcher).

On one rank every collective is the identity on values; the table checks forward,
infer-vs-kernel and the numerical gradient of each rule. The rules where ranks differ
are checked on 2 ranks by tests/distributed/workers/collectives.py.
"""
from spore import ops
from spore._prims import comm as C
from spore.communication import management as M
from tests.helpers.optable import OpCase, table_tests


def _one_rank(fn):
    """``fn`` with the one-rank job started first (other tests may have released it)."""
    def run(*args):
        if not M.GlobalComm.INITED:
            M.init()
        return fn(*args)
    return run


CASES = [
    OpCase("AllReduce", _one_rank(lambda x, op=op: ops.AllReduce(op)(x)), lambda x: x, (3, 4),
           id=f"AllReduce-{op}", domain=(0.5, 2.0))
    for op in ("sum", "max", "min", "prod")
] + [
    OpCase("AllGather", _one_rank(lambda x: ops.AllGather()(x)), lambda x: x, (3, 2)),
    OpCase("ReduceScatter", _one_rank(lambda x: ops.ReduceScatter()(x)), lambda x: x, (4, 2)),
    OpCase("Broadcast", _one_rank(lambda x: ops.Broadcast(0)((x,))[0]), lambda x: x, (5,)),
    OpCase("FusedAllReduce", _one_rank(lambda x, y: C.fused_all_reduce_p(
        x, y, op="sum", group="hccl_world_group", scale=0.5, bucket_bytes=16)),
        lambda x, y: (x * 0.5, y * 0.5), [(3, 2), (7,)]),
    OpCase("AllGatherV", _one_rank(lambda x: ops.AllGatherV()(x, [5])), lambda x: x, (5,)),
    OpCase("ReduceScatterV", _one_rank(lambda x: ops.ReduceScatterV()(x, [5])), lambda x: x,
           (5,)),
    OpCase("AlltoAll", _one_rank(lambda x: ops.AlltoAll(1, 0, 1)(x)), lambda x: x, (3, 2)),
    OpCase("AlltoAllV", _one_rank(lambda x: ops.AlltoAllV()(x, [6], [6])), lambda x: x, (6,)),
    OpCase("Reduce", _one_rank(lambda x: ops.Reduce(0)(x)), lambda x: x, (2, 3)),
    OpCase("CollectiveGather", _one_rank(lambda x: ops.CollectiveGather(0)(x)), lambda x: x,
           (2, 3)),
    OpCase("CollectiveScatter", _one_rank(lambda x: ops.CollectiveScatter(0)(x)), lambda x: x,
           (2, 3)),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)
