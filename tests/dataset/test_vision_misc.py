"""HSV conversions, colour jitter, lighting, erasing, MixUp, SlicePatches, Unique, ToPIL and
the image file functions. Expected values are MindSpore 2.10's on the same inputs (probed)."""
import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import transforms, vision

IMG = (np.arange(4 * 5 * 3).reshape(4, 5, 3) * 11 % 256).astype(np.uint8)
BRIGHTER = [[0, 40, 79, 119, 158], [198, 238, 255, 10, 49], [89, 128, 168, 208, 247],
            [255, 19, 59, 98, 138]]
SATURATED = [[0, 28, 62, 94, 128], [160, 194, 226, 4, 36], [70, 102, 136, 168, 202],
             [249, 12, 44, 78, 110]]


def test_rgb_hsv_round_trip_matches_mindspore():
    floats = IMG.astype(np.float32) / 255
    hsv = vision.RgbToHsv(is_hwc=True)(floats)
    assert hsv.dtype == np.float64
    assert hsv[0, :2].tolist() == [[0.5833333333333334, 1.0, 0.08627451211214066],
                                   [0.5833333333333334, 0.3999999761581421, 0.21568627655506134]]
    rgb = vision.HsvToRgb(is_hwc=True)(hsv)
    assert rgb[0, 1].tolist() == [0.12941177107539836, 0.17254902381522985, 0.21568627655506134]
    np.testing.assert_allclose(rgb, floats, atol=1e-6)
    chw = vision.RgbToHsv()(floats.transpose(2, 0, 1))
    np.testing.assert_array_equal(chw, hsv.transpose(2, 0, 1))
    assert vision.RgbToHsv(True)(np.stack([floats] * 2)).shape == (2, 4, 5, 3)  # a batch


def test_random_color_ops_with_fixed_factors():
    out = vision.RandomColorAdjust(brightness=(1.2, 1.2))(IMG)
    assert out[..., 0].tolist() == BRIGHTER
    hue = vision.RandomColorAdjust(hue=(0.1, 0.1))(IMG)
    assert hue[..., 0].tolist() == [[2, 35, 68, 101, 134], [167, 200, 233, 10, 43],
                                    [76, 109, 142, 175, 208], [91, 18, 51, 84, 117]]
    assert vision.RandomColor((1.5, 1.5))(IMG)[..., 0].tolist() == SATURATED
    assert (vision.RandomColorAdjust()(IMG) == IMG).all()
    # all four: the order is drawn per image, and every order gives one of the results
    op = vision.RandomColorAdjust((1.2, 1.2), (0.8, 0.8), (1.5, 1.5), (0.1, 0.1))
    d = ds.NumpySlicesDataset({"image": np.stack([IMG] * 12)}, shuffle=False).map(op)
    results = {r[0].tobytes() for r in d.create_tuple_iterator(output_numpy=True)}
    assert len(results) > 1
    with pytest.raises(ValueError, match="hue"):
        vision.RandomColorAdjust(hue=0.7)


def test_random_lighting():
    assert (vision.RandomLighting(0.0)(IMG) == IMG).all()
    for _ in range(5):
        lit = vision.RandomLighting(1.0)(IMG)
        out = lit.astype(int) - IMG
        # one shift per channel where nothing clipped (the shift is ~N(0, 32) per channel)
        inner = (lit > 0) & (lit < 255)
        for c in range(3):
            assert len(set(out[..., c][inner[..., c]].tolist())) == 1
        assert out.any()
    with pytest.raises(ValueError):
        vision.RandomLighting(-1)


def test_random_erasing_on_chw():
    chw = np.ones((3, 20, 20), np.float32)
    out = vision.RandomErasing(prob=1.0, value=(0.5, 0.25, 0.0))(chw)
    erased = out[0] != 1
    assert erased.any() and (out[1][erased] == 0.25).all() and (out[2][erased] == 0).all()
    rows, cols = np.nonzero(erased)
    assert erased.sum() == (np.ptp(rows) + 1) * (np.ptp(cols) + 1)  # one rectangle
    assert (vision.RandomErasing(prob=0.0)(chw) == chw).all()
    with pytest.raises(ValueError, match="value for erasing"):
        vision.RandomErasing(value="noise")


