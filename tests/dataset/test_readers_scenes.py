"""LSUNDataset, PhotoTourDataset, SBDataset and TedliumDataset on tiny files in the real
layouts, written here. Orders, labels, columns and dtypes are MindSpore 2.10's, probed on the
same layouts."""
import os

import numpy as np
import pytest

import spore.dataset as ds

Image = pytest.importorskip("PIL.Image")


def _rows(d):
    return list(d.create_dict_iterator(output_numpy=True))


# ------------------------------------------------------------------------------ LSUN
@pytest.fixture
def lsun(tmp_path):
    rng = np.random.default_rng(0)
    for folder, n in [("bedroom_train", 3), ("bedroom_val", 2), ("classroom_train", 2),
                      ("classroom_val", 1), ("x_tower_val_y", 1), ("foo_train", 1), ("test", 2)]:
        os.makedirs(tmp_path / folder)
        for i in range(n):
            Image.fromarray(rng.integers(0, 255, (4 + i, 5, 3), dtype=np.uint8)).save(
                tmp_path / folder / f"{i}.jpg")
    (tmp_path / "bedroom_train" / "notes.txt").write_bytes(b"x\n")
    return tmp_path


def test_lsun_labels_follow_the_chosen_folders_in_name_order(lsun):
    rows = _rows(ds.LSUNDataset(str(lsun), shuffle=False))
    # bedroom_train (3 jpg + notes.txt), bedroom_val, classroom_train, classroom_val,
    # x_tower_val_y; foo_train is no LSUN class and test is left out of 'all'
    assert [int(r["label"]) for r in rows] == [0] * 4 + [1] * 2 + [2] * 2 + [3] + [4]
    assert rows[0]["label"].dtype == np.uint32 and rows[0]["label"].shape == ()
    assert rows[3]["image"].tolist() == list(b"x\n")         # every file is a row, bytes
    assert rows[0]["image"].dtype == np.uint8 and rows[0]["image"][:2].tolist() == [255, 216]


def test_lsun_usage_classes_and_decode(lsun):
    valid = _rows(ds.LSUNDataset(str(lsun), usage="valid", decode=True, shuffle=False))
    assert [(int(r["label"]), r["image"].shape) for r in valid] == \
        [(0, (4, 5, 3)), (0, (5, 5, 3)), (1, (4, 5, 3)), (2, (4, 5, 3))]
    train = ds.LSUNDataset(str(lsun), usage="train", classes=["classroom", "bedroom"],
                           shuffle=False)
    assert [int(r["label"]) for r in _rows(train)] == [0] * 4 + [1] * 2
    test = _rows(ds.LSUNDataset(str(lsun), usage="test", shuffle=False))
    assert [int(r["label"]) for r in test] == [0, 0]
    assert ds.LSUNDataset(str(lsun)).get_col_names() == ["image", "label"]


def test_lsun_argument_errors(lsun):
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of "
                                         r"\['train', 'test', 'valid', 'all'\]"):
        ds.LSUNDataset(str(lsun), usage="val")
    with pytest.raises(TypeError, match="Argument classes with value classroom is not of type"):
        ds.LSUNDataset(str(lsun), classes="classroom")
    with pytest.raises(ValueError, match="Input classes is not within the valid set"):
        ds.LSUNDataset(str(lsun), classes=["garden"])
    with pytest.raises(RuntimeError, match="LSUNDataset API can't read the data file"):
        ds.LSUNDataset(str(lsun), classes=["kitchen"])


# ------------------------------------------------------------------------------ PhotoTour
@pytest.fixture
def phototour(tmp_path):
    folder = tmp_path / "liberty"
    os.makedirs(folder)
    big = np.random.default_rng(1).integers(0, 255, (1024, 1024), dtype=np.uint8)
    Image.fromarray(big).save(folder / "patches0000.bmp")
    second = np.full((1024, 1024), 7, np.uint8)
    Image.fromarray(second).save(folder / "patches0001.bmp")
    (folder / "info.txt").write_text("".join(f"{i // 2} 0\n" for i in range(258)))
    (folder / "m50_100000_100000_0.txt").write_text(
        "0 0 0 1 0 0 0\n1 0 0 2 1 0 0\n3 1 0 257 128 0 0\n")
    return tmp_path, big


def _patch(big, k):
    r, c = divmod(k % 256, 16)
    return big[r * 64:(r + 1) * 64, c * 64:(c + 1) * 64, None]


