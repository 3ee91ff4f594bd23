"""MindRecord interchange: the golden files in tests/data were written by MindSpore 2.10
(``make_golden_mindrecord.py``); Spore reads them, and writes the same rows byte for byte.
Where the reference interpreter is installed, MindSpore also reads files Spore wrote."""
import os
import pathlib
import sqlite3
import subprocess
import sys

import numpy as np
import pytest

import spore.dataset as ds
from spore.mindrecord import FileReader, FileWriter
from tests.data.golden_mindrecord import (HEADER_SIZE, IMAGE_SCHEMA, MIXED_SCHEMA, PAGE_SIZE,
                                          image_rows, mixed_rows)

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
REFERENCE = os.environ.get("SPORE_REFERENCE_PYTHON", "/work/msref/bin/python")


def _writer(path, shards=1):
    w = FileWriter(str(path), shard_num=shards, overwrite=True)
    w.set_header_size(HEADER_SIZE)
    w.set_page_size(PAGE_SIZE)
    return w


def _write_mixed(path):
    w = _writer(path)
    w.add_schema(MIXED_SCHEMA, "mixed")
    w.write_raw_data(mixed_rows())
    w.commit()


def _write_images(path):
    w = _writer(path, shards=2)
    w.add_schema(IMAGE_SCHEMA, "images")
    w.add_index(["file_name", "label"])
    rows = image_rows()
    w.write_raw_data(rows[:4])
    w.write_raw_data(rows[4:])
    w.commit()


def _assert_row(got, want):
    for key, value in want.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(got[key], value)
            assert np.asarray(got[key]).dtype == value.dtype
        else:
            assert got[key] == pytest.approx(value) if isinstance(value, float) \
                else got[key] == value


def test_file_reader_reads_mindspore_files():
    rows = list(FileReader(str(DATA / "golden_mixed.mindrecord")).get_next())
    assert len(rows) == 3
    for got, want in zip(rows, mixed_rows()):
        _assert_row(got, want)
    images = list(FileReader(str(DATA / "golden_images.mindrecord0")).get_next())
    # MindSpore 2.10 splits each write_raw_data call into one block per shard
    assert [r["file_name"] for r in images] == ["img0.jpg", "img1.jpg", "img4.jpg",
                                                 "img2.jpg", "img3.jpg", "img5.jpg"]
    assert images[0]["image"] == b"\x01" * 5


def test_mind_dataset_reads_mindspore_files():
    d = ds.MindDataset(str(DATA / "golden_mixed.mindrecord"), shuffle=False)
    assert d.get_col_names() == sorted(MIXED_SCHEMA) and d.get_dataset_size() == 3
    got = list(d.create_dict_iterator(output_numpy=True))
    want = mixed_rows()
    assert got[1]["mat"].shape == (2, 3) and got[1]["mat"].dtype == np.float32
    assert got[0]["f"].dtype == np.float32 and got[0]["f"] == np.float32(0.1)
    assert got[0]["n"].dtype == np.int64 and int(got[0]["n"]) == 2 ** 40
    assert got[0]["label"].dtype == np.int32 and str(got[2]["s"]) == want[2]["s"]
    np.testing.assert_array_equal(got[1]["a32"], want[1]["a32"])
    images = ds.MindDataset(str(DATA / "golden_images.mindrecord0"), shuffle=False,
                            columns_list=["label", "image"])
    first = next(images.create_tuple_iterator(output_numpy=True))
    # MindSpore 2.10 (probed): a bytes field is a 1-element bytes array
    assert first[1].shape == (1,) and first[1][0] == b"\x01" * 5 and int(first[0]) == 0
    one_shard = ds.MindDataset([str(DATA / "golden_images.mindrecord1")], shuffle=False)
    assert [str(r["file_name"]) for r in one_shard.create_dict_iterator(output_numpy=True)] \
        == ["img2.jpg", "img3.jpg", "img5.jpg"]


def test_spore_writes_the_same_bytes_as_mindspore(tmp_path):
    _write_mixed(tmp_path / "golden_mixed.mindrecord")
    _write_images(tmp_path / "golden_images.mindrecord")
    for name in ("golden_mixed.mindrecord", "golden_images.mindrecord0",
                 "golden_images.mindrecord1"):
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name
        for query in ("SELECT * FROM INDEXES ORDER BY ROW_ID", "SELECT * FROM SHARD_NAME",
                      "SELECT sql FROM sqlite_master"):
            ours = sqlite3.connect(tmp_path / f"{name}.db").execute(query).fetchall()
            theirs = sqlite3.connect(DATA / f"{name}.db").execute(query).fetchall()
            assert ours == theirs, (name, query)


def test_rows_spill_over_several_pages_and_shards(tmp_path):
    w = _writer(tmp_path / "big.mindrecord", shards=2)
    w.add_schema({"blob": {"type": "bytes"}, "label": {"type": "int32"}})
    w.write_raw_data([{"blob": bytes([i]) * 9000, "label": i} for i in range(9)])
    w.commit()
    rows = list(FileReader(str(tmp_path / "big.mindrecord0")).get_next())
    assert [r["label"] for r in rows] == list(range(9))
    assert all(r["blob"] == bytes([r["label"]]) * 9000 for r in rows)


