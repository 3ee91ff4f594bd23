"""dataset.vision against NumPy computations and values recorded from MindSpore 2.10."""
import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import vision

# The image the MindSpore values were recorded on, and how: with MindSpore 2.10 (CPU),
# `vision.Resize(size, interpolation)(IMAGE)[..., 0]` for each size below.
IMAGE = (np.arange(4 * 6 * 3) * 7 % 256).astype(np.uint8).reshape(4, 6, 3)
MS_BILINEAR_3x4 = [[26, 58, 89, 121], [162, 98, 129, 161], [138, 138, 169, 201]]
MS_BILINEAR_6x9 = [[0, 10, 24, 38, 52, 66, 80, 94, 105],
                   [63, 74, 87, 102, 116, 129, 144, 158, 168],
                   [147, 136, 129, 143, 157, 171, 185, 199, 209],
                   [231, 135, 42, 56, 70, 84, 98, 112, 122],
                   [187, 134, 83, 98, 112, 125, 140, 154, 164],
                   [122, 132, 146, 160, 174, 188, 202, 216, 227]]
MS_NEAREST_3x4 = [[0, 21, 63, 84], [126, 147, 189, 210], [252, 17, 59, 80]]
MS_NEAREST_7x9 = [[0, 0, 21, 42, 42, 63, 84, 84, 105]] * 2 + \
    [[126, 126, 147, 168, 168, 189, 210, 210, 231]] * 2 + \
    [[252, 252, 17, 38, 38, 59, 80, 80, 101]] * 2 + [[122, 122, 143, 164, 164, 185, 206, 206, 227]]
# vision.Resize((3, 4))(IMAGE.astype(np.float32) / 3)[..., 0]
MS_FLOAT_3x4 = [[8.75, 19.25, 29.75, 40.25], [54.083332, 32.583332, 43.083332, 53.583332],
                [46.083336, 45.916664, 56.41666, 66.916664]]


def bilinear_reference(img, out_h, out_w):
    """Half-pixel-centre bilinear interpolation, one output pixel at a time."""
    h, w = img.shape[:2]
    out = np.zeros((out_h, out_w) + img.shape[2:])
    for i in range(out_h):
        y = min(max((i + 0.5) * h / out_h - 0.5, 0.0), h - 1.0)
        y0 = int(np.floor(y))
        y1, fy = min(y0 + 1, h - 1), y - y0
        for j in range(out_w):
            x = min(max((j + 0.5) * w / out_w - 0.5, 0.0), w - 1.0)
            x0 = int(np.floor(x))
            x1, fx = min(x0 + 1, w - 1), x - x0
            top = (1 - fx) * img[y0, x0] + fx * img[y0, x1]
            bottom = (1 - fx) * img[y1, x0] + fx * img[y1, x1]
            out[i, j] = (1 - fy) * top + fy * bottom
    return out


def test_resize_bilinear_uint8_matches_mindspore():
    out = vision.Resize((3, 4))(IMAGE)
    assert out.dtype == np.uint8 and out.shape == (3, 4, 3)
    np.testing.assert_array_equal(out[..., 0], MS_BILINEAR_3x4)
    up = vision.Resize((6, 9))(IMAGE)[..., 0].astype(int)
    assert np.abs(up - MS_BILINEAR_6x9).max() <= 1  # OpenCV's SIMD rounding differs by 1


def test_resize_nearest_matches_mindspore():
    np.testing.assert_array_equal(vision.Resize((3, 4), vision.Inter.NEAREST)(IMAGE)[..., 0],
                                  MS_NEAREST_3x4)
    np.testing.assert_array_equal(vision.Resize((7, 9), vision.Inter.NEAREST)(IMAGE)[..., 0],
                                  MS_NEAREST_7x9)


def test_resize_float_matches_mindspore_and_the_reference():
    img = IMAGE.astype(np.float32) / 3
    out = vision.Resize((3, 4))(img)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out[..., 0], MS_FLOAT_3x4, rtol=1e-5)
    rng = np.random.default_rng(0)
    img = rng.random((7, 5, 2))
    for size in [(3, 2), (11, 13), (7, 1)]:
        np.testing.assert_allclose(vision.Resize(size)(img), bilinear_reference(img, *size),
                                   rtol=1e-6, atol=1e-12)