def test_phototour_train_gives_each_patch_in_reading_order(phototour):
    root, big = phototour
    d = ds.PhotoTourDataset(str(root), "liberty", shuffle=False)
    assert d.get_col_names() == ["image"] and d.get_dataset_size() == 258
    rows = _rows(d)
    assert rows[0]["image"].shape == (64, 64, 1) and rows[0]["image"].dtype == np.uint8
    for k in (0, 1, 17, 255):
        np.testing.assert_array_equal(rows[k]["image"], _patch(big, k))
    assert (rows[257]["image"] == 7).all()                # the second bitmap


def test_phototour_test_pairs_and_matches(phototour):
    root, big = phototour
    d = ds.PhotoTourDataset(str(root), "liberty", usage="test", shuffle=False)
    assert d.get_col_names() == ["image1", "image2", "matches"]
    rows = _rows(d)
    assert [int(r["matches"]) for r in rows] == [1, 0, 0]
    assert rows[0]["matches"].dtype == np.uint32
    np.testing.assert_array_equal(rows[1]["image1"], _patch(big, 1))
    np.testing.assert_array_equal(rows[1]["image2"], _patch(big, 2))
    assert (rows[2]["image2"] == 7).all()


def test_phototour_argument_errors(phototour):
    root, _ = phototour
    with pytest.raises(ValueError, match="Input name is not within the valid set"):
        ds.PhotoTourDataset(str(root), "rome")
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of "
                                         r"\['train', 'test'\]"):
        ds.PhotoTourDataset(str(root), "liberty", usage="valid")
    with pytest.raises(RuntimeError, match="yosemite does not exist"):
        ds.PhotoTourDataset(str(root), "yosemite")


# ------------------------------------------------------------------------------ SBD
@pytest.fixture
def sbd(tmp_path):
    sio = pytest.importorskip("scipy.io")
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(2)
    os.makedirs(tmp_path / "img")
    os.makedirs(tmp_path / "cls")
    truth = {}
    for name in ("2008_000002", "2008_000003", "2008_000007"):
        Image.fromarray(rng.integers(0, 255, (6, 7, 3), dtype=np.uint8)).save(
            tmp_path / "img" / f"{name}.jpg")
        seg = rng.integers(0, 21, (6, 7)).astype(np.uint8)
        maps = rng.random((20, 6, 7)) > 0.8
        cells = np.empty((20, 1), dtype=object)
        for c in range(20):
            cells[c, 0] = sparse.csc_matrix(maps[c])
        gt = np.empty((1, 1), dtype=[("Boundaries", "O"), ("Segmentation", "O"),
                                     ("CategoriesPresent", "O")])
        gt[0, 0] = (cells, seg, np.array([[1, 3]], np.uint8))
        sio.savemat(str(tmp_path / "cls" / f"{name}.mat"), {"GTcls": gt})
        truth[name] = (maps.astype(np.uint8), seg)
    (tmp_path / "train.txt").write_text("2008_000002\n2008_000003\n")
    (tmp_path / "val.txt").write_text("2008_000007\n")
    (tmp_path / "train_noval.txt").write_text("2008_000003\n")
    return tmp_path, truth


def test_sbd_boundaries_and_segmentation(sbd):
    root, truth = sbd
    d = ds.SBDataset(str(root), shuffle=False)
    assert d.get_col_names() == ["image", "task"] and d.get_dataset_size() == 3
    rows = _rows(d)
    for row, name in zip(rows, ("2008_000002", "2008_000003", "2008_000007")):
        assert row["task"].dtype == np.uint8 and row["task"].shape == (20, 6, 7)
        np.testing.assert_array_equal(row["task"], truth[name][0])
        assert row["image"].ndim == 1 and row["image"][:2].tolist() == [255, 216]
    seg = _rows(ds.SBDataset(str(root), task="Segmentation", usage="val", decode=True,
                             shuffle=False))
    assert len(seg) == 1 and seg[0]["image"].shape == (6, 7, 3)
    np.testing.assert_array_equal(seg[0]["task"], truth["2008_000007"][1])
    assert ds.SBDataset(str(root), usage="train_noval").get_dataset_size() == 1


def test_sbd_argument_errors(sbd, tmp_path):
    root, _ = sbd
    with pytest.raises(ValueError, match="Input task is not within the valid set"):
        ds.SBDataset(str(root), task="Edges")
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        ds.SBDataset(str(root), usage="test")
    with pytest.raises(TypeError, match="Argument decode with value 1 is not of type"):
        ds.SBDataset(str(root), decode=1)
    os.remove(root / "val.txt")
    with pytest.raises(FileNotFoundError, match="SBDataset: .*val.txt not found"):
        ds.SBDataset(str(root))


