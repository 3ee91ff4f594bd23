"""MindRecord converters (``mindspore.mindrecord.XToMR``) and ``MindPage`` on small files in
the real formats written here. Schemas, file names, descriptions and index fields are
MindSpore 2.10's (its converter sources); MindPage's answers were probed on the same rows.
Where the reference interpreter is installed, it reads a converted file back."""
import gzip
import json
import os
import struct
import subprocess
import types

import numpy as np
import pytest

import spore as ms
import spore.dataset as ds
from spore.mindrecord import (Cifar10ToMR, Cifar100ToMR, CsvToMR, FileReader, FileWriter,
                              ImageNetToMR, MindPage, MnistToMR, TFRecordToMR, _format)
from tests.dataset.test_tfrecord import _write as write_tfrecord

pytest.importorskip("PIL")
REFERENCE = os.environ.get("SPORE_REFERENCE_PYTHON", "/work/msref/bin/python")


# ------------------------------------------------------------- CIFAR python batches
def _py2_batch(data, labels, label_key=b"labels", extra=()):
    """A batch pickled as the real CIFAR files are (Python 2 cPickle, protocol 2): str as
    SHORT_BINSTRING / BINSTRING, the array through numpy.core.multiarray._reconstruct."""
    def s(b):
        return (b"U" + bytes([len(b)]) + b) if len(b) < 256 else \
            (b"T" + struct.pack("<i", len(b)) + b)

    def ints(values):
        return b"](" + b"".join(b"K" + bytes([v]) for v in values) + b"e"

    rows, cols = data.shape
    array = (b"cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nK\x00\x85U\x01b\x87R"
             b"(K\x01M" + struct.pack("<H", rows) + b"M" + struct.pack("<H", cols) + b"\x86"
             b"cnumpy\ndtype\nU\x02u1K\x00K\x01\x87R(K\x03U\x01|NNNJ\xff\xff\xff\xffJ\xff\xff"
             b"\xff\xffK\x00tb\x89" + s(data.tobytes()) + b"tb")
    body = s(b"batch_label") + s(b"training batch 1 of 5") + s(b"data") + array
    body += s(label_key) + ints(labels)
    for key, values in extra:
        body += s(key) + ints(values)
    return b"\x80\x02}(" + body + b"u."


def _smooth_images(n, seed):
    """Smooth images (JPEG keeps them within a few grey levels)."""
    y, x = np.mgrid[0:32, 0:32]
    out = [np.stack([(x * 4 + seed * 7 + k) % 200, (y * 3 + k * 11) % 200,
                     np.full((32, 32), (seed * 50 + k * 13) % 256)]) for k in range(n)]
    return np.array(out, np.uint8).reshape(n, 3 * 32 * 32)


def _decode(data):
    from spore.dataset.vision.transforms import decode_image
    return np.asarray(decode_image(np.frombuffer(data, np.uint8)))


@pytest.fixture
def cifar10_dir(tmp_path):
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    images = {}
    for name, n, seed in (("data_batch_2", 2, 2), ("data_batch_1", 3, 1), ("test_batch", 2, 9)):
        images[name] = _smooth_images(n, seed)
        (folder / name).write_bytes(_py2_batch(images[name], [seed + k for k in range(n)]))
    return folder, images


def test_pickle_subset_reads_cifar_and_python3_pickles():
    import pickle
    from spore.mindrecord._pickle_subset import loads
    data = _smooth_images(2, 0)
    got = loads(_py2_batch(data, [3, 4]))
    assert got[b"labels"] == [3, 4] and got[b"batch_label"] == b"training batch 1 of 5"
    np.testing.assert_array_equal(got[b"data"], data)
    value = {b"data": np.arange(6, dtype=">f4").reshape(2, 3, order="F"), "x": (1.5, -2, None),
             b"names": [b"a.png", "b"], "big": 2 ** 40}
    for protocol in range(2, 6):
        got = loads(pickle.dumps(value, protocol=protocol))
        np.testing.assert_array_equal(got[b"data"], value[b"data"])
        assert got[b"data"].dtype == np.dtype(">f4")
        assert (got["x"], got[b"names"], got["big"]) == (value["x"], value[b"names"], 2 ** 40)


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo unsafe",))


