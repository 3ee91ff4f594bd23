"""EMNIST, KMNIST, QMNIST, Semeion, STL-10, USPS and FakeImage readers on tiny files in the
real formats. Expected rows and orders are MindSpore 2.10's, probed on the same files."""
import numpy as np
import pytest

import spore.dataset as ds


def _idx(path, magic, array, dtype=">u1"):
    header = np.array([magic, len(array), *array.shape[1:]], ">u4").tobytes()
    path.write_bytes(header + array.astype(dtype).tobytes())


def _rows(d):
    return list(d.create_tuple_iterator(output_numpy=True))


def _labels(d):
    return [r[1].tolist() for r in _rows(d)]


IMAGES = np.random.default_rng(0).integers(0, 256, (3, 28, 28))


def test_emnist_and_kmnist(tmp_path):
    for split, n in (("train", 3), ("test", 2)):
        for name, first in (("letters", 1), ("digits", 5)):
            _idx(tmp_path / f"emnist-{name}-{split}-images-idx3-ubyte", 2051, IMAGES[:n])
            _idx(tmp_path / f"emnist-{name}-{split}-labels-idx1-ubyte", 2049,
                 np.arange(n) + first)
        prefix = "train" if split == "train" else "t10k"
        (tmp_path / "k").mkdir(exist_ok=True)
        _idx(tmp_path / f"k/{prefix}-images-idx3-ubyte", 2051, IMAGES[:n])
        _idx(tmp_path / f"k/{prefix}-labels-idx1-ubyte", 2049, np.arange(n) + 7)
    d = ds.EMnistDataset(tmp_path, "letters", shuffle=False)
    assert _labels(d) == [1, 2, 1, 2, 3]  # test before train, as MindSpore orders them
    image, label = _rows(d)[0]
    assert image.shape == (28, 28, 1) and label.dtype == np.uint32
    np.testing.assert_array_equal(image[..., 0], IMAGES[0])  # as stored, not transposed
    assert _labels(ds.EMnistDataset(tmp_path, "digits", usage="train", shuffle=False)) == \
        [5, 6, 7]
    with pytest.raises(ValueError, match="'name'"):
        ds.EMnistDataset(tmp_path, "nope")
    assert _labels(ds.KMnistDataset(tmp_path / "k", shuffle=False)) == [7, 8, 7, 8, 9]


def test_qmnist(tmp_path):
    for split, n in (("qmnist-train", 3), ("qmnist-test", 4), ("xnist", 2)):
        _idx(tmp_path / f"{split}-images-idx3-ubyte", 2051, np.resize(IMAGES, (n, 28, 28)))
        _idx(tmp_path / f"{split}-labels-idx2-int", 3074, np.arange(n * 8).reshape(n, 8), ">i4")
    d = ds.QMnistDataset(tmp_path, usage="train", shuffle=False)
    assert _labels(d) == [0, 8, 16] and _rows(d)[0][1].dtype == np.uint32
    d = ds.QMnistDataset(tmp_path, usage="train", compat=False, shuffle=False)
    assert _labels(d)[1] == list(range(8, 16))
    assert _labels(ds.QMnistDataset(tmp_path, shuffle=False)) == \
        [0, 8, 16, 0, 8, 16, 24, 0, 8]  # all: train, test, nist
    assert ds.QMnistDataset(tmp_path, usage="test10k").get_dataset_size() == 4
    assert ds.QMnistDataset(tmp_path, usage="test50k").get_dataset_size() == 0
    (tmp_path / "xnist-labels-idx2-int").unlink()
    with pytest.raises(RuntimeError, match="xnist-labels-idx2-int does not exist"):
        ds.QMnistDataset(tmp_path, usage="nist")


def test_semeion(tmp_path):
    rng = np.random.default_rng(1)
    pixels = (rng.random((3, 256)) > 0.5).astype(int)
    lines = [" ".join(f"{v}.0000" for v in pixels[k]) + " " +
             " ".join(str(v) for v in np.eye(10, dtype=int)[k + 2]) + " " for k in range(3)]
    (tmp_path / "semeion.data").write_text("\n".join(lines) + "\n")
    rows = _rows(ds.SemeionDataset(tmp_path, shuffle=False))
    assert [int(r[1]) for r in rows] == [2, 3, 4] and rows[0][1].dtype == np.uint32
    assert rows[1][0].dtype == np.uint8 and rows[1][0].shape == (16, 16)
    np.testing.assert_array_equal(rows[1][0].ravel(), pixels[1])  # 0/1 as stored


