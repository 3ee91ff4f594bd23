"""More image readers in their published layouts: LFW (people and pairs), SBU captioned
photos, Flickr8k/30k captions, DIV2K, WIDER FACE, KITTI and Cityscapes. Columns, dtypes, labels and orders are MindSpore 2.10's
(probed on small files); images are bytes, or RGB HWC uint8 with ``decode=True``."""
from __future__ import annotations

import json
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


# ----------------------------------------------------------------------------- DIV2K
_DIV2K_SCALES = {"bicubic": (2, 3, 4, 8), "unknown": (2, 3, 4), "mild": (4,), "difficult": (4,),
                 "wild": (4,)}


def _check_div2k(downgrade, scale):
    if downgrade not in _DIV2K_SCALES:
        raise ValueError(f"Input downgrade is not within the valid set of "
                         f"{list(_DIV2K_SCALES)}.")
    if isinstance(scale, bool) or scale not in (2, 3, 4, 8):
        raise ValueError("Input scale is not within the valid set of [2, 3, 4, 8].")
    if scale == 8 and downgrade != "bicubic":
        raise ValueError("DIV2KNode: scale equal to 8 is allowed only in bicubic downgrade.")
    if scale not in _DIV2K_SCALES[downgrade]:
        raise ValueError(f"DIV2KNode: {downgrade} downgrade requires scale equal to 4."
                         if downgrade != "unknown" else
                         "DIV2KNode: unknown downgrade requires scale in [2, 3, 4].")


class DIV2KDataset(_AnnotatedSource):
    """DIV2K super-resolution pairs: ``DIV2K_<usage>_HR/0001.png`` with its low-resolution
    image ``DIV2K_<usage>_LR_<downgrade>/X<scale>/0001x<scale>.png`` (bicubic / unknown),
    ``DIV2K_<usage>_LR_<downgrade>/0001x4<m|d|w>.png`` (mild / difficult / wild) or
    ``DIV2K_<usage>_LR_x8/0001x8.png`` (bicubic, scale 8). Columns ``hr_image`` and
    ``lr_image``; ``usage`` ``'train'`` (default), ``'valid'`` or ``'all'`` (both)."""

    columns = ("hr_image", "lr_image")

    def __init__(self, dataset_dir, usage="train", downgrade="bicubic", scale=2,
                 num_samples=None, num_parallel_workers=None, shuffle=None, decode=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, bool(decode))
        self.dataset_dir = _check_dir(dataset_dir)
        usage = "train" if usage is None else usage
        if usage not in ("train", "valid", "all"):
            raise ValueError("Input usage is not within the valid set of ['train', 'valid', "
                             "'all'].")
        _check_div2k(downgrade, scale)
        self.usage, self.downgrade, self.scale = usage, downgrade, scale
        for part in ("train", "valid") if usage == "all" else (usage,):
            self._part(part)
        if not self._records:
            raise RuntimeError(f"Invalid data, no DIV2K {usage} images in {self.dataset_dir}.")

    def _lr_path(self, part, stem):
        if self.scale == 8:
            return os.path.join(self.dataset_dir, f"DIV2K_{part}_LR_x8", f"{stem}x8.png")
        folder = os.path.join(self.dataset_dir, f"DIV2K_{part}_LR_{self.downgrade}")
        if self.downgrade in ("bicubic", "unknown"):
            return os.path.join(folder, f"X{self.scale}", f"{stem}x{self.scale}.png")
        return os.path.join(folder, f"{stem}x4{self.downgrade[0]}.png")

    def _part(self, part):
        hr_dir = os.path.join(self.dataset_dir, f"DIV2K_{part}_HR")
        if not os.path.isdir(hr_dir):
            raise RuntimeError(f"Invalid path, div2k hr image dir: {hr_dir} is not a "
                               "directory.")
        for name in sorted(os.listdir(hr_dir)):
            stem, ext = os.path.splitext(name)
            if ext.lower() != ".png":
                continue
            lr = self._lr_path(part, stem)
            if not os.path.isfile(lr):
                raise RuntimeError(f"Invalid path, div2k lr image {lr} does not exist.")
            self._add([os.path.join(hr_dir, name), lr], (), stem)


# ------------------------------------------------------------------------- WIDERFace
_WIDER_FIELDS = ("blur", "expression", "illumination", "occlusion", "pose", "invalid")


