"""Readers of annotated image datasets in their published layouts: Pascal VOC (xml
annotations, segmentation masks), COCO (json annotations: detection, stuff, keypoints,
panoptic, captions), Huawei ModelArts manifests (json lines) and CelebA (attribute lists).

Every annotation is parsed when the dataset is built, so a malformed file is reported
with its path before iteration; images are read per row, as raw bytes or, with
``decode=True``, decoded to RGB HWC uint8 (Pillow). Column names, dtypes and shapes are
MindSpore 2.10's (probed): boxes float32 ``(n, 4)``, per-object integers uint32 ``(n, 1)``.
With ``extra_metadata=True`` a ``_meta-filename`` column (the image's file name without
its extension) follows; the iterators leave it out unless it is renamed, as in MindSpore.
"""
from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

import numpy as np

from ..vision.transforms import pillow
from .readers import _check_dir, read_image
from .rows import pipeline_error
from .sources import MappableDataset

META_FILENAME = "_meta-filename"


class _AnnotatedRows:
    """Row ``i``: the image files of record ``i`` (bytes or decoded), then its annotation
    arrays (picklable, so rows may be read in worker processes)."""

    def __init__(self, records, decode):
        self.records, self.decode = records, decode

    def __call__(self, index):
        paths, annotations = self.records[index]
        images = tuple(read_image(p, self.decode) for p in paths)
        return images + tuple(np.array(a) for a in annotations)


class _AnnotatedSource(MappableDataset):
    """A random-access source over a list of ``(image paths, annotation arrays)`` records."""

    columns = ()

    def __init__(self, num_samples, shuffle, sampler, num_shards, shard_id,
                 num_parallel_workers, decode, extra_metadata=False):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.decode = bool(decode)
        self.parallel_fetch = self.decode
        self.extra_metadata = bool(extra_metadata)
        if self.decode:
            pillow()  # a clear ImportError now rather than at the first row
        self._records = []

    def _add(self, paths, annotations, stem):
        if self.extra_metadata:
            annotations = tuple(annotations) + (np.array(stem),)
        self._records.append((tuple(paths), tuple(annotations)))

    def _columns(self):
        return list(self.columns) + ([META_FILENAME] if self.extra_metadata else [])

    def _length(self):
        return len(self._records)

    def _reader(self):
        return _AnnotatedRows(self._records, self.decode)


def _check_choice(name, arg, value, choices, message=None):
    if value not in choices:
        raise ValueError(message or f"For '{name}', '{arg}' must be one of {list(choices)}, but "
                                    f"got {value!r}.")
    return value


def _check_class_indexing(name, class_indexing):
    if class_indexing is None:
        return None
    if not isinstance(class_indexing, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
            for k, v in class_indexing.items()):
        raise TypeError(f"For '{name}', 'class_indexing' must be a dict from class name (str) "
                        f"to label (int), but got {class_indexing!r}.")
    return dict(class_indexing)


# ------------------------------------------------------------------------------ VOC
_VOC_TASKS = {"Segmentation": "Segmentation", "Detection": "Main"}