def test_stl10(tmp_path):
    x = np.random.default_rng(2).integers(0, 256, (2, 3, 96, 96)).astype(np.uint8)
    x.tofile(tmp_path / "train_X.bin")
    np.array([1, 10], np.uint8).tofile(tmp_path / "train_y.bin")
    x[:1].tofile(tmp_path / "test_X.bin")
    np.array([3], np.uint8).tofile(tmp_path / "test_y.bin")
    x.tofile(tmp_path / "unlabeled_X.bin")
    d = ds.STL10Dataset(tmp_path, shuffle=False)
    assert _labels(d) == [2, 0, 9, -1, -1]  # test, train, unlabeled
    image, label = _rows(d)[1]
    assert label.dtype == np.int32 and image.shape == (96, 96, 3)
    np.testing.assert_array_equal(image, x[0].transpose(2, 1, 0))  # stored column-major
    assert _labels(ds.STL10Dataset(tmp_path, usage="train+unlabeled", shuffle=False)) == \
        [0, 9, -1, -1]
    with pytest.raises(ValueError, match="usage"):
        ds.STL10Dataset(tmp_path, usage="valid")


def test_usps(tmp_path):
    values = np.linspace(-1, 1, 256)
    for name, labels in (("usps", [1, 5, 10]), ("usps.t", [3, 2])):
        (tmp_path / name).write_text("".join(
            f"{lab} " + " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(values)) + " \n"
            for lab in labels))
    d = ds.USPSDataset(tmp_path, shuffle=False)
    assert _labels(d) == [0, 2, 4, 1, 9]  # the two files' rows interleave
    image, label = _rows(d)[0]
    assert image.dtype == np.uint8 and image.shape == (16, 16, 1) and label.dtype == np.uint32
    assert image.ravel()[:5].tolist() == [0, 0, 1, 2, 4]  # int((v + 1) / 2 * 255)
    assert image.ravel()[-3:].tolist() == [253, 254, 255]
    assert _labels(ds.USPSDataset(tmp_path, usage="test", shuffle=False)) == [2, 1]


def test_fake_image():
    d = ds.FakeImageDataset(num_images=6, image_size=(4, 5, 3), num_classes=4, base_seed=3)
    rows = _rows(d)
    assert len(rows) == 6 and all(r[0].shape == (4, 5, 3) and r[0].dtype == np.uint8
                                  for r in rows)
    assert all(r[1].dtype == np.uint32 and 0 <= int(r[1]) < 4 for r in rows)
    again = _rows(ds.FakeImageDataset(num_images=6, image_size=(4, 5, 3), num_classes=4,
                                      base_seed=3, shuffle=False))
    assert sorted(r[0].tobytes() for r in rows) == sorted(r[0].tobytes() for r in again)
    with pytest.raises(ValueError, match="image_size"):
        ds.FakeImageDataset(image_size=(4, 5))


def test_random_dataset():
    import spore as ms
    schema = ds.Schema()
    schema.add_column("image", de_type=ms.uint8, shape=[2, 2])
    schema.add_column("label", de_type=ms.int32, shape=[1])
    schema.add_column("scalar", de_type=ms.int64)
    d = ds.RandomDataset(total_rows=4, schema=schema, shuffle=False)
    assert d.get_col_names() == ["image", "label", "scalar"] and d.get_dataset_size() == 4
    rows = _rows(d)
    image, label, scalar = rows[0]
    assert image.dtype == np.uint8 and image.shape == (2, 2) and len(set(image.ravel())) == 1
    assert label.dtype == np.int32 and label.shape == (1,) and scalar.shape == ()
    # each value is one random byte repeated, as MindSpore fills them
    assert len(set(label.view(np.uint8).tolist())) == 1
    assert ds.RandomDataset(total_rows=3, schema=schema, columns_list=["label"]) \
        .get_col_names() == ["label"]
    free = ds.RandomDataset(total_rows=2)
    assert 1 <= len(free.get_col_names()) <= 4 and free.get_col_names()[0] == "c0"
    assert len(_rows(free)) == 2
    with pytest.raises(ValueError, match="columns"):
        ds.RandomDataset(total_rows=2, schema=schema, columns_list=["nope"])
