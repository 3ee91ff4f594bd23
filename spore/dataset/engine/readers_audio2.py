"""More speech and music readers: ``GTZANDataset`` (genre folders of WAV tracks) and
``LibriTTSDataset`` (speaker/chapter folders with ``.trans.tsv`` transcripts). Columns,
dtypes, orders and GTZAN's train/valid/test split are MindSpore 2.10's (probed)."""
from __future__ import annotations

import os

import numpy as np

from .readers import _check_usage
from .readers_audio import _WavSource

_GTZAN_GENRES = ("blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop",
                 "reggae", "rock")

# The track numbers of each genre in MindSpore's (the "fault-filtered") splits; the 70
# tracks in none of them are read only with usage 'all'.
_GTZAN_SPLITS = {
    "train": {
        "blues": "29-49 73-97",
        "classical": "30-33 43-48 50-67 80-99",
        "country": "19-26 28-29 65-99",
        "disco": "5 15-20 22-37 39-45 47 49 53-54 56-57 59 61 70 73-74 89",
        "hiphop": "2-25 28-29 31-38 41-42 55-61 77-80",
        "jazz": "0-1 11-24 41 47-72",
        "metal": "2-3 5 21 24 35 46-57 59-66 69 71-72 79-80 84 86 89-99",
        "pop": "2-9 11-12 16-20 23-29 31-36 38-42 44 46 49-50 80 97-99",
        "reggae": "0-2 4 6 9 11-12 14-32 42-45 49-51 54-60 63 69",
        "rock": "0-9 16-26 57-70 91-99",
    },
    "valid": {
        "blues": "0-11 50-60",
        "classical": "0-10 68-76",
        "country": "0-7 9-18 27 41-42 45 49",
        "disco": "0 2-4 6-14 46 48 52 67-68 72 75 90 95",
        "hiphop": "81-98",
        "jazz": "2-10 25-32",
        "metal": "0-1 6-11 16-20 36-37 68 76-77 81-82",
        "pop": "10 53 55 58-62 81 83-86",
        "reggae": "61-62 70 72 74 76-78 85 92-99",
        "rock": "38 49-56 71-85",
    },
    "test": {
        "blues": "12-28 61-72 98-99",
        "classical": "11-29 34-41 49 77-79",
        "country": "30-40 43-44 46-48 50-51 53-64",
        "disco": "1 21 58 62-66 69 76-88 91-94 96-97 99",
        "hiphop": "0 26-27 30 40 43-45 51-54 62-75 99",
        "jazz": "73-99",
        "metal": "12-15 22-23 25-33 38-39 67 70 73-75 78 83 85 87-88",
        "pop": "0-1 13-14 43 63-66 69-79 82 88-96",
        "reggae": "34-40 46-48 52-53 64-68 71 79 82-84 87-90",
        "rock": "10-15 27-37 39-48 86-90",
    },
}


def _numbers(spec):
    """[5, 15, 16, 17] from "5 15-17"."""
    out = []
    for part in spec.split():
        first, _, last = part.partition("-")
        out.extend(range(int(first), int(last or first) + 1))
    return out


class GTZANDataset(_WavSource):
    """GTZAN: ``<genre>/<genre>.000NN.wav`` for the ten genres; columns ``waveform``
    (float32 ``(channels, samples)``), ``sample_rate`` (uint32) and ``label`` (the genre).
    ``usage`` ``'train'`` / ``'valid'`` / ``'test'`` reads MindSpore's split (443 / 197 /
    290 tracks, genre by genre), ``'all'`` (default) every ``.wav`` file of the genre
    folders, in name order."""

    columns = ("waveform", "sample_rate", "label")
    rate_dtype = np.uint32

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)
        self.usage = _check_usage("GTZANDataset", usage, ("train", "valid", "test", "all"))
        for genre in _GTZAN_GENRES:
            folder = os.path.join(self.dataset_dir, genre)
            if self.usage == "all":
                names = sorted(n for n in os.listdir(folder) if n.endswith(".wav")) \
                    if os.path.isdir(folder) else []
            else:
                names = [f"{genre}.{k:05d}.wav"
                         for k in _numbers(_GTZAN_SPLITS[self.usage][genre])]
            for name in names:
                path = os.path.join(folder, name)
                if os.path.isfile(path):
                    self._records.append((path, (genre,)))


_LIBRITTS_PARTS = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100",
                   "train-clean-360", "train-other-500")


class LibriTTSDataset(_WavSource):
    """LibriTTS: ``<usage>/<speaker>/<chapter>/<speaker>_<chapter>.trans.tsv`` (lines
    ``utterance id<TAB>original text<TAB>normalized text``) beside ``<utterance id>.wav``.
    Columns ``waveform``, ``sample_rate`` (uint32), ``original_text``, ``normalized_text``,
    ``speaker_id``, ``chapter_id`` (uint32), ``utterance_id``; ``usage`` is one part
    (``'dev-clean'``, ... ``'train-other-500'``) or ``'all'`` (default)."""

    columns = ("waveform", "sample_rate", "original_text", "normalized_text", "speaker_id",
               "chapter_id", "utterance_id")
    rate_dtype = np.uint32

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)
        self.usage = _check_usage("LibriTTSDataset", usage, _LIBRITTS_PARTS + ("all",))
        parts = _LIBRITTS_PARTS if self.usage == "all" else (self.usage,)
        for part in parts:
            root = os.path.join(self.dataset_dir, part)
            for speaker in _subdirs(root):
                for chapter in _subdirs(os.path.join(root, speaker)):
                    self._chapter(os.path.join(root, speaker, chapter), speaker, chapter)

    def _chapter(self, folder, speaker, chapter):
        listing = os.path.join(folder, f"{speaker}_{chapter}.trans.tsv")
        if not os.path.isfile(listing):
            return
        with open(listing, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                fields = line.rstrip("\r\n").split("\t")
                if fields == [""]:
                    continue
                if len(fields) != 3:
                    raise RuntimeError(f"Invalid file {listing}, line {number}: expected "
                                       "'id<TAB>original text<TAB>normalized text'.")
                self._records.append((os.path.join(folder, fields[0] + ".wav"),
                                      (fields[1], fields[2], np.uint32(int(speaker)),
                                       np.uint32(int(chapter)), fields[0])))


def _subdirs(folder):
    if not os.path.isdir(folder):
        return []
    return sorted(e.name for e in os.scandir(folder) if e.is_dir())
