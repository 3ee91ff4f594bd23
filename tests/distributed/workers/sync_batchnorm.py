"""SyncBatchNorm on 2 ranks, each with half of one batch, against BatchNorm2d on the whole
batch in this process: outputs, input and weight gradients, moving statistics after two
steps; then ``process_groups`` of single ranks (no synchronisation). Exits non-zero on a
mismatch."""
import numpy as np

import spore as ms
from spore import Tensor, nn
from spore.communication import get_group_size, get_rank, init

init()
rank, size = get_rank(), get_group_size()
assert size == 2
rng = np.random.default_rng(0)
batch = [rng.standard_normal((6, 3, 4, 5)).astype(np.float32) * 2 + 1 for _ in range(2)]
cot = rng.standard_normal((6, 3, 4, 5)).astype(np.float32)
half = slice(3 * rank, 3 * rank + 3)


ref, syn = nn.BatchNorm2d(3, momentum=0.8), nn.SyncBatchNorm(3, momentum=0.8)
for cell in (ref, syn):
    cell.set_train()               # batch statistics (a Cell starts in inference mode)
for x in batch:
    f_ref = lambda t: (ref(t) * Tensor(cot)).sum()                  # noqa: E731
    f_syn = lambda t: (syn(t) * Tensor(cot[half])).sum()            # noqa: E731
    y_ref = ref(Tensor(x)).asnumpy()
    y_syn = syn(Tensor(x[half])).asnumpy()
    np.testing.assert_allclose(y_syn, y_ref[half], rtol=1e-5, atol=1e-5)
    gx_ref, (gg_ref, gb_ref) = ms.grad(f_ref, 0, [ref.gamma, ref.beta])(Tensor(x))
    gx_syn, (gg_syn, gb_syn) = ms.grad(f_syn, 0, [syn.gamma, syn.beta])(Tensor(x[half]))
    np.testing.assert_allclose(gx_syn.asnumpy(), gx_ref.asnumpy()[half], rtol=1e-4, atol=1e-5)
    # each rank's weight gradient is its share: their sum is the whole batch's
    total = ms.ops.AllReduce()(gg_syn).asnumpy()
    np.testing.assert_allclose(total, gg_ref.asnumpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ms.ops.AllReduce()(gb_syn).asnumpy(), gb_ref.asnumpy(),
                               rtol=1e-4, atol=1e-5)
np.testing.assert_allclose(syn.moving_mean.asnumpy(), ref.moving_mean.asnumpy(), rtol=1e-5,
                           atol=1e-6)
np.testing.assert_allclose(syn.moving_variance.asnumpy(), ref.moving_variance.asnumpy(),
                           rtol=1e-5, atol=1e-6)

alone = nn.SyncBatchNorm(3, process_groups=[[0], [1]]).set_train()
local = nn.BatchNorm2d(3).set_train()
np.testing.assert_allclose(alone(Tensor(batch[0][half])).asnumpy(),
                           local(Tensor(batch[0][half])).asnumpy(), rtol=1e-5, atol=1e-6)
pair = nn.SyncBatchNorm(3, process_groups=[[0, 1]]).set_train()
np.testing.assert_allclose(pair(Tensor(batch[1][half])).asnumpy(),
                           nn.BatchNorm2d(3).set_train()(Tensor(batch[1])).asnumpy()[half],
                           rtol=1e-5, atol=1e-5)
seq = rng.standard_normal((6, 3, 7)).astype(np.float32)          # mint's: any rank >= 2
m_syn, m_ref = ms.mint.nn.SyncBatchNorm(3).set_train(), ms.mint.nn.BatchNorm1d(3).set_train()
np.testing.assert_allclose(m_syn(Tensor(seq[half])).asnumpy(), m_ref(Tensor(seq)).asnumpy()[half],
                           rtol=1e-5, atol=1e-5)
np.testing.assert_allclose(m_syn.running_var.asnumpy(), m_ref.running_var.asnumpy(), rtol=1e-5)
assert int(m_syn.num_batches_tracked.asnumpy()) == 1
print(f"rank {rank}: SyncBatchNorm OK")