def test_mixup():
    images = np.stack([np.full((2, 2, 1), v, np.float32) for v in (0, 10, 20)])
    labels = np.eye(3, dtype=np.float32)
    mixed, mixed_labels = vision.MixUp(batch_size=3, alpha=0.5)(images, labels)
    lam = mixed_labels[np.arange(3), np.arange(3)]
    # image i mixes with image i + 1 (circularly) with the weights of its label
    np.testing.assert_allclose(mixed[:, 0, 0, 0], lam * [0, 10, 20] + (1 - lam) * [10, 20, 0],
                               rtol=1e-5)
    np.testing.assert_allclose(mixed_labels.sum(axis=1), 1, rtol=1e-6)
    chained = vision.MixUp(batch_size=3, alpha=0.5, is_single=False)
    first, _ = chained(images, labels)
    np.testing.assert_array_equal(first, images)  # the first batch passes unchanged


def test_slice_patches():
    patches = vision.SlicePatches(2, 3, vision.SliceMode.PAD, 7)(IMG)
    assert len(patches) == 6 and all(p.shape == (2, 2, 3) for p in patches)
    assert patches[-1][..., 0].tolist() == [[206, 7], [115, 7]]
    dropped = vision.SlicePatches(3, 2, vision.SliceMode.DROP)(IMG)
    assert [p.shape for p in dropped] == [(1, 2, 3)] * 6


def test_unique():
    values, index, counts = transforms.Unique()(np.array([[3, 1], [3, 2], [1, 5]]))
    assert values.tolist() == [3, 1, 2, 5] and index.tolist() == [0, 1, 0, 2, 1, 3]
    assert counts.tolist() == [2, 2, 1, 1] and index.dtype == counts.dtype == np.int32
    with pytest.raises(RuntimeError, match="at least 2-D"):
        transforms.Unique()(np.array([1, 2]))


def test_image_files(tmp_path):
    pil = vision.ToPIL()(IMG)
    assert pil.mode == "RGB" and pil.size == (5, 4)
    png = vision.encode_png(IMG)
    assert png.dtype == np.uint8 and png.ndim == 1 and png[:4].tolist() == [137, 80, 78, 71]
    assert vision.encode_jpeg(IMG, 90)[:3].tolist() == [255, 216, 255]
    path = str(tmp_path / "x.png")
    vision.write_file(path, png)
    assert (vision.read_file(path) == png).all()
    assert (vision.read_image(path) == IMG).all()
    grey = vision.read_image(path, vision.ImageReadMode.GRAYSCALE)
    assert grey.shape == (4, 5, 1)  # libpng's conversion, as MindSpore's decoder
    assert grey[..., 0].tolist() == [[8, 41, 74, 107, 140], [173, 206, 239, 16, 49],
                                     [82, 115, 148, 181, 214], [218, 24, 57, 90, 123]]
    vision.write_png(str(tmp_path / "y.png"), IMG[..., :1])
    assert vision.read_image(str(tmp_path / "y.png")).shape == (4, 5, 1)
    vision.write_jpeg(str(tmp_path / "z.jpg"), IMG)
    assert vision.read_image(str(tmp_path / "z.jpg"), vision.ImageReadMode.COLOR).shape == \
        (4, 5, 3)
    with pytest.raises(ValueError, match="quality"):
        vision.encode_jpeg(IMG, 0)
    with pytest.raises(RuntimeError, match="does not exist"):
        vision.read_file(str(tmp_path / "missing.png"))


def test_random_crop_decode_resize():
    data = vision.encode_png(np.random.default_rng(0).integers(0, 256, (20, 30, 3), np.uint8))
    out = vision.RandomCropDecodeResize((8, 6))(data)
    assert out.shape == (8, 6, 3) and out.dtype == np.uint8


def test_random_resize_not_random_and_utils():
    out = vision.RandomResize((2, 3))(IMG)
    assert out.shape == (2, 3, 3)
    assert any((out == vision.Resize((2, 3), inter)(IMG)).all()
               for inter in (vision.Inter.NEAREST, vision.Inter.BILINEAR))

    @transforms.not_random
    def double(x):
        return x * 2

    assert double.random is False and vision.not_random is transforms.not_random
    assert vision.utils.Inter is vision.Inter and vision.utils.SliceMode is vision.SliceMode
