"""Vision augmentations: values probed from MindSpore 2.10 (`vision.X()(image)` on the
images below), and properties for the random ones."""
import numpy as np
import pytest

import spore.dataset as ds
import spore.dataset.vision as V

IMG = np.array([241, 160, 175, 229, 148, 198, 213, 57, 14, 76, 72, 223, 233, 1, 127, 210, 33,
                204, 30, 119, 209, 77, 87, 71, 184, 65, 253, 113, 122, 129, 149, 141, 130, 254,
                206, 202, 179, 159, 87, 253, 119, 55, 216, 41, 219, 156, 29, 11, 113, 9, 36,
                131, 248, 119, 206, 234, 210, 161, 112, 131], np.uint8).reshape(4, 5, 3)
LOW = np.array([81, 99, 90, 79, 139, 60, 67, 75, 137, 115, 130, 76, 117, 89, 99, 60, 109, 126,
                113, 72, 102, 81, 137, 130, 74, 100, 135, 127, 116, 111, 63, 119, 97, 67, 79,
                103, 118, 100, 109, 129, 114, 88, 111, 107, 68, 64, 112, 91, 107, 85, 78, 72,
                90, 125, 92, 90, 106, 138, 91, 107], np.uint8).reshape(4, 5, 3)

PROBED = {
    "equalize": (lambda: V.Equalize()(LOW),
                 [121, 107, 67, 94, 255, 0, 54, 13, 255, 188, 228, 27, 201, 54, 107, 0, 161,
                  215, 174, 0, 121, 121, 242, 228, 81, 134, 242, 228, 201, 188, 13, 215, 94, 54,
                  27, 134, 215, 134, 174, 242, 188, 54, 161, 148, 13, 27, 174, 81, 148, 40, 40,
                  67, 81, 201, 134, 81, 148, 255, 94, 161]),
    "autocontrast": (lambda: V.AutoContrast(cutoff=10.0, ignore=[81])(LOW),
                     [69, 100, 66, 61, 255, 0, 15, 0, 255, 200, 255, 0, 208, 50, 108, 0, 150,
                      236, 193, 0, 122, 69, 255, 255, 42, 105, 255, 247, 185, 165, 0, 200, 99,
                      15, 0, 127, 212, 105, 155, 255, 175, 56, 185, 140, 0, 3, 165, 70, 170, 30,
                      9, 34, 55, 231, 112, 55, 141, 255, 60, 146]),
    "gamma": (lambda: V.AdjustGamma(0.5, 1.2)(IMG),
              [255, 243, 254, 255, 234, 255, 255, 145, 71, 167, 163, 255, 255, 19, 216, 255,
               110, 255, 105, 209, 255, 168, 179, 162, 255, 155, 255, 204, 212, 218, 234, 228,
               219, 255, 255, 255, 255, 242, 179, 255, 209, 142, 255, 123, 255, 240, 103, 63,
               204, 57, 115, 220, 255, 209, 255, 255, 255, 244, 203, 220]),
    "sharpness-2": (lambda: V.AdjustSharpness(2.0)(IMG),
                    [241, 160, 175, 229, 148, 198, 213, 57, 14, 76, 72, 223, 233, 1, 127, 210,
                     33, 204, 0, 116, 254, 15, 68, 19, 193, 54, 255, 113, 122, 129, 149, 141,
                     130, 255, 255, 255, 193, 173, 52, 255, 110, 0, 216, 41, 219, 156, 29, 11,
                     113, 9, 36, 131, 248, 119, 206, 234, 210, 161, 112, 131]),
    "sharpness-0": (lambda: V.AdjustSharpness(0.0)(IMG),
                    [241, 160, 175, 229, 148, 198, 213, 57, 14, 76, 72, 223, 233, 1, 127, 210,
                     33, 204, 131, 122, 164, 139, 106, 123, 175, 76, 168, 113, 122, 129, 149,
                     141, 130, 178, 143, 144, 165, 145, 122, 195, 128, 115, 216, 41, 219, 156,
                     29, 11, 113, 9, 36, 131, 248, 119, 206, 234, 210, 161, 112, 131]),
    "gaussian-blur": (lambda: V.GaussianBlur((5, 3), (1.5, 0.8))(IMG),
                      [164, 109, 160, 158, 103, 166, 153, 87, 154, 144, 75, 162, 146, 66, 158,
                       152, 118, 163, 154, 113, 164, 155, 101, 152, 158, 90, 156, 162, 82, 151,
                       161, 130, 133, 168, 132, 133, 175, 131, 133, 188, 128, 140, 192, 124, 138,
                       166, 122, 99, 173, 131, 104, 181, 145, 118, 195, 152, 135, 198, 156, 139]),
    "grayscale": (lambda: V.Grayscale()(IMG),
                  [186, 178, 99, 90, 85, 105, 103, 82, 122, 120, 142, 220, 157, 152, 114, 65, 43,
                   198, 223, 129]),
}


