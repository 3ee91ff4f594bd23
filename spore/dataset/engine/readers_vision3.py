"""More image readers in their published layouts: LSUN (scene folders), PhotoTour (patch
bitmaps) and the Semantic Boundaries Dataset (MATLAB ``.mat`` labels). Columns, dtypes,
labels and orders are MindSpore 2.10's (probed on small files)."""
from __future__ import annotations

import os

import numpy as np

from ..vision.transforms import pillow
from .readers import _check_dir, read_image
from .rows import pipeline_error
from .sources import MappableDataset


def _check_in(arg, value, choices):
    if value not in choices:
        raise ValueError(f"Input {arg} is not within the valid set of {list(choices)}.")
    return value


def _check_bool(arg, value):
    if value is not None and not isinstance(value, bool):
        raise TypeError(f"Argument {arg} with value {value} is not of type [<class 'bool'>], "
                        f"but got {type(value)}.")
    return bool(value)


class _RecordSource(MappableDataset):
    """A random-access source over ``self._records``; ``_row`` reads one."""

    columns = ()

    def __init__(self, num_samples, shuffle, sampler, num_shards, shard_id,
                 num_parallel_workers):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self._records = []

    def _columns(self):
        return list(self.columns)

    def _length(self):
        return len(self._records)


# ------------------------------------------------------------------------------ LSUN
LSUN_CLASSES = ("bedroom", "bridge", "church_outdoor", "classroom", "conference_room",
                "dining_room", "kitchen", "living_room", "restaurant", "tower")


class _ImageLabelRows:
    def __init__(self, records, decode):
        self.records, self.decode = records, decode

    def __call__(self, index):
        path, label = self.records[index]
        return read_image(path, self.decode), np.array(label, np.uint32)


