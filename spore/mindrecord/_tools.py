"""Converters from common data set formats to MindRecord (``mindspore.mindrecord.XToMR``):
the same file names, schemas, index fields, descriptions and row order as MindSpore's, so
``MindDataset`` pipelines written for MindSpore's converted files run on Spore's.

Images are stored as JPEG bytes (MindSpore encodes with OpenCV at its default quality 95;
Spore with Pillow at the same quality: the bytes differ, the decoded pixels agree to JPEG's
rounding). CIFAR's "python version" batches are pickles: they are read with
``_pickle_subset``, which rebuilds dicts, lists and NumPy arrays without running anything
the file names.
"""
from __future__ import annotations

import csv
import gzip
import os
import re
import string

import numpy as np

from . import _pickle_subset
from . import FileWriter, SUCCESS

_BATCH = 256                    # rows per write_raw_data call, as MindSpore's converters


def _check_path(who, name, value, folder=False):
    if not isinstance(value, str) or not value:
        raise ValueError(f"For '{who}', '{name}' must be a non-empty str, but got {value!r}.")
    if folder and not os.path.isdir(value):
        raise ValueError(f"For '{who}', the folder {value} given as '{name}' does not exist.")
    return value


def _check_partitions(who, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"For '{who}', the parameter partition_number must be int, but got "
                         f"{value!r}.")
    return value


def _check_fields(fields):
    if fields and not isinstance(fields, list):
        raise ValueError("The parameter fields should be None or list")
    return fields


def _jpeg(image):
    from ..dataset.vision.misc import encode_jpeg
    return encode_jpeg(np.asarray(image, np.uint8), quality=95).tobytes()


def _write(writer, schema, desc, rows, index=None, sizes=False):
    """add_schema, add_index, write_raw_data in blocks of 256 rows, commit: as MindSpore
    does (the blocks decide which rows land in which shard)."""
    if sizes:
        writer.set_header_size(1 << 24)
        writer.set_page_size(1 << 26)
    writer.add_schema(schema, desc)
    if index:
        writer.add_index(list(index))
    block = []
    for row in rows:
        block.append(row)
        if len(block) == _BATCH:
            writer.write_raw_data(block)
            block = []
    if block:
        writer.write_raw_data(block)
    return writer.commit()


# ------------------------------------------------------------------------------- CIFAR
def _load_batch(path, who):
    with open(path, "rb") as f:
        data = f.read()
    try:
        batch = _pickle_subset.loads(data)
    except ValueError as exc:
        raise RuntimeError(f"For '{who}', {path} is not a valid CIFAR python batch: {exc}") \
            from None
    if not isinstance(batch, dict) or not isinstance(batch.get(b"data"), np.ndarray):
        raise RuntimeError(f"For '{who}', {path} is not a valid CIFAR python batch (no "
                           "b'data' array).")
    return batch


def _images(batch):
    """<N, 32, 32, 3> RGB images of a batch's rows of 3072 channel-planar bytes."""
    return batch[b"data"].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)


def _batch_number(name):
    digits = re.findall(r"\d+", name)
    return int(digits[-1]) if digits else 0


class _CifarToMR:
    _NAME = ""
    _TRAIN = _TEST = ""

    def __init__(self, source, destination):
        _check_path(self._NAME, "source", source, folder=True)
        files = os.listdir(source)
        for kind, wanted in (("train", self._TRAIN), ("test", self._TEST)):
            if not any(self._is(f, wanted) for f in files):
                raise ValueError(f"For '{self._NAME}', no {kind} batch '{wanted}' in {source}.")
        self.source = source
        self.destination = _check_path(self._NAME, "destination", destination)
        self.writer = None

    @staticmethod
    def _is(file, wanted):
        return file == wanted

    def _batches(self, wanted):
        names = sorted((f for f in os.listdir(self.source) if self._is(f, wanted)),
                       key=_batch_number)
        return [_load_batch(os.path.join(self.source, f), self._NAME) for f in names]

    def run(self, fields=None):
        """Write ``destination`` (the train rows) and ``destination + "_test"``."""
        fields = _check_fields(fields)
        for wanted, suffix, desc in ((self._TRAIN, "", "img_train"),
                                     (self._TEST, "_test", "img_test")):
            batches = self._batches(wanted)
            writer = FileWriter(self.destination + suffix, 1)
            _write(writer, self._SCHEMA, desc, self._rows(batches), fields)
        return SUCCESS

    def transform(self, fields=None):
        """Same as ``run`` (MindSpore runs it in a thread and re-raises its error)."""
        return self.run(fields)