class VOCDataset(_AnnotatedSource):
    """Pascal VOC: ``dataset_dir`` holds ``JPEGImages``, ``Annotations`` (xml),
    ``SegmentationClass`` (png) and ``ImageSets/{Segmentation,Main}/<usage>.txt``.

    ``task='Segmentation'``: columns ``image`` and ``target`` (the mask image).
    ``task='Detection'``: ``image``, ``bbox`` (float32 ``(n, 4)``: xmin, ymin, width,
    height), ``label``, ``difficult``, ``truncate`` (uint32 ``(n, 1)``). Labels come from
    ``class_indexing``, by default the sorted object names of the usage's annotations;
    objects whose name a given ``class_indexing`` lacks are left out (MindSpore's rule).
    """

    def __init__(self, dataset_dir, task="Segmentation", usage="train", class_indexing=None,
                 num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None, extra_metadata=False,
                 decrypt=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode, extra_metadata)
        self.dataset_dir = _check_dir(dataset_dir)
        self.task = _check_choice("VOCDataset", "task", task, _VOC_TASKS,
                                  f"Invalid task : {task}.")
        if task == "Segmentation" and class_indexing is not None:
            raise ValueError("class_indexing is not supported in Segmentation task.")
        self.usage = "train" if usage is None else usage
        given = _check_class_indexing("VOCDataset", class_indexing)
        list_file = os.path.join(self.dataset_dir, "ImageSets", _VOC_TASKS[task],
                                 f"{self.usage}.txt")
        if not os.path.isfile(list_file):
            raise ValueError(f"The file {list_file} does not exist or permission denied!")
        with open(list_file, encoding="utf-8") as f:
            ids = [line.strip() for line in f if line.strip()]
        if task == "Segmentation":
            self.columns = ("image", "target")
            for i in ids:
                self._add([self._path("JPEGImages", i, ".jpg"),
                           self._path("SegmentationClass", i, ".png")], (), i)
            return
        self.columns = ("image", "bbox", "label", "difficult", "truncate")
        objects = {i: _voc_objects(self._path("Annotations", i, ".xml")) for i in ids}
        names = sorted({o[0] for objs in objects.values() for o in objs})
        self.class_indexing = given if given is not None else \
            {n: k for k, n in enumerate(names)}
        for i in ids:
            kept = [o for o in objects[i] if o[0] in self.class_indexing]
            self._add([self._path("JPEGImages", i, ".jpg")], _voc_arrays(
                kept, self.class_indexing), i)

    def _path(self, folder, image_id, suffix):
        path = os.path.join(self.dataset_dir, folder, image_id + suffix)
        if not os.path.isfile(path):
            raise RuntimeError(f"Invalid file, {path} does not exist (VOCDataset, image id "
                               f"{image_id!r}).")
        return path

    def get_class_indexing(self):
        if self.task != "Detection":
            raise RuntimeError("Only 'Detection' support get_class_indexing.")
        return dict(self.class_indexing)

    def _class_labels(self):
        raise ValueError("VOCDataset doesn't support PKSampler.")


def _voc_objects(path):
    """[(name, (xmin, ymin, xmax, ymax), difficult, truncated)] of one xml annotation."""
    try:
        root = ET.parse(path).getroot()
        objects = []
        for obj in root.iter("object"):
            box = obj.find("bndbox")
            coords = tuple(float(box.find(k).text) for k in ("xmin", "ymin", "xmax", "ymax"))
            objects.append((obj.find("name").text.strip(), coords,
                            int(float(_text(obj, "difficult"))),
                            int(float(_text(obj, "truncated")))))
    except (ET.ParseError, AttributeError, TypeError, ValueError) as exc:
        raise RuntimeError(f"Invalid annotation file {path}: {exc} (each <object> needs "
                           "<name> and <bndbox> with xmin, ymin, xmax, ymax).") from None
    return objects


def _text(element, tag):
    child = element.find(tag)
    return "0" if child is None or child.text is None else child.text


def _voc_arrays(objects, class_indexing):
    boxes = np.array([[x0, y0, x1 - x0, y1 - y0] for _, (x0, y0, x1, y1), _, _ in objects],
                     np.float32).reshape(-1, 4)
    column = lambda values: np.array(values, np.uint32).reshape(-1, 1)  # noqa: E731
    return (boxes, column([class_indexing[o[0]] for o in objects]),
            column([o[2] for o in objects]), column([o[3] for o in objects]))


# ----------------------------------------------------------------------------- COCO
_COCO_COLUMNS = {
    "Detection": ("image", "bbox", "category_id", "iscrowd"),
    "Stuff": ("image", "segmentation", "iscrowd"),
    "Keypoint": ("image", "keypoints", "num_keypoints"),
    "Panoptic": ("image", "bbox", "category_id", "iscrowd", "area"),
    "Captioning": ("image", "captions"),
}


