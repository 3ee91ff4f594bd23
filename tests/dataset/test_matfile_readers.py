"""The MATLAB 5 reader and the datasets built on it (SVHN, Flowers-102), on files written
here by a small .mat writer (plain and zlib-compressed elements). Expected rows are
MindSpore 2.10's on the same data (probed with files scipy wrote)."""
import struct
import zlib

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset.engine.matfile import loadmat

Image = pytest.importorskip("PIL.Image")
_MI = {"u1": (2, 9), "u2": (4, 11), "f8": (9, 6), "i4": (5, 12)}


def _element(kind, payload):
    return struct.pack("<II", kind, len(payload)) + payload + b"\0" * (-len(payload) % 8)


def _matrix(name, array):
    mi, mx = _MI[array.dtype.str[1:]]
    dims = np.array(array.shape if array.ndim > 1 else (1, array.size), "<i4").tobytes()
    body = (_element(6, struct.pack("<II", mx, 0)) + _element(5, dims) +
            _element(1, name.encode()) + _element(mi, array.tobytes(order="F")))
    return _element(14, body)


def _write_mat(path, variables, compress=False):
    header = b"MATLAB 5.0 MAT-file".ljust(116) + b"\0" * 8 + b"\x00\x01" + b"IM"
    parts = []
    for name, array in variables.items():
        element = _matrix(name, np.asarray(array))
        parts.append(struct.pack("<II", 15, len(zlib.compress(element))) +
                     zlib.compress(element) if compress else element)
    path.write_bytes(header + b"".join(parts))


X = np.random.default_rng(0).integers(0, 256, (32, 32, 3, 3), dtype=np.uint8)


def test_loadmat_plain_and_compressed(tmp_path):
    for compress in (False, True):
        path = tmp_path / f"v{compress}.mat"
        _write_mat(path, {"X": X, "y": np.array([[10], [3], [1]], np.float64)}, compress)
        content = loadmat(str(path))
        assert content["X"].dtype == np.uint8 and (content["X"] == X).all()
        assert content["y"].shape == (3, 1) and content["y"].ravel().tolist() == [10, 3, 1]
    (tmp_path / "bad.mat").write_bytes(b"x" * 200)
    with pytest.raises(ValueError, match="MATLAB 5"):
        loadmat(str(tmp_path / "bad.mat"))


def test_svhn(tmp_path):
    _write_mat(tmp_path / "train_32x32.mat", {"X": X, "y": np.array([[10], [3], [1]], np.uint8)},
               compress=True)
    _write_mat(tmp_path / "test_32x32.mat", {"X": X[..., :2], "y": np.array([[2], [5]], "f8")})
    _write_mat(tmp_path / "extra_32x32.mat", {"X": X[..., :1], "y": np.array([[7]], np.uint8)})
    d = ds.SVHNDataset(tmp_path, usage="train", shuffle=False)
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert d.get_col_names() == ["image", "label"] and rows[0][1].dtype == np.uint32
    assert [int(r[1]) for r in rows] == [0, 3, 1]  # 10 stands for the digit 0
    assert rows[1][0].shape == (32, 32, 3) and (rows[1][0] == X[..., 1]).all()
    assert ds.SVHNDataset(tmp_path).get_dataset_size() == 6  # train, test, extra


def test_flowers102(tmp_path):
    (tmp_path / "jpg").mkdir()
    for i in range(6):
        Image.fromarray(np.full((4, 5, 3), i * 40, np.uint8)).save(
            tmp_path / f"jpg/image_{i + 1:05d}.jpg")
    _write_mat(tmp_path / "imagelabels.mat", {"labels": np.array([[1, 2, 1, 3, 102, 5]],
                                                                 np.uint8)})
    _write_mat(tmp_path / "setid.mat", {"trnid": np.array([[1, 4]], np.uint16),
                                        "valid": np.array([[2, 5]], np.uint16),
                                        "tstid": np.array([[3, 6]], np.uint16)}, compress=True)
    d = ds.Flowers102Dataset(tmp_path, shuffle=False)
    assert d.get_col_names() == ["image", "label"]
    labels = [r[1] for r in d.create_tuple_iterator(output_numpy=True)]
    assert labels[0].dtype == np.uint32
    assert [int(v) for v in labels] == [0, 2, 0, 4, 1, 101]  # train, test, valid
    rows = list(ds.Flowers102Dataset(tmp_path, usage="valid", decode=True, shuffle=False)
                .create_tuple_iterator(output_numpy=True))
    assert rows[0][0].shape == (4, 5, 3) and [int(r[1]) for r in rows] == [1, 101]
    with pytest.raises(ValueError, match="usage"):
        ds.Flowers102Dataset(tmp_path, usage="dev")


def test_caltech101(tmp_path):
    for category in ("BACKGROUND_Google", "Faces", "accordion", "airplanes"):
        folder = tmp_path / "101_ObjectCategories" / category
        folder.mkdir(parents=True)
        for k in range(2):
            Image.fromarray(np.full((4, 5, 3), k, np.uint8)).save(folder / f"image_{k + 1:04d}.jpg")
    for folder in ("Faces_2", "accordion", "Airplanes_Side_2"):
        (tmp_path / "Annotations" / folder).mkdir(parents=True)
        for k in range(2):
            _write_mat(tmp_path / "Annotations" / folder / f"annotation_{k + 1:04d}.mat",
                       {"box_coord": np.array([[1, 2, 3, 4]], np.uint16),
                        "obj_contour": np.array([[1.5, 2.5, 3.5], [4.0, 5.0, 6.0 + k]])})
    d = ds.Caltech101Dataset(tmp_path, shuffle=False)
    assert d.get_col_names() == ["image", "category"] and d.get_dataset_size() == 6
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert rows[0][1].dtype == np.int64 and [int(r[1]) for r in rows] == [0, 0, 1, 1, 2, 2]
    rows = list(ds.Caltech101Dataset(tmp_path, target_type="all", shuffle=False)
                .create_tuple_iterator(output_numpy=True))
    assert rows[1][2].dtype == np.float64 and rows[1][2].tolist() == [[1.5, 2.5, 3.5],
                                                                      [4.0, 5.0, 7.0]]
    with pytest.raises(ValueError, match="target_type"):
        ds.Caltech101Dataset(tmp_path, target_type="box")
