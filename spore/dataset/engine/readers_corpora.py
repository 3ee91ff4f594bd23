"""Readers of public text corpora in their published layouts: the CSV classification sets
(AG News, DBpedia, Amazon, Yelp, Sogou News, Yahoo Answers), SST-2 (tsv), IMDB (a folder
per label), WikiText, Penn Treebank and EnWik9 (lines), Multi30k (line-aligned pairs),
SQuAD (json), CLUE (json lines) and the token-tagged UDPOS and CoNLL-2000.

All but IMDB are MindSpore's non-mappable file sources (``readers_text.py``: file
order, interleaving of the files' rows, shuffles and shards). Columns, dtypes and the
files each ``usage`` reads are MindSpore 2.10's (probed on files in these layouts);
``usage`` None means ``'all'``.
"""
from __future__ import annotations

import csv
import io
import json
import os

import numpy as np

from .readers import _check_dir
from .readers_text import _FileSource
from .rows import pipeline_error
from .samplers import Shuffle
from .sources import MappableDataset


def _usage_files(name, dataset_dir, usage, table):
    """The files of ``usage`` (``table``: usage -> relative paths; ``all``: every usage's,
    in the table's order), each checked to exist."""
    dataset_dir = _check_dir(dataset_dir)
    usage = "all" if usage is None else usage
    choices = list(table) + ["all"]
    if usage not in choices:
        raise ValueError(f"For '{name}', 'usage' must be one of {choices}, but got {usage!r}.")
    parts = [p for files in table.values() for p in files] if usage == "all" else table[usage]
    paths = [os.path.join(dataset_dir, p) for p in parts]
    for path in paths:
        if not os.path.isfile(path):
            raise ValueError(f"For '{name}', the file {path} does not exist or permission "
                             "denied!")
    return usage, paths


class _Corpus(_FileSource):
    """A file source whose files come from ``dataset_dir`` and ``usage`` by ``files``
    (usage -> relative paths, in MindSpore's reading order for ``all``)."""

    files = {}
    columns = ()

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        self.usage, paths = _usage_files(type(self).__name__, dataset_dir, usage, self.files)
        self.dataset_dir = os.fspath(dataset_dir)
        super().__init__(paths, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)
        self.dataset_files = paths  # the table's order, not name order

    def _columns(self):
        return list(self.columns)


# --------------------------------------------------------------------- CSV corpora
class _CsvCorpus(_Corpus):
    """Quoted CSV without a header; every field a string column."""

    def _read(self, path):
        with open(path, encoding="utf-8", newline="") as f:
            records = [r for r in csv.reader(io.StringIO(f.read())) if r]
        for number, record in enumerate(records, 1):
            if len(record) != len(self.columns):
                raise pipeline_error(f"Invalid csv file {path}: line {number} has "
                                     f"{len(record)} fields, expected {len(self.columns)} "
                                     f"{list(self.columns)}.")
        return [tuple(r) for r in records]


_TEST_TRAIN = {"test": ["test.csv"], "train": ["train.csv"]}
_TRAIN_TEST = {"train": ["train.csv"], "test": ["test.csv"]}


class AGNewsDataset(_CsvCorpus):
    """AG News: ``train.csv`` / ``test.csv``; columns ``index``, ``title``, ``description``."""

    files, columns = _TEST_TRAIN, ("index", "title", "description")


class DBpediaDataset(_CsvCorpus):
    """DBpedia: ``train.csv`` / ``test.csv``; columns ``class``, ``title``, ``content``."""

    files, columns = _TEST_TRAIN, ("class", "title", "content")


class AmazonReviewDataset(_CsvCorpus):
    """Amazon reviews: ``train.csv`` / ``test.csv``; columns ``label``, ``title``,
    ``content``."""

    files, columns = _TEST_TRAIN, ("label", "title", "content")


class YahooAnswersDataset(_CsvCorpus):
    """Yahoo Answers: ``train.csv`` / ``test.csv``; columns ``class``, ``title``,
    ``content``, ``answer``."""

    files, columns = _TEST_TRAIN, ("class", "title", "content", "answer")


class YelpReviewDataset(_CsvCorpus):
    """Yelp reviews: ``train.csv`` / ``test.csv`` (``all``: train first); columns ``label``,
    ``text``."""

    files, columns = _TRAIN_TEST, ("label", "text")

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)