# ------------------------------------------------------------------------------ TED-LIUM
def _sph(path, samples, byte_format="01", rate=16000):
    head = (f"NIST_1A\n   1024\nsample_count -i {len(samples)}\nsample_rate -i {rate}\n"
            f"channel_count -i 1\nsample_n_bytes -i 2\nsample_byte_format -s2 {byte_format}\n"
            "sample_coding -s3 pcm\nend_head\n").encode()
    order = "<" if byte_format == "01" else ">"
    path.write_bytes(head.ljust(1024) + np.asarray(samples, order + "i2").tobytes())


@pytest.fixture
def tedlium(tmp_path):
    samples = (np.arange(48000) % 200 - 100) * 50
    for release, parts in (("TEDLIUM_release1", ("train", "dev", "test")),
                           ("TEDLIUM_release-3", ("data",))):
        for part in parts:
            base = tmp_path / release / part
            os.makedirs(base / "sph")
            os.makedirs(base / "stm")
            for talk, fmt in (("TalkB_2010", "10"), ("TalkA_2009", "01")):
                _sph(base / "sph" / f"{talk}.sph", samples, fmt)
                (base / "stm" / f"{talk}.stm").write_text(
                    f"{talk} 1 {talk} 0.0 1.0 <o,f0,male> hello world {part}\n"
                    f"{talk} 1 {talk}_b 1.5 2.25 <o,f0,female> second line\n")
    return tmp_path, samples


def test_tedlium_rows_columns_and_order(tedlium):
    root, samples = tedlium
    d = ds.TedliumDataset(str(root / "TEDLIUM_release1"), "release1", shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "transcript", "talk_id",
                                 "speaker_id", "identifier"]
    rows = _rows(d)
    # MindSpore's order: line number, then talk id, then part (dev, test, train)
    assert [(str(r["talk_id"]), str(r["transcript"])) for r in rows[:6]] == [
        ("TalkA_2009", "hello world dev"), ("TalkA_2009", "hello world test"),
        ("TalkA_2009", "hello world train"), ("TalkB_2010", "hello world dev"),
        ("TalkB_2010", "hello world test"), ("TalkB_2010", "hello world train")]
    first, second = rows[0], rows[6]
    assert first["waveform"].dtype == np.float32 and first["waveform"].shape == (1, 16000)
    assert first["sample_rate"].dtype == np.int32 and int(first["sample_rate"]) == 16000
    np.testing.assert_allclose(first["waveform"][0], samples[:16000] / 32767.0, rtol=1e-6)
    assert second["waveform"].shape == (1, 12000)
    np.testing.assert_allclose(second["waveform"][0], samples[24000:36000] / 32767.0,
                               rtol=1e-6)
    assert (str(second["speaker_id"]), str(second["identifier"])) == \
        ("TalkA_2009_b", "<o,f0,female>")
    big_endian = rows[3]                                  # TalkB's header says 10
    np.testing.assert_allclose(big_endian["waveform"][0], samples[:16000] / 32767.0,
                               rtol=1e-6)


def test_tedlium_usage_and_release3(tedlium):
    root, _ = tedlium
    dev = ds.TedliumDataset(str(root / "TEDLIUM_release1"), "release1", usage="dev")
    assert dev.get_dataset_size() == 4
    r3 = ds.TedliumDataset(str(root / "TEDLIUM_release-3"), "release3", shuffle=False)
    assert [str(r["transcript"]) for r in _rows(r3)] == \
        ["hello world data", "hello world data", "second line", "second line"]


def test_tedlium_argument_errors(tedlium):
    root, _ = tedlium
    r1 = str(root / "TEDLIUM_release1")
    with pytest.raises(ValueError, match="Input release is not within the valid set"):
        ds.TedliumDataset(r1, "release4")
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['all'\]"):
        ds.TedliumDataset(r1, "release3", usage="train")
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        ds.TedliumDataset(r1, "release1", usage="valid")
    with pytest.raises(RuntimeError, match="extension .wav is not supported"):
        ds.TedliumDataset(r1, "release1", extensions=".wav")
    with pytest.raises(RuntimeError, match="failed to open folder"):
        ds.TedliumDataset(r1, "release3")