def _wider_annotations(path):
    """[(image path relative to images/, (n, 10) int32 array)] of a *_bbx_gt.txt file: an
    image line, a face count, then that many lines (one line of zeros for no face)."""
    with open(path, encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip()]
    out, pos = [], 0
    try:
        while pos < len(lines):
            image, count = lines[pos], int(lines[pos + 1])
            rows = lines[pos + 2:pos + 2 + max(count, 1)]
            values = np.array([[int(v) for v in row.split()[:10]] for row in rows], np.int32)
            if values.shape[1:] != (10,):
                raise ValueError("a face line needs 10 numbers")
            out.append((image, values))
            pos += 2 + max(count, 1)
    except (IndexError, ValueError) as exc:
        raise RuntimeError(f"Invalid WIDERFace annotation file {path} near line {pos + 1}: "
                           f"{exc}.") from None
    return out


class WIDERFaceDataset(_AnnotatedSource):
    """WIDER FACE: ``WIDER_<train|val|test>/images/<event>/<image>.jpg`` and
    ``wider_face_split/`` (``wider_face_<train|val>_bbx_gt.txt``,
    ``wider_face_test_filelist.txt``). ``usage`` ``'train'`` / ``'valid'`` / ``'all'``
    (default: both) give ``image``, ``bbox`` (int32 ``(n, 4)``) and int32 ``(n,)`` columns
    ``blur``, ``expression``, ``illumination``, ``occlusion``, ``pose``, ``invalid``
    (an image without faces has one all-zero face, as in the file); ``'test'`` gives
    ``image`` only. Images come in the annotation file's order."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_usage("WIDERFaceDataset", usage, ("train", "test", "valid", "all"))
        split = os.path.join(self.dataset_dir, "wider_face_split")
        if self.usage == "test":
            self.columns = ("image",)
            for image in _lines(os.path.join(split, "wider_face_test_filelist.txt")):
                self._add([self._image("test", image[0])], (), image[0])
            return
        self.columns = ("image", "bbox") + _WIDER_FIELDS
        for part in ("train", "val") if self.usage == "all" else \
                ({"train": "train", "valid": "val"}[self.usage],):
            for image, values in _wider_annotations(
                    os.path.join(split, f"wider_face_{part}_bbx_gt.txt")):
                self._add([self._image(part, image)],
                          (values[:, :4],) + tuple(values[:, 4 + k] for k in range(6)), image)

    def _image(self, part, relative):
        path = os.path.join(self.dataset_dir, f"WIDER_{part}", "images", relative)
        if not os.path.isfile(path):
            raise RuntimeError(f"Invalid file, {path} does not exist.")
        return path


# ----------------------------------------------------------------------------- KITTI
_KITTI_CLASSES = ("Car", "Cyclist", "DontCare", "Misc", "Pedestrian", "Person_sitting", "Tram",
                  "Truck", "Van")


def _kitti_labels(path):
    """The per-object columns of a KITTI label file: label, truncated, occluded, alpha
    ((n, 1) each), bbox (n, 4), dimensions, location ((n, 3) each), rotation_y (n, 1)."""
    objects = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) < 15 or fields[0] not in _KITTI_CLASSES:
                raise RuntimeError(f"Invalid KITTI label file {path}, line {number}: expected "
                                   "a class name and 14 numbers.")
            objects.append([_KITTI_CLASSES.index(fields[0])] + [float(v) for v in fields[1:15]])
    table = np.array(objects, np.float64).reshape(-1, 15)
    f32 = table.astype(np.float32)
    return (table[:, :1].astype(np.uint32), f32[:, 1:2], table[:, 2:3].astype(np.uint32),
            f32[:, 3:4], f32[:, 4:8], f32[:, 8:11], f32[:, 11:14], f32[:, 14:15])


class KITTIDataset(_AnnotatedSource):
    """KITTI object detection: ``data_object_image_2/<training|testing>/image_2/*.png`` and
    ``data_object_label_2/training/label_2/<same name>.txt``. ``usage='train'`` (default)
    gives ``image``, ``label`` (uint32, the class's place in the sorted class names Car,
    Cyclist, DontCare, Misc, Pedestrian, Person_sitting, Tram, Truck, Van), ``truncated``,
    ``occluded`` (uint32), ``alpha``, ``bbox`` ``(n, 4)``, ``dimensions``, ``location``
    ``(n, 3)`` and ``rotation_y`` (float32, one row per object); ``'test'`` gives ``image``
    only. Images in name order."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = "train" if usage is None else _check_choice(
            "KITTIDataset", "usage", usage, ("train", "test"))
        part = "training" if self.usage == "train" else "testing"
        image_dir = os.path.join(self.dataset_dir, "data_object_image_2", part, "image_2")
        if not os.path.isdir(image_dir):
            raise RuntimeError(f"Invalid path, {image_dir} does not exist.")
        label_dir = os.path.join(self.dataset_dir, "data_object_label_2", part, "label_2")
        self.columns = ("image",) if self.usage == "test" else (
            "image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions",
            "location", "rotation_y")
        for name in sorted(os.listdir(image_dir)):
            stem = os.path.splitext(name)[0]
            labels = () if self.usage == "test" else \
                _kitti_labels(os.path.join(label_dir, stem + ".txt"))
            self._add([os.path.join(image_dir, name)], labels, stem)


# ------------------------------------------------------------------------ Cityscapes
_CITYSCAPES_TASKS = {"instance": "instanceIds.png", "semantic": "labelIds.png",
                     "color": "color.png", "polygon": "polygons.json"}


class CityscapesDataset(_AnnotatedSource):
    """Cityscapes: ``leftImg8bit/<split>/<city>/<x>_leftImg8bit.png`` with
    ``gtFine`` (``quality_mode='fine'``) or ``gtCoarse`` annotations
    ``<split>/<city>/<x>_gt<Fine|Coarse>_<instanceIds|labelIds|color>.png`` /
    ``_polygons.json``. Columns ``image`` and ``task``: the annotation image for tasks
    ``'instance'`` (default), ``'semantic'``, ``'color'``, or the polygon JSON as text
    (compact, keys sorted) for ``'polygon'``. ``usage`` ``'train'`` (default), ``'val'``,
    ``'test'`` (fine) or ``'train_extra'`` (coarse), ``'all'`` every split of the mode;
    cities and images in name order."""

    columns = ("image", "task")

    def __init__(self, dataset_dir, usage="train", quality_mode="fine", task="instance",
                 num_samples=None, num_parallel_workers=None, shuffle=None, decode=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, bool(decode))
        self.dataset_dir = _check_dir(dataset_dir)
        self.quality_mode = _check_choice("CityscapesDataset", "quality_mode", quality_mode,
                                          ("fine", "coarse"))
        splits = ("train", "test", "val") if quality_mode == "fine" else \
            ("train", "train_extra", "val")
        self.usage = _check_choice("CityscapesDataset", "usage", usage, splits + ("all",))
        self.task = _check_choice("CityscapesDataset", "task", task, tuple(_CITYSCAPES_TASKS))
        gt = "gtFine" if quality_mode == "fine" else "gtCoarse"
        for split in splits if self.usage == "all" else (self.usage,):
            image_root = os.path.join(self.dataset_dir, "leftImg8bit", split)
            for city in sorted(os.listdir(image_root)) if os.path.isdir(image_root) else []:
                for name in sorted(os.listdir(os.path.join(image_root, city))):
                    if not name.endswith("_leftImg8bit.png"):
                        continue
                    stem = name[:-len("_leftImg8bit.png")]
                    target = os.path.join(self.dataset_dir, gt, split, city,
                                          f"{stem}_{gt}_{_CITYSCAPES_TASKS[task]}")
                    self._pair(os.path.join(image_root, city, name), target, stem)
        if not self._records:
            raise RuntimeError(f"Invalid data, no Cityscapes images for usage {usage!r} in "
                               f"{self.dataset_dir}.")

    def _pair(self, image, target, stem):
        if not os.path.isfile(target):
            raise RuntimeError(f"Invalid file, {target} does not exist.")
        if self.task != "polygon":
            self._add([image, target], (), stem)
            return
        with open(target, encoding="utf-8") as f:
            try:
                text = json.dumps(json.load(f), sort_keys=True, separators=(",", ":"))
            except ValueError as exc:
                raise RuntimeError(f"Invalid json file {target}: {exc}") from None
        self._add([image], (text,), stem)
