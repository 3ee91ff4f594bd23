"""TFRecordDataset on TFRecord files of tf.train.Example records written here by a small
encoder (no TensorFlow). Expected rows, orders and dtypes are MindSpore 2.10's, probed on
the same files."""
import gzip
import struct

import numpy as np
import pytest

import spore as ms
import spore.dataset as ds
from spore.dataset.engine.readers_tfrecord import crc32c, masked_crc


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def _ld(number, data):
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _feature(values):
    if isinstance(values[0], bytes):
        return _ld(1, b"".join(_ld(1, v) for v in values))
    if isinstance(values[0], float):
        return _ld(2, _ld(1, b"".join(struct.pack("<f", v) for v in values)))
    return _ld(3, _ld(1, b"".join(_varint(v) for v in values)))


def _example(features):
    return _ld(1, b"".join(_ld(1, _ld(1, k.encode()) + _ld(2, _feature(v)))
                           for k, v in features.items()))


def _record(data):
    n = struct.pack("<Q", len(data))
    return n + struct.pack("<I", masked_crc(n)) + data + struct.pack("<I", masked_crc(data))


def _write(path, rows, compress=False):
    data = b"".join(_record(_example(r)) for r in rows)
    path.write_bytes(gzip.compress(data) if compress else data)
    return str(path)


def _table(k):
    return {"image": [b"abc"], "label": [k], "f": [0.5 * k, 1.5], "ids": [1, 2, 3, -k],
            "s": [b"x", b"yz"]}


@pytest.fixture
def files(tmp_path):
    rows = [_table(k) for k in range(5)]
    return [_write(tmp_path / "a.tfrecord", rows[:3]), _write(tmp_path / "b.tfrecord", rows[3:])]


def _rows(d):
    return list(d.create_tuple_iterator(output_numpy=True))


def test_crc32c_known_value():
    assert crc32c(b"123456789") == 0xE3069283
    data = np.random.default_rng(0).integers(0, 256, 70000, dtype=np.uint8).tobytes()
    c = 0xFFFFFFFF  # the lane-parallel path agrees with a plain byte-by-byte CRC
    for byte in data:
        c ^= byte
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    assert crc32c(data) == c ^ 0xFFFFFFFF


def test_columns_types_and_order(files):
    d = ds.TFRecordDataset(files, shuffle=False)
    assert d.get_col_names() == ["f", "ids", "image", "label", "s"]  # sorted feature names
    assert d.get_dataset_size() == 5
    rows = _rows(d)
    # the two files' readers interleave one row at a time
    assert [int(r[3][0]) for r in rows] == [0, 3, 1, 4, 2]
    f, ids, image, label, s = rows[1]
    assert f.dtype == np.float32 and f.tolist() == [1.5, 1.5]
    assert ids.dtype == np.int64 and ids.tolist() == [1, 2, 3, -3]
    assert image.dtype == np.uint8 and image.tolist() == [97, 98, 99]
    assert label.shape == (1,)
    assert bytes(s) == b"x yz"  # byte strings padded with spaces to the longest, joined


def test_schema_and_columns_list(files, tmp_path):
    d = ds.TFRecordDataset(files, columns_list=["label", "image"], shuffle=False)
    assert d.get_col_names() == ["label", "image"] and _rows(d)[0][0].tolist() == [0]
    schema = ds.Schema()
    schema.add_column("label", de_type=ms.int32)
    schema.add_column("ids", de_type=ms.int64, shape=[2, 2])
    schema.add_column("s", de_type=ms.string)
    label, ids, s = _rows(ds.TFRecordDataset(files, schema=schema, shuffle=False))[1]
    assert label.dtype == np.int32 and ids.tolist() == [[1, 2], [3, -3]]
    assert s.tolist() == ["x", "yz"]
    path = tmp_path / "schema.json"
    path.write_text(schema.to_json())
    d = ds.TFRecordDataset(files, schema=str(path), shuffle=False)
    assert d.get_col_names() == ["label", "ids", "s"] and _rows(d)[0][1].shape == (2, 2)
    bad = ds.Schema()
    bad.add_column("ids", de_type=ms.int64, shape=[3])
    with pytest.raises(RuntimeError, match="schema shape"):
        _rows(ds.TFRecordDataset(files, schema=bad))
    with pytest.raises(RuntimeError, match="nope does not exist"):
        _rows(ds.TFRecordDataset(files, columns_list=["nope"]))


def test_sharding_and_num_samples(files):
    # a shard reads whole files, unless shard_equal_rows
    d = ds.TFRecordDataset(files, num_shards=2, shard_id=1, shuffle=False)
    assert [int(r[3][0]) for r in _rows(d)] == [3, 4] and d.get_dataset_size() == 2
    d = ds.TFRecordDataset(files, num_shards=2, shard_id=1, shuffle=False,
                           shard_equal_rows=True)
    assert [int(r[3][0]) for r in _rows(d)] == [3, 0, 4] and d.get_dataset_size() == 3
    d = ds.TFRecordDataset(files, num_samples=2, shuffle=False)
    assert [int(r[3][0]) for r in _rows(d)] == [0, 3]
    with pytest.raises(ValueError, match="at least one file per shard"):
        ds.TFRecordDataset(files, num_shards=3, shard_id=0)
    shuffled = sorted(int(r[3][0]) for r in _rows(ds.TFRecordDataset(files)))
    assert shuffled == [0, 1, 2, 3, 4]


def test_compression(tmp_path):
    path = _write(tmp_path / "c.tfrecord", [_table(7)], compress=True)
    assert _rows(ds.TFRecordDataset(path, compression_type="GZIP"))[0][3].tolist() == [7]
    with pytest.raises(RuntimeError, match="not GZIP"):
        _rows(ds.TFRecordDataset(_write(tmp_path / "p.tfrecord", [_table(1)]),
                                 compression_type="GZIP", columns_list=["label"]))
    with pytest.raises(ValueError, match="compression_type"):
        ds.TFRecordDataset(path, compression_type="LZ4")


def test_corrupt_and_truncated_files(files, tmp_path):
    data = bytearray(open(files[0], "rb").read())
    data[20] ^= 1
    (tmp_path / "bad.tfrecord").write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="data checksum of record 0"):
        ds.TFRecordDataset(str(tmp_path / "bad.tfrecord"))
    (tmp_path / "cut.tfrecord").write_bytes(open(files[0], "rb").read()[:-3])
    with pytest.raises(RuntimeError, match="record 2 is truncated"):
        ds.TFRecordDataset(str(tmp_path / "cut.tfrecord"))
    data = bytearray(open(files[0], "rb").read())
    data[9] ^= 1
    (tmp_path / "len.tfrecord").write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="length checksum"):
        ds.TFRecordDataset(str(tmp_path / "len.tfrecord"))
