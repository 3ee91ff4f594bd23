"""Tensor.untyped_storage() and ms.UntypedStorage (MindSpore 2.10's, probed)."""
import numpy as np
import pytest

import spore as ms


def test_storage_describes_and_writes_the_tensors_bytes():
    t = ms.Tensor(np.arange(6, dtype=np.float32))
    s = t.untyped_storage()
    assert isinstance(s, ms.UntypedStorage)
    assert (s.nbytes(), s.size(), s.element_size(), s.device, s.is_shared()) == \
        (24, 24, 1, "CPU", False)
    assert s.dtype == ms.float32 and s.data_ptr() == t._data.ctypes.data
    other = ms.Tensor(np.zeros(6, np.float32)).untyped_storage()
    s.copy_(other)
    np.testing.assert_array_equal(t.asnumpy(), np.zeros(6))
    with pytest.raises(RuntimeError, match="one size"):
        s.copy_(ms.Tensor(np.zeros(2, np.float32)).untyped_storage())
    before = t.asnumpy().copy()
    s.resize_(0)
    assert s.nbytes() == 0
    np.testing.assert_array_equal(t.asnumpy(), before)      # the tensor keeps its values
