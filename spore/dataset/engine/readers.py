"""Readers of standard file formats: MNIST (IDX), CIFAR-10 (binary batches) and image
folders. Headers and sizes are checked when the dataset is built, so a missing,
truncated or corrupt file is reported with its path before any iteration; the
pixel data itself is read on first use."""
from __future__ import annotations

import os
import re

import numpy as np

from ..vision.transforms import decode_image, pillow
from .rows import pipeline_error
from .sources import MappableDataset


def _check_dir(dataset_dir):
    if not isinstance(dataset_dir, (str, os.PathLike)) or not os.path.isdir(dataset_dir):
        raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory or "
                         "permission denied!")
    return os.fspath(dataset_dir)


def _check_usage(name, usage, choices):
    if usage is None:
        return "all"
    if usage not in choices:
        raise ValueError(f"For '{name}', 'usage' must be one of {list(choices)}, but got "
                         f"{usage!r}.")
    return usage


class _ArrayRows:
    """Reads row ``i`` of in-memory image and label arrays (images reshaped per row)."""

    def __init__(self, images, labels, layout):
        self.images, self.labels, self.layout = images, labels, layout

    def __call__(self, index):
        return self.layout(self.images[index]), np.array(self.labels[index])


class _ArraySource(MappableDataset):
    """A source whose files are loaded whole into arrays on first use."""

    def _columns(self):
        return ["image", "label"]

    def _reader(self):
        if "arrays" not in self._cache:
            self._cache["arrays"] = self._load()
        return _ArrayRows(*self._cache["arrays"], self._layout)


# ----------------------------------------------------------------------------- MNIST
_MNIST_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
                "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
_IDX_IMAGES, _IDX_LABELS = 2051, 2049


def _idx_header(path, magic, ndims):
    """(count, dims) of an IDX file after checking its magic number and size."""
    if not os.path.isfile(path):
        raise RuntimeError(f"MnistDataset: the file {path} does not exist.")
    header_len = 4 * (1 + ndims)
    with open(path, "rb") as f:
        header = f.read(header_len)
    if len(header) < header_len:
        raise RuntimeError(f"Invalid MNIST file {path}: the header is truncated.")
    fields = np.frombuffer(header, dtype=">u4")
    if int(fields[0]) != magic:
        raise RuntimeError(f"Invalid MNIST file {path}: magic number {int(fields[0])}, "
                           f"expected {magic}.")
    count, dims = int(fields[1]), tuple(int(d) for d in fields[2:])
    expected = header_len + count * int(np.prod(dims, dtype=np.int64))
    actual = os.path.getsize(path)
    if actual != expected:
        raise RuntimeError(f"Invalid MNIST file {path}: {actual} bytes, but its header "
                           f"({count} items of shape {dims}) needs {expected} (truncated or "
                           "corrupt).")
    return count, dims