def test_resize_uint8_is_the_rounded_reference_within_one():
    img = np.random.default_rng(1).integers(0, 256, (9, 11, 3), dtype=np.uint8)
    for size in [(4, 5), (20, 17), (9, 30)]:
        ref = np.rint(bilinear_reference(img.astype(np.float64), *size))
        assert np.abs(vision.Resize(size)(img).astype(int) - ref).max() <= 1


def test_resize_int_size_sets_the_shorter_side_and_other_layouts():
    assert vision.Resize(2)(IMAGE).shape == (2, 3, 3)          # MindSpore: (2, 3, 3)
    assert vision.Resize(5)(IMAGE[:, :3]).shape == (6, 5, 3)   # MindSpore: (6, 5, 3)
    np.testing.assert_array_equal(vision.Resize((3, 4))(IMAGE[..., 0]), MS_BILINEAR_3x4)
    assert vision.Resize(3)(IMAGE[None]).shape == (1, 3, 4, 3)
    with pytest.raises(ValueError, match="Resize"):
        vision.Resize(3)(np.ones(5, np.uint8))
    with pytest.raises(ValueError, match="BILINEAR"):
        vision.Resize(3, vision.Inter.BICUBIC)


def test_crops():
    img = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    np.testing.assert_array_equal(vision.CenterCrop(2)(img), img[1:3, 1:3])
    np.testing.assert_array_equal(vision.CenterCrop((3, 2))(img), img[0:3, 1:3])
    padded = vision.CenterCrop((6, 8))(img)
    assert padded.shape == (6, 8, 3) and padded[0].sum() == 0
    np.testing.assert_array_equal(padded[1:5, 1:6], img)
    np.testing.assert_array_equal(vision.Crop((1, 2), (2, 3))(img), img[1:3, 2:5])


def test_random_crop_is_a_window_of_the_padded_image():
    img = np.arange(1, 26, dtype=np.uint8).reshape(5, 5)
    padded = np.pad(img, 2)
    for _ in range(10):
        crop = vision.RandomCrop(4, padding=2)(img)
        windows = [padded[i:i + 4, j:j + 4] for i in range(6) for j in range(6)]
        assert any(np.array_equal(crop, w) for w in windows)
    assert vision.RandomCrop((4, 5), padding=(1, 2, 3, 4))(img).shape == (4, 5)
    assert vision.RandomCrop(7, pad_if_needed=True)(img).shape == (7, 7)
    with pytest.raises(ValueError, match="larger than"):
        vision.RandomCrop(6)(img)


def test_flips():
    img = np.arange(6, dtype=np.uint8).reshape(2, 3)
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(vision.RandomVerticalFlip(1.0)(img), img[::-1])
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(0.0)(img), img)
    np.testing.assert_array_equal(vision.HorizontalFlip()(img), img[:, ::-1])
    np.testing.assert_array_equal(vision.VerticalFlip()(img), img[::-1])


