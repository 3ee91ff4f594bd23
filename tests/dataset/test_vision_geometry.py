"""Affine, Rotate, Perspective and their random versions. The expected pixels are
MindSpore 2.10's on the same image (probed): Spore's warps follow OpenCV's fixed-point
arithmetic, so they agree exactly."""
import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import vision
from spore.dataset.vision import Inter

IMG = (np.arange(5 * 6 * 3).reshape(5, 6, 3) * 7 % 256).astype(np.uint8)


def test_affine_bilinear_matches_mindspore():
    out = vision.Affine(30, [0.1, -0.2], 1.1, [10, 5], Inter.BILINEAR, (10, 20, 30))(IMG)
    assert out.shape == (5, 6, 3) and out.dtype == np.uint8
    assert out[..., 0].tolist() == [[137, 163, 72, 136, 156, 124], [138, 119, 87, 51, 107, 171],
                                    [41, 74, 138, 170, 134, 102], [12, 25, 49, 109, 173, 202],
                                    [10, 10, 15, 43, 85, 51]]
    assert out[0, 0].tolist() == [137, 40, 48]


def test_affine_bicubic_matches_mindspore():
    out = vision.Affine(-20, [0, 0], 0.9, 0, Inter.BICUBIC, 0)(IMG)
    assert out[..., 0].tolist() == [[0, 4, 28, 93, 199, 24], [5, 87, 166, 189, 163, 54],
                                    [123, 99, 49, 71, 157, 204], [146, 139, 146, 166, 131, 103],
                                    [13, 202, 5, 16, 13, 0]]


def test_rotate_expand_matches_mindspore():
    out = vision.Rotate(30, Inter.BILINEAR, expand=True, fill_value=(1, 2, 3))(IMG)
    assert out.shape == (7, 8, 3)
    assert out[..., 0].tolist() == [
        [3, 3, 3, 10, 59, 60, 3, 3], [3, 3, 24, 65, 142, 223, 24, 3],
        [3, 19, 79, 161, 162, 115, 89, 3], [17, 98, 131, 85, 86, 167, 200, 37],
        [28, 189, 45, 104, 170, 122, 79, 34], [3, 113, 133, 96, 49, 34, 10, 3],
        [3, 13, 200, 47, 8, 3, 3, 3]]
    assert out[0, 0].tolist() == [3, 2, 1]  # MindSpore applies the fill in reverse order


def test_perspective_matches_mindspore():
    out = vision.Perspective([[0, 0], [5, 0], [5, 4], [0, 4]], [[1, 0], [5, 1], [4, 4], [0, 3]],
                             Inter.BILINEAR)(IMG)
    assert out[..., 0].tolist() == [[0, 0, 17, 18, 5, 0], [42, 140, 150, 135, 120, 105],
                                    [94, 101, 56, 81, 146, 127], [248, 57, 122, 187, 192, 35],
                                    [0, 2, 18, 50, 97, 0]]


def test_identity_warps_and_other_inputs():
    same = vision.Affine(0, [0, 0], 1.0, 0, Inter.BILINEAR)
    np.testing.assert_array_equal(same(IMG), IMG)
    np.testing.assert_array_equal(vision.Rotate(0)(IMG[..., 0]), IMG[..., 0])
    floats = IMG.astype(np.float32) / 255
    np.testing.assert_allclose(same(floats), floats)
    turned = vision.Rotate(90, Inter.NEAREST, expand=True)(IMG)
    np.testing.assert_array_equal(turned, np.rot90(IMG))  # counter-clockwise


def test_random_geometry_is_seeded_and_shaped():
    ops = [vision.RandomAffine(30, (-0.1, 0.1, -0.2, 0.2), (0.8, 1.2), 10),
           vision.RandomRotation((-20, 20), Inter.BILINEAR),
           vision.RandomPerspective(0.4, prob=1.0)]
    for op in ops:
        data = ds.NumpySlicesDataset({"image": np.stack([IMG] * 3)}, shuffle=False)
        ds.config.set_seed(7)
        first = [r[0] for r in data.map(op).create_tuple_iterator(output_numpy=True)]
        ds.config.set_seed(7)
        again = [r[0] for r in data.map(op).create_tuple_iterator(output_numpy=True)]
        assert all(a.shape == IMG.shape for a in first)
        assert all((a == b).all() for a, b in zip(first, again))
        assert not all((a == first[0]).all() for a in first[1:])  # a new draw per image
    assert (vision.RandomPerspective(prob=0.0)(IMG) == IMG).all()


def test_geometry_argument_errors():
    with pytest.raises(ValueError, match="translate"):
        vision.Affine(0, [1.5, 0], 1.0, 0)
    with pytest.raises(ValueError, match="scale"):
        vision.Affine(0, [0, 0], 0.0, 0)
    with pytest.raises(ValueError, match="interpolation"):
        vision.Rotate(10, resample=Inter.ANTIALIAS)
    with pytest.raises(TypeError, match="fill_value"):
        vision.RandomRotation(10, fill_value=300)
    with pytest.raises(TypeError, match="start_points"):
        vision.Perspective([[0, 0]], [[0, 0]] * 4)
    with pytest.raises(ValueError, match="min <= max"):
        vision.RandomAffine((10, -10))
