"""Readers of standard file formats: MNIST and Fashion-MNIST (IDX), CIFAR-10 and CIFAR-100
(binary records) and image folders. Files are found by MindSpore's naming rules; headers
and sizes are checked when the dataset is built, so a missing, truncated or corrupt file
is reported with its path before any iteration; the pixel data itself is read on first
use."""
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

    def _arrays(self):
        if "arrays" not in self._cache:
            self._cache["arrays"] = self._load()
        return self._cache["arrays"]

    def _reader(self):
        return _ArrayRows(*self._arrays(), self._layout)

    def _class_labels(self):
        labels = self._arrays()[1]
        return labels if labels.ndim == 1 else labels[:, -1]  # CIFAR-100: the fine label


# ----------------------------------------------------------------------------- MNIST
_IDX_IMAGES, _IDX_LABELS = 2051, 2049
# the part of the name that selects a file for each usage (MindSpore's rule)
_MNIST_PARTS = {"train": "train", "test": "t10k"}


def _idx_header(name, path, magic, ndims, itemsize=1):
    """(count, dims) of an IDX file after checking its magic number and size."""
    header_len = 4 * (1 + ndims)
    with open(path, "rb") as f:
        header = f.read(header_len)
    if len(header) < header_len:
        raise RuntimeError(f"Invalid {name} file {path}: the header is truncated.")
    fields = np.frombuffer(header, dtype=">u4")
    if int(fields[0]) != magic:
        raise RuntimeError(f"Invalid {name} file {path}: magic number {int(fields[0])}, "
                           f"expected {magic}.")
    count, dims = int(fields[1]), tuple(int(d) for d in fields[2:])
    expected = header_len + itemsize * count * int(np.prod(dims, dtype=np.int64))
    actual = os.path.getsize(path)
    if actual != expected:
        raise RuntimeError(f"Invalid {name} file {path}: {actual} bytes, but its header "
                           f"({count} items of shape {dims}) needs {expected} (truncated or "
                           "corrupt).")
    return count, dims


def _idx_pairs(name, dataset_dir, usage, parts=_MNIST_PARTS, prefix=""):
    """(images, labels) paths as MindSpore pairs them: the files whose name holds
    ``idx3-ubyte`` (images) or ``idx1-ubyte`` (labels), kept when the name holds the usage's
    part (``train`` / ``t10k``; ``all`` keeps every one), sorted by name, the k-th images
    file with the k-th labels file. So a folder with only the train files is read whole."""
    names = sorted(n for n in os.listdir(dataset_dir)
                   if os.path.isfile(os.path.join(dataset_dir, n)) and n.startswith(prefix))
    if usage != "all":
        names = [n for n in names if parts[usage] in n]
    images = [os.path.join(dataset_dir, n) for n in names if "idx3-ubyte" in n]
    labels = [os.path.join(dataset_dir, n) for n in names if "idx1-ubyte" in n]
    if not images:
        raise RuntimeError(f"Invalid data, {name} API can't read the data file (interface "
                           f"mismatch or no data found): no *idx3-ubyte file for usage "
                           f"'{usage}' in directory {dataset_dir}.")
    if len(images) != len(labels):
        raise RuntimeError(f"Invalid data, {name}: the number of images files should be equal "
                           f"to the number of labels files, but got num of images: "
                           f"{len(images)}, num of labels: {len(labels)} in {dataset_dir}.")
    return list(zip(images, labels))