def test_pickle_subset_refuses_code_and_object_arrays():
    import pickle
    from spore.mindrecord._pickle_subset import loads
    with pytest.raises(ValueError, match="not allowed"):
        loads(pickle.dumps(_Evil(), protocol=2))
    with pytest.raises(ValueError):
        loads(pickle.dumps(np.array([{"a": 1}], dtype=object), protocol=2))
    with pytest.raises(ValueError):
        loads(b"\x80\x02}q\x00")                                     # truncated


def test_cifar10_to_mr(cifar10_dir, tmp_path):
    folder, images = cifar10_dir
    dest = str(tmp_path / "cifar10.mindrecord")
    Cifar10ToMR(str(folder), dest).transform(["label"])
    header = _format.read_header(dest)
    assert header["schema"][0]["desc"] == "img_train"
    assert header["schema"][0]["schema"] == {"id": {"type": "int64"},
                                             "label": {"type": "int64"},
                                             "data": {"type": "bytes"}}
    assert [f["index_field"] for f in header["index_fields"]] == ["label"]
    rows = list(FileReader(dest).get_next())
    assert [r["id"] for r in rows] == [0, 1, 2, 3, 4]
    assert [r["label"] for r in rows] == [1, 2, 3, 2, 3]             # batch 1, then batch 2
    train = np.concatenate([images["data_batch_1"], images["data_batch_2"]])
    for row, flat in zip(rows, train):
        want = flat.reshape(3, 32, 32).transpose(1, 2, 0).astype(int)
        assert np.abs(_decode(row["data"]).astype(int) - want).mean() < 3
    test = list(FileReader(dest + "_test").get_next())
    assert [r["label"] for r in test] == [9, 10]
    assert _format.read_header(dest + "_test")["schema"][0]["desc"] == "img_test"
    labels = [int(r["label"]) for r in
              ds.MindDataset(dest, shuffle=False).create_dict_iterator(output_numpy=True)]
    assert labels == [1, 2, 3, 2, 3]


def test_cifar100_to_mr(tmp_path):
    folder = tmp_path / "cifar-100-python"
    folder.mkdir()
    for name, seed in (("train", 1), ("test", 4)):
        (folder / name).write_bytes(_py2_batch(_smooth_images(3, seed), [seed, 5, 6],
                                               label_key=b"fine_labels",
                                               extra=[(b"coarse_labels", [7, 8, seed])]))
    dest = str(tmp_path / "c100.mindrecord")
    ms.Cifar100ToMR(str(folder), dest).transform()
    rows = list(FileReader(dest).get_next())
    assert [(r["id"], r["fine_label"], r["coarse_label"]) for r in rows] == \
        [(0, 1, 7), (1, 5, 8), (2, 6, 1)]
    assert sorted(FileReader(dest).schema()) == ["coarse_label", "data", "fine_label", "id"]
    assert [r["fine_label"] for r in FileReader(dest + "_test").get_next()] == [4, 5, 6]


def test_cifar_converters_check_their_folder(tmp_path):
    with pytest.raises(ValueError, match="test_batch"):
        (tmp_path / "data_batch_1").write_bytes(b"")
        Cifar10ToMR(str(tmp_path), str(tmp_path / "x"))
    with pytest.raises(ValueError, match="train"):
        Cifar100ToMR(str(tmp_path), str(tmp_path / "x"))
    (tmp_path / "test_batch").write_bytes(b"\x80\x02cos\nsystem\n(U\x02lstR.")
    with pytest.raises(RuntimeError, match="not a valid CIFAR"):
        Cifar10ToMR(str(tmp_path), str(tmp_path / "x")).transform()
    with pytest.raises(ValueError, match="fields"):
        Cifar10ToMR(str(tmp_path), str(tmp_path / "x")).transform("label")


