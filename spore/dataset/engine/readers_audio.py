"""Readers of speech datasets of WAV files: ``YesNoDataset``, ``LJSpeechDataset`` and
``SpeechCommandsDataset``. Columns and dtypes are MindSpore 2.10's (probed): the waveform
is float32 ``(channels, samples)``, PCM values divided by the type's largest value
(32767 for 16-bit), the sample rate an int32 scalar."""
from __future__ import annotations

import os
import wave

import numpy as np

from .readers import _check_dir
from .rows import pipeline_error
from .sources import MappableDataset

_PCM = {1: (np.uint8, 127.0), 2: ("<i2", 32767.0), 4: ("<i4", 2147483647.0)}


def read_wav(path):
    """(float32 waveform (channels, samples), int32 sample rate) of a PCM WAV file."""
    try:
        with wave.open(path, "rb") as f:
            width, channels, rate = f.getsampwidth(), f.getnchannels(), f.getframerate()
            frames = f.readframes(f.getnframes())
    except (OSError, EOFError, wave.Error) as exc:
        raise pipeline_error(f"Invalid WAV file {path}: {exc}") from None
    if width not in _PCM:
        raise pipeline_error(f"Invalid WAV file {path}: {8 * width}-bit samples are not "
                             "supported (8, 16 or 32-bit PCM).")
    dtype, peak = _PCM[width]
    samples = np.frombuffer(frames, dtype).astype(np.float64)
    if width == 1:
        samples = samples - 128.0
    waveform = (samples / peak).astype(np.float32).reshape(-1, channels).T.copy()
    return waveform, np.int32(rate)


class _WavRows:
    """Row ``i``: the WAV file's waveform and rate with the record's other values."""

    def __init__(self, records, rate_dtype=np.int32):
        self.records, self.rate_dtype = records, rate_dtype

    def __call__(self, index):
        path, rest = self.records[index]
        waveform, rate = read_wav(path)
        return (waveform, np.array(rate, self.rate_dtype)) + tuple(np.array(v) for v in rest)


class _WavSource(MappableDataset):
    columns = ()
    rate_dtype = np.int32

    def __init__(self, dataset_dir, num_samples, num_parallel_workers, shuffle, sampler,
                 num_shards, shard_id):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self._records = []

    def _columns(self):
        return list(self.columns)

    def _length(self):
        return len(self._records)

    def _reader(self):
        return _WavRows(self._records, self.rate_dtype)


class YesNoDataset(_WavSource):
    """Yes/No: ``*.wav`` files named by their 8 words (``0_1_0_0_1_0_1_1.wav``); columns
    ``waveform``, ``sample_rate`` and ``label`` (int32, the 8 digits of the name)."""

    columns = ("waveform", "sample_rate", "label")

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)
        for name in sorted(os.listdir(self.dataset_dir)):
            stem, ext = os.path.splitext(name)
            if ext != ".wav":
                continue
            try:
                label = np.array([int(v) for v in stem.split("_")], np.int32)
            except ValueError:
                raise RuntimeError(f"Invalid YesNo file name {name}: expected digits joined "
                                   "by '_'.") from None
            self._records.append((os.path.join(self.dataset_dir, name), (label,)))


