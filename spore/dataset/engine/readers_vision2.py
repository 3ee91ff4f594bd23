"""More image readers in their published layouts: LFW (people and pairs), SBU captioned
photos and Flickr8k/30k captions. Columns, dtypes, labels and orders are MindSpore 2.10's
(probed on small files); images are bytes, or RGB HWC uint8 with ``decode=True``."""
from __future__ import annotations

import os

import numpy as np

from .readers import _check_dir, _check_usage
from .readers_vision import _AnnotatedSource, _check_choice

# ------------------------------------------------------------------------------- LFW
_LFW_FOLDERS = {"original": "lfw", "funneled": "lfw_funneled", "deepfunneled": "lfw-deepfunneled"}
_LFW_LISTS = {"10fold": ("",), "train": ("DevTrain",), "test": ("DevTest",),
              "all": ("DevTrain", "DevTest")}


def _lines(path):
    if not os.path.isfile(path):
        raise RuntimeError(f"Invalid file, {path} does not exist.")
    with open(path, encoding="utf-8") as f:
        return [line.strip().split("\t") for line in f if line.strip()]


class LFWDataset(_AnnotatedSource):
    """Labeled Faces in the Wild: ``<folder>/<name>/<name>_0001.jpg`` (``image_set``
    ``'original'`` -> ``lfw``, ``'funneled'`` (default) -> ``lfw_funneled``,
    ``'deepfunneled'`` -> ``lfw-deepfunneled``) with the list files beside it.

    ``task='people'`` (default): columns ``image`` and ``label`` (uint32: the person's line
    in ``lfw-names.txt``), one row per image of each person ``people<list>.txt`` names.
    ``task='pairs'``: ``image1``, ``image2``, ``label`` (uint32 1 for two images of one
    person, 0 otherwise) from ``pairs<list>.txt``. ``usage`` ``'10fold'`` reads
    ``people.txt`` / ``pairs.txt``, ``'train'`` / ``'test'`` the ``DevTrain`` / ``DevTest``
    lists, ``'all'`` (default) both of those.
    """

    def __init__(self, dataset_dir, task=None, usage=None, image_set=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        self.task = _check_choice("LFWDataset", "task", "people" if task is None else task,
                                  ("people", "pairs"))
        self.usage = _check_usage("LFWDataset", usage, tuple(_LFW_LISTS))
        self.image_set = _check_choice("LFWDataset", "image_set",
                                       "funneled" if image_set is None else image_set,
                                       tuple(_LFW_FOLDERS))
        self.columns = ("image", "label") if self.task == "people" else \
            ("image1", "image2", "label")
        root = os.path.join(self.dataset_dir, _LFW_FOLDERS[self.image_set])
        for suffix in _LFW_LISTS[self.usage]:
            path = os.path.join(self.dataset_dir, f"{self.task}{suffix}.txt")
            if self.task == "people":
                self._people(root, _lines(path))
            else:
                self._pairs(root, _lines(path)[1:])

    def _image(self, root, name, number):
        return os.path.join(root, name, f"{name}_{int(number):04d}.jpg")

    def _people(self, root, lines):
        names = {fields[0]: k for k, fields in enumerate(
            _lines(os.path.join(self.dataset_dir, "lfw-names.txt")))}
        for fields in lines:
            if len(fields) != 2:                      # the fold and count lines
                continue
            name, count = fields
            if name not in names:
                raise RuntimeError(f"Invalid LFW list: {name} is not in lfw-names.txt.")
            for number in range(1, int(count) + 1):
                self._add([self._image(root, name, number)], (np.uint32(names[name]),), name)

    def _pairs(self, root, lines):
        for fields in lines:
            if len(fields) == 3:
                first, second, label = (fields[0], fields[1]), (fields[0], fields[2]), 1
            elif len(fields) == 4:
                first, second, label = (fields[0], fields[1]), (fields[2], fields[3]), 0
            else:
                continue
            self._add([self._image(root, *first), self._image(root, *second)],
                      (np.uint32(label),), first[0])


# ------------------------------------------------------------------------------- SBU
class SBUDataset(_AnnotatedSource):
    """SBU captioned photos: ``SBU_captioned_photo_dataset_urls.txt`` and
    ``..._captions.txt`` (one line per photo) and ``sbu_images/`` holding the downloaded
    photos, named ``m_<last two parts of the url joined by _>``; photos not downloaded
    are left out. Columns ``image`` and ``caption`` (stripped)."""

    columns = ("image", "caption")

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        urls = self._read("SBU_captioned_photo_dataset_urls.txt")
        captions = self._read("SBU_captioned_photo_dataset_captions.txt")
        if len(urls) != len(captions):
            raise RuntimeError("Invalid SBU data: the url and caption files have "
                               f"{len(urls)} and {len(captions)} lines.")
        for url, caption in zip(urls, captions):
            name = "m_" + "_".join(url.strip().split("/")[-2:])
            path = os.path.join(self.dataset_dir, "sbu_images", name)
            if os.path.isfile(path):
                self._add([path], (caption.strip(),), name)

    def _read(self, name):
        path = os.path.join(self.dataset_dir, name)
        if not os.path.isfile(path):
            raise RuntimeError(f"Invalid file, {path} does not exist.")
        with open(path, encoding="utf-8") as f:
            return [line for line in f.read().splitlines() if line.strip()]


# ---------------------------------------------------------------------------- Flickr
class FlickrDataset(_AnnotatedSource):
    """Flickr8k / Flickr30k: images in ``dataset_dir`` and ``annotation_file`` lines
    ``<image>#<n><TAB><caption>``. Columns ``image`` and ``annotation`` (the image's
    captions, a string array), images in the order the file first names them; an image
    the file names but the folder lacks is an error."""

    columns = ("image", "annotation")

    def __init__(self, dataset_dir, annotation_file, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, bool(decode))
        self.dataset_dir = _check_dir(dataset_dir)
        if not isinstance(annotation_file, (str, os.PathLike)) or \
                not os.path.isfile(annotation_file):
            raise ValueError(f"The file {annotation_file} does not exist or permission "
                             "denied!")
        captions = {}
        with open(annotation_file, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                key, sep, caption = line.rstrip("\r\n").partition("\t")
                if not sep or "#" not in key:
                    raise RuntimeError(f"Invalid file {annotation_file}, line {number}: "
                                       "expected '<image>#<n><TAB><caption>'.")
                captions.setdefault(key.rpartition("#")[0], []).append(caption)
        for image, texts in captions.items():
            path = os.path.join(self.dataset_dir, image)
            if not os.path.isfile(path):
                raise RuntimeError(f"Invalid file path, flickr dataset file: {path} does not "
                                   "exist.")
            self._add([path], (np.array(texts),), image)
