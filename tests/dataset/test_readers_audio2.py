"""GTZAN and LibriTTS readers on tiny WAV files written here; expected rows, dtypes and
GTZAN's split sizes are MindSpore 2.10's on the same files (probed)."""
import numpy as np

import spore.dataset as ds
from tests.dataset.test_readers_audio import _rows, _wav

_GENRES = ["blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop",
           "reggae", "rock"]


def _gtzan(tmp_path):
    for genre in _GENRES:
        for k in range(100):
            _wav(tmp_path / genre / f"{genre}.{k:05d}.wav", [k, -k], 22050)
    return tmp_path


def test_gtzan_splits_and_columns(tmp_path):
    root = _gtzan(tmp_path)
    sizes = {u: ds.GTZANDataset(root, usage=u).get_dataset_size()
             for u in ("train", "valid", "test", "all")}
    assert sizes == {"train": 443, "valid": 197, "test": 290, "all": 1000}
    d = ds.GTZANDataset(root, usage="train", shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "label"]
    rows = _rows(d)
    wave, rate, label = rows[0]
    assert wave.dtype == np.float32 and wave.shape == (1, 2)
    assert rate.dtype == np.uint32 and int(rate) == 22050 and str(label) == "blues"
    first = [(str(r[2]), round(float(r[0][0, 0]) * 32767)) for r in rows[:3]]
    assert first == [("blues", 29), ("blues", 30), ("blues", 31)]      # MindSpore's order
    valid = [(str(r[2]), round(float(r[0][0, 0]) * 32767))
             for r in _rows(ds.GTZANDataset(root, usage="valid", shuffle=False))]
    assert valid[:2] == [("blues", 0), ("blues", 1)] and valid[-1] == ("rock", 85)
    test = [round(float(r[0][0, 0]) * 32767)
            for r in _rows(ds.GTZANDataset(root, usage="test", shuffle=False))]
    assert test[:3] == [12, 13, 14]
    # every track is in at most one split
    seen = [(str(r[2]), round(float(r[0][0, 0]) * 32767)) for u in ("train", "valid", "test")
            for r in _rows(ds.GTZANDataset(root, usage=u, shuffle=False))]
    assert len(set(seen)) == 930


def test_gtzan_usage_is_checked(tmp_path):
    import pytest
    with pytest.raises(ValueError, match="usage"):
        ds.GTZANDataset(tmp_path, usage="training")


def _libritts(tmp_path):
    for usage, spk, chap, utts in [("dev-clean", "116", "288045", ["000003_000000",
                                                                   "000001_000002"]),
                                   ("dev-clean", "1255", "74899", ["000001_000000"]),
                                   ("test-other", "7", "9", ["000001_000000"])]:
        folder = tmp_path / usage / spk / chap
        folder.mkdir(parents=True)
        lines = []
        for k, u in enumerate(utts):
            lines.append(f"{spk}_{chap}_{u}\tOrig {u}, text.\tnorm {u} text\n")
            _wav(folder / f"{spk}_{chap}_{u}.wav", [k + 1, 2, 3], 24000)
        (folder / f"{spk}_{chap}.trans.tsv").write_text("".join(lines), encoding="utf-8")
    return tmp_path


def test_libritts(tmp_path):
    root = _libritts(tmp_path)
    d = ds.LibriTTSDataset(root, usage="dev-clean", shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "original_text",
                                 "normalized_text", "speaker_id", "chapter_id", "utterance_id"]
    rows = list(d.create_dict_iterator(output_numpy=True))
    assert [(str(r["utterance_id"]), int(r["speaker_id"]), int(r["chapter_id"]),
             str(r["original_text"]), str(r["normalized_text"])) for r in rows] == [
        ("116_288045_000003_000000", 116, 288045, "Orig 000003_000000, text.",
         "norm 000003_000000 text"),
        ("116_288045_000001_000002", 116, 288045, "Orig 000001_000002, text.",
         "norm 000001_000002 text"),
        ("1255_74899_000001_000000", 1255, 74899, "Orig 000001_000000, text.",
         "norm 000001_000000 text")]
    r = rows[0]
    assert r["waveform"].dtype == np.float32 and r["waveform"].shape == (1, 3)
    assert r["sample_rate"].dtype == np.uint32 and int(r["sample_rate"]) == 24000
    assert r["speaker_id"].dtype == np.uint32 and r["chapter_id"].dtype == np.uint32
    ids = [str(r["utterance_id"])
           for r in ds.LibriTTSDataset(root, shuffle=False).create_dict_iterator(
               output_numpy=True)]
    assert ids == ["116_288045_000003_000000", "116_288045_000001_000002",
                   "1255_74899_000001_000000", "7_9_000001_000000"]
    assert ds.LibriTTSDataset(root, usage="test-other").get_dataset_size() == 1