class CocoDataset(_AnnotatedSource):
    """COCO: images in ``dataset_dir``, annotations in the json ``annotation_file``.

    Rows follow the json's ``images`` list; images without annotations are left out.
    Columns by ``task``: ``Detection`` image, bbox (float32 ``(n, 4)``), category_id,
    iscrowd; ``Stuff`` image, segmentation (float32, one polygon or RLE ``counts`` per row,
    padded with -1), iscrowd; ``Keypoint`` image, keypoints (float32 ``(n, 3k)``),
    num_keypoints; ``Panoptic`` image, bbox, category_id, iscrowd, area (from
    ``segments_info``); ``Captioning`` image, captions (str ``(n, 1)``). Integer columns are
    uint32 ``(n, 1)``.
    """

    def __init__(self, dataset_dir, annotation_file, task="Detection", num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None, cache=None, extra_metadata=False,
                 decrypt=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode, extra_metadata)
        self.dataset_dir = _check_dir(dataset_dir)
        self.task = _check_choice("CocoDataset", "task", task, _COCO_COLUMNS,
                                  f"Invalid task type: {task}.")
        if not isinstance(annotation_file, (str, os.PathLike)) or \
                not os.path.isfile(annotation_file):
            raise ValueError(f"The file {annotation_file} does not exist or permission denied!")
        self.annotation_file = os.fspath(annotation_file)
        self.columns = _COCO_COLUMNS[task]
        try:
            with open(self.annotation_file, encoding="utf-8") as f:
                content = json.load(f)
            by_image = {}
            for ann in content.get("annotations", []):
                by_image.setdefault(ann["image_id"], []).append(ann)
            categories = content.get("categories", [])
            self.class_indexing = {c["name"]: [c["id"], c.get("isthing", 0)] if task ==
                                   "Panoptic" else [c["id"]] for c in categories}
            for image in content["images"]:
                anns = by_image.get(image["id"])
                if not anns:
                    continue
                name = image["file_name"]
                self._add([os.path.join(self.dataset_dir, name)],
                          _COCO_PARSERS[task](anns), os.path.splitext(name)[0])
        except (KeyError, TypeError, ValueError) as exc:
            raise RuntimeError(f"Invalid annotation file {self.annotation_file} for task "
                               f"{task!r}: {type(exc).__name__}: {exc}.") from None

    def get_class_indexing(self):
        if self.task not in ("Detection", "Panoptic"):
            raise RuntimeError("Only 'Detection' and 'Panoptic' support get_class_indexing.")
        return {k: list(v) for k, v in self.class_indexing.items()}


def _uint_column(values):
    return np.array(values, np.uint32).reshape(-1, 1)


def _coco_detection(anns):
    return (np.array([a["bbox"] for a in anns], np.float32).reshape(-1, 4),
            _uint_column([a["category_id"] for a in anns]),
            _uint_column([a.get("iscrowd", 0) for a in anns]))


def _coco_stuff(anns):
    rows = []
    for a in anns:
        seg = a["segmentation"]
        rows += [seg["counts"]] if a.get("iscrowd", 0) else list(seg)
    width = max(len(r) for r in rows)
    table = np.full((len(rows), width), -1, np.float32)
    for k, r in enumerate(rows):
        table[k, :len(r)] = r
    return table, _uint_column([a.get("iscrowd", 0) for a in anns])


def _coco_keypoint(anns):
    return (np.array([a["keypoints"] for a in anns], np.float32).reshape(len(anns), -1),
            _uint_column([a["num_keypoints"] for a in anns]))


def _coco_panoptic(anns):
    segments = [s for a in anns for s in a["segments_info"]]
    return _coco_detection(segments) + (_uint_column([s["area"] for s in segments]),)


