"""Readers of small classic image sets stored as arrays in one or two files: Semeion
(text), STL-10 (binary), USPS (libsvm text), and ``FakeImageDataset`` (generated).
Columns, dtypes, layouts and row orders are MindSpore 2.10's (probed)."""
from __future__ import annotations

import os

import numpy as np

from .readers import _ArraySource, _check_dir, _check_usage
from .readers_text import _FileSource
from .rows import pipeline_error
from .samplers import Shuffle
from .sources import MappableDataset


class SemeionDataset(_ArraySource):
    """Semeion handwritten digits: ``semeion.data``, one line per image of 256 pixel values
    (0 or 1) and a one-hot label of 10. Columns ``image`` (uint8 (16, 16), 0/1 as
    stored) and ``label`` (uint32)."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self._path = os.path.join(self.dataset_dir, "semeion.data")
        if not os.path.isfile(self._path):
            raise RuntimeError(f"Invalid file, {self._path} does not exist or is a directory.")

    def _length(self):
        return len(self._arrays()[1])

    def _load(self):
        with open(self._path, encoding="utf-8") as f:
            lines = [line.split() for line in f if line.strip()]
        bad = [k for k, fields in enumerate(lines, 1) if len(fields) != 266]
        if bad:
            raise RuntimeError(f"Invalid file {self._path}: line {bad[0]} has "
                               f"{len(lines[bad[0] - 1])} values, expected 266 (256 pixels and "
                               "10 label flags).")
        values = np.array(lines, np.float64).reshape(-1, 266)
        return (values[:, :256].astype(np.uint8).reshape(-1, 16, 16),
                values[:, 256:].argmax(axis=1).astype(np.uint32))

    @staticmethod
    def _layout(image):
        return image.copy()


# usage -> the STL-10 file stems it reads, in MindSpore's order
_STL_PARTS = {"train": ("train",), "test": ("test",), "unlabeled": ("unlabeled",),
              "train+unlabeled": ("train", "unlabeled"), "all": ("test", "train", "unlabeled")}
_STL_IMAGE = 3 * 96 * 96


class STL10Dataset(_ArraySource):
    """STL-10 binaries: ``<part>_X.bin`` (uint8 images, 3x96x96 stored column-major) and
    ``<part>_y.bin`` (labels 1-10) for ``train`` / ``test``; ``unlabeled_X.bin``. ``usage``
    ``train``, ``test``, ``unlabeled``, ``train+unlabeled`` or ``all`` (None: test, train,
    unlabeled). Columns ``image`` (uint8 (96, 96, 3)) and ``label`` (int32 0-9, -1 when
    unlabeled)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_usage("STL10Dataset", usage, tuple(_STL_PARTS))
        self._parts = []
        for part in _STL_PARTS[self.usage]:
            images = os.path.join(self.dataset_dir, f"{part}_X.bin")
            labels = None if part == "unlabeled" else os.path.join(self.dataset_dir,
                                                                   f"{part}_y.bin")
            for path in (images, labels):
                if path is not None and not os.path.isfile(path):
                    raise RuntimeError(f"Invalid file, {path} does not exist or is a directory.")
            size = os.path.getsize(images)
            if size % _STL_IMAGE:
                raise RuntimeError(f"Invalid STL10Dataset file {images}: {size} bytes is not a "
                                   f"whole number of {_STL_IMAGE}-byte images.")
            n = size // _STL_IMAGE
            if labels is not None and os.path.getsize(labels) != n:
                raise RuntimeError(f"Invalid STL10Dataset files: {images} has {n} images but "
                                   f"{labels} has {os.path.getsize(labels)} labels.")
            self._parts.append((images, labels, n))
        self._count = sum(p[2] for p in self._parts)

    def _length(self):
        return self._count

    def _load(self):
        images = np.concatenate([np.fromfile(img, np.uint8) for img, _, _ in self._parts])
        labels = np.concatenate([np.full(n, -1, np.int32) if lab is None else
                                 np.fromfile(lab, np.uint8).astype(np.int32) - 1
                                 for _, lab, n in self._parts])
        return images.reshape(-1, 3, 96, 96), labels

    @staticmethod
    def _layout(image):
        return image.transpose(2, 1, 0).copy()  # CHW column-major -> HWC