class MnistDataset(_ArraySource):
    """MNIST from the four uncompressed IDX files in ``dataset_dir``.

    Columns ``image`` (uint8, (28, 28, 1)) and ``label`` (uint32). ``usage`` is
    ``'train'``, ``'test'`` or ``'all'`` (None). Shuffled by default.
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_usage("MnistDataset", usage, ("train", "test", "all"))
        # MindSpore reads the files in name order: t10k (test) before train
        parts = ("test", "train") if self.usage == "all" else (self.usage,)
        self._files = []
        for part in parts:
            images, labels = (os.path.join(self.dataset_dir, f) for f in _MNIST_FILES[part])
            n_images, dims = _idx_header(images, _IDX_IMAGES, 3)
            n_labels, _ = _idx_header(labels, _IDX_LABELS, 1)
            if n_images != n_labels:
                raise RuntimeError(f"Invalid MNIST files: {images} has {n_images} images but "
                                   f"{labels} has {n_labels} labels.")
            self._files.append((images, labels, n_images, dims))
        self._count = sum(f[2] for f in self._files)

    def _length(self):
        return self._count

    def _load(self):
        images = [np.fromfile(img, np.uint8, offset=16).reshape(n, *dims)
                  for img, _, n, dims in self._files]
        labels = [np.fromfile(lab, np.uint8, offset=8).astype(np.uint32)
                  for _, lab, _, _ in self._files]
        return np.concatenate(images), np.concatenate(labels)

    @staticmethod
    def _layout(image):
        return image[..., None].copy()


# -------------------------------------------------------------------------- CIFAR-10
_CIFAR_RECORD = 1 + 32 * 32 * 3


def _cifar_files(dataset_dir, usage):
    names = sorted(os.listdir(dataset_dir))
    train = sorted((n for n in names if re.fullmatch(r"data_batch_\d+\.bin", n)),
                   key=lambda n: int(re.findall(r"\d+", n)[0]))
    test = [n for n in names if n == "test_batch.bin"]
    chosen = {"train": train, "test": test, "all": train + test}[usage]
    if not chosen:
        raise RuntimeError(f"Cifar10Dataset: no CIFAR-10 binary files for usage '{usage}' in "
                           f"{dataset_dir} (expected data_batch_*.bin / test_batch.bin).")
    paths = [os.path.join(dataset_dir, n) for n in chosen]
    for path in paths:
        size = os.path.getsize(path)
        if size == 0 or size % _CIFAR_RECORD:
            raise RuntimeError(f"Invalid cifar10 file {path}: {size} bytes is not a whole "
                               f"number of {_CIFAR_RECORD}-byte records (truncated or corrupt).")
    return paths


class Cifar10Dataset(_ArraySource):
    """CIFAR-10 from its binary batches (``data_batch_*.bin``, ``test_batch.bin``).

    Columns ``image`` (uint8, (32, 32, 3) HWC) and ``label`` (uint32). Shuffled by default.
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_usage("Cifar10Dataset", usage, ("train", "test", "all"))
        self._paths = _cifar_files(self.dataset_dir, self.usage)
        self._count = sum(os.path.getsize(p) // _CIFAR_RECORD for p in self._paths)

    def _length(self):
        return self._count

    def _load(self):
        records = np.concatenate([np.fromfile(p, np.uint8).reshape(-1, _CIFAR_RECORD)
                                  for p in self._paths])
        labels = records[:, 0].astype(np.uint32)
        if labels.size and labels.max() > 9:
            bad = int(np.argmax(labels > 9))
            raise pipeline_error(f"Invalid cifar10 data: record {bad} has label "
                                 f"{int(labels[bad])} (labels are 0-9); the files in "
                                 f"{self.dataset_dir} are corrupt or not CIFAR-10.")
        return records[:, 1:], labels

    @staticmethod
    def _layout(record):
        return record.reshape(3, 32, 32).transpose(1, 2, 0).copy()


# ------------------------------------------------------------------------ ImageFolder
class _FileRows:
    """Reads file ``i`` as raw bytes or a decoded image, with its label."""

    def __init__(self, files, labels, decode):
        self.files, self.labels, self.decode = files, labels, decode

    def __call__(self, index):
        path = self.files[index]
        with open(path, "rb") as f:
            data = f.read()
        label = np.array(self.labels[index], dtype=np.int32)
        if not self.decode:
            return np.frombuffer(data, np.uint8).copy(), label
        try:
            return decode_image(data), label
        except ImportError:
            raise
        except Exception as exc:
            raise pipeline_error(f"Invalid image, {path} could not be decoded (broken file or "
                                 f"not an image): {exc}") from None


class ImageFolderDataset(MappableDataset):
    """Images in class sub-directories of ``dataset_dir`` (label = class index, int32).

    ``decode=False`` gives each file's raw bytes (uint8, 1-D); ``decode=True`` an RGB
    HWC uint8 image (needs Pillow). ``extensions`` filters files by suffix;
    ``class_indexing`` maps folder names to labels (default: sorted names). Shuffled
    by default.
    """

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, extensions=None, class_indexing=None, decode=False,
                 num_shards=None, shard_id=None, cache=None, decrypt=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.decode = bool(decode)
        self.parallel_fetch = self.decode
        self.class_indexing = _class_indexing(self.dataset_dir, class_indexing)
        self._files, self._labels = _list_images(self.dataset_dir, self.class_indexing,
                                                 extensions)
        if decode:
            pillow()  # a clear ImportError now rather than at the first row

    def _columns(self):
        return ["image", "label"]

    def _length(self):
        return len(self._files)

    def _reader(self):
        return _FileRows(self._files, self._labels, self.decode)


def _class_indexing(dataset_dir, class_indexing):
    folders = sorted(e.name for e in os.scandir(dataset_dir)
                     if e.is_dir() and not e.name.startswith("."))
    if class_indexing is None:
        return {name: i for i, name in enumerate(folders)}
    if not isinstance(class_indexing, dict) or \
            not all(isinstance(k, str) and isinstance(v, int) for k, v in class_indexing.items()):
        raise TypeError("For 'ImageFolderDataset', 'class_indexing' must be a dict from folder "
                        "name (str) to label (int).")
    missing = [k for k in class_indexing if k not in folders]
    if missing:
        raise ValueError(f"For 'ImageFolderDataset', the class folders {missing} do not exist "
                         f"in {dataset_dir}.")
    return dict(class_indexing)


def _list_images(dataset_dir, class_indexing, extensions):
    suffixes = None if extensions is None else tuple(e.lower() for e in extensions)
    files, labels = [], []
    for name in sorted(class_indexing):
        folder = os.path.join(dataset_dir, name)
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if not entry.is_file() or entry.name.startswith("."):
                continue
            if suffixes is not None and not entry.name.lower().endswith(suffixes):
                continue
            files.append(entry.path)
            labels.append(class_indexing[name])
    return files, labels