class SogouNewsDataset(_CsvCorpus):
    """Sogou News: ``train.csv`` / ``test.csv`` (``all``: train first); columns ``index``,
    ``title``, ``content``."""

    files, columns = _TRAIN_TEST, ("index", "title", "content")

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)


class SST2Dataset(_Corpus):
    """SST-2: ``train.tsv`` / ``dev.tsv`` (columns ``sentence``, ``label``) and ``test.tsv``
    (``sentence``); the header line is skipped, fields are kept as written."""

    files = {"train": ["train.tsv"], "dev": ["dev.tsv"], "test": ["test.tsv"]}

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        usage = "train" if usage is None else usage
        if usage == "all":
            raise ValueError("For 'SST2Dataset', 'usage' must be 'train', 'dev' or 'test': "
                             "the test file has no label column.")
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)
        self.columns = ("sentence",) if self.usage == "test" else ("sentence", "label")

    def _read(self, path):
        with open(path, encoding="utf-8", newline="") as f:
            lines = [line.rstrip("\r\n").split("\t") for line in f.read().split("\n")[1:]
                     if line.strip()]
        width = 2
        for number, fields in enumerate(lines, 2):
            if len(fields) != width:
                raise pipeline_error(f"Invalid tsv file {path}: line {number} has "
                                     f"{len(fields)} fields, expected {width}.")
        return [(f[1],) if self.usage == "test" else (f[0], f[1]) for f in lines]


# -------------------------------------------------------------------- line corpora
class _LineCorpus(_Corpus):
    """One row per non-empty line (column ``text``), as ``TextFileDataset``."""

    columns = ("text",)
    keep_empty = False

    def _read(self, path):
        with open(path, encoding="utf-8", newline="") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return [(line,) for line in lines if line or self.keep_empty]


class WikiTextDataset(_LineCorpus):
    """WikiText-2/103: ``wiki.{train,valid,test}.tokens``, one row per non-empty line."""

    files = {"test": ["wiki.test.tokens"], "train": ["wiki.train.tokens"],
             "valid": ["wiki.valid.tokens"]}


class PennTreebankDataset(_LineCorpus):
    """Penn Treebank: ``ptb.{train,valid,test}.txt``, one row per non-empty line."""

    files = {"test": ["ptb.test.txt"], "train": ["ptb.train.txt"], "valid": ["ptb.valid.txt"]}


class EnWik9Dataset(_LineCorpus):
    """EnWik9: the file ``enwik9``, one row per line (empty lines too, as MindSpore reads
    them). Shuffled by default."""

    files = {"all": ["enwik9"]}
    keep_empty = True

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, "all", num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)


class Multi30kDataset(_Corpus):
    """Multi30k: line-aligned ``training/train.<lang>``, ``validation/val.<lang>`` and
    ``mmt16_task1_test/test.<lang>``. ``language_pair`` (default ``['en', 'de']``) picks
    the ``text`` and ``translation`` columns."""

    columns = ("text", "translation")
    files = {"test": ["mmt16_task1_test/test"], "train": ["training/train"],
             "valid": ["validation/val"]}

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, num_shards=None, shard_id=None,
                 cache=None):
        pair = ["en", "de"] if language_pair is None else language_pair
        if not isinstance(pair, (list, tuple)) or sorted(pair) != ["de", "en"]:
            raise ValueError(f"For 'Multi30kDataset', 'language_pair' must be ['en', 'de'] or "
                             f"['de', 'en'], but got {language_pair!r}.")
        self.language_pair = list(pair)
        self.files = {u: [f"{stem}.{pair[0]}" for stem in stems]
                      for u, stems in type(self).files.items()}
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers,
                         Shuffle.GLOBAL if shuffle is None else shuffle, num_shards, shard_id)

    def _read(self, path):
        other = path[:-len(self.language_pair[0])] + self.language_pair[1]
        texts = _lines(path)
        if not os.path.isfile(other):
            raise pipeline_error(f"Invalid file, {other} does not exist (Multi30kDataset needs "
                                 f"both languages of {path}).")
        translations = _lines(other)
        if len(texts) != len(translations):
            raise pipeline_error(f"Invalid Multi30k files: {path} has {len(texts)} lines but "
                                 f"{other} has {len(translations)}.")
        return list(zip(texts, translations))