class Cifar10ToMR(_CifarToMR):
    """CIFAR-10 python batches (``data_batch_*`` and ``test_batch`` in ``source``) to the
    MindRecord files ``destination`` and ``destination + "_test"``: fields ``id`` (row
    number), ``label`` (int64) and ``data`` (the image as JPEG bytes).

    Examples:
        >>> from spore.mindrecord import Cifar10ToMR
        >>> Cifar10ToMR("/path/to/cifar-10-batches-py", "/path/to/cifar10.mindrecord") \\
        ...     .transform()  # doctest: +SKIP
    """
    _NAME, _TRAIN, _TEST = "Cifar10ToMR", "data_batch_", "test_batch"
    _SCHEMA = {"id": {"type": "int64"}, "label": {"type": "int64"}, "data": {"type": "bytes"}}

    @staticmethod
    def _is(file, wanted):
        return file.startswith(wanted)

    @staticmethod
    def _rows(batches):
        i = 0
        for batch in batches:
            for image, label in zip(_images(batch), batch[b"labels"]):
                yield {"id": i, "data": _jpeg(image), "label": int(label)}
                i += 1


class Cifar100ToMR(_CifarToMR):
    """CIFAR-100 python batches (``train`` and ``test`` in ``source``) to the MindRecord files
    ``destination`` and ``destination + "_test"``: fields ``id``, ``fine_label``,
    ``coarse_label`` (int64) and ``data`` (JPEG bytes)."""
    _NAME, _TRAIN, _TEST = "Cifar100ToMR", "train", "test"
    _SCHEMA = {"id": {"type": "int64"}, "fine_label": {"type": "int64"},
               "coarse_label": {"type": "int64"}, "data": {"type": "bytes"}}

    @staticmethod
    def _rows(batches):
        i = 0
        for batch in batches:
            for image, fine, coarse in zip(_images(batch), batch[b"fine_labels"],
                                           batch[b"coarse_labels"]):
                yield {"id": i, "data": _jpeg(image), "fine_label": int(fine),
                       "coarse_label": int(coarse)}
                i += 1


# ------------------------------------------------------------------------------- MNIST
class MnistToMR:
    """MNIST's four gzipped IDX files in ``source`` to ``destination + "_train.mindrecord"``
    and ``destination + "_test.mindrecord"`` (``partition_number`` shards each): fields
    ``label`` (int64, indexed) and ``data`` (the 28x28 image as greyscale JPEG bytes)."""

    _SCHEMA = {"label": {"type": "int64"}, "data": {"type": "bytes"}}
    _FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
              "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}

    def __init__(self, source, destination, partition_number=1):
        _check_path("MnistToMR", "source", source, folder=True)
        for pair in self._FILES.values():
            for name in pair:
                if not os.path.isfile(os.path.join(source, name)):
                    raise ValueError(f"For 'MnistToMR', the file {name} is missing in {source}.")
        self.source = source
        _check_path("MnistToMR", "destination", destination)
        self.partition_number = _check_partitions("MnistToMR", partition_number)
        self.writer_train = FileWriter(f"{destination}_train.mindrecord", partition_number)
        self.writer_test = FileWriter(f"{destination}_test.mindrecord", partition_number)

    def _rows(self, part):
        images_file, labels_file = (os.path.join(self.source, f) for f in self._FILES[part])
        with gzip.open(images_file, "rb") as f:
            images = np.frombuffer(f.read()[16:], np.uint8).reshape(-1, 28, 28)
        with gzip.open(labels_file, "rb") as f:
            labels = np.frombuffer(f.read()[8:], np.uint8)
        for image, label in zip(images, labels):
            yield {"label": int(label), "data": _jpeg(image)}

    def run(self):
        for part, writer in (("train", self.writer_train), ("test", self.writer_test)):
            _write(writer, self._SCHEMA, "mnist_schema", self._rows(part), ["label"],
                   sizes=True)
        return SUCCESS

    def transform(self):
        return self.run()


# --------------------------------------------------------------------------------- CSV
def _csv_kind(values):
    """The MindRecord type MindSpore gives a CSV column (pandas' inferred dtype: int64,
    float64 (also for ints with empty cells), bool -> int32, anything else string)."""
    def parses(cast):
        try:
            for v in values:
                if v != "":
                    cast(v)
            return True
        except ValueError:
            return False
    filled = [v for v in values if v != ""]
    if filled and len(filled) == len(values) and parses(int):
        return "int64"
    if filled and all(v in ("True", "False", "TRUE", "FALSE", "true", "false") for v in filled) \
            and len(filled) == len(values):
        return "int32"
    if parses(float):
        return "float64"
    return "string"


def _csv_value(kind, text):
    if kind == "int64":
        return int(text)
    if kind == "int32":
        return int(text.lower() == "true")
    if kind == "float64":
        return float(text) if text != "" else float("nan")
    return text