class LJSpeechDataset(_WavSource):
    """LJSpeech: ``metadata.csv`` (``id|transcription|normalized transcription``) and
    ``wavs/<id>.wav``; columns ``waveform``, ``sample_rate``, ``transcription``,
    ``normalized_transcription``."""

    columns = ("waveform", "sample_rate", "transcription", "normalized_transcription")

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)
        meta = os.path.join(self.dataset_dir, "metadata.csv")
        if not os.path.isfile(meta):
            raise RuntimeError(f"Invalid file, {meta} does not exist.")
        with open(meta, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                fields = line.rstrip("\r\n").split("|")
                if len(fields) != 3:
                    raise RuntimeError(f"Invalid file {meta}, line {number}: expected "
                                       "'id|transcription|normalized transcription'.")
                path = os.path.join(self.dataset_dir, "wavs", fields[0] + ".wav")
                self._records.append((path, (fields[1], fields[2])))


class SpeechCommandsDataset(_WavSource):
    """Speech Commands: ``<label>/<speaker>_nohash_<n>.wav``; ``usage`` ``valid`` /
    ``test`` reads the files ``validation_list.txt`` / ``testing_list.txt`` name, ``train``
    the others, ``all`` every file. Columns ``waveform``, ``sample_rate``, ``label`` (the
    folder), ``speaker_id`` (str) and ``utterance_number`` (int32)."""

    columns = ("waveform", "sample_rate", "label", "speaker_id", "utterance_number")

    def __init__(self, dataset_dir, usage="all", num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)
        usage = "all" if usage is None else usage
        if usage not in ("train", "valid", "test", "all"):
            raise ValueError(f"For 'SpeechCommandsDataset', 'usage' must be 'train', 'valid', "
                             f"'test' or 'all', but got {usage!r}.")
        self.usage = usage
        lists = {k: self._list(f"{k}_list.txt") for k in ("validation", "testing")}
        wanted = {"valid": lists["validation"], "test": lists["testing"]}.get(usage)
        held_out = lists["validation"] | lists["testing"]
        for label in sorted(e.name for e in os.scandir(self.dataset_dir) if e.is_dir()):
            for name in sorted(os.listdir(os.path.join(self.dataset_dir, label))):
                rel = f"{label}/{name}"
                if not name.endswith(".wav") or "_nohash_" not in name:
                    continue
                if (wanted is not None and rel not in wanted) or \
                        (usage == "train" and rel in held_out):
                    continue
                speaker, _, number = os.path.splitext(name)[0].partition("_nohash_")
                self._records.append((os.path.join(self.dataset_dir, label, name),
                                      (label, speaker, np.int32(int(number)))))

    def _list(self, name):
        path = os.path.join(self.dataset_dir, name)
        if not os.path.isfile(path):
            return set()
        with open(path, encoding="utf-8") as f:
            return {line.strip() for line in f if line.strip()}


_ARCTIC_NAMES = ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk",
                 "ksp", "ljm", "lnh", "rms", "rxr", "slp", "slt")


class CMUArcticDataset(_WavSource):
    """CMU Arctic voice ``name``: ``cmu_us_<name>_arctic/etc/txt.done.data`` (lines
    ``( arctic_a0001 "text" )``) and ``wav/arctic_a0001.wav``; columns ``waveform``,
    ``sample_rate`` (uint32, as MindSpore gives it), ``transcript``, ``utterance_id``."""

    columns = ("waveform", "sample_rate", "transcript", "utterance_id")
    rate_dtype = np.uint32

    def __init__(self, dataset_dir, name=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)
        self.name = "aew" if name is None else name
        if self.name not in _ARCTIC_NAMES:
            raise ValueError(f"For 'CMUArcticDataset', 'name' must be one of "
                             f"{list(_ARCTIC_NAMES)}, but got {name!r}.")
        root = os.path.join(self.dataset_dir, f"cmu_us_{self.name}_arctic")
        listing = os.path.join(root, "etc", "txt.done.data")
        if not os.path.isfile(listing):
            raise RuntimeError(f"Invalid file, {listing} does not exist.")
        with open(listing, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                head, _, rest = line.strip("() ").partition(" ")
                if not head.startswith("arctic_") or '"' not in rest:
                    raise RuntimeError(f"Invalid file {listing}, line {number}: expected "
                                       "'( arctic_<id> \"text\" )'.")
                text = rest.strip()[1:rest.strip().rindex('"')]
                self._records.append((os.path.join(root, "wav", head + ".wav"),
                                      (text, head[len("arctic_"):])))
