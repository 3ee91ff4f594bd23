"""Image + bounding-box transforms. Expected boxes and pixels are MindSpore 2.10's, probed
on the same inputs (each call here starts from the original boxes)."""
import numpy as np
import pytest

from spore.dataset import vision

IMG = (np.arange(8 * 10 * 3).reshape(8, 10, 3) * 5 % 256).astype(np.uint8)
BOXES = np.array([[1, 2, 4, 3, 7], [5, 0, 5, 8, 1]], np.float32)


def test_resize_and_flips():
    img, boxes = vision.ResizeWithBBox((4, 5))(IMG, BOXES)
    assert img.shape == (4, 5, 3) and boxes.dtype == np.float32
    assert boxes.tolist() == [[0.5, 1.0, 2.0, 1.5, 7.0], [2.5, 0.0, 2.5, 4.0, 1.0]]
    assert vision.ResizeWithBBox(16)(IMG, BOXES)[1].tolist() == \
        [[2, 4, 8, 6, 7], [10, 0, 10, 16, 1]]
    img, boxes = vision.RandomHorizontalFlipWithBBox(1.0)(IMG, BOXES)
    assert boxes.tolist() == [[5, 2, 4, 3, 7], [0, 0, 5, 8, 1]] and (img == IMG[:, ::-1]).all()
    img, boxes = vision.RandomVerticalFlipWithBBox(1.0)(IMG, BOXES)
    assert boxes.tolist() == [[1, 3, 4, 3, 7], [5, 0, 5, 8, 1]] and (img == IMG[::-1]).all()
    assert BOXES[0, 0] == 1  # the caller's boxes are untouched
    assert vision.RandomHorizontalFlipWithBBox(0.0)(IMG, BOXES)[1].tolist() == BOXES.tolist()


def test_crops():
    img, boxes = vision.RandomCropWithBBox((8, 10))(IMG, BOXES)
    assert (img == IMG).all() and boxes.tolist() == BOXES.tolist()
    for _ in range(10):
        img, boxes = vision.RandomCropWithBBox((4, 5))(IMG, BOXES)
        assert img.shape == (4, 5, 3)
        assert (boxes[:, 0] + boxes[:, 2] <= 5).all() and (boxes[:, 1] + boxes[:, 3] <= 4).all()
        assert (boxes >= 0).all() and set(boxes[:, 4].tolist()) <= {7.0, 1.0}
    boxes = vision.bbox.crop_boxes(np.array([[5, 3, 4, 3]], np.float32), 2, 0, 4, 5)
    assert boxes.tolist() == [[5, 1, 0, 3]]  # on the window's edge: kept with zero width
    img, boxes = vision.RandomResizedCropWithBBox((4, 5), scale=(1.0, 1.0),
                                                  ratio=(1.25, 1.25))(IMG, BOXES)
    assert img.shape == (4, 5, 3)
    assert boxes.tolist() == [[0.5, 1.0, 2.0, 1.5, 7.0], [2.5, 0.0, 2.5, 4.0, 1.0]]
    assert vision.RandomResizeWithBBox((4, 5))(IMG, BOXES)[1].tolist() == boxes.tolist()


def test_bounding_box_augment():
    boxes = np.array([[5, 3, 4, 3], [0, 0, 5, 8]], np.float32)
    img, out_boxes = vision.BoundingBoxAugment(vision.Invert(), ratio=1.0)(IMG, boxes)
    assert out_boxes.tolist() == boxes.tolist()
    assert img[..., 0].tolist()[3] == [61, 46, 31, 16, 1, 242, 227, 212, 197, 73]
    assert img[..., 0].tolist()[6] == [123, 108, 93, 78, 63, 207, 222, 237, 252, 11]
    assert (vision.BoundingBoxAugment(vision.Invert(), ratio=0.0)(IMG, boxes)[0] == IMG).all()


def test_box_errors():
    with pytest.raises(RuntimeError, match="float32"):
        vision.ResizeWithBBox((4, 5))(IMG, BOXES.astype(np.int32))
    with pytest.raises(RuntimeError, match="bbox height coordinate"):
        vision.RandomHorizontalFlipWithBBox(1.0)(IMG, np.array([[8, 6, 2, 3]], np.float32))
    with pytest.raises(RuntimeError, match=r"\(n, 4 \+ k\)"):
        vision.ResizeWithBBox(4)(IMG, np.zeros((2, 3), np.float32))


def test_crop_with_padding_moves_boxes():
    img, boxes = vision.RandomCropWithBBox((12, 14), padding=2)(IMG, BOXES)
    assert img.shape == (12, 14, 3) and (img[:2] == 0).all()
    assert boxes.tolist() == [[3, 4, 4, 3, 7], [7, 2, 5, 8, 1]]
    img, boxes = vision.RandomCropWithBBox((10, 10), pad_if_needed=True)(IMG, BOXES)
    assert img.shape == (10, 10, 3) and boxes[:, 1].tolist() == [3, 1]