# ------------------------------------------------------------------------------ MNIST
def _idx(path, magic, array):
    header = struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def test_mnist_to_mr_partitions(tmp_path):
    src = tmp_path / "mnist"
    src.mkdir()
    images = np.repeat(np.arange(0, 250, 50, dtype=np.uint8)[:, None, None], 28, 1)
    images = np.repeat(images, 28, 2)                                 # flat grey images
    for prefix, n in (("train", 5), ("t10k", 3)):
        _idx(src / f"{prefix}-images-idx3-ubyte.gz", 2051, images[:n])
        _idx(src / f"{prefix}-labels-idx1-ubyte.gz", 2049, np.arange(n)[::-1] + 1)
    MnistToMR(str(src), str(tmp_path / "mnist"), partition_number=2).transform()
    train = tmp_path / "mnist_train.mindrecord0"
    header = _format.read_header(str(train))
    assert header["schema"][0]["schema"] == {"label": {"type": "int64"},
                                             "data": {"type": "bytes"}}
    assert header["schema"][0]["desc"] == "mnist_schema"
    assert (header["header_size"], header["page_size"]) == (1 << 24, 1 << 26)
    rows = list(FileReader(str(train)).get_next())                     # both shards
    assert [r["label"] for r in rows] == [5, 4, 3, 2, 1]
    assert [len(FileReader([str(tmp_path / f"mnist_train.mindrecord{i}")]).get_next()
                .__next__()) for i in range(2)] == [2, 2]
    for row, image in zip(rows, images):
        got = _decode(row["data"])
        assert got.shape[:2] == (28, 28) and abs(int(got.mean()) - int(image[0, 0])) <= 2
    test = list(FileReader(str(tmp_path / "mnist_test.mindrecord0")).get_next())
    assert [r["label"] for r in test] == [3, 2, 1]
    with pytest.raises(RuntimeError, match="already exists"):
        MnistToMR(str(src), str(tmp_path / "mnist"), partition_number=2)
    with pytest.raises(ValueError, match="missing"):
        MnistToMR(str(tmp_path), str(tmp_path / "other"))


# -------------------------------------------------------------------------------- CSV
def test_csv_to_mr_types_and_columns(tmp_path):
    src = tmp_path / "data.csv"
    src.write_text("id,score,flag,name,part\n1,0.5,True,ann,3\n2,,False,\"b, c\",\n"
                   "3,2,True,dee,4\n", encoding="utf-8")
    dest = str(tmp_path / "csv.mindrecord")
    CsvToMR(str(src), dest).transform()
    header = _format.read_header(dest)
    assert header["schema"][0]["schema"] == {
        "id": {"type": "int64"}, "score": {"type": "float64"}, "flag": {"type": "int32"},
        "name": {"type": "string"}, "part": {"type": "float64"}}
    assert header["schema"][0]["desc"] == "csv_schema"
    assert [f["index_field"] for f in header["index_fields"]] == \
        ["id", "score", "flag", "name", "part"]
    rows = list(FileReader(dest).get_next())
    assert [(r["id"], r["flag"], r["name"]) for r in rows] == \
        [(1, 1, "ann"), (2, 0, "b, c"), (3, 1, "dee")]
    assert rows[0]["score"] == 0.5 and np.isnan(rows[1]["score"]) and rows[2]["part"] == 4.0
    dest2 = str(tmp_path / "some.mindrecord")
    CsvToMR(str(src), dest2, columns_list=["name", "id"]).transform()
    assert sorted(FileReader(dest2).schema()) == ["id", "name"]
    with pytest.raises(RuntimeError, match="columns_list is illegal"):
        CsvToMR(str(src), str(tmp_path / "bad.mindrecord"), columns_list=["nope"]).transform()
    with pytest.raises(ValueError, match="source must be str"):
        CsvToMR(src, str(tmp_path / "y.mindrecord"))