class MnistDataset(_ArraySource):
    """MNIST from its uncompressed IDX files in ``dataset_dir``.

    Columns ``image`` (uint8, (28, 28, 1)) and ``label`` (uint32). ``usage`` is
    ``'train'`` (files named ``*train*``), ``'test'`` (``*t10k*``) or ``'all'`` (None: every
    IDX file the folder holds, in name order, so t10k before train). Shuffled by default.
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        name = type(self).__name__
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_usage(name, usage, ("train", "test", "all"))
        self._files = []
        for images, labels in self._pairs():
            n_images, dims = _idx_header(name, images, _IDX_IMAGES, 3)
            n_labels, _ = _idx_header(name, labels, _IDX_LABELS, 1)
            if n_images != n_labels:
                raise RuntimeError(f"Invalid {name} files: {images} has {n_images} images but "
                                   f"{labels} has {n_labels} labels.")
            self._files.append((images, labels, n_images, dims))
        self._count = sum(f[2] for f in self._files)

    def _pairs(self):
        return _idx_pairs(type(self).__name__, self.dataset_dir, self.usage)

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


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST: the same IDX files and rules as ``MnistDataset`` (10 clothing classes)."""


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST: the same IDX files and rules as ``MnistDataset`` (10 kana classes)."""


_EMNIST_NAMES = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")


class EMnistDataset(MnistDataset):
    """EMNIST split ``name`` (``byclass``, ``bymerge``, ``balanced``, ``letters``,
    ``digits``, ``mnist``): the IDX files ``emnist-<name>-{train,test}-*``, images as
    stored (not transposed), as MindSpore reads them. ``usage`` None or ``'all'``: test
    before train (name order)."""

    def __init__(self, dataset_dir, name, usage=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        if name not in _EMNIST_NAMES:
            raise ValueError(f"For 'EMnistDataset', 'name' must be one of "
                             f"{list(_EMNIST_NAMES)}, but got {name!r}.")
        self.name = name
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id, cache)

    def _pairs(self):
        return _idx_pairs(type(self).__name__, self.dataset_dir, self.usage,
                          {"train": "-train-", "test": "-test-"}, f"emnist-{self.name}-")


# QMNIST: usage -> (file prefix, first row, end row) of its images and idx2-int labels
_QMNIST_PARTS = {"train": [("qmnist-train", 0, None)], "test": [("qmnist-test", 0, None)],
                 "test10k": [("qmnist-test", 0, 10000)],
                 "test50k": [("qmnist-test", 10000, None)], "nist": [("xnist", 0, None)]}
_QMNIST_PARTS["all"] = _QMNIST_PARTS["train"] + _QMNIST_PARTS["test"] + _QMNIST_PARTS["nist"]
_IDX_INT_LABELS = 3074


class QMnistDataset(_ArraySource):
    """QMNIST: ``<prefix>-images-idx3-ubyte`` with ``<prefix>-labels-idx2-int`` (8 int32
    fields per image), prefix ``qmnist-train``, ``qmnist-test`` or ``xnist`` (usage
    ``nist``); ``test10k`` / ``test50k`` are the test rows before / from row 10000, ``all``
    (None) is train, test, nist. Columns ``image`` (uint8 (28, 28, 1)) and ``label``
    (uint32: the class with ``compat=True``, all 8 fields otherwise)."""

    def __init__(self, dataset_dir, usage=None, compat=True, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_usage("QMnistDataset", usage, tuple(_QMNIST_PARTS))
        if not isinstance(compat, bool):
            raise TypeError(f"For 'QMnistDataset', 'compat' must be a bool, but got {compat!r}.")
        self.compat = compat
        self._parts = []
        for prefix, first, end in _QMNIST_PARTS[self.usage]:
            images = os.path.join(self.dataset_dir, f"{prefix}-images-idx3-ubyte")
            labels = os.path.join(self.dataset_dir, f"{prefix}-labels-idx2-int")
            for path in (images, labels):
                if not os.path.isfile(path):
                    raise RuntimeError(f"Invalid file, {path} does not exist or is a directory.")
            n, dims = _idx_header("QMnistDataset", images, _IDX_IMAGES, 3)
            n_labels, _ = _idx_header("QMnistDataset", labels, _IDX_INT_LABELS, 2, 4)
            if n != n_labels:
                raise RuntimeError(f"Invalid QMnistDataset files: {images} has {n} images but "
                                   f"{labels} has {n_labels} labels.")
            end = n if end is None else min(end, n)
            self._parts.append((images, labels, dims, n, first, max(first, end)))
        self._count = sum(end - first for *_, first, end in self._parts)

    def _length(self):
        return self._count

    def _load(self):
        images, labels = [], []
        for img, lab, dims, n, first, end in self._parts:
            images.append(np.fromfile(img, np.uint8, offset=16).reshape(n, *dims)[first:end])
            labels.append(np.fromfile(lab, ">i4", offset=12).reshape(n, 8)[first:end])
        labels = np.concatenate(labels).astype(np.uint32)
        return np.concatenate(images), labels[:, 0] if self.compat else labels

    def _class_labels(self):
        labels = self._arrays()[1]
        return labels if labels.ndim == 1 else labels[:, 0]

    @staticmethod
    def _layout(image):
        return image[..., None].copy()



# ------------------------------------------------------------------ CIFAR-10 / CIFAR-100
def _cifar_files(name, dataset_dir, usage, parts, record):
    """The binary files of ``usage`` (``parts``: usage -> file-name test), in name order as
    MindSpore reads them, each checked to hold whole records."""
    names = sorted(os.listdir(dataset_dir), key=_natural)
    chosen = [n for n in names if any(parts[u](n) for u in
                                      (parts if usage == "all" else (usage,)))]
    if not chosen:
        raise RuntimeError(f"Invalid data, {name} API can't read the data file (interface "
                           f"mismatch or no data found): no binary files for usage '{usage}' "
                           f"in {dataset_dir}.")
    paths = [os.path.join(dataset_dir, n) for n in chosen]
    for path in paths:
        size = os.path.getsize(path)
        if size == 0 or size % record:
            raise RuntimeError(f"Invalid {name[:-7].lower()} file {path}: {size} bytes is not a "
                               f"whole number of {record}-byte records (truncated or corrupt).")
    return paths


def _natural(name):
    """Name order, with runs of digits compared as numbers (data_batch_2 before _10)."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


