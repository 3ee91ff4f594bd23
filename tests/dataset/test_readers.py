"""File readers on small files written here in the real formats (IDX, CIFAR-10 binary,
class folders of PNGs), including truncated and corrupt files."""
import sys

import numpy as np
import pytest

import spore as ms
import spore.dataset as ds
from spore.dataset import transforms, vision

from .helpers import rows


def _write_idx(path, magic, array):
    header = np.array([magic, len(array), *array.shape[1:]], dtype=">u4").tobytes()
    path.write_bytes(header + array.astype(np.uint8).tobytes())


@pytest.fixture
def mnist_dir(tmp_path):
    rng = np.random.default_rng(0)
    for prefix, n, first_label in (("train", 5, 0), ("t10k", 3, 5)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = (np.arange(n) + first_label) % 10
        _write_idx(tmp_path / f"{prefix}-images-idx3-ubyte", 2051, images)
        _write_idx(tmp_path / f"{prefix}-labels-idx1-ubyte", 2049, labels)
        np.save(tmp_path / f"{prefix}.npy", images)
    return tmp_path


def test_mnist_rows(mnist_dir):
    d = ds.MnistDataset(str(mnist_dir), usage="train", shuffle=False)
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 5
    image, label = got[2]
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8
    assert label.shape == () and label.dtype == np.uint32 and int(label) == 2
    np.testing.assert_array_equal(image[..., 0], np.load(mnist_dir / "train.npy")[2])


def test_mnist_usage(mnist_dir):
    # MindSpore 2.10 reads the files in name order: the t10k rows (5, 6, 7) come first
    assert [int(r[1]) for r in rows(ds.MnistDataset(mnist_dir, shuffle=False))] == \
        [5, 6, 7, 0, 1, 2, 3, 4]
    assert ds.MnistDataset(mnist_dir, usage="test").get_dataset_size() == 3
    assert ds.MnistDataset(mnist_dir, usage="all").get_dataset_size() == 8


def test_mnist_typical_pipeline(mnist_dir):
    # Reference §10.6: Rescale + HWC2CHW on image, TypeCast on label, batch(2).
    d = ds.MnistDataset(mnist_dir, usage="train", shuffle=False)
    d = d.map([vision.Rescale(1 / 255, 0), vision.HWC2CHW()], "image")
    d = d.map(transforms.TypeCast(ms.int32), "label").batch(2)
    image, label = next(iter(d))
    assert image.shape == (2, 1, 28, 28) and image.dtype == ms.float32
    assert label.shape == (2,) and label.dtype == ms.int32
    expected = np.load(mnist_dir / "train.npy")[:2, None].astype(np.float32) * np.float32(1 / 255)
    np.testing.assert_allclose(image.asnumpy(), expected, rtol=1e-6)


def _labels(dataset):
    return [int(r[1]) for r in rows(dataset)]


def test_mnist_reads_whichever_files_the_folder_holds(mnist_dir):
    # MindSpore 2.10 (probed): usage None/'all' reads every *idx3-ubyte/*idx1-ubyte file in
    # name order, 'train' those named *train*, 'test' those named *t10k*
    for name in ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        (mnist_dir / name).unlink()
    for usage in (None, "all", "train"):
        d = ds.MnistDataset(str(mnist_dir), usage=usage, shuffle=False)
        assert _labels(d) == [0, 1, 2, 3, 4] and d.get_dataset_size() == 5
    with pytest.raises(RuntimeError, match="no data found.*usage 'test'"):
        ds.MnistDataset(mnist_dir, usage="test")
    # the files as some downloads name them, and an extra pair that holds "train"
    labels = np.array([7, 8])
    _write_idx(mnist_dir / "train-images.idx3-ubyte", 2051, np.zeros((2, 28, 28)))
    _write_idx(mnist_dir / "train-labels.idx1-ubyte", 2049, labels)
    assert _labels(ds.MnistDataset(mnist_dir, shuffle=False)) == [0, 1, 2, 3, 4, 7, 8]
    assert _labels(ds.MnistDataset(mnist_dir, "train", shuffle=False)) == [0, 1, 2, 3, 4, 7, 8]
    _write_idx(mnist_dir / "x-t10k-images-idx3-ubyte", 2051, np.zeros((1, 28, 28)))
    _write_idx(mnist_dir / "x-t10k-labels-idx1-ubyte", 2049, np.array([9]))
    assert _labels(ds.MnistDataset(mnist_dir, "test", shuffle=False)) == [9]
    assert _labels(ds.MnistDataset(mnist_dir, shuffle=False)) == [0, 1, 2, 3, 4, 7, 8, 9]


def test_fashion_mnist_reads_the_same_files(mnist_dir):
    d = ds.FashionMnistDataset(mnist_dir, usage="test", shuffle=False)
    assert d.get_col_names() == ["image", "label"] and _labels(d) == [5, 6, 7]
    image, label = next(d.create_tuple_iterator(output_numpy=True))
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8 and label.dtype == np.uint32
    assert ds.FashionMnistDataset(mnist_dir).get_dataset_size() == 8


def test_mnist_missing_truncated_and_corrupt_files(mnist_dir):
    (mnist_dir / "t10k-labels-idx1-ubyte").unlink()
    ds.MnistDataset(mnist_dir, usage="train")  # test files are not needed
    with pytest.raises(RuntimeError, match="num of images: 2, num of labels: 1"):
        ds.MnistDataset(mnist_dir, usage="all")
    with pytest.raises(RuntimeError, match="num of images: 1, num of labels: 0"):
        ds.MnistDataset(mnist_dir, usage="test")
    images = mnist_dir / "train-images-idx3-ubyte"
    images.write_bytes(images.read_bytes()[:-10])
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte.*truncated"):
        ds.MnistDataset(mnist_dir, usage="train")
    images.write_bytes(b"\x00\x00\x08\x01" + images.read_bytes()[4:])
    with pytest.raises(RuntimeError, match="magic number 2049, expected 2051"):
        ds.MnistDataset(mnist_dir, usage="train")
    with pytest.raises(ValueError, match="does not exist"):
        ds.MnistDataset(mnist_dir / "nowhere")
    with pytest.raises(ValueError, match="usage"):
        ds.MnistDataset(mnist_dir, usage="val")


def _write_cifar(path, labels, rng):
    images = rng.integers(0, 256, (len(labels), 3, 32, 32), dtype=np.uint8)
    records = np.concatenate([np.asarray(labels, np.uint8)[:, None],
                              images.reshape(len(labels), -1)], axis=1)
    path.write_bytes(records.tobytes())
    return images


@pytest.fixture
def cifar_dir(tmp_path):
    rng = np.random.default_rng(1)
    chw = {"data_batch_1.bin": _write_cifar(tmp_path / "data_batch_1.bin", [1, 2, 3], rng),
           "data_batch_2.bin": _write_cifar(tmp_path / "data_batch_2.bin", [4, 5], rng),
           "test_batch.bin": _write_cifar(tmp_path / "test_batch.bin", [7, 8], rng)}
    return tmp_path, chw


def test_cifar10_rows_and_usage(cifar_dir):
    path, chw = cifar_dir
    d = ds.Cifar10Dataset(str(path), usage="train", shuffle=False)
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert [int(r[1]) for r in got] == [1, 2, 3, 4, 5]
    image, label = got[3]
    assert image.shape == (32, 32, 3) and image.dtype == np.uint8 and label.dtype == np.uint32
    np.testing.assert_array_equal(image, chw["data_batch_2.bin"][0].transpose(1, 2, 0))
    assert [int(r[1]) for r in rows(ds.Cifar10Dataset(path, "test", shuffle=False))] == [7, 8]
    assert ds.Cifar10Dataset(path).get_dataset_size() == 7


def test_cifar10_truncated_and_corrupt(cifar_dir):
    path, _ = cifar_dir
    batch = path / "data_batch_2.bin"
    batch.write_bytes(batch.read_bytes()[:-1])
    with pytest.raises(RuntimeError, match="data_batch_2.bin.*truncated"):
        ds.Cifar10Dataset(path, usage="train")
    batch.write_bytes(bytes([200]) + b"\x00" * 3072)
    with pytest.raises(RuntimeError, match="record 3 has label 200"):
        rows(ds.Cifar10Dataset(path, usage="train", shuffle=False))
    with pytest.raises(RuntimeError, match="no data found.*usage 'test'"):
        ds.Cifar10Dataset(path / "..", usage="test")


def test_cifar10_usage_none_reads_the_files_present(cifar_dir):
    path, _ = cifar_dir
    (path / "test_batch.bin").unlink()
    for usage in (None, "all", "train"):
        assert _labels(ds.Cifar10Dataset(path, usage, shuffle=False)) == [1, 2, 3, 4, 5]
    with pytest.raises(RuntimeError, match="no data found"):
        ds.Cifar10Dataset(path, usage="test")


def _write_cifar100(path, coarse, fine, rng):
    images = rng.integers(0, 256, (len(fine), 3, 32, 32), dtype=np.uint8)
    records = np.concatenate([np.asarray(coarse, np.uint8)[:, None],
                              np.asarray(fine, np.uint8)[:, None],
                              images.reshape(len(fine), -1)], axis=1)
    path.write_bytes(records.tobytes())
    return images


def test_cifar100_columns_and_usage(tmp_path):
    rng = np.random.default_rng(3)
    train = _write_cifar100(tmp_path / "train.bin", [1, 19, 4], [11, 99, 40], rng)
    _write_cifar100(tmp_path / "test.bin", [2], [22], rng)
    d = ds.Cifar100Dataset(str(tmp_path), usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "coarse_label", "fine_label"]
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert [(int(c), int(f)) for _, c, f in got] == [(1, 11), (19, 99), (4, 40)]
    image, coarse, fine = got[1]
    assert image.shape == (32, 32, 3) and coarse.dtype == fine.dtype == np.uint32
    np.testing.assert_array_equal(image, train[1].transpose(1, 2, 0))
    # MindSpore 2.10 (probed) reads 'all' in name order: test.bin, then train.bin
    assert [int(r[2]) for r in rows(ds.Cifar100Dataset(tmp_path, shuffle=False))] == \
        [22, 11, 99, 40]
    assert ds.Cifar100Dataset(tmp_path, "test").get_dataset_size() == 1
    (tmp_path / "test.bin").unlink()
    assert ds.Cifar100Dataset(tmp_path, "all").get_dataset_size() == 3
    _write_cifar100(tmp_path / "train.bin", [20], [5], rng)
    with pytest.raises(RuntimeError, match="record 0 has label 20"):
        rows(ds.Cifar100Dataset(tmp_path))


def test_cifar_shards_take_every_nth_row(cifar_dir):
    # MindSpore 2.10 (probed, shuffle=False): shard k of n reads rows k, k+n, ..., wrapping
    path, _ = cifar_dir
    d = ds.Cifar10Dataset(path, "train", shuffle=False, num_shards=2, shard_id=1)
    assert _labels(d) == [2, 4, 1] and d.get_dataset_size() == 3


@pytest.fixture
def image_dir(tmp_path):
    from PIL import Image
    rng = np.random.default_rng(2)
    pixels = {}
    for cls in ("dog", "cat"):
        (tmp_path / cls).mkdir()
        for j in range(2):
            array = rng.integers(0, 256, (4, 5, 3), dtype=np.uint8)
            Image.fromarray(array).save(tmp_path / cls / f"{j}.png")
            pixels[(cls, j)] = array
    return tmp_path, pixels


def test_image_folder_raw_bytes_and_labels(image_dir):
    path, _ = image_dir
    d = ds.ImageFolderDataset(str(path), shuffle=False)
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert d.get_class_indexing() == {"cat": 0, "dog": 1}
    assert [int(r[1]) for r in got] == [0, 0, 1, 1] and got[0][1].dtype == np.int32
    raw = (path / "cat" / "0.png").read_bytes()
    assert got[0][0].dtype == np.uint8 and got[0][0].tobytes() == raw


def test_image_folder_decode_and_options(image_dir):
    path, pixels = image_dir
    d = ds.ImageFolderDataset(path, shuffle=False, decode=True, num_parallel_workers=2)
    got = list(d.create_tuple_iterator(output_numpy=True))
    np.testing.assert_array_equal(got[2][0], pixels[("dog", 0)])
    only_dogs = ds.ImageFolderDataset(path, class_indexing={"dog": 5}, shuffle=False)
    assert [int(r[1]) for r in rows(only_dogs)] == [5, 5]
    (path / "cat" / "notes.txt").write_text("not an image")
    assert ds.ImageFolderDataset(path, extensions=[".png"]).get_dataset_size() == 4
    with pytest.raises(RuntimeError, match="notes.txt could not be decoded"):
        rows(ds.ImageFolderDataset(path, shuffle=False, decode=True))


def test_image_folder_lists_files_as_mindspore(image_dir):
    # MindSpore 2.10 (probed): hidden folders are classes and hidden files are read;
    # extensions are case-sensitive; no file at all is an error
    path, _ = image_dir
    (path / ".hidden").mkdir()
    (path / ".hidden" / "z.png").write_bytes(b"z")
    (path / "cat" / ".c.png").write_bytes(b"c")
    (path / "cat" / "b.PNG").write_bytes(b"b")
    d = ds.ImageFolderDataset(path, shuffle=False)
    assert d.get_class_indexing() == {".hidden": 0, "cat": 1, "dog": 2}
    assert [int(r[1]) for r in rows(d)] == [0, 1, 1, 1, 1, 2, 2]
    assert ds.ImageFolderDataset(path, extensions=[".PNG"]).get_dataset_size() == 1
    with pytest.raises(RuntimeError, match="no data found"):
        ds.ImageFolderDataset(path, extensions=[".jpg"])
    shard = ds.ImageFolderDataset(path, shuffle=False, num_shards=2, shard_id=1,
                                  extensions=[".png"])
    assert [int(r[1]) for r in rows(shard)] == [1, 1, 2]  # rows 1, 3, 5 of 6


def test_decode_matches_the_image(image_dir):
    path, pixels = image_dir
    encoded = np.frombuffer((path / "dog" / "1.png").read_bytes(), np.uint8)
    np.testing.assert_array_equal(vision.Decode()(encoded), pixels[("dog", 1)])
    with pytest.raises(ValueError, match="could not be decoded"):
        vision.Decode()(np.frombuffer(b"garbage", np.uint8))


def test_missing_pillow_gives_a_clear_import_error(image_dir, monkeypatch):
    path, _ = image_dir
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        ds.ImageFolderDataset(path, decode=True)
    with pytest.raises(ImportError, match="Pillow"):
        vision.Decode()(np.zeros(4, np.uint8))
    assert ds.ImageFolderDataset(path).get_dataset_size() == 4  # raw bytes need no Pillow


def test_pk_sampler_draws_num_val_rows_of_every_class(tmp_path):
    # MindSpore 2.10 (probed): classes in label order (shuffle=False), num_val rows per class
    # drawn at random with replacement (a class of 3 rows gives 4), size num_val * classes
    labels = np.array([2, 0, 1, 2, 0, 2, 2, 1, 0, 2])
    images = np.zeros((10, 28, 28), np.uint8)
    images[:, 0, 0] = np.arange(10)
    _write_idx(tmp_path / "train-images-idx3-ubyte", 2051, images)
    _write_idx(tmp_path / "train-labels-idx1-ubyte", 2049, labels)
    ds.config.set_seed(0)
    d = ds.MnistDataset(tmp_path, sampler=ds.PKSampler(4))
    got = [(int(image[0, 0, 0]), int(label)) for image, label in
           d.create_tuple_iterator(output_numpy=True)]
    assert d.get_dataset_size() == 12 and [lab for _, lab in got] == [0] * 4 + [1] * 4 + [2] * 4
    assert all(labels[index] == lab for index, lab in got)
    assert len(rows(ds.MnistDataset(tmp_path, sampler=ds.PKSampler(2, num_samples=3)))) == 3
    shuffled = [lab for _, lab in rows(ds.MnistDataset(tmp_path,
                                                       sampler=ds.PKSampler(1, shuffle=True)))]
    assert sorted(shuffled) == [0, 1, 2]
    with pytest.raises(NotImplementedError, match="num_class"):
        ds.PKSampler(2, num_class=3)
    with pytest.raises(ValueError, match="GeneratorDataset doesn't support PKSampler"):
        ds.GeneratorDataset([(1, 0)], ["x", "label"], sampler=ds.PKSampler(1))
    with pytest.raises(TypeError, match="num_val"):
        ds.PKSampler(1.5)


def test_pk_sampler_on_an_image_folder(image_dir):
    path, _ = image_dir
    d = ds.ImageFolderDataset(path, sampler=ds.PKSampler(3))
    assert [int(r[1]) for r in rows(d)] == [0, 0, 0, 1, 1, 1]