def _coco_captioning(anns):
    return (np.array([a["caption"] for a in anns], str).reshape(-1, 1),)


_COCO_PARSERS = {"Detection": _coco_detection, "Stuff": _coco_stuff,
                 "Keypoint": _coco_keypoint, "Panoptic": _coco_panoptic,
                 "Captioning": _coco_captioning}


# ------------------------------------------------------------------------- Manifest
class ManifestDataset(_AnnotatedSource):
    """A ModelArts manifest: one json object per line with ``source`` (the image path),
    ``usage`` (``train`` / ``eval`` / ``inference``) and ``annotation`` (a list of
    ``{"name": class}``). Columns ``image`` and ``label`` (int32: a scalar for one class,
    1-D for several). Labels come from ``class_indexing``, by default the sorted class names
    of the usage's lines."""

    columns = ("image", "label")

    def __init__(self, dataset_file, usage="train", num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, class_indexing=None, decode=False, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        if not isinstance(dataset_file, (str, os.PathLike)) or not os.path.isfile(dataset_file):
            raise ValueError(f"The file {dataset_file} does not exist or permission denied!")
        self.dataset_file = os.fspath(dataset_file)
        self.usage = _check_choice("ManifestDataset", "usage", usage,
                                   ("train", "eval", "inference"))
        given = _check_class_indexing("ManifestDataset", class_indexing)
        entries = self._entries()
        names = sorted({n for _, labels in entries for n in labels})
        self.class_indexing = given if given is not None else \
            {n: k for k, n in enumerate(names)}
        for source, labels in entries:
            ids = [self.class_indexing[n] for n in labels if n in self.class_indexing]
            label = np.array(ids[0] if len(ids) == 1 else ids, np.int32)
            self._add([source], (label,), os.path.splitext(os.path.basename(source))[0])
        if not self._records:
            raise RuntimeError(f"Invalid data, ManifestDataset API can't read the data file "
                               f"(interface mismatch or no data found): no '{self.usage}' "
                               f"lines in {self.dataset_file}.")

    def _entries(self):
        """(image path, class names) of the usage's lines, in file order."""
        entries = []
        with open(self.dataset_file, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                    if str(item.get("usage", "")).lower() != self.usage:
                        continue
                    entries.append((item["source"], [a["name"] for a in item["annotation"]]))
                except (ValueError, KeyError, TypeError) as exc:
                    raise RuntimeError(f"Invalid manifest file {self.dataset_file}, line "
                                       f"{number}: {type(exc).__name__}: {exc}.") from None
        return entries

    def _class_labels(self):
        return np.array([int(np.ravel(r[1][0])[0]) for r in self._records], np.int64)


# --------------------------------------------------------------------------- CelebA
_CELEBA_PARTS = {"train": "0", "valid": "1", "test": "2"}


class CelebADataset(_AnnotatedSource):
    """CelebA: ``list_attr_celeba.txt`` (a count line, the attribute names, then one line
    per image: file name and ``1`` / ``-1`` per attribute) and the images in
    ``dataset_dir``. ``usage`` ``train`` / ``valid`` / ``test`` picks the images whose
    ``list_eval_partition.txt`` entry is 0 / 1 / 2; ``all`` takes every one.

    Columns ``image`` and ``attr`` (uint32, 1 where the attribute is 1, else 0).
    """

    columns = ("image", "attr")

    def __init__(self, dataset_dir, num_parallel_workers=None, shuffle=None, usage="all",
                 sampler=None, decode=False, extensions=None, num_samples=None, num_shards=None,
                 shard_id=None, cache=None, decrypt=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_choice("CelebADataset", "usage", usage,
                                   ("all", "train", "valid", "test"),
                                   "usage should be 'all', 'train', 'valid' or 'test'.")
        keep = self._partition() if self.usage != "all" else None
        suffixes = None if extensions is None else tuple(extensions)
        self.attr_names = []
        for name, attrs in self._attributes():
            if keep is not None and name not in keep:
                continue
            if suffixes is not None and not name.endswith(suffixes):
                continue
            self._add([os.path.join(self.dataset_dir, name)], (attrs,),
                      os.path.splitext(name)[0])
        if not self._records:
            raise RuntimeError(f"Invalid data, CelebADataset API can't read the data file "
                               f"(interface mismatch or no data found). Check file path: "
                               f"{self.dataset_dir}")

    def _attributes(self):
        path = os.path.join(self.dataset_dir, "list_attr_celeba.txt")
        with open(path, encoding="utf-8") as f:
            lines = [line.split() for line in f.read().splitlines()]
        if len(lines) < 2:
            raise RuntimeError(f"Invalid file {path}: it needs a count line and a line of "
                               "attribute names.")
        self.attr_names = lines[1]
        rows = []
        for number, fields in enumerate(lines[2:], 3):
            if not fields:
                continue
            if len(fields) != len(self.attr_names) + 1:
                raise RuntimeError(f"Invalid file {path}, line {number}: {len(fields) - 1} "
                                   f"attributes, but the header names {len(self.attr_names)}.")
            rows.append((fields[0], (np.array(fields[1:], np.int64) == 1).astype(np.uint32)))
        return rows

    def _partition(self):
        path = os.path.join(self.dataset_dir, "list_eval_partition.txt")
        if not os.path.isfile(path):
            raise RuntimeError(f"Invalid file, {path} does not exist (CelebADataset needs it "
                               f"for usage '{self.usage}').")
        with open(path, encoding="utf-8") as f:
            pairs = [line.split() for line in f if line.strip()]
        return {p[0] for p in pairs if p[1] == _CELEBA_PARTS[self.usage]}


# ------------------------------------------------------------- Caltech256 / Food101
class Caltech256Dataset(_AnnotatedSource):
    """Caltech-256: one folder per category (``001.ak47``, ...), ``*.jpg`` images; columns
    ``image`` and ``label`` (int32, the folder's position in name order)."""

    columns = ("image", "label")

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        folders = sorted(e.name for e in os.scandir(self.dataset_dir) if e.is_dir())
        for label, folder in enumerate(folders):
            path = os.path.join(self.dataset_dir, folder)
            for name in sorted(os.listdir(path)):
                if name.endswith(".jpg"):
                    self._add([os.path.join(path, name)], (np.int32(label),), name[:-4])
        if not self._records:
            raise RuntimeError(f"Invalid data, Caltech256Dataset API can't read the data file "
                               f"(interface mismatch or no data found): no .jpg images in "
                               f"the category folders of {self.dataset_dir}.")

    def _class_labels(self):
        return np.array([int(r[1][0]) for r in self._records], np.int64)


class Food101Dataset(_AnnotatedSource):
    """Food-101: ``images/<class>/<id>.jpg`` listed by ``meta/train.txt`` / ``meta/test.txt``
    (``all``, or None: train then test); columns ``image`` and ``label`` (the class name,
    a string)."""

    columns = ("image", "label")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = "all" if usage is None else usage
        if self.usage not in ("train", "test", "all"):
            raise ValueError(f"For 'Food101Dataset', 'usage' must be 'train', 'test' or 'all', "
                             f"but got {usage!r}.")
        for part in ("train", "test") if self.usage == "all" else (self.usage,):
            listing = os.path.join(self.dataset_dir, "meta", f"{part}.txt")
            if not os.path.isfile(listing):
                raise ValueError(f"The file {listing} does not exist or permission denied!")
            with open(listing, encoding="utf-8") as f:
                for entry in (line.strip() for line in f):
                    if entry:
                        self._add([os.path.join(self.dataset_dir, "images", entry + ".jpg")],
                                  (np.array(entry.split("/")[0]),), entry)


class SUN397Dataset(_AnnotatedSource):
    """SUN397: ``ClassName.txt`` lists the category folders (``/a/abbey``, ...); each
    holds ``*.jpg`` images. Columns ``image`` and ``label`` (uint32, the line of its
    category)."""

    columns = ("image", "label")

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        listing = os.path.join(self.dataset_dir, "ClassName.txt")
        if not os.path.isfile(listing):
            raise RuntimeError(f"Invalid file, {listing} does not exist.")
        with open(listing, encoding="utf-8") as f:
            classes = [line.strip() for line in f if line.strip()]
        for label, cls in enumerate(classes):
            folder = os.path.join(self.dataset_dir, cls.lstrip("/"))
            if not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                if name.endswith(".jpg") and os.path.isfile(os.path.join(folder, name)):
                    self._add([os.path.join(folder, name)], (np.uint32(label),), name[:-4])

    def _class_labels(self):
        return np.array([int(r[1][0]) for r in self._records], np.int64)


class OmniglotDataset(_AnnotatedSource):
    """Omniglot: ``images_background`` (``background`` True or None) or
    ``images_evaluation``, ``<alphabet>/<character>/*.png``; columns ``image`` and
    ``label`` (int32, the character's position over all alphabets in name order)."""

    columns = ("image", "label")

    def __init__(self, dataset_dir, background=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        self.background = True if background is None else bool(background)
        root = os.path.join(self.dataset_dir, "images_background" if self.background
                            else "images_evaluation")
        root = _check_dir(root)
        label = 0
        for alphabet in sorted(e.name for e in os.scandir(root) if e.is_dir()):
            base = os.path.join(root, alphabet)
            for character in sorted(e.name for e in os.scandir(base) if e.is_dir()):
                folder = os.path.join(base, character)
                for name in sorted(os.listdir(folder)):
                    if os.path.isfile(os.path.join(folder, name)):
                        self._add([os.path.join(folder, name)], (np.int32(label),),
                                  os.path.splitext(name)[0])
                label += 1

    def _class_labels(self):
        return np.array([int(r[1][0]) for r in self._records], np.int64)


# the Annotations folder of the categories whose name differs there
_CALTECH_ANNOTATION_NAMES = {"Faces": "Faces_2", "Faces_easy": "Faces_3",
                             "Motorbikes": "Motorbikes_16", "airplanes": "Airplanes_Side_2"}


class _CaltechRows:
    def __init__(self, records, decode, parts):
        self.records, self.decode, self.parts = records, decode, parts

    def __call__(self, index):
        from .matfile import loadmat
        image_path, annotation_path, category = self.records[index]
        row = [read_image(image_path, self.decode)]
        if "category" in self.parts:
            row.append(np.array(category, np.int64))
        if "annotation" in self.parts:
            try:
                row.append(np.asarray(loadmat(annotation_path)["obj_contour"], np.float64))
            except (OSError, KeyError, ValueError) as exc:
                raise pipeline_error(f"Invalid Caltech101 annotation {annotation_path}: "
                                     f"{exc}") from None
        return tuple(row)


class Caltech101Dataset(MappableDataset):
    """Caltech-101: ``101_ObjectCategories/<category>/image_NNNN.jpg`` (``BACKGROUND_Google``
    left out) and ``Annotations/<category>/annotation_NNNN.mat``. ``target_type``
    ``'category'`` (None; int64, the category's position in name order),
    ``'annotation'`` (the object contour, float64 (2, n)) or ``'all'`` (both)."""

    def __init__(self, dataset_dir, target_type=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.target_type = "category" if target_type is None else target_type
        if self.target_type not in ("category", "annotation", "all"):
            raise ValueError("Input target_type is not within the valid set of ['category', "
                             "'annotation', 'all'].")
        self.decode = bool(decode)
        images = _check_dir(os.path.join(self.dataset_dir, "101_ObjectCategories"))
        categories = sorted(e.name for e in os.scandir(images)
                            if e.is_dir() and e.name != "BACKGROUND_Google")
        self._records = []
        for label, category in enumerate(categories):
            notes = os.path.join(self.dataset_dir, "Annotations",
                                 _CALTECH_ANNOTATION_NAMES.get(category, category))
            for name in sorted(os.listdir(os.path.join(images, category))):
                if name.startswith("image_") and name.endswith(".jpg"):
                    note = os.path.join(notes, "annotation_" + name[6:-4] + ".mat")
                    self._records.append((os.path.join(images, category, name), note, label))

    def _columns(self):
        return {"category": ["image", "category"], "annotation": ["image", "annotation"],
                "all": ["image", "category", "annotation"]}[self.target_type]

    def _length(self):
        return len(self._records)

    def _reader(self):
        parts = ("category", "annotation") if self.target_type == "all" else (self.target_type,)
        return _CaltechRows(self._records, self.decode, parts)

    def _class_labels(self):
        return np.array([r[2] for r in self._records], np.int64)


_SST2_FOLDERS = {"train": ("train",), "val": ("valid",), "test": ("test",),
                 "all": ("test", "train", "valid")}


class RenderedSST2Dataset(_AnnotatedSource):
    """Rendered SST-2: ``<split>/<class>/*.png`` for splits train, valid (usage ``val``)
    and test (``all``, or None: every split, in folder-name order); columns ``image`` and
    ``label`` (uint32, the class folder's position in name order)."""

    columns = ("image", "label")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_choice("RenderedSST2Dataset", "usage",
                                   "all" if usage is None else usage, _SST2_FOLDERS)
        for split in _SST2_FOLDERS[self.usage]:
            root = _check_dir(os.path.join(self.dataset_dir, split))
            classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
            for label, cls in enumerate(classes):
                folder = os.path.join(root, cls)
                for name in sorted(os.listdir(folder)):
                    if name.endswith(".png"):
                        self._add([os.path.join(folder, name)], (np.uint32(label),), name[:-4])

    def _class_labels(self):
        return np.array([int(r[1][0]) for r in self._records], np.int64)


# usage -> (list file, image folder for small / large images)
_PLACES = {"train-standard": ("places365_train_standard.txt", "data_256_standard",
                              "data_large_standard"),
           "train-challenge": ("places365_train_challenge.txt", "data_256_challenge",
                               "data_large_challenge"),
           "val": ("places365_val.txt", "val_256", "val_large")}


class Places365Dataset(_AnnotatedSource):
    """Places365: ``places365_<usage>.txt`` lists ``path label`` lines (usage
    ``train-standard`` (None), ``train-challenge`` or ``val``); images under
    ``data_256_*`` / ``val_256`` (``small``) or the ``large`` folders. Columns ``image``
    and ``label`` (uint32)."""

    columns = ("image", "label")

    def __init__(self, dataset_dir, usage=None, small=True, decode=False, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, decode)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = _check_choice("Places365Dataset", "usage",
                                   "train-standard" if usage is None else usage, _PLACES)
        if not isinstance(small, bool):
            raise TypeError("For 'Places365Dataset', 'small' must be bool.")
        self.small = small
        listing, small_dir, large_dir = _PLACES[self.usage]
        listing = os.path.join(self.dataset_dir, listing)
        if not os.path.isfile(listing):
            raise ValueError(f"The file {listing} does not exist or permission denied!")
        images = os.path.join(self.dataset_dir, small_dir if small else large_dir)
        with open(listing, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != 2 or not fields[1].isdigit():
                    raise RuntimeError(f"Invalid file {listing}, line {number}: expected "
                                       "'<image path> <label>'.")
                self._add([os.path.join(images, fields[0].lstrip("/"))],
                          (np.uint32(int(fields[1])),),
                          os.path.splitext(os.path.basename(fields[0]))[0])

    def _class_labels(self):
        return np.array([int(r[1][0]) for r in self._records], np.int64)