@pytest.mark.parametrize("name", sorted(PROBED))
def test_uint8_values_match_mindspore(name):
    fn, want = PROBED[name]
    out = fn()
    assert out.dtype == np.uint8
    assert out.ravel().tolist() == want


def test_float_images():
    f = IMG.astype(np.float32) / 255
    blur = V.GaussianBlur(3, 1.0)(f)
    assert blur.dtype == np.float32
    np.testing.assert_allclose(blur.ravel()[:6], [0.6547206, 0.44413123, 0.776843, 0.6020663,
                                                  0.41017154, 0.6153406], rtol=1e-5)
    np.testing.assert_allclose(V.AdjustGamma(0.5, 0.5)(np.full((2, 2, 1), 0.64, np.float32)),
                               np.full((2, 2, 1), 0.5656854), rtol=1e-6)   # (gain * x) ** gamma
    assert (V.AdjustGamma(3.0, 2.0)(np.full((1, 1, 1), 0.64, np.float32)) == 1).all()
    assert V.AdjustSharpness(2.0)(f).dtype == np.float32


def test_grayscale_three_channels_and_random_grayscale():
    g3 = V.Grayscale(3)(IMG)
    assert g3.shape == (4, 5, 3) and (g3 == V.Grayscale()(IMG)[..., None]).all()
    assert (V.RandomGrayscale(1.0)(IMG) == g3).all()
    assert (V.RandomGrayscale(0.0)(IMG) == IMG).all()
    with pytest.raises(ValueError, match="Grayscale"):
        V.Grayscale(2)


def test_five_and_ten_crop():
    crops = V.FiveCrop((3, 4))(IMG)
    want = [IMG[:3, :4], IMG[:3, 1:], IMG[1:, :4], IMG[1:, 1:], IMG[0:3, 0:4]]
    assert len(crops) == 5 and all((c == w).all() for c, w in zip(crops, want))
    ten = V.TenCrop(3, use_vertical_flip=True)(IMG)
    assert len(ten) == 10 and all(c.shape == (3, 3, 3) for c in ten)
    assert (ten[5] == IMG[::-1][:3, :3]).all()
    with pytest.raises(ValueError, match="FiveCrop"):
        V.FiveCrop(6)(IMG)


def test_linear_transformation():
    x = np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    m = np.eye(12, dtype=np.float32) * 2
    out = V.LinearTransformation(m, np.ones(12, np.float32))(x)
    np.testing.assert_array_equal(out, 2 * (x - 1))
    with pytest.raises(ValueError, match="square"):
        V.LinearTransformation(np.ones((2, 3)), np.ones(2))


def test_cutout_zeroes_squares_that_the_border_may_cut():
    img = np.full((6, 8, 3), 200, np.uint8)
    ds.config.set_seed(3)
    for _ in range(20):
        out = V.CutOut(3, 2)(img)
        zero = (out == 0).all(-1)
        assert ((out == 0) | (out == 200)).all() and zero.any() and zero.sum() <= 18
        assert ((out == 0).any(-1) == zero).all()             # every channel of a pixel
    chw = V.CutOut(2, is_hwc=False)(np.full((3, 5, 5), 7, np.uint8))
    assert ((chw == 0).all(0) | (chw == 7).all(0)).all() and (chw == 0).any()