def _lines(path):
    with open(path, encoding="utf-8", newline="") as f:
        return [line.rstrip("\r") for line in f.read().split("\n") if line]


# --------------------------------------------------------------------------- IWSLT
_IWSLT2016_PAIRS = (("en", "fr"), ("en", "de"), ("en", "cs"), ("en", "ar"), ("fr", "en"),
                    ("de", "en"), ("cs", "en"), ("ar", "en"))
_IWSLT2016_SETS = ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014")
_IWSLT2017_LANGS = ("en", "nl", "de", "it", "ro")


def _iwslt_tags(path):
    """The sentences of a ``train.tags.*`` file: every line that is not a ``<tag>`` line,
    stripped."""
    return [t for t in (line.strip() for line in _lines(path)) if t and not t.startswith("<")]


def _iwslt_xml(path):
    """The ``<seg>`` texts of an IWSLT ``.xml`` file, stripped, in document order."""
    import xml.etree.ElementTree as ET
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as exc:
        raise pipeline_error(f"Invalid file, failed to load xml file: {path} ({exc}).") \
            from None
    return [(seg.text or "").strip() for seg in root.iter("seg")]


class _IWSLT(_Corpus):
    """IWSLT's parallel files: a ``train.tags.<src>-<tgt>.<lang>`` pair and
    ``IWSLT<yy>.TED.<set>.<src>-<tgt>.<lang>.xml`` pairs. Spore reads them directly
    (MindSpore first writes cleaned copies beside them)."""

    columns = ("text", "translation")

    def _setup(self, dataset_dir, folder, prefix, pair, sets, usage, shuffle, num_samples,
               num_parallel_workers, num_shards, shard_id):
        src, tgt = pair
        self.language_pair = (src, tgt)
        stem = f"{src}-{tgt}"
        xml = [f"{folder}/{prefix}.TED.{s}.{stem}.{src}.xml" for s in sets]
        self.files = {"train": [f"{folder}/train.tags.{stem}.{src}"], "valid": [xml[0]],
                      "test": [xml[1]]}
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers,
                         Shuffle.GLOBAL if shuffle is None else shuffle, num_shards, shard_id)

    def _read(self, path):
        src, tgt = self.language_pair
        if path.endswith(".xml"):
            other = f"{path[:-len(src) - 5]}.{tgt}.xml"
            reader = _iwslt_xml
        else:
            other = f"{path[:-len(src) - 1]}.{tgt}"
            reader = _iwslt_tags
        if not os.path.isfile(other):
            raise pipeline_error(f"Invalid file, {other} does not exist.")
        texts, translations = reader(path), reader(other)
        if len(texts) != len(translations):
            raise pipeline_error(f"Invalid IWSLT files: {path} has {len(texts)} sentences but "
                                 f"{other} has {len(translations)}.")
        return list(zip(texts, translations))


def _check_pair(name, language_pair, valid):
    pair = ("de", "en") if language_pair is None else language_pair
    if not isinstance(pair, (list, tuple)) or tuple(pair) not in valid:
        raise ValueError(f"For '{name}', 'language_pair' must be one of "
                         f"{[list(p) for p in valid]}, but got {language_pair!r}.")
    return tuple(pair)


class IWSLT2016Dataset(_IWSLT):
    """IWSLT 2016 TED talks: ``texts/<src>/<tgt>/<src>-<tgt>/`` with ``train.tags.*`` and
    ``IWSLT16.TED.<set>.*.xml`` files. Columns ``text`` and ``translation``;
    ``language_pair`` default ``('de', 'en')``, ``valid_set`` default ``'tst2013'``,
    ``test_set`` default ``'tst2014'``; ``usage`` ``'all'`` interleaves the three."""

    def __init__(self, dataset_dir, usage=None, language_pair=None, valid_set=None,
                 test_set=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, num_parallel_workers=None, cache=None):
        pair = _check_pair("IWSLT2016Dataset", language_pair, _IWSLT2016_PAIRS)
        valid_set = "tst2013" if valid_set is None else valid_set
        test_set = "tst2014" if test_set is None else test_set
        for arg, value in (("valid_set", valid_set), ("test_set", test_set)):
            if value not in _IWSLT2016_SETS:
                raise ValueError(f"For 'IWSLT2016Dataset', '{arg}' must be one of "
                                 f"{list(_IWSLT2016_SETS)}, but got {value!r}.")
        self.valid_set, self.test_set = valid_set, test_set
        folder = f"texts/{pair[0]}/{pair[1]}/{pair[0]}-{pair[1]}"
        self._setup(dataset_dir, folder, "IWSLT16", pair, (valid_set, test_set), usage,
                    shuffle, num_samples, num_parallel_workers, num_shards, shard_id)