@pytest.mark.skipif(not os.path.exists(REFERENCE), reason="reference MindSpore not installed")
def test_mindspore_reads_files_spore_wrote(tmp_path):
    w = _writer(tmp_path / "spore.mindrecord", shards=2)
    w.add_schema({"blob": {"type": "bytes"}, "x": {"type": "float32", "shape": [2, 2]},
                  "ids": {"type": "int64", "shape": [-1]}, "label": {"type": "int32"}})
    w.write_raw_data([{"blob": bytes([i + 1]) * 9000, "x": np.full((2, 2), i, np.float32),
                       "ids": np.arange(i + 1) * 70000 - 3, "label": i} for i in range(7)])
    w.commit()
    script = ("import sys, mindspore.dataset as ds\n"
              "d = ds.MindDataset(sys.argv[1], shuffle=False)\n"
              "for r in d.create_dict_iterator(output_numpy=True):\n"
              "    print(int(r['label']), len(r['blob'][0]), float(r['x'].sum()),"
              " r['ids'].tolist())\n")
    out = subprocess.run([REFERENCE, "-c", script, str(tmp_path / "spore.mindrecord0")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [line for line in out.stdout.splitlines() if line and line[0].isdigit()]
    assert lines == [f"{i} 9000 {4.0 * i} {[k * 70000 - 3 for k in range(i + 1)]}"
                     for i in range(7)]


def test_mind_dataset_options(tmp_path):
    _write_images(tmp_path / "images.mindrecord")
    path = str(tmp_path / "images.mindrecord0")
    assert sorted(int(r["label"]) for r in ds.MindDataset(path).create_dict_iterator()) == \
        [0, 0, 1, 1, 2, 2]
    shard = ds.MindDataset(path, shuffle=False, num_shards=2, shard_id=1)
    assert [str(r["file_name"]) for r in shard.create_dict_iterator(output_numpy=True)] == \
        ["img1.jpg", "img2.jpg", "img5.jpg"]
    pk = ds.MindDataset(path, sampler=ds.PKSampler(2))
    assert [int(r["label"]) for r in pk.create_dict_iterator()] == [0, 0, 1, 1, 2, 2]
    padded = ds.MindDataset(path, shuffle=False, padded_sample={
        "image": b"", "label": -1, "file_name": "pad"}, num_padded=2)
    assert [int(r["label"]) for r in padded.create_dict_iterator()][-2:] == [-1, -1]
    with pytest.raises(ValueError, match="not fields"):
        ds.MindDataset(path, columns_list=["nope"])


def test_writer_and_reader_errors(tmp_path):
    path = tmp_path / "e.mindrecord"
    w = FileWriter(str(path))
    with pytest.raises(RuntimeError, match="add_schema first"):
        w.write_raw_data([{"x": 1}])
    with pytest.raises(ValueError, match="field 'x'"):
        w.add_schema({"x": {"type": "int8"}})
    w.add_schema({"x": {"type": "int32"}, "v": {"type": "float32", "shape": [2]}})
    with pytest.raises(ValueError, match="scalar field"):
        w.add_index(["v"])
    with pytest.warns(UserWarning, match="row 0 is skipped: it has no field 'v'"):
        w.write_raw_data([{"x": 1}, {"x": 2, "v": np.zeros(2, np.float32)}])
    with pytest.raises(RuntimeError, match="no valid data"):
        with pytest.warns(UserWarning):
            w.write_raw_data([{"x": "s", "v": np.zeros(2)}])
    w.commit()
    assert [r["x"] for r in FileReader(str(path)).get_next()] == [2]
    with pytest.raises(RuntimeError, match="already exists"):
        FileWriter(str(path))
    bad = tmp_path / "bad.mindrecord"
    bad.write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00junk!")
    with pytest.raises(RuntimeError, match="not a MindRecord header"):
        ds.MindDataset(str(bad))
    os.remove(str(path) + ".db")
    with pytest.raises(RuntimeError, match="index .* is missing"):
        list(FileReader(str(path)).get_next())


def test_mindspore_mindrecord_resolves_through_the_alias():
    import importlib

    from spore import _alias
    import spore.mindrecord
    _alias.install()
    try:
        assert importlib.import_module("mindspore.mindrecord") is spore.mindrecord
        assert importlib.import_module("mindspore.dataset").MindDataset is ds.MindDataset
    finally:
        _alias.uninstall()


def test_open_for_append_keeps_the_old_rows(tmp_path):
    _write_images(tmp_path / "images.mindrecord")
    w = FileWriter.open_for_append(str(tmp_path / "images.mindrecord1"))
    w.write_raw_data([{"image": b"new", "label": 9, "file_name": "new0.jpg"},
                      {"image": b"new", "label": 9, "file_name": "new1.jpg"}])
    w.commit()
    names = [r["file_name"] for r in FileReader(str(tmp_path / "images.mindrecord0")).get_next()]
    assert names == ["img0.jpg", "img1.jpg", "img4.jpg", "new0.jpg",
                     "img2.jpg", "img3.jpg", "img5.jpg", "new1.jpg"]
    header = ds.MindDataset(str(tmp_path / "images.mindrecord0")).get_dataset_size()
    assert header == 8