class _CifarSource(_ArraySource):
    """CIFAR binary records: ``labels`` label bytes, then a 3x32x32 CHW image."""

    labels, classes, parts, columns = 1, (10,), {}, ()

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        name = type(self).__name__
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_usage(name, usage, ("train", "test", "all"))
        self._record = self.labels + 32 * 32 * 3
        self._paths = _cifar_files(name, self.dataset_dir, self.usage, self.parts,
                                   self._record)
        self._count = sum(os.path.getsize(p) // self._record for p in self._paths)

    def _length(self):
        return self._count

    def _load(self):
        records = np.concatenate([np.fromfile(p, np.uint8).reshape(-1, self._record)
                                  for p in self._paths])
        labels = records[:, :self.labels].astype(np.uint32)
        for k, limit in enumerate(self.classes):
            bad = np.flatnonzero(labels[:, k] >= limit)
            if bad.size:
                raise pipeline_error(
                    f"Invalid {type(self).__name__[:-7].lower()} data: record {int(bad[0])} "
                    f"has label {int(labels[bad[0], k])} (labels are 0-{limit - 1}); the files "
                    f"in {self.dataset_dir} are corrupt or not in this format.")
        return records[:, self.labels:], labels

    def _columns(self):
        return list(self.columns)

    def _reader(self):
        return _CifarRows(*self._arrays(), self._layout)

    @staticmethod
    def _layout(record):
        return record.reshape(3, 32, 32).transpose(1, 2, 0).copy()


class _CifarRows:
    """Reads row ``i``: the HWC image and one uint32 scalar per label column."""

    def __init__(self, images, labels, layout):
        self.images, self.labels, self.layout = images, labels, layout

    def __call__(self, index):
        return (self.layout(self.images[index]),) + tuple(np.array(v) for v in
                                                          self.labels[index])


class Cifar10Dataset(_CifarSource):
    """CIFAR-10 from its binary batches (``data_batch_*.bin`` train, ``test_batch.bin`` test;
    ``usage`` None or ``'all'``: whichever of them the folder holds, train first).

    Columns ``image`` (uint8, (32, 32, 3) HWC) and ``label`` (uint32). Shuffled by default.
    """

    parts = {"train": lambda n: re.fullmatch(r"data_batch_\d+\.bin", n) is not None,
             "test": lambda n: n == "test_batch.bin"}
    columns = ("image", "label")


class Cifar100Dataset(_CifarSource):
    """CIFAR-100 from its binary files (``train.bin``, ``test.bin``; ``usage`` None or
    ``'all'``: whichever the folder holds, in name order, so test before train).

    Columns ``image`` (uint8, (32, 32, 3) HWC), ``coarse_label`` (uint32, 0-19) and
    ``fine_label`` (uint32, 0-99). Shuffled by default.
    """

    labels, classes = 2, (20, 100)
    parts = {"train": lambda n: n == "train.bin", "test": lambda n: n == "test.bin"}
    columns = ("image", "coarse_label", "fine_label")


# ------------------------------------------------------------------------ ImageFolder
class _FileRows:
    """Reads file ``i`` as raw bytes or a decoded image, with its label."""

    def __init__(self, files, labels, decode):
        self.files, self.labels, self.decode = files, labels, decode

    def __call__(self, index):
        return read_image(self.files[index], self.decode), \
            np.array(self.labels[index], dtype=np.int32)


def read_image(path, decode):
    """The file's bytes (uint8, 1-D), or with ``decode`` its RGB HWC uint8 image."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise pipeline_error(f"Invalid file, {path} could not be read: {exc}") from None
    if not decode:
        return np.frombuffer(data, np.uint8).copy()
    try:
        return decode_image(data)
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

    def _class_labels(self):
        return np.asarray(self._labels, np.int64)


def _class_indexing(dataset_dir, class_indexing):
    # every sub-folder is a class, hidden ones too (MindSpore's rule)
    folders = sorted(e.name for e in os.scandir(dataset_dir) if e.is_dir())
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
    """Every file of the class folders, in name order (hidden files too), kept when it ends
    with one of ``extensions`` (case-sensitive), as MindSpore lists them."""
    if extensions is not None and (not isinstance(extensions, (list, tuple)) or
                                   not all(isinstance(e, str) for e in extensions)):
        raise TypeError(f"For 'ImageFolderDataset', 'extensions' must be a list of str, but "
                        f"got {extensions!r}.")
    suffixes = None if extensions is None else tuple(extensions)
    files, labels = [], []
    for name in sorted(class_indexing):
        folder = os.path.join(dataset_dir, name)
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if not entry.is_file():
                continue
            if suffixes is not None and not entry.name.endswith(suffixes):
                continue
            files.append(entry.path)
            labels.append(class_indexing[name])
    if not files:
        raise RuntimeError(f"Invalid data, ImageFolderDataset API can't read the data file "
                           f"(interface mismatch or no data found): no files"
                           f"{'' if suffixes is None else ' ending with ' + str(list(suffixes))}"
                           f" in the class folders of {dataset_dir}.")
    return files, labels