class FakeImageDataset(_ArraySource):
    """``num_images`` random uint8 images of ``image_size`` (HWC) with uint32 labels below
    ``num_classes``, generated from ``base_seed`` (image ``i`` from its own stream, so any
    row can be read alone). The values differ from MindSpore's generator; sizes, dtypes
    and the label range are the same."""

    def __init__(self, num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0,
                 num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        for arg, value in (("num_images", num_images), ("num_classes", num_classes)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"For 'FakeImageDataset', '{arg}' must be a positive int, but "
                                 f"got {value!r}.")
        if not isinstance(image_size, (list, tuple)) or len(image_size) != 3 or not all(
                isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in image_size):
            raise ValueError(f"For 'FakeImageDataset', 'image_size' must be 3 positive ints "
                             f"(height, width, channels), but got {image_size!r}.")
        if isinstance(base_seed, bool) or not isinstance(base_seed, int) or base_seed < 0:
            raise ValueError(f"For 'FakeImageDataset', 'base_seed' must be a non-negative int, "
                             f"but got {base_seed!r}.")
        self.num_images, self.image_size = num_images, tuple(image_size)
        self.num_classes, self.base_seed = num_classes, base_seed

    def _length(self):
        return self.num_images

    def _load(self):
        labels = np.random.default_rng([self.base_seed, 0]).integers(
            0, self.num_classes, self.num_images).astype(np.uint32)
        return np.arange(self.num_images), labels

    def _reader(self):
        return _FakeRows(self.base_seed, self.image_size, self._arrays()[1])


class _FakeRows:
    def __init__(self, seed, size, labels):
        self.seed, self.size, self.labels = seed, size, labels

    def __call__(self, index):
        rng = np.random.default_rng([self.seed, 1, index])
        return rng.integers(0, 256, self.size, dtype=np.uint8), np.array(self.labels[index])


class USPSDataset(_FileSource):
    """USPS digits in libsvm text (``usps`` train, ``usps.t`` test; None or ``'all'``: both,
    their rows interleaved as MindSpore's file readers give them). Each line: a label 1-10
    and 256 ``index:value`` pixels in [-1, 1]. Columns ``image`` (uint8 (16, 16, 1),
    ``int((v + 1) / 2 * 255)``) and ``label`` (uint32 0-9). Shuffled by default."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_usage("USPSDataset", usage, ("train", "test", "all"))
        names = {"train": ["usps"], "test": ["usps.t"], "all": ["usps", "usps.t"]}[self.usage]
        files = [os.path.join(self.dataset_dir, n) for n in names]
        for path in files:
            if not os.path.isfile(path):
                raise RuntimeError(f"Invalid file, {path} does not exist or is a directory.")
        super().__init__(files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)

    def _columns(self):
        return ["image", "label"]

    def _read(self, path):
        rows = []
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != 257:
                    raise pipeline_error(f"Invalid USPS file {path}, line {number}: "
                                         f"{len(fields) - 1} pixels, expected 256.")
                try:
                    values = np.array([v.split(":")[1] for v in fields[1:]], np.float64)
                    label = int(float(fields[0])) - 1
                except (IndexError, ValueError):
                    raise pipeline_error(f"Invalid USPS file {path}, line {number}: expected "
                                         "'label index:value ...'.") from None
                image = ((values + 1) / 2 * 255).astype(np.uint8).reshape(16, 16, 1)
                rows.append((image, np.uint32(label)))
        return rows


_RANDOM_TYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                 "uint64", "float16", "float32", "float64")


class RandomDataset(_ArraySource):
    """Rows of random data in the columns of ``schema`` (a ``Schema`` or json schema file;
    ``columns_list`` picks some): each value is its shape filled with one random byte, as
    MindSpore fills them. Without a schema, 1 to 4 columns ``c0``, ``c1``, ... of random
    numeric types and shapes; without ``total_rows`` (or the schema's ``numRows``), a random
    count in [1, 1024]. The draws come from ``config.get_seed()``, so they repeat under a
    set seed but differ from MindSpore's generator."""

    def __init__(self, total_rows=None, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, cache=None, shuffle=None, num_shards=None,
                 shard_id=None):
        super().__init__(num_samples, shuffle, None, num_shards, shard_id,
                         num_parallel_workers)
        from .. import config
        from .schema import Schema
        if isinstance(schema, (str, os.PathLike)):
            schema = Schema(schema)
        if schema is not None and not isinstance(schema, Schema):
            raise TypeError(f"For 'RandomDataset', 'schema' must be a Schema or a json file "
                            f"path, but got {type(schema).__name__}.")
        if total_rows is not None and (isinstance(total_rows, bool) or
                                       not isinstance(total_rows, int) or total_rows < 0):
            raise ValueError(f"For 'RandomDataset', 'total_rows' must be a non-negative int, "
                             f"but got {total_rows!r}.")
        self._seed = config.get_seed()
        rng = np.random.default_rng([self._seed, 7])
        if schema is None or not schema.columns:
            specs = [(f"c{k}", np.dtype(_RANDOM_TYPES[int(rng.integers(len(_RANDOM_TYPES)))]),
                      tuple(int(d) for d in rng.integers(1, 33, int(rng.integers(1, 4)))))
                     for k in range(int(rng.integers(1, 5)))]
        else:
            specs = [(c["name"], c["type"], tuple(c["shape"] or ())) for c in schema.columns]
        if columns_list is not None:
            known = {s[0]: s for s in specs}
            missing = [c for c in columns_list if c not in known]
            if missing:
                raise ValueError(f"For 'RandomDataset', columns {missing} are not in the "
                                 f"schema {list(known)}.")
            specs = [known[c] for c in columns_list]
        self._specs = specs
        rows = total_rows if total_rows is not None else \
            getattr(schema, "num_rows", None) or int(rng.integers(1, 1025))
        self.total_rows = rows

    def _columns(self):
        return [name for name, _, _ in self._specs]

    def _length(self):
        return self.total_rows

    def _reader(self):
        return _RandomRows(self._seed, self._specs)

    def _class_labels(self):
        raise ValueError("RandomDataset doesn't support PKSampler.")


class _RandomRows:
    def __init__(self, seed, specs):
        self.seed, self.specs = seed, specs

    def __call__(self, index):
        rng = np.random.default_rng([self.seed, 8, index])
        row = []
        for _, dtype, shape in self.specs:
            if dtype.kind in "US":
                row.append(np.full(shape, "", dtype=str))
                continue
            byte = np.uint8(rng.integers(0, 256))
            row.append(np.full(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, byte,
                               np.uint8).view(dtype).reshape(shape).copy())
        return tuple(row)


_SVHN_PARTS = {"train": ("train",), "test": ("test",), "extra": ("extra",),
               "all": ("train", "test", "extra")}


class SVHNDataset(_ArraySource):
    """SVHN (cropped digits): ``<usage>_32x32.mat`` files (MATLAB 5, read by
    ``matfile.py``) with ``X`` (32, 32, 3, N) and ``y``; ``usage`` None or ``'all'`` reads
    train, test and extra. Columns ``image`` (uint8 (32, 32, 3)) and ``label`` (uint32,
    the digit: the files' 10 becomes 0)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_usage("SVHNDataset", usage, tuple(_SVHN_PARTS))
        self._paths = [os.path.join(self.dataset_dir, f"{part}_32x32.mat")
                       for part in _SVHN_PARTS[self.usage]]
        for path in self._paths:
            if not os.path.isfile(path):
                raise RuntimeError(f"Invalid file, {path} does not exist or is a directory.")

    def _length(self):
        return len(self._arrays()[1])

    def _load(self):
        from .matfile import loadmat
        images, labels = [], []
        for path in self._paths:
            content = loadmat(path)
            if "X" not in content or "y" not in content:
                raise RuntimeError(f"Invalid SVHN file {path}: it needs the variables X and y.")
            images.append(np.transpose(content["X"], (3, 0, 1, 2)))
            label = content["y"].reshape(-1).astype(np.uint32)
            labels.append(np.where(label == 10, 0, label).astype(np.uint32))
        return np.concatenate(images), np.concatenate(labels)

    @staticmethod
    def _layout(image):
        return np.ascontiguousarray(image)


_FLOWERS_SETS = {"train": ("trnid",), "valid": ("valid",), "test": ("tstid",),
                 "all": ("trnid", "tstid", "valid")}


class Flowers102Dataset(MappableDataset):
    """Oxford 102 Flowers: ``jpg/image_NNNNN.jpg``, ``imagelabels.mat`` (labels 1-102) and
    ``setid.mat`` (``trnid`` / ``valid`` / ``tstid``; ``all``: train, test, valid, as
    MindSpore orders them). Columns ``image`` (bytes, or RGB with ``decode``) and
    ``label`` (uint32, 0-101); ``task='Segmentation'`` adds ``segmentation`` from
    ``segmim/segmim_NNNNN.jpg`` before the label."""

    def __init__(self, dataset_dir, task="Classification", usage="all", num_samples=None,
                 num_parallel_workers=1, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        from .matfile import loadmat
        self.dataset_dir = _check_dir(dataset_dir)
        self.task = "Classification" if task is None else task
        if self.task not in ("Classification", "Segmentation"):
            raise ValueError("Input task is not within the valid set of ['Classification', "
                             "'Segmentation'].")
        usage = "all" if usage is None else usage
        if usage not in _FLOWERS_SETS:
            raise ValueError("Input usage is not within the valid set of ['train', 'valid', "
                             "'test', 'all'].")
        self.usage, self.decode = usage, bool(decode)
        labels = loadmat(os.path.join(self.dataset_dir, "imagelabels.mat"))["labels"]
        sets = loadmat(os.path.join(self.dataset_dir, "setid.mat"))
        self._labels = (labels.reshape(-1) - 1).astype(np.uint32)
        self._ids = [int(i) for key in _FLOWERS_SETS[usage] for i in sets[key].reshape(-1)]

    def _columns(self):
        return ["image", "segmentation", "label"] if self.task == "Segmentation" \
            else ["image", "label"]

    def _length(self):
        return len(self._ids)

    def _reader(self):
        return _FlowerRows(self.dataset_dir, self._ids, self._labels, self.decode,
                           self.task == "Segmentation")

    def _class_labels(self):
        return self._labels[np.array(self._ids, np.int64) - 1].astype(np.int64)


class _FlowerRows:
    def __init__(self, folder, ids, labels, decode, segmentation):
        self.folder, self.ids, self.labels = folder, ids, labels
        self.decode, self.segmentation = decode, segmentation

    def __call__(self, index):
        from .readers import read_image
        n = self.ids[index]
        row = [read_image(os.path.join(self.folder, "jpg", f"image_{n:05d}.jpg"), self.decode)]
        if self.segmentation:
            row.append(read_image(os.path.join(self.folder, "segmim", f"segmim_{n:05d}.jpg"),
                                  self.decode))
        return tuple(row) + (np.array(self.labels[n - 1]),)
