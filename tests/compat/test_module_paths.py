"""Smaller MindSpore 2.10 names: module paths older programs import from, ``nn.Jvp`` /
``nn.Vjp``, ``swap_tensors``, ``async_ckpt_thread_status``, ``ms.multiprocessing`` and
``ms.utils`` (values probed on MindSpore 2.10)."""
import threading

import numpy as np
import pytest

import spore as ms
from spore import Parameter, Tensor, nn


class Cube(nn.Cell):
    def construct(self, x, y):
        return x ** 3 + y


def _xy():
    x = Tensor(np.array([[1, 2], [3, 4]], np.float32))
    return x, Tensor(np.array([[1, 2], [3, 4]], np.float32)), Tensor(np.ones((2, 2), np.float32))


def test_nn_jvp_and_vjp_give_mindspores_values():
    x, y, v = _xy()
    out, tangent = nn.Jvp(Cube())(x, y, (v, v))
    np.testing.assert_array_equal(out.asnumpy(), [[2, 10], [30, 68]])
    np.testing.assert_array_equal(tangent.asnumpy(), [[4, 13], [28, 49]])
    out, (gx, gy) = nn.Vjp(Cube())(x, y, v)
    np.testing.assert_array_equal(out.asnumpy(), [[2, 10], [30, 68]])
    np.testing.assert_array_equal(gx.asnumpy(), [[3, 12], [27, 48]])
    np.testing.assert_array_equal(gy.asnumpy(), np.ones((2, 2)))
    assert nn.grad.Jvp is nn.Jvp


def test_swap_tensors_swaps_contents_and_keeps_identities():
    a = Tensor(np.array([1.0, 2.0], np.float32))
    b = Tensor(np.array([3, 4, 5], np.int32))
    ida, idb = id(a), id(b)
    ms.swap_tensors(a, b)
    assert (id(a), id(b)) == (ida, idb)
    np.testing.assert_array_equal(a.asnumpy(), [3, 4, 5])
    assert a.dtype == ms.int32 and b.dtype == ms.float32
    p = Parameter(Tensor(np.ones(2, np.float32)), name="p")
    q = Parameter(Tensor(np.zeros(3, np.float32)), name="q")
    ms.swap_tensors(p, q)
    assert p.name == "q" and p.shape == (3,) and q.name == "p"
    with pytest.raises(RuntimeError, match="slots differ"):
        ms.swap_tensors(a, p)
    np.testing.assert_array_equal(a.asnumpy(), [3, 4, 5])      # unchanged after the refusal
    with pytest.raises(TypeError, match="must be Tensor"):
        ms.swap_tensors(a, 3)


def test_async_ckpt_thread_status_reports_a_running_save(tmp_path, monkeypatch):
    from spore.train import serialization
    assert ms.async_ckpt_thread_status() is False
    release = threading.Event()
    write = serialization._write_records

    def slow(*args):
        release.wait(10)
        write(*args)
    monkeypatch.setattr(serialization, "_write_records", slow)
    net = nn.Dense(2, 2)
    ms.save_checkpoint(net, str(tmp_path / "a.ckpt"), async_save=True)
    assert ms.async_ckpt_thread_status() is True
    assert ms.train.async_ckpt_thread_status() is True
    release.set()
    serialization.wait_async_save()
    assert ms.async_ckpt_thread_status() is False
    assert (tmp_path / "a.ckpt").stat().st_size > 0


def _put_sum(queue, t):
    queue.put(t + 1)


def test_ms_multiprocessing_runs_processes_and_passes_tensors():
    mp = ms.multiprocessing
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_put_sum, args=(queue, Tensor(np.arange(3, dtype=np.float32))))
    proc.start()
    got = queue.get(timeout=120)
    proc.join(120)
    assert proc.exitcode == 0
    assert isinstance(got, Tensor)
    np.testing.assert_array_equal(got.asnumpy(), [1, 2, 3])
    assert mp.cpu_count() >= 1 and "Process" in mp.__all__


def test_module_paths_of_older_programs():
    from spore.train.loss_scale_manager import FixedLossScaleManager
    assert FixedLossScaleManager is ms.amp.FixedLossScaleManager
    assert ms.train.amp.build_train_network is ms.amp.build_train_network
    assert ms.train.loss_scale_manager.DynamicLossScaleManager is ms.amp.DynamicLossScaleManager
    assert nn.metrics.Accuracy is ms.train.Accuracy
    assert nn.sparse.SparseToDense is nn.SparseToDense
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ms.utils.dlpack.from_dlpack(x)
    np.testing.assert_array_equal(t.asnumpy(), x)
    back = ms.utils.from_dlpack(ms.utils.to_dlpack(t))          # a DLPack capsule
    np.testing.assert_array_equal(back.asnumpy(), x)