def test_csv_to_mr_refuses_numeric_column_names(tmp_path):
    src = tmp_path / "n.csv"
    src.write_text("1,b\n2,3\n", encoding="utf-8")
    with pytest.raises(ValueError, match="does not allow starting with a number"):
        CsvToMR(str(src), str(tmp_path / "n.mindrecord")).transform()


# --------------------------------------------------------------------------- ImageNet
def test_imagenet_to_mr(tmp_path):
    from spore.dataset.vision.misc import encode_jpeg
    images = tmp_path / "train"
    for folder, names in (("n01", ["b.JPEG", "a.jpg", "skip.png"]), ("n02", ["c.JPEG"])):
        (images / folder).mkdir(parents=True)
        for k, name in enumerate(names):
            (images / folder / name).write_bytes(
                encode_jpeg(np.full((4, 4, 3), 40 * k, np.uint8)).tobytes())
    (tmp_path / "labels.txt").write_text("n01 0\nn02 1\nn99 2\n", encoding="utf-8")
    dest = str(tmp_path / "imagenet.mindrecord")
    ImageNetToMR(str(tmp_path / "labels.txt"), str(images), dest).transform()
    header = _format.read_header(dest)
    assert header["schema"][0]["schema"] == {"label": {"type": "int32"},
                                             "image": {"type": "bytes"},
                                             "file_name": {"type": "string"}}
    assert [f["index_field"] for f in header["index_fields"]] == ["label", "file_name"]
    rows = list(FileReader(dest).get_next())
    assert [(r["label"], os.path.basename(r["file_name"])) for r in rows] == \
        [(0, "a.jpg"), (0, "b.JPEG"), (1, "c.JPEG")]
    assert rows[0]["image"] == (images / "n01" / "a.jpg").read_bytes()


# --------------------------------------------------------------------------- TFRecord
def _feature(shape, dtype):
    return types.SimpleNamespace(shape=shape, dtype=dtype)


def test_tfrecord_to_mr(tmp_path):
    src = write_tfrecord(tmp_path / "a.tfrecord", [
        {"image/raw": [b"\x00\x01"], "label": [3], "name": [b"cat"], "box": [0.5, 1.5]},
        {"image/raw": [b"\x02"], "label": [7], "name": [b"dog"], "box": [2.5, -1.0]}])
    features = {"image/raw": _feature([], "string"), "label": _feature([], np.dtype("int64")),
                "name": {"shape": [], "dtype": "string"}, "box": _feature([2], "float32")}
    dest = str(tmp_path / "tf.mindrecord")
    converter = TFRecordToMR(src, dest, features, bytes_fields=["image/raw"])
    assert converter.mindrecord_schema == {
        "image_raw": {"type": "bytes"}, "label": {"type": "int64"},
        "name": {"type": "string"}, "box": {"type": "float32", "shape": [2]}}
    converter.transform()
    rows = list(FileReader(dest).get_next())
    assert [(r["image_raw"], r["label"], r["name"]) for r in rows] == \
        [(b"\x00\x01", 3, "cat"), (b"\x02", 7, "dog")]
    np.testing.assert_array_equal(rows[1]["box"], np.array([2.5, -1.0], np.float32))
    with pytest.raises(ValueError, match="tf.string"):
        TFRecordToMR(src, str(tmp_path / "b.mindrecord"), features, bytes_fields=["label"])
    with pytest.raises(ValueError, match="not supported"):
        TFRecordToMR(src, str(tmp_path / "b.mindrecord"), {"name": _feature([2], "string")})
    with pytest.raises(ValueError, match="feature_dict parameter error"):
        TFRecordToMR(src, str(tmp_path / "c.mindrecord"), {"box": _feature([3], "float32")}) \
            .transform()