class LSUNDataset(_RecordSource):
    """LSUN scenes: folders ``<class>_train`` / ``<class>_val`` (a folder whose name contains
    one of them) and ``test``. ``usage`` ``'train'``, ``'valid'``, ``'test'`` or ``'all'``
    (None: train and val folders); ``classes`` a list of LSUN's ten class names (None: all).
    Columns ``image`` (the file's bytes, or RGB HWC uint8 with ``decode``) and ``label``
    (uint32: the folder's place among the chosen folders in name order; ``test`` is 0).
    Every file of a folder is a row, in name order."""

    columns = ("image", "label")

    def __init__(self, dataset_dir, usage=None, classes=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_in("usage", "all" if usage is None else usage,
                               ("train", "test", "valid", "all"))
        self.classes = self._check_classes(classes)
        self.decode = _check_bool("decode", decode)
        self.parallel_fetch = self.decode
        if self.decode:
            pillow()
        for label, folder in enumerate(self._folders()):
            root = os.path.join(self.dataset_dir, folder)
            for name in sorted(os.listdir(root)):
                if os.path.isfile(os.path.join(root, name)):
                    self._records.append((os.path.join(root, name), label))
        if not self._records:
            raise RuntimeError("Invalid data, LSUNDataset API can't read the data file (interface "
                               "mismatch or no data found). Check lsun file path: "
                               f"{self.dataset_dir}")

    @staticmethod
    def _check_classes(classes):
        if classes is None:
            return list(LSUN_CLASSES)
        if not isinstance(classes, list):
            raise TypeError(f"Argument classes with value {classes} is not of type "
                            f"[<class 'list'>], but got {type(classes)}.")
        for c in classes:
            if not isinstance(c, str):
                raise TypeError(f"Argument classes with value {c} is not of type "
                                f"[<class 'str'>], but got {type(c)}.")
            _check_in("classes", c, LSUN_CLASSES)
        return list(classes)

    def _folders(self):
        if self.usage == "test":
            return ["test"] if os.path.isdir(os.path.join(self.dataset_dir, "test")) else []
        splits = {"train": ("_train",), "valid": ("_val",), "all": ("_train", "_val")}
        wanted = [c + s for s in splits[self.usage] for c in self.classes]
        return sorted(d for d in os.listdir(self.dataset_dir)
                      if os.path.isdir(os.path.join(self.dataset_dir, d))
                      and any(w in d for w in wanted))

    def _reader(self):
        return _ImageLabelRows(self._records, self.decode)

    def _class_labels(self):
        return np.array([label for _, label in self._records], np.int64)


# ------------------------------------------------------------------------------ PhotoTour
PHOTO_TOUR_LENGTHS = {"notredame": 468159, "yosemite": 633587, "liberty": 450092,
                      "liberty_harris": 379587, "yosemite_harris": 450912,
                      "notredame_harris": 325295}
_PATCHES_PER_IMAGE, _PATCH = 256, 64


def _tokens(path):
    if not os.path.isfile(path):
        raise RuntimeError(f"Invalid file, failed to open {path}: PhotoTour info file is "
                           "damaged or permission denied.")
    with open(path, encoding="utf-8") as f:
        tokens = f.read().split()
    if not tokens:
        raise RuntimeError(f"Invalid file, the file size of {path} is unexpected, got size 0.")
    return tokens


class _PatchRows:
    """Patch ``k``: bitmap ``k // 256``, row ``k % 256 // 16``, column ``k % 16``."""

    def __init__(self, bitmaps, records, train, limit):
        self.bitmaps, self.records, self.train, self.limit = bitmaps, records, train, limit
        self._cache = {}

    def _patch(self, k):
        if k >= self.limit or k // _PATCHES_PER_IMAGE >= len(self.bitmaps):
            raise pipeline_error(f"Invalid data, PhotoTour patch {k} is beyond the bitmaps.")
        image = self._image(k // _PATCHES_PER_IMAGE)
        r, c = divmod(k % _PATCHES_PER_IMAGE, 16)
        return image[r * _PATCH:(r + 1) * _PATCH, c * _PATCH:(c + 1) * _PATCH, None].copy()

    def _image(self, i):
        if i not in self._cache:
            self._cache.clear()             # one decoded 1024x1024 bitmap at a time
            with pillow().open(self.bitmaps[i]) as im:
                self._cache[i] = np.asarray(im.convert("L"), np.uint8)
        return self._cache[i]

    def __call__(self, index):
        if self.train:
            return (self._patch(index),)
        a, b, same = self.records[index]
        return self._patch(a), self._patch(b), np.array(same, np.uint32)


class PhotoTourDataset(_RecordSource):
    """PhotoTour patches: ``<dataset_dir>/<name>/patches*.bmp`` (16 x 16 patches of 64 x 64
    pixels each, left to right, top to bottom), ``info.txt`` (a patch's 3-D point) and
    ``m50_100000_100000_0.txt`` (pairs). ``usage='train'`` (default): column ``image``
    (uint8 ``(64, 64, 1)``), one row per ``info.txt`` line; ``'test'``: ``image1``,
    ``image2`` and ``matches`` (uint32, 1 when both patches show one 3-D point)."""

    def __init__(self, dataset_dir, name, usage=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.name = _check_in("name", name, tuple(PHOTO_TOUR_LENGTHS))
        self.usage = _check_in("usage", "train" if usage is None else usage, ("train", "test"))
        self.columns = ("image",) if self.usage == "train" else ("image1", "image2", "matches")
        folder = os.path.join(self.dataset_dir, self.name)
        if not os.path.isdir(folder):
            raise RuntimeError(f"{folder} does not exist.")
        pillow()
        self._bitmaps = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                               if f.endswith("bmp"))
        self._points = [int(t) for t in _tokens(os.path.join(folder, "info.txt"))[::2]]
        pairs = _tokens(os.path.join(folder, "m50_100000_100000_0.txt"))
        for i in range(0, len(pairs) - 6, 7):
            a, pa, b, pb = int(pairs[i]), int(pairs[i + 1]), int(pairs[i + 3]), int(pairs[i + 4])
            self._records.append((a, b, int(pa == pb)))
        if self._length() == 0:
            raise RuntimeError("Invalid data, data file may not suitable to read with "
                               f"PhotoTourDataset API.Check file in directory: {folder}")

    def _length(self):
        return len(self._points) if self.usage == "train" else len(self._records)

    def _reader(self):
        return _PatchRows(self._bitmaps, self._records, self.usage == "train",
                          PHOTO_TOUR_LENGTHS[self.name])

    def _class_labels(self):
        if self.usage == "train":
            return np.array(self._points, np.int64)
        return np.array([same for _, _, same in self._records], np.int64)


# ------------------------------------------------------------------------------ SBD
_SBD_CATEGORIES = 20


def _loadmat():
    try:
        from scipy.io import loadmat
    except ImportError:
        raise ImportError("SBDataset reads MATLAB .mat files with scipy: pip install "
                          "'spore[scipy]'.") from None
    return loadmat


class _SBDRows:
    def __init__(self, records, task, decode):
        self.records, self.task, self.decode = records, task, decode

    def __call__(self, index):
        image, mat = self.records[index]
        try:
            gt = _loadmat()(mat)["GTcls"][0]
            if self.task == "Boundaries":
                cells = gt["Boundaries"][0]
                label = np.stack([cells[i][0].toarray() for i in range(_SBD_CATEGORIES)])
            else:
                label = gt["Segmentation"][0]
        except ImportError:
            raise
        except Exception as exc:
            raise pipeline_error(f"Invalid SBD label file {mat}: {exc}") from None
        return read_image(image, self.decode), np.asarray(label).astype(np.uint8)


class SBDataset(_RecordSource):
    """Semantic Boundaries Dataset: ``img/<id>.jpg`` and ``cls/<id>.mat`` listed by
    ``train.txt`` / ``val.txt`` / ``train_noval.txt`` (``usage='all'``: train then val).
    Columns ``image`` (bytes, or RGB HWC uint8 with ``decode``) and ``task``: with
    ``task='Boundaries'`` the 20 category boundary maps (uint8 ``(20, H, W)``), with
    ``'Segmentation'`` the category mask (uint8 ``(H, W)``). Labels are read with scipy."""

    columns = ("image", "task")

    def __init__(self, dataset_dir, task="Boundaries", usage="all", num_samples=None,
                 num_parallel_workers=1, shuffle=None, decode=None, sampler=None,
                 num_shards=None, shard_id=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.task = _check_in("task", task, ("Boundaries", "Segmentation"))
        self.usage = _check_in("usage", usage, ("train", "val", "train_noval", "all"))
        self.decode = _check_bool("decode", decode)
        self.parallel_fetch = True
        if self.decode:
            pillow()
        _loadmat()
        for part in ("train", "val") if self.usage == "all" else (self.usage,):
            listing = os.path.join(self.dataset_dir, part + ".txt")
            if not os.path.exists(listing):
                raise FileNotFoundError(f"SBDataset: {listing} not found")
            with open(listing, encoding="utf-8") as f:
                for name in (line.strip() for line in f.readlines()):
                    self._records.append((os.path.join(self.dataset_dir, "img", name + ".jpg"),
                                          os.path.join(self.dataset_dir, "cls", name + ".mat")))

    def _reader(self):
        return _SBDRows(self._records, self.task, self.decode)