def test_normalize_rescale_layout():
    img = np.random.default_rng(2).integers(0, 256, (4, 5, 3), dtype=np.uint8)
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]
    out = vision.Normalize(mean, std)(img)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, (img - np.array(mean)) / np.array(std), rtol=1e-6)
    chw = vision.Normalize(mean, std, is_hwc=False)(img.transpose(2, 0, 1))
    np.testing.assert_allclose(chw, out.transpose(2, 0, 1), rtol=1e-6)
    with pytest.raises(ValueError, match="channels"):
        vision.Normalize([1.0, 2.0], [1.0, 1.0])(img)
    with pytest.raises(ValueError, match=r"\[0, 255\]"):
        vision.Normalize([300.0], [2.0])
    rescaled = vision.Rescale(1 / 255, -0.5)(img)
    assert rescaled.dtype == np.float32
    np.testing.assert_allclose(rescaled, img / 255 - 0.5, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(vision.HWC2CHW()(img), img.transpose(2, 0, 1))
    tensor = vision.ToTensor()(img)
    assert tensor.dtype == np.float32 and tensor.shape == (3, 4, 5)
    np.testing.assert_allclose(tensor, img.transpose(2, 0, 1) / 255, rtol=1e-6)
    assert vision.ToTensor()(img[..., 0]).shape == (1, 4, 5)


def test_pad():
    img = np.ones((2, 2, 1), np.uint8)
    assert vision.Pad([1, 2])(img).shape == (6, 4, 1)  # (left/right, top/bottom)
    filled = vision.Pad(1, fill_value=(1, 2, 3))(np.zeros((1, 1, 3), np.float32))
    np.testing.assert_array_equal(filled[0, 0], [1, 2, 3])
    np.testing.assert_array_equal(filled[1, 1], [0, 0, 0])
    edge = vision.Pad(1, padding_mode=vision.Border.EDGE)(np.arange(4).reshape(2, 2))
    np.testing.assert_array_equal(edge, np.pad(np.arange(4).reshape(2, 2), 1, mode="edge"))


def test_random_resized_crop():
    img = np.random.default_rng(3).integers(0, 256, (8, 12, 3), dtype=np.uint8)
    assert vision.RandomResizedCrop((5, 6))(img).shape == (5, 6, 3)
    whole = vision.RandomResizedCrop((4, 6), scale=(1.0, 1.0), ratio=(1.5, 1.5))(img)
    np.testing.assert_array_equal(whole, vision.Resize((4, 6))(img))


def test_vision_in_a_pipeline_with_workers():
    images = np.random.default_rng(4).integers(0, 256, (6, 8, 8, 3), dtype=np.uint8)
    ops = [vision.Resize((4, 4)), vision.Rescale(1 / 255, 0), vision.HWC2CHW()]
    d = ds.NumpySlicesDataset(images, ["image"], shuffle=False).map(
        ops, "image", num_parallel_workers=2).batch(3)
    batches = [b[0] for b in d.create_tuple_iterator(output_numpy=True)]
    expected = np.stack([ops[2](ops[1](ops[0](im))) for im in images])
    np.testing.assert_allclose(np.concatenate(batches), expected)
    assert batches[0].shape == (3, 3, 4, 4)


# ------------------------------------------------------------------ pixel-value transforms
# (values against MindSpore 2.10: tests/compat, program vision_adjust)
def test_color_transforms_on_a_known_pixel():
    img = np.array([[[217, 163, 130], [69, 78, 10]]], np.uint8)
    assert vision.Invert()(img).tolist() == [[[38, 92, 125], [186, 177, 245]]]
    assert vision.Posterize(3)(img).tolist() == [[[192, 160, 128], [64, 64, 0]]]
    assert vision.Solarize(100)(img).tolist() == [[[38, 92, 125], [69, 78, 10]]]
    # 195 * 1.3 = 253.5 exactly, but OpenCV's float32 factor gives 253.49999 -> 253
    assert vision.AdjustBrightness(1.3)(np.full((1, 1, 3), 195, np.uint8)).ravel()[0] == 253
    gray = vision.ConvertColor(vision.ConvertMode.COLOR_RGB2GRAY)(img)
    assert gray.shape == (1, 2) and gray.tolist() == [[175, 68]]


def test_layout_transforms():
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    padded = vision.PadToSize((4, 5), offset=(1, 0), fill_value=9)(img)
    assert padded.shape == (4, 5, 3) and padded[0].max() == 9 and (padded[1:3, :3] == img).all()
    assert vision.ResizedCrop(0, 1, 2, 2, 3)(img).shape == (3, 3, 3)   # an int: both sides
    erased = vision.Erase(0, 1, 1, 2, value=(1, 2, 3))(img)
    assert erased[0, 1:].tolist() == [[1, 2, 3], [1, 2, 3]] and img[0, 1, 0] == 3
    chw = vision.NormalizePad([0.0], [1.0], dtype="float16", is_hwc=False)(img[..., 0])
    assert chw.dtype == np.float16 and chw.shape == (2, 2, 3)   # (C+1, H, W)
    assert vision.get_image_size(img) == [2, 3] and vision.get_image_num_channels(img) == 3


def test_pixel_transform_errors():
    with pytest.raises(ValueError, match="'bits' must be an int in"):
        vision.Posterize(9)
    with pytest.raises(ValueError, match="'threshold'"):
        vision.Solarize((200, 100))
    with pytest.raises(ValueError, match="non-negative"):
        vision.AdjustContrast(-1)
    with pytest.raises(ValueError, match=r"RGB image of shape <H, W, 3>"):
        vision.AdjustSaturation(0.5)(np.zeros((2, 2), np.uint8))
    with pytest.raises(ValueError, match="needs an image of 4 channels"):
        vision.ConvertColor(vision.ConvertMode.COLOR_RGBA2GRAY)(np.zeros((2, 2, 3), np.uint8))
    with pytest.raises(ValueError, match="does not fit"):
        vision.PadToSize((2, 2))(np.zeros((3, 3), np.uint8))
