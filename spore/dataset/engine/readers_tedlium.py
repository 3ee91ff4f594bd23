"""TED-LIUM (``TedliumDataset``): NIST SPHERE ``.sph`` talks cut into utterances by their
``.stm`` transcripts. Columns, dtypes and row order are MindSpore 2.10's (probed).

NOTE: [TED-LIUM rows]
Every line of every ``<part>/stm/*.stm`` file is a row: ``talk_id _ speaker_id start end
identifier transcript...`` (split at the first six spaces). The waveform is the talk's
``<part>/sph/<talk_id>.sph`` samples from ``int(start * rate)`` to ``int(end * rate)``,
16-bit PCM divided by 32767, shape ``(1, n)``. Rows are ordered by (line number as a
string, talk id, part), MindSpore's sort. MindSpore 2.10's reader returns zeros for every
sample (it reads into the zero-filled front of its buffer); Spore returns the samples, after
the SPHERE header, in the header's ``sample_byte_format`` (``01`` little-endian, ``10``
big-endian; big-endian, MindSpore's assumption, when absent).
"""
from __future__ import annotations

import os

import numpy as np

from .readers import _check_dir
from .readers_vision3 import _check_in
from .rows import pipeline_error
from .sources import MappableDataset

_PARTS = {"release1": ("train", "test", "dev"), "release2": ("train", "test", "dev")}
_USAGES = {"release1": ("train", "test", "dev", "all"), "release2": ("train", "test", "dev", "all"),
           "release3": ("all",)}


def read_sph_header(data, path):
    """``{field: value}`` of a SPHERE header and its size in bytes."""
    lines = data[:1024].split(b"\n")
    if len(lines) < 2 or not lines[0].startswith(b"NIST_1A") or not lines[1].strip().isdigit():
        raise pipeline_error(f"Invalid data, {path} is not a NIST SPHERE file.")
    size, fields = int(lines[1]), {}
    for line in data[:size].split(b"\n")[2:]:
        parts = line.decode("latin-1").split(None, 2)
        if parts[:1] == ["end_head"]:
            break
        if len(parts) == 3:
            fields[parts[0]] = parts[2].strip()
    return fields, size


def read_sph(path, start, end):
    """(float32 waveform (1, n), int32 rate) of the samples in ``[start, end)`` seconds."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise pipeline_error(f"Invalid file, failed to open file: {path} ({exc})") from None
    fields, size = read_sph_header(data, path)
    if "sample_rate" not in fields:
        raise pipeline_error(f"Invalid data, {path} has no sample_rate in its header.")
    rate = int(fields["sample_rate"])
    order = "<" if fields.get("sample_byte_format") == "01" else ">"
    first, last = int(start * rate), int(end * rate)
    samples = np.frombuffer(data, order + "i2", count=(len(data) - size) // 2, offset=size)
    if first < 0 or last > len(samples):
        raise pipeline_error(f"Invalid data, failed to read data part from sph file: {path} "
                             f"(samples {first} to {last} of {len(samples)}).")
    waveform = (samples[first:max(first, last)].astype(np.float64) / 32767.0).astype(np.float32)
    return waveform[None, :], np.int32(rate)


def _stm_fields(line):
    parts = line.split(" ", 6)
    if len(parts) != 7:
        raise pipeline_error("Invalid data, stm data was broken.")
    return parts


class _TedliumRows:
    def __init__(self, root, records, extension):
        self.root, self.records, self.extension = root, records, extension

    def __call__(self, index):
        _, talk, part, line = self.records[index]
        talk_id, _, speaker_id, start, end, identifier, transcript = _stm_fields(line)
        path = os.path.join(self.root, part, "sph", talk + self.extension)
        waveform, rate = read_sph(path, float(start), float(end))
        return (waveform, np.array(rate, np.int32)) + tuple(
            np.array(v) for v in (transcript, talk_id, speaker_id, identifier))


class TedliumDataset(MappableDataset):
    """TED-LIUM ``release1`` / ``release2`` (``train``, ``test``, ``dev`` folders; ``usage``
    one of them or ``'all'``) or ``release3`` (the ``data`` folder, ``usage='all'``), each
    with ``stm/`` and ``sph/``. Columns ``waveform`` (float32 ``(1, n)``), ``sample_rate``
    (int32), ``transcript``, ``talk_id``, ``speaker_id``, ``identifier`` (strings); see
    NOTE: [TED-LIUM rows]."""

    columns = ("waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier")

    def __init__(self, dataset_dir, release, usage=None, extensions=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_dir = _check_dir(dataset_dir)
        self.release = _check_in("release", release, tuple(_USAGES))
        self.usage = _check_in("usage", "all" if usage is None else usage, _USAGES[release])
        self.extensions = ".sph" if extensions is None else extensions
        if self.extensions != ".sph":
            raise RuntimeError(f"TedliumNode: extension {self.extensions} is not supported.")
        parts = (("data",) if release == "release3" else
                 _PARTS[release] if self.usage == "all" else (self.usage,))
        records = []
        for part in parts:
            records += self._read_stm_folder(part)
        self._records = sorted(records)
        if not self._records:
            raise RuntimeError("Invalid data, no valid data matching the dataset API "
                               "TedliumDataset. Please check file path or dataset API.")

    def _read_stm_folder(self, part):
        folder = os.path.join(self.dataset_dir, part, "stm")
        if not os.path.isdir(folder):
            raise RuntimeError(f"Invalid file, failed to open folder: {folder}")
        records = []
        for name in os.listdir(folder):
            if not name.endswith(".stm"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for number, line in enumerate(f.read().splitlines()):
                    records.append((str(number), line.split(" ", 1)[0], part, line))
        return records

    def _columns(self):
        return list(self.columns)

    def _length(self):
        return len(self._records)

    def _reader(self):
        return _TedliumRows(self.dataset_dir, self._records, self.extensions)