class CsvToMR:
    """A CSV file with a header line to the MindRecord file ``destination``
    (``partition_number`` shards): one field per column (``columns_list`` selects some), typed
    as MindSpore types them (int64, float64, bool as int32, else string), every field
    indexed."""

    def __init__(self, source, destination, columns_list=None, partition_number=1):
        if not isinstance(source, str):
            raise ValueError("The parameter source must be str.")
        if columns_list and (not isinstance(columns_list, list) or
                             not all(isinstance(c, str) for c in columns_list)):
            raise ValueError("The parameter columns_list must be list of str.")
        if not isinstance(destination, str):
            raise ValueError("The parameter destination must be str.")
        self.source, self.destination = source, destination
        self.columns_list = columns_list
        self.partition_number = _check_partitions("CsvToMR", partition_number)
        self.writer = FileWriter(destination, partition_number)

    def run(self):
        if not os.path.exists(self.source):
            raise IOError(f"Csv file {self.source} do not exist.")
        with open(self.source, newline="", encoding="utf-8") as f:
            table = list(csv.reader(f))
        if not table:
            raise RuntimeError("Failed to generate schema from csv file.")
        header, body = table[0], [r + [""] * (len(table[0]) - len(r)) for r in table[1:]]
        columns = self.columns_list or header
        for col in columns:
            if col not in header:
                raise RuntimeError(f"The parameter columns_list is illegal, column {col} does "
                                   "not exist.")
        where = {c: header.index(c) for c in columns}
        kinds = {c: _csv_kind([r[where[c]] for r in body]) for c in columns}
        for col in columns:
            if col.isdigit():
                raise ValueError(f"The first line content: {col} of the CSV file is used as a "
                                 "column name and does not allow starting with a number.")
        schema = {c: {"type": kinds[c]} for c in columns}
        rows = ({c: _csv_value(kinds[c], r[where[c]]) for c in columns} for r in body)
        return _write(self.writer, schema, "csv_schema", rows, list(columns), sizes=True)

    def transform(self):
        return self.run()