# --------------------------------------------------------------------------- MindPage
def _page_file(tmp_path):
    w = FileWriter(str(tmp_path / "a.mindrecord"), 2)
    w.add_schema({"file_name": {"type": "string"}, "label": {"type": "int32"},
                  "score": {"type": "float64"}, "data": {"type": "bytes"}}, "d")
    w.add_index(["file_name", "label"])
    w.write_raw_data([{"file_name": f"{i % 3}.jpg", "label": [5, 2, 5, 7, 2, 5, 9][i],
                       "score": i * 0.5, "data": bytes([i]) * 3} for i in range(7)])
    w.commit()
    return str(tmp_path / "a.mindrecord0")


def test_mind_page_matches_mindspore(tmp_path):
    page = MindPage(_page_file(tmp_path))
    assert page.candidate_fields == ["file_name", "label"] and page.category_field is None
    page.category_field = "label"
    assert page.read_category_info() == (
        '{"categories":[{"count":2,"id":0,"name":"2"},{"count":3,"id":1,"name":"5"},'
        '{"count":1,"id":2,"name":"7"},{"count":1,"id":3,"name":"9"}],"key":"label_0"}')
    assert page.read_at_page_by_id(0, 0, 2) == [
        {"file_name": "1.jpg", "label": 2, "score": 0.5, "data": b"\x01\x01\x01"},
        {"file_name": "1.jpg", "label": 2, "score": 2, "data": b"\x04\x04\x04"}]
    assert page.read_at_page_by_id(1, 1, 2) == [
        {"file_name": "2.jpg", "label": 5, "score": 2.5, "data": b"\x05\x05\x05"}]
    assert [r["score"] for r in page.read_at_page_by_name("5", 0, 10)] == [0, 1, 2.5]
    with pytest.raises(RuntimeError, match="page no: 1"):
        page.read_at_page_by_id(0, 1, 2)
    with pytest.raises(RuntimeError, match=r"range \[0, 3\]"):
        page.read_at_page_by_id(9, 0, 1)
    with pytest.raises(RuntimeError, match="could not found"):
        page.read_at_page_by_name("nope", 0, 1)
    page.category_field = "file_name"
    assert json.loads(page.read_category_info())["categories"] == [
        {"count": 3, "id": 0, "name": "0.jpg"}, {"count": 2, "id": 1, "name": "1.jpg"},
        {"count": 2, "id": 2, "name": "2.jpg"}]
    with pytest.raises(ValueError, match="not a candidate"):
        page.category_field = "score"
    shard = str(tmp_path / "a.mindrecord1")          # a list: that shard alone
    one = MindPage([shard])
    one.category_field = "label"
    labels = sorted({r["label"] for r in FileReader([shard]).get_next()})
    assert [c["name"] for c in json.loads(one.read_category_info())["categories"]] == \
        [str(v) for v in labels]


# ------------------------------------------------------------------------ interchange
@pytest.mark.skipif(not os.path.exists(REFERENCE), reason="reference MindSpore not installed")
def test_mindspore_reads_a_converted_file(cifar10_dir, tmp_path):
    folder, _ = cifar10_dir
    dest = str(tmp_path / "cifar10.mindrecord")
    Cifar10ToMR(str(folder), dest).transform()
    script = ("import sys, mindspore.dataset as ds, mindspore.dataset.vision as v\n"
              "d = ds.MindDataset(sys.argv[1], shuffle=False).map(v.Decode(), 'data')\n"
              "for r in d.create_dict_iterator(output_numpy=True):\n"
              "    print(int(r['id']), int(r['label']), r['data'].shape, r['data'].mean())\n")
    out = subprocess.run([REFERENCE, "-c", script, dest], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [line.rsplit(" ", 1) for line in out.stdout.splitlines() if line[:1].isdigit()]
    rows = list(FileReader(dest).get_next())
    assert [head for head, _ in lines] == [f"{r['id']} {r['label']} (32, 32, 3)" for r in rows]
    for (_, mean), row in zip(lines, rows):      # OpenCV's and Pillow's JPEG decoders
        assert float(mean) == pytest.approx(_decode(row["data"]).mean(), abs=0.5)