class IWSLT2017Dataset(_IWSLT):
    """IWSLT 2017 multilingual TED talks: ``texts/DeEnItNlRo/DeEnItNlRo/
    DeEnItNlRo-DeEnItNlRo/`` with ``train.tags.*`` and ``IWSLT17.TED.<dev2010|tst2010>.*.xml``
    files (valid: dev2010, test: tst2010). Columns ``text`` and ``translation``; any two
    different languages of en, nl, de, it, ro (default ``('de', 'en')``)."""

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None,
                 num_parallel_workers=None, cache=None):
        pairs = tuple((a, b) for a in _IWSLT2017_LANGS for b in _IWSLT2017_LANGS if a != b)
        pair = _check_pair("IWSLT2017Dataset", language_pair, pairs)
        folder = "texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo"
        self._setup(dataset_dir, folder, "IWSLT17", pair, ("dev2010", "tst2010"), usage,
                    shuffle, num_samples, num_parallel_workers, num_shards, shard_id)


# ---------------------------------------------------------------------- json corpora
class SQuADDataset(_Corpus):
    """SQuAD 1.1 / 2.0: ``train-v*.json`` / ``dev-v*.json``; one row per question: columns
    ``context``, ``question`` (str), ``text`` (str, 1-D: the answers) and ``answer_start``
    (uint32, 1-D)."""

    columns = ("context", "question", "text", "answer_start")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        folder = _check_dir(dataset_dir)
        names = sorted(os.listdir(folder))
        self.files = {u: [n for n in names if n.startswith(f"{u}-v") and n.endswith(".json")]
                      for u in ("dev", "train")}
        chosen = [f for u, f in self.files.items() if usage in (None, "all", u)]
        if not any(chosen):
            raise ValueError(f"For 'SQuADDataset', there is no {usage or 'all'} file "
                             f"(train-v1.1.json, dev-v2.0.json, ...) in {folder}.")
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

    def _read(self, path):
        try:
            with open(path, encoding="utf-8") as f:
                articles = json.load(f)["data"]
            rows = []
            for article in articles:
                for paragraph in article["paragraphs"]:
                    for qa in paragraph["qas"]:
                        answers = qa.get("answers", [])
                        rows.append((paragraph["context"], qa["question"],
                                     np.array([a["text"] for a in answers], str),
                                     np.array([a["answer_start"] for a in answers], np.uint32)))
        except (ValueError, KeyError, TypeError) as exc:
            raise pipeline_error(f"Invalid SQuAD file {path}: {type(exc).__name__}: "
                                 f"{exc}.") from None
        return rows


_CLUE_KEYS = {
    "AFQMC": ("label sentence1 sentence2", "id sentence1 sentence2"),
    "CMNLI": ("label sentence1 sentence2", "id sentence1 sentence2"),
    "TNEWS": ("keywords label label_desc sentence", "id keywords sentence"),
    "IFLYTEK": ("label label_des sentence", "id sentence"),
    "WSC": ("idx label span1_index span1_text span2_index span2_text text",
            "idx span1_index span1_text span2_index span2_text text"),
    "CSL": ("abst id keyword label", "abst id keyword"),
}


class CLUEDataset(_FileSource):
    """CLUE classification tasks (``AFQMC``, ``TNEWS``, ``IFLYTEK``, ``CMNLI``, ``WSC``,
    ``CSL``): json lines. The columns are the task's keys for ``usage`` (``train`` /
    ``eval``, or ``test`` without the label), sorted by name, as MindSpore gives them
    (WSC's ``target`` fields flattened); json numbers are uint32, strings str, lists of
    strings 1-D str."""

    def __init__(self, dataset_files, task="AFQMC", usage="train", num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)
        if task not in _CLUE_KEYS:
            raise ValueError(f"For 'CLUEDataset', 'task' must be one of {list(_CLUE_KEYS)}, "
                             f"but got {task!r}.")
        if usage not in ("train", "test", "eval"):
            raise ValueError(f"For 'CLUEDataset', 'usage' must be 'train', 'test' or 'eval', "
                             f"but got {usage!r}.")
        self.task, self.usage = task, usage
        self._keys = _CLUE_KEYS[task][usage == "test"].split()

    def _columns(self):
        return list(self._keys)

    def _read(self, path):
        rows = []
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                except ValueError as exc:
                    raise pipeline_error(f"Invalid json file {path}, line {number}: "
                                         f"{exc}.") from None
                item.update(item.pop("target", None) or {})
                missing = [k for k in self._keys if k not in item]
                if missing:
                    raise pipeline_error(f"Invalid json file {path}, line {number}: failed to "
                                         f"find key: {missing[0]}.")
                rows.append(tuple(_clue_value(item[k]) for k in self._keys))
        return rows


