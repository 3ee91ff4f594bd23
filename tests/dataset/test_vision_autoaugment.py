"""AutoAugment, RandAugment, TrivialAugmentWide, UniformAugment and RandomSelectSubpolicy:
the policy tables, that each applied operation is the matching Spore kernel, and that
the draws are per image and reproducible under a seed."""
import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import vision
from spore.dataset.vision import autoaugment as aa

IMG = np.random.default_rng(0).integers(0, 256, (12, 14, 3), dtype=np.uint8)


def _run(op, n=8, seed=3):
    data = ds.NumpySlicesDataset({"image": np.stack([IMG] * n)}, shuffle=False).map(op)
    ds.config.set_seed(seed)
    return [r[0] for r in data.create_tuple_iterator(output_numpy=True)]


def test_policies_and_magnitudes():
    assert [p.value for p in vision.AutoAugmentPolicy] == ["imagenet", "cifar10", "svhn"]
    for policy in aa._POLICIES.values():
        assert len(policy) == 25 and all(len(sub) == 2 for sub in policy)
    assert aa._POLICIES[vision.AutoAugmentPolicy.IMAGENET][0] == \
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9))
    table = aa._magnitudes(10, 331, 331)
    assert table["Rotate"][-1] == 30.0 and table["TranslateX"][-1] == pytest.approx(150.0)
    assert table["Posterize"].tolist() == [8, 8, 7, 7, 6, 6, 5, 5, 4, 4]
    assert table["Solarize"][0] == 255.0 and table["Solarize"][-1] == 0.0
    wide = aa._magnitudes(31, 10, 10, wide=True)
    assert wide["Rotate"][-1] == 135.0 and wide["Posterize"][-1] == 2


def test_applied_operations_are_the_kernels():
    np.testing.assert_array_equal(aa.apply_op(IMG, "Rotate", 20.0, vision.Inter.NEAREST,
                                              (0, 0, 0)), vision.Rotate(20.0)(IMG))
    np.testing.assert_array_equal(aa.apply_op(IMG, "Color", 0.5, vision.Inter.NEAREST, (0,) * 3),
                                  vision.AdjustSaturation(1.5)(IMG))
    np.testing.assert_array_equal(aa.apply_op(IMG, "Posterize", 4, vision.Inter.NEAREST,
                                              (0,) * 3), vision.Posterize(4)(IMG))
    shifted = aa.apply_op(IMG, "TranslateX", 3.0, vision.Inter.NEAREST, (0,) * 3)
    np.testing.assert_array_equal(shifted[:, 3:], IMG[:, :-3])
    assert (shifted[:, :3] == 0).all()


@pytest.mark.parametrize("op", [vision.AutoAugment(), vision.AutoAugment(
    vision.AutoAugmentPolicy.SVHN, vision.Inter.BILINEAR, (1, 2, 3)),
    vision.RandAugment(), vision.TrivialAugmentWide()])
def test_random_policies_are_seeded_per_image(op):
    first, again = _run(op), _run(op)
    assert all(a.shape == IMG.shape and a.dtype == np.uint8 for a in first)
    assert all((a == b).all() for a, b in zip(first, again))
    assert len({a.tobytes() for a in first}) > 1


def test_uniform_augment_and_subpolicy():
    flips = [vision.HorizontalFlip(), vision.VerticalFlip(), vision.Invert()]
    outs = _run(vision.UniformAugment(flips, num_ops=2), n=16)
    allowed = set()
    for a in (False, True):
        for b in (False, True):
            for c in (False, True):
                img = IMG
                img = vision.HorizontalFlip()(img) if a else img
                img = vision.VerticalFlip()(img) if b else img
                img = vision.Invert()(img) if c else img
                if a + b + c <= 2:
                    allowed.add(img.tobytes())
    assert {o.tobytes() for o in outs} <= allowed and len({o.tobytes() for o in outs}) > 1
    policy = [[(vision.Invert(), 1.0)], [(vision.HorizontalFlip(), 1.0), (vision.Invert(), 0.0)]]
    outs = _run(vision.RandomSelectSubpolicy(policy), n=16)
    assert {o.tobytes() for o in outs} == {vision.Invert()(IMG).tobytes(),
                                           vision.HorizontalFlip()(IMG).tobytes()}
    with pytest.raises(ValueError, match="num_ops"):
        vision.UniformAugment(flips, num_ops=4)
    with pytest.raises(TypeError, match="policy"):
        vision.RandomSelectSubpolicy([[(vision.Invert(), 2.0)]])


def test_argument_errors():
    with pytest.raises(ValueError, match="magnitude"):
        vision.RandAugment(magnitude=31)
    with pytest.raises(ValueError, match="num_magnitude_bins"):
        vision.TrivialAugmentWide(num_magnitude_bins=1)
    with pytest.raises(ValueError):
        vision.AutoAugment(policy="mnist")
    with pytest.raises(ValueError, match="RGB"):
        vision.AutoAugment()(IMG[..., 0])
