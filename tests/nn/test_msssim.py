"""nn.MSSSIM against MindSpore 2.10 (its GRAPH mode on CPU; PyNative fails there)."""
import numpy as np
import pytest

from spore import Tensor, nn

RNG = np.random.RandomState(0)
A = RNG.uniform(0, 1, (2, 3, 180, 176)).astype(np.float32)
B = np.clip(A + RNG.normal(0, 0.1, A.shape), 0, 1).astype(np.float32)


def test_msssim_matches_mindspore():
    np.testing.assert_allclose(nn.MSSSIM()(Tensor(A), Tensor(B)).asnumpy(),
                               [0.953394, 0.9556883], rtol=2e-5)
    small = nn.MSSSIM(power_factors=(0.5, 0.5), filter_size=7, filter_sigma=1.0)
    np.testing.assert_allclose(small(Tensor(A[:, :, :40, :50]), Tensor(B[:, :, :40, :50]))
                               .asnumpy(), [0.94286317, 0.94361925], rtol=2e-5)
    even = nn.MSSSIM(power_factors=(0.3, 0.3, 0.4), filter_size=4)   # uint8: scaled by 255
    got = even(Tensor((A[:1, :2, :30, :30] * 255).astype(np.uint8)),
               Tensor((B[:1, :2, :30, :30] * 255).astype(np.uint8)))
    np.testing.assert_allclose(got.asnumpy(), [0.9478128], rtol=2e-5)
    ones = Tensor(np.ones((1, 3, 128, 128), np.float32))          # MindSpore's doc example
    np.testing.assert_allclose(nn.MSSSIM(power_factors=(0.033, 0.033, 0.033))(ones, ones)
                               .asnumpy(), [1.0], rtol=1e-6)


@pytest.mark.parametrize("make,err", [
    (lambda: nn.MSSSIM(max_val=0), ValueError), (lambda: nn.MSSSIM(power_factors=0.5), TypeError),
    (lambda: nn.MSSSIM(filter_size=0), ValueError), (lambda: nn.MSSSIM(k1=1), TypeError),
    (lambda: nn.MSSSIM()(Tensor(A[0]), Tensor(B[0])), ValueError),
    (lambda: nn.MSSSIM()(Tensor(A), Tensor(B[:1])), TypeError),
])
def test_msssim_bad_input(make, err):
    with pytest.raises(err, match="MSSSIM"):
        make()