# ---------------------------------------------------------------------------- ImageNet
class ImageNetToMR:
    """ImageNet-style folders to MindRecord: ``map_file`` lines ``<folder> <label>`` name the
    sub-folders of ``image_dir``; every ``*.JPEG`` / ``*.jpg`` file in them becomes a row
    ``label`` (int32), ``image`` (the file's bytes), ``file_name`` (its path); ``label`` and
    ``file_name`` are indexed. Folders are taken in map-file order, files in name order
    (MindSpore takes the order the file system lists them in)."""

    _SCHEMA = {"label": {"type": "int32"}, "image": {"type": "bytes"},
               "file_name": {"type": "string"}}

    def __init__(self, map_file, image_dir, destination, partition_number=1):
        self.map_file = _check_path("ImageNetToMR", "map_file", map_file)
        self.image_dir = _check_path("ImageNetToMR", "image_dir", image_dir)
        self.destination = _check_path("ImageNetToMR", "destination", destination)
        self.partition_number = _check_partitions("ImageNetToMR", partition_number)
        self.writer = FileWriter(destination, partition_number)

    def _rows(self):
        if not os.path.exists(self.map_file):
            raise IOError(f"map file {self.map_file} not exists")
        folders = {}
        with open(self.map_file, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2:
                    folders[parts[1]] = parts[0]
        dirs = {label: os.path.join(self.image_dir, d) for label, d in folders.items()
                if os.path.isdir(os.path.join(self.image_dir, d))}
        if not dirs:
            raise ValueError(f"For 'ImageNetToMR', no valid image folder in {self.image_dir}.")
        for label, folder in dirs.items():
            for item in sorted(os.listdir(folder)):
                if not item.endswith(("JPEG", "jpg")):
                    continue
                path = os.path.join(folder, item)
                with open(path, "rb") as f:
                    image = f.read()
                if image:
                    yield {"file_name": path, "label": int(label), "image": image}

    def run(self):
        return _write(self.writer, self._SCHEMA, "imagenet_schema", self._rows(),
                      ["label", "file_name"], sizes=True)

    def transform(self):
        return self.run()


# ---------------------------------------------------------------------------- TFRecord
_TF_TYPES = {"string": "string", "int8": "int32", "int16": "int32", "int32": "int32",
             "int64": "int64", "uint8": "int32", "uint16": "int32", "uint32": "int64",
             "uint64": "int64", "float16": "float32", "float32": "float32",
             "float64": "float64", "double": "float64", "bool": "int32"}


def _cast_name(key):
    """A field name with punctuation and spaces (other than ``_``) replaced by ``_``."""
    special = set(string.punctuation + " ") - {"_"}
    return "".join("_" if ch in special else ch for ch in key)


def _spec(feature):
    """(shape, dtype name) of a feature description: ``tf.io.FixedLenFeature`` or any object
    with ``shape`` and ``dtype`` (a TensorFlow / NumPy dtype or its name), or such a dict."""
    if isinstance(feature, dict):
        shape, dtype = feature.get("shape", []), feature.get("dtype")
    else:
        shape, dtype = getattr(feature, "shape", None), getattr(feature, "dtype", None)
    name = getattr(dtype, "name", dtype)
    name = "string" if name in ("str", "bytes", "object") else name
    if shape is None or name not in _TF_TYPES:
        raise ValueError(f"For 'TFRecordToMR', the feature {feature!r} must have a shape and "
                         f"one of the dtypes {sorted(_TF_TYPES)}.")
    return list(shape), name


class TFRecordToMR:
    """A TFRecord file of ``tf.train.Example`` records to the MindRecord file ``destination``,
    no TensorFlow needed. ``feature_dict`` maps feature names to ``tf.io.FixedLenFeature``
    (or any object / dict with ``shape`` and ``dtype``): shape ``[]`` is a scalar field,
    ``[n]`` an array field of n values; ``bytes_fields`` names string features stored as
    bytes. Names with punctuation become ``_``-names, as in MindSpore."""

    def __init__(self, source, destination, feature_dict, bytes_fields=None):
        _check_path("TFRecordToMR", "source", source)
        if not os.path.isfile(source):
            raise ValueError(f"For 'TFRecordToMR', the file {source} does not exist.")
        _check_path("TFRecordToMR", "destination", destination)
        if not isinstance(feature_dict, dict) or not feature_dict:
            raise ValueError("Parameter feature_dict must be a non-empty dict.")
        specs = {key: _spec(value) for key, value in feature_dict.items()}
        if bytes_fields is not None and not isinstance(bytes_fields, list):
            raise ValueError(f"Parameter bytes_fields: {bytes_fields} must be list(str).")
        for item in bytes_fields or []:
            if not isinstance(item, str) or item not in feature_dict:
                raise ValueError(f"Parameter bytes_fields's item: {item} is not in "
                                 "feature_dict.")
            if specs[item][1] != "string":
                raise ValueError(f"Parameter bytes_field: {item} should be tf.string in "
                                 "feature_dict.")
        self.source, self.destination, self.feature_dict = source, destination, feature_dict
        self.bytes_fields_list = [_cast_name(b) for b in bytes_fields or []]
        self._specs = specs
        self.mindrecord_schema = self._schema()

    def _schema(self):
        schema = {}
        for key, (shape, dtype) in self._specs.items():
            name = _cast_name(key)
            if not shape:
                kind = "bytes" if name in self.bytes_fields_list else _TF_TYPES[dtype]
                schema[name] = {"type": kind}
                continue
            if len(shape) != 1 or not isinstance(shape[0], int) or shape[0] < 1:
                raise ValueError(f"Parameter feature_dict[{key}].shape should be [n], n > 0.")
            if dtype == "string":
                raise ValueError(f"Parameter feature_dict[{key}].dtype is tf.string which "
                                 "shape[0] is not None. It is not supported.")
            schema[name] = {"type": _TF_TYPES[dtype], "shape": [shape[0]]}
        return schema

    def tfrecord_iterator(self):
        """The rows (dicts) the MindRecord file gets, one per TFRecord example."""
        from ..dataset.engine.readers_tfrecord import _read_file, _records, parse_example
        for record in _records(self.source, _read_file(self.source, None)):
            example = parse_example(record)
            yield {_cast_name(key): self._value(key, example) for key in self._specs}

    def _value(self, key, example):
        shape, dtype = self._specs[key]
        if key not in example:
            raise ValueError("TFRecord feature_dict parameter error.")
        kind, values = example[key]
        name, count = _cast_name(key), (shape[0] if shape else 1)
        if len(values) != count:
            raise ValueError(f"TFRecord feature_dict parameter error: feature {key} has "
                             f"{len(values)} values, the feature_dict says {count}.")
        mr_type = self.mindrecord_schema[name]["type"]
        if shape:
            return np.asarray(values, {"int32": np.int32, "int64": np.int64,
                                       "float32": np.float32, "float64": np.float64}[mr_type])
        value = values[0]
        if dtype == "string":
            return bytes(value) if name in self.bytes_fields_list else bytes(value).decode()
        return int(value) if mr_type.startswith("int") else float(value)

    def run(self):
        writer = FileWriter(self.destination)
        return _write(writer, self.mindrecord_schema, "TFRecord to MindRecord",
                      self.tfrecord_iterator())

    def transform(self):
        return self.run()