def test_random_forms_at_the_probability_ends():
    for op, full in ((V.RandomEqualize, V.Equalize()), (V.RandomInvert, V.Invert())):
        assert (op(1.0)(LOW) == full(LOW)).all() and (op(0.0)(LOW) == LOW).all()
    assert (V.RandomAutoContrast(prob=1.0)(LOW) == V.AutoContrast()(LOW)).all()
    assert (V.RandomAdjustSharpness(2.0, 1.0)(IMG) == V.AdjustSharpness(2.0)(IMG)).all()
    assert (V.RandomPosterize((4, 4))(IMG) == V.Posterize(4)(IMG)).all()
    assert (V.RandomSolarize((0, 0))(IMG) == V.Solarize((0, 0))(IMG)).all()
    assert (V.RandomSharpness((0.0, 0.0))(IMG) == V.AdjustSharpness(0.0)(IMG)).all()
    with pytest.raises(ValueError, match="RandomPosterize"):
        V.RandomPosterize((0, 9))


def test_mixup_and_cutmix_batches():
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (4, 5, 5, 3)).astype(np.uint8)
    labels = np.eye(4, dtype=np.float32)
    mixed, mixed_labels = V.MixUpBatch(1.0)(images, labels)
    assert mixed.dtype == np.uint8 and mixed_labels.dtype == np.float32
    np.testing.assert_allclose(mixed_labels.sum(1), 1, rtol=1e-6)
    out, out_labels = V.CutMixBatch(V.ImageBatchFormat.NHWC, 1.0, 1.0)(images, labels)
    assert out.shape == images.shape and out_labels.dtype == np.float32
    np.testing.assert_allclose(out_labels.sum(1), 1, rtol=1e-6)
    for i in range(4):                    # each label's weights are the kept / pasted areas
        kept = (out[i] == images[i]).all(-1).mean()
        assert out_labels[i, i] >= kept - 1e-6 or (out[i] == images[i]).all()
    nchw, _ = V.CutMixBatch(V.ImageBatchFormat.NCHW, 0.5, 0.0)(images.transpose(0, 3, 1, 2),
                                                                labels)
    assert (nchw == images.transpose(0, 3, 1, 2)).all()           # prob 0: unchanged
    with pytest.raises(ValueError, match="MixUpBatch"):
        V.MixUpBatch()(images, np.arange(4))


def test_augmentations_in_a_pipeline_repeat_with_the_seed():
    def run():
        ds.config.set_seed(5)
        data = ds.NumpySlicesDataset({"image": np.stack([IMG] * 6)}, shuffle=False)
        data = data.map([V.RandomSharpness(), V.CutOut(2), V.RandomInvert()], "image")
        return [row["image"] for row in data.create_dict_iterator(output_numpy=True)]
    first, second = run(), run()
    assert all((a == b).all() for a, b in zip(first, second))
    assert any((a != first[0]).any() for a in first[1:])


HUE_IMG = np.array([10, 10, 10, 255, 0, 0, 182, 7, 124, 37, 102, 237, 140, 18, 138, 33, 193, 242,
                    250, 159, 222, 94, 37, 130, 113, 169, 254, 70, 219, 35, 89, 201, 63, 171, 117,
                    131], np.uint8).reshape(3, 4, 3)
HUE = {
    0.2: [10, 10, 10, 204, 255, 0, 182, 98, 7, 216, 37, 237, 140, 44, 18, 127, 33, 242, 250, 204,
          159, 130, 37, 52, 229, 113, 254, 35, 217, 219, 63, 199, 201, 171, 168, 117],
    -0.3: [10, 10, 10, 60, 0, 255, 7, 85, 182, 56, 237, 37, 18, 110, 140, 146, 242, 33, 159, 202,
           250, 37, 130, 116, 136, 254, 113, 219, 40, 35, 201, 66, 63, 117, 118, 171],
    0.5: [10, 10, 10, 0, 255, 252, 7, 182, 61, 237, 169, 37, 18, 140, 18, 242, 77, 33, 159, 250,
          185, 74, 130, 37, 254, 196, 113, 182, 35, 219, 173, 63, 201, 117, 171, 156],
}


@pytest.mark.parametrize("factor", sorted(HUE))
def test_adjust_hue_matches_mindspore(factor):
    assert V.AdjustHue(factor)(HUE_IMG).ravel().tolist() == HUE[factor]


def test_adjust_hue_checks():
    with pytest.raises(ValueError, match="hue_factor"):
        V.AdjustHue(0.6)
    with pytest.raises(TypeError, match="uint8"):
        V.AdjustHue(0.1)(HUE_IMG.astype(np.float32))
