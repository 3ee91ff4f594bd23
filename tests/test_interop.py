"""ms.from_dlpack / to_dlpack / frombuffer / seed and the top-level aliases."""
import numpy as np
import pytest

import spore as ms


def test_dlpack_shares_memory_both_ways():
    a = np.arange(4.0, dtype=np.float32)
    t = ms.from_dlpack(a)
    assert t.dtype == ms.float32 and t.shape == (4,)
    t[0] = 9.0
    assert a[0] == 9.0
    u = ms.from_dlpack(ms.to_dlpack(t))
    u[1] = 8.0
    assert t.asnumpy().tolist() == [9.0, 8.0, 2.0, 3.0] and a[1] == 8.0
    back = np.from_dlpack(ms.from_dlpack(ms.to_dlpack(ms.Tensor([[1, 2]], ms.int64))).asnumpy())
    assert back.dtype == np.int64 and back.tolist() == [[1, 2]]


def test_dlpack_bad_input():
    with pytest.raises(TypeError, match="to_dlpack"):
        ms.to_dlpack(np.zeros(2))
    with pytest.raises(TypeError, match="from_dlpack"):
        ms.from_dlpack(3)


def test_frombuffer():
    t = ms.frombuffer(bytearray([1, 2, 3, 4, 5, 6]), dtype=ms.uint8)
    assert t.dtype == ms.uint8 and t.asnumpy().tolist() == [1, 2, 3, 4, 5, 6]
    data = np.array([1, 2, 3], np.int32).tobytes()
    assert ms.frombuffer(data, ms.int32, count=2, offset=4).asnumpy().tolist() == [2, 3]
    with pytest.raises(ValueError, match="frombuffer"):
        ms.frombuffer(bytes(6), ms.int32)              # 6 bytes are not whole int32 items
    with pytest.raises(ValueError, match="count"):
        ms.frombuffer(data, ms.int32, count=0)


def test_seed_reseeds_and_returns_the_seed():
    s = ms.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 31 and ms.get_seed() == s
    first = ms.ops.rand(3).asnumpy()
    ms.set_seed(s)
    assert (ms.ops.rand(3).asnumpy() == first).all()


def test_top_level_aliases():
    from spore import mindrecord
    assert ms.FileReader is mindrecord.FileReader and ms.FileWriter is mindrecord.FileWriter
    assert ms.SUCCESS == 0 and ms.FAILED == 1 and ms.mindrecord.FAILED == 1
    assert (ms.uintc, ms.uintp, ms.ushort) == (ms.uint32, ms.uint64, ms.uint16)