def _clue_value(value):
    if isinstance(value, bool):
        return np.array(str(value).lower())
    if isinstance(value, (int, float)):
        return np.uint32(value)
    if isinstance(value, list):
        return np.array([str(v) for v in value], str)
    return np.array(str(value))


# ------------------------------------------------------------------- tagged corpora
class _TaggedCorpus(_Corpus):
    """One row per sentence (blank-line separated blocks); each column a 1-D str array of
    one field per token line."""

    separator = None

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

    def _read(self, path):
        rows, block = [], []
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        for number, line in enumerate(lines + [""], 1):
            fields = line.rstrip("\r").split(self.separator)
            if line.strip():
                if len(fields) != len(self.columns):
                    raise pipeline_error(f"Invalid file {path}, line {number}: "
                                         f"{len(fields)} fields, expected "
                                         f"{len(self.columns)} {list(self.columns)}.")
                block.append(fields)
            elif block:
                rows.append(tuple(np.array(col, str) for col in zip(*block)))
                block = []
        return rows


class UDPOSDataset(_TaggedCorpus):
    """UDPOS: ``en-ud-tag.v2.{train,dev,test}.txt`` (usage ``valid`` reads dev), tab
    separated; columns ``word``, ``universal``, ``stanford``."""

    separator = "\t"
    columns = ("word", "universal", "stanford")
    files = {"valid": ["en-ud-tag.v2.dev.txt"], "test": ["en-ud-tag.v2.test.txt"],
             "train": ["en-ud-tag.v2.train.txt"]}


class CoNLL2000Dataset(_TaggedCorpus):
    """CoNLL-2000 chunking: ``train.txt`` / ``test.txt``, space separated; columns ``word``,
    ``pos_tag``, ``chunk_tag``."""

    separator = " "
    columns = ("word", "pos_tag", "chunk_tag")
    files = {"test": ["test.txt"], "train": ["train.txt"]}


# ---------------------------------------------------------------------------- IMDB
class _TextFileRows:
    def __init__(self, files, labels):
        self.files, self.labels = files, labels

    def __call__(self, index):
        with open(self.files[index], encoding="utf-8") as f:
            return np.array(f.read()), np.array(self.labels[index], np.int32)


class IMDBDataset(MappableDataset):
    """IMDB reviews: ``<usage>/pos/*.txt`` (label 1) and ``<usage>/neg/*.txt`` (label 0)
    for usage ``train`` / ``test`` (``all``: train first); ``unsup`` is not read. Columns
    ``text`` (str, the file's content) and ``label`` (int32). Shuffled by default."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.usage = "all" if usage is None else usage
        if self.usage not in ("train", "test", "all"):
            raise ValueError(f"For 'IMDBDataset', 'usage' must be 'train', 'test' or 'all', but "
                             f"got {usage!r}.")
        self._files, self._labels = [], []
        for part in ("train", "test") if self.usage == "all" else (self.usage,):
            for folder, label in (("pos", 1), ("neg", 0)):
                path = os.path.join(self.dataset_dir, part, folder)
                if not os.path.isdir(path):
                    raise ValueError(f"For 'IMDBDataset', the folder {path} does not exist.")
                names = sorted(n for n in os.listdir(path) if n.endswith(".txt"))
                self._files += [os.path.join(path, n) for n in names]
                self._labels += [label] * len(names)

    def _columns(self):
        return ["text", "label"]

    def _length(self):
        return len(self._files)

    def _reader(self):
        return _TextFileRows(self._files, self._labels)

    def _class_labels(self):
        return np.asarray(self._labels, np.int64)
