"""nn.SyncBatchNorm synchronises its batch statistics across ranks (2 ranks, loopback)."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, nn

from . import launch


def test_two_ranks_normalise_as_one_batch():
    r = launch.run("sync_batchnorm.py", n=2, timeout=240)
    assert r.stdout.count("SyncBatchNorm OK") == 2


def test_one_process_is_batchnorm2d():
    x = Tensor(np.random.default_rng(0).standard_normal((4, 3, 2, 2)).astype(np.float32))
    a, b = nn.SyncBatchNorm(3).set_train(), nn.BatchNorm2d(3).set_train()
    np.testing.assert_array_equal(a(x).asnumpy(), b(x).asnumpy())
    np.testing.assert_array_equal(a.moving_variance.asnumpy(), b.moving_variance.asnumpy())
    a.set_train(False)
    b.set_train(False)
    np.testing.assert_array_equal(a(x).asnumpy(), b(x).asnumpy())
    with pytest.raises(ValueError, match="a rank appears in two"):
        nn.SyncBatchNorm(3, process_groups=[[0, 1], [1]])
    with pytest.raises(TypeError, match="lists of rank ids"):
        nn.SyncBatchNorm(3, process_groups=[0, 1])
    m, ref = ms.mint.nn.SyncBatchNorm(3).set_train(), ms.mint.nn.BatchNorm1d(3).set_train()
    seq = Tensor(np.random.default_rng(1).standard_normal((4, 3, 5)).astype(np.float32))
    np.testing.assert_array_equal(m(seq).asnumpy(), ref(seq).asnumpy())
    with pytest.raises(TypeError, match="'process_group' must be a group name"):
        ms.mint.nn.SyncBatchNorm(3, process_group=[0, 1])
