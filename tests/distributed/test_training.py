"""Data-parallel training on 2 ranks equals one rank on the whole batch."""
import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.communication import management as M

from . import launch


def _params(path):
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


@pytest.mark.slow
@pytest.mark.parametrize("loop", ["cell", "model", "scale", "graph"])
def test_lenet_two_ranks_batch_16_equal_one_rank_batch_32(tmp_path, loop):
    """20 steps of LeNet on the digits data (float32): 2 ranks x batch 16 with
    gradients_mean=True end with the parameters of 1 rank x batch 32 over the same rows,
    though the ranks start from different seeds (rank 0's parameters are broadcast)."""
    launch.run("lenet_equivalence.py", tmp_path, loop, n=2, timeout=240)
    launch.run("lenet_equivalence.py", tmp_path, loop, n=1, timeout=240)
    one = _params(tmp_path / "params_1_0.npz")
    r0, r1 = _params(tmp_path / "params_2_0.npz"), _params(tmp_path / "params_2_1.npz")
    assert one.keys() == r0.keys() == r1.keys()
    for k in one:
        np.testing.assert_array_equal(r0[k], r1[k])       # every rank holds the same model
        np.testing.assert_allclose(r0[k], one[k], rtol=1e-5, atol=1e-6, err_msg=k)
    moved = [k for k in one if "weight" in k]
    assert moved


def test_parallel_context_checks_and_defaults():
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    assert ms.get_auto_parallel_context("gradients_mean") is False
    assert ms.get_auto_parallel_context("parameter_broadcast") is False
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True, device_num=4)
    assert ms.get_auto_parallel_context("parallel_mode") == "data_parallel"
    assert ms.get_auto_parallel_context("device_num") == 4
    with pytest.raises(ValueError, match="only support 'stand_alone'"):
        ms.set_auto_parallel_context(parallel_mode="foo")
    with pytest.raises(TypeError, match="gradients_mean"):
        ms.set_auto_parallel_context(gradients_mean=1)
    with pytest.raises(ValueError, match="positive integer"):
        ms.set_auto_parallel_context(device_num=0)
    with pytest.raises(ValueError, match="not recognized"):
        ms.set_auto_parallel_context(foo=1)
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    assert ms.context.ParallelMode.DATA_PARALLEL == "data_parallel"


def test_bucket_size_follows_comm_fusion():
    M.release()
    M.init()
    try:
        p = [ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="a")]
        assert nn.DistributedGradReducer(p).bucket_bytes == 64 * 2 ** 20
        ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size", "config": 2}})
        red = nn.DistributedGradReducer(p, mean=True)
        assert red.bucket_bytes == 2 * 2 ** 20 and red.degree == 1
        g = red((ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)),))
        np.testing.assert_array_equal(g[0].asnumpy(), [1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="degree"):
            nn.DistributedGradReducer(p, degree=0)
    finally:
        M.release()


def test_train_step_reduces_only_in_data_parallel_after_init():
    M.release()
    M.init()
    try:
        net = nn.WithLossCell(nn.Dense(2, 1), nn.MSELoss())
        opt = nn.SGD(net.trainable_params())
        assert not nn.TrainOneStepCell(net, opt).reducer_flag
        ms.set_auto_parallel_context(parallel_mode="data_parallel")
        step = nn.TrainOneStepCell(net, opt)
        assert step.reducer_flag
        assert isinstance(step.grad_reducer, nn.DistributedGradReducer)
    finally:
        M.release()
