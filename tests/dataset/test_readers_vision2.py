"""LFW, SBU and Flickr readers on small files written here; the expected columns,
dtypes, labels and orders are MindSpore 2.10's on the same files (probed)."""
import io

import numpy as np
import pytest

import spore.dataset as ds

PIL = pytest.importorskip("PIL.Image")


def _jpeg(value):
    buffer = io.BytesIO()
    PIL.fromarray(np.full((2, 3, 3), value, np.uint8)).save(buffer, format="JPEG", quality=95)
    return buffer.getvalue()


def _lfw(root):
    people = {"Aaron_Eckhart": 1, "Abbas_K": 2, "Zed_Z": 3}
    for folder, value in (("lfw", 10), ("lfw_funneled", 200), ("lfw-deepfunneled", 90)):
        for name, count in people.items():
            (root / folder / name).mkdir(parents=True)
            for i in range(1, count + 1):
                (root / folder / name / f"{name}_{i:04d}.jpg").write_bytes(_jpeg(value))
    files = {"lfw-names.txt": "Zed_Z\t3\nAaron_Eckhart\t1\nAbbas_K\t2\n",
             "people.txt": "2\n1\nAbbas_K\t2\n2\nZed_Z\t3\nAaron_Eckhart\t1\n",
             "peopleDevTrain.txt": "1\nZed_Z\t3\n",
             "peopleDevTest.txt": "2\nAbbas_K\t2\nAaron_Eckhart\t1\n",
             "pairs.txt": "2\t1\nZed_Z\t1\t3\nAbbas_K\t1\tZed_Z\t2\nAbbas_K\t1\t2\n"
                          "Aaron_Eckhart\t1\tZed_Z\t3\n"}
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _summary(d):
    return [tuple(int(v[0, 0, 0]) if v.ndim == 3 else int(v) for v in row)
            for row in d.create_tuple_iterator(output_numpy=True)]


def test_lfw_people(tmp_path):
    root = _lfw(tmp_path)
    d = ds.LFWDataset(root, task="people", usage="10fold", shuffle=False, decode=True)
    assert d.get_col_names() == ["image", "label"]
    got = _summary(d)
    assert [label for _, label in got] == [2, 2, 0, 0, 0, 1]         # lfw-names.txt lines
    assert all(abs(pixel - 200) <= 2 for pixel, _ in got)           # funneled by default
    assert [l for _, l in _summary(ds.LFWDataset(root, usage="train", shuffle=False,
                                                 decode=True))] == [0, 0, 0]
    assert [l for _, l in _summary(ds.LFWDataset(root, usage="test", shuffle=False,
                                                 decode=True))] == [2, 2, 1]
    assert [l for _, l in _summary(ds.LFWDataset(root, shuffle=False, decode=True))] == \
        [0, 0, 0, 2, 2, 1]
    for image_set, value in (("original", 10), ("deepfunneled", 90)):
        pixel = _summary(ds.LFWDataset(root, usage="train", image_set=image_set,
                                       shuffle=False, decode=True))[0][0]
        assert abs(pixel - value) <= 2
    row = next(ds.LFWDataset(root, usage="train", shuffle=False).create_dict_iterator(
        output_numpy=True))
    assert row["image"].dtype == np.uint8 and row["image"].ndim == 1     # raw bytes
    assert row["label"].dtype == np.uint32 and row["label"].shape == ()


def test_lfw_pairs(tmp_path):
    root = _lfw(tmp_path)
    d = ds.LFWDataset(root, task="pairs", usage="10fold", shuffle=False, decode=True)
    assert d.get_col_names() == ["image1", "image2", "label"]
    assert [row[2] for row in _summary(d)] == [1, 0, 1, 0]
    with pytest.raises(ValueError, match="task"):
        ds.LFWDataset(root, task="faces")
    with pytest.raises(ValueError, match="usage"):
        ds.LFWDataset(root, usage="valid")


def test_sbu(tmp_path):
    (tmp_path / "sbu_images").mkdir()
    urls = ["http://static.flickr.com/3326/3596303505_3ce4c20529.jpg",
            "http://static.flickr.com/2522/4182181099_c3c23ab1cc.jpg",
            "http://static.flickr.com/1/2_x.jpg"]
    (tmp_path / "SBU_captioned_photo_dataset_urls.txt").write_text("\n".join(urls) + "\n")
    (tmp_path / "SBU_captioned_photo_dataset_captions.txt").write_text(
        "first caption \nsecond caption\nthird\n")
    (tmp_path / "sbu_images/m_3326_3596303505_3ce4c20529.jpg").write_bytes(_jpeg(10))
    (tmp_path / "sbu_images/m_2522_4182181099_c3c23ab1cc.jpg").write_bytes(_jpeg(200))
    d = ds.SBUDataset(tmp_path, shuffle=False)
    assert d.get_col_names() == ["image", "caption"]
    rows = list(d.create_dict_iterator(output_numpy=True))
    assert [str(r["caption"]) for r in rows] == ["first caption", "second caption"]
    assert rows[0]["image"].tobytes() == _jpeg(10) and rows[0]["image"].dtype == np.uint8


def test_flickr(tmp_path):
    (tmp_path / "imgs").mkdir()
    (tmp_path / "imgs/1000_a.jpg").write_bytes(_jpeg(10))
    (tmp_path / "imgs/999_b.jpg").write_bytes(_jpeg(200))
    tokens = "".join(f"1000_a.jpg#{i}\tA dog {i} .\n" for i in range(5)) + \
        "".join(f"999_b.jpg#{i}\tCat {i}\n" for i in range(3))
    (tmp_path / "tok.txt").write_text(tokens)
    d = ds.FlickrDataset(tmp_path / "imgs", str(tmp_path / "tok.txt"), shuffle=False)
    assert d.get_col_names() == ["image", "annotation"]
    rows = list(d.create_dict_iterator(output_numpy=True))
    assert [r["annotation"].tolist() for r in rows] == [
        [f"A dog {i} ." for i in range(5)], [f"Cat {i}" for i in range(3)]]
    assert rows[0]["image"].dtype == np.uint8 and len(rows[0]["image"]) == len(_jpeg(10))
    (tmp_path / "tok.txt").write_text(tokens + "missing.jpg#0\tnone\n")
    with pytest.raises(RuntimeError, match="does not exist"):
        ds.FlickrDataset(tmp_path / "imgs", str(tmp_path / "tok.txt"))


def _put(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_div2k(tmp_path):
    for usage, ids in (("train", ["0002", "0001"]), ("valid", ["0801"])):
        for i in ids:
            _put(tmp_path / f"DIV2K_{usage}_HR/{i}.png", _jpeg(10))
            _put(tmp_path / f"DIV2K_{usage}_LR_bicubic/X2/{i}x2.png", _jpeg(200))
            _put(tmp_path / f"DIV2K_{usage}_LR_unknown/X3/{i}x3.png", _jpeg(200))
            _put(tmp_path / f"DIV2K_{usage}_LR_mild/{i}x4m.png", _jpeg(90))
            _put(tmp_path / f"DIV2K_{usage}_LR_wild/{i}x4w.png", _jpeg(90))
            _put(tmp_path / f"DIV2K_{usage}_LR_x8/{i}x8.png", _jpeg(90))
    d = ds.DIV2KDataset(tmp_path, shuffle=False, decode=True)
    assert d.get_col_names() == ["hr_image", "lr_image"] and d.get_dataset_size() == 2
    assert [(round(hr / 10) * 10, round(lr / 10) * 10) for hr, lr in _summary(d)] == \
        [(10, 200), (10, 200)]
    assert ds.DIV2KDataset(tmp_path, usage="all").get_dataset_size() == 3
    for kwargs, lr in ((dict(usage="valid", downgrade="unknown", scale=3), 200),
                       (dict(downgrade="mild", scale=4), 90), (dict(scale=8), 90),
                       (dict(downgrade="wild", scale=4), 90)):
        got = _summary(ds.DIV2KDataset(tmp_path, shuffle=False, decode=True, **kwargs))
        assert all(abs(row[1] - lr) <= 2 for row in got)
    with pytest.raises(RuntimeError, match="LR_difficult"):
        ds.DIV2KDataset(tmp_path, downgrade="difficult", scale=4)
    row = next(ds.DIV2KDataset(tmp_path, shuffle=False).create_dict_iterator(output_numpy=True))
    assert row["hr_image"].dtype == np.uint8 and row["hr_image"].ndim == 1
    for kwargs, message in ((dict(downgrade="mild", scale=2), "mild downgrade requires scale"),
                            (dict(scale=8, downgrade="unknown"), "only in bicubic"),
                            (dict(scale=5), r"valid set of \[2, 3, 4, 8\]"),
                            (dict(usage="test"), "valid set of")):
        with pytest.raises(ValueError, match=message):
            ds.DIV2KDataset(tmp_path, **kwargs)


def test_wider_face(tmp_path):
    _put(tmp_path / "WIDER_train/images/0--Parade/0_Parade_a.jpg", _jpeg(10))
    _put(tmp_path / "WIDER_train/images/1--Hand/1_Hand_b.jpg", _jpeg(200))
    _put(tmp_path / "WIDER_val/images/0--Parade/0_Parade_v.jpg", _jpeg(90))
    _put(tmp_path / "WIDER_test/images/0--Parade/0_Parade_t.jpg", _jpeg(90))
    split = tmp_path / "wider_face_split"
    _put(split / "wider_face_train_bbx_gt.txt",
         b"0--Parade/0_Parade_a.jpg\n2\n449 330 122 149 0 0 0 0 0 0 \n"
         b"10 20 30 40 2 1 0 1 0 1 \n1--Hand/1_Hand_b.jpg\n0\n0 0 0 0 0 0 0 0 0 0 \n")
    _put(split / "wider_face_val_bbx_gt.txt",
         b"0--Parade/0_Parade_v.jpg\n1\n1 2 3 4 1 1 1 1 1 1 \n")
    _put(split / "wider_face_test_filelist.txt", b"0--Parade/0_Parade_t.jpg\n")
    d = ds.WIDERFaceDataset(tmp_path, usage="train", shuffle=False, decode=True)
    names = ["image", "bbox", "blur", "expression", "illumination", "occlusion", "pose",
             "invalid"]
    assert d.get_col_names() == names
    first, second = d.create_dict_iterator(output_numpy=True)
    assert first["bbox"].dtype == np.int32 and first["bbox"].tolist() == \
        [[449, 330, 122, 149], [10, 20, 30, 40]]
    assert [first[k].tolist() for k in names[2:]] == [[0, 2], [0, 1], [0, 0], [0, 1], [0, 0],
                                                      [0, 1]]
    assert all(first[k].dtype == np.int32 and first[k].shape == (2,) for k in names[2:])
    assert second["bbox"].tolist() == [[0, 0, 0, 0]] and second["pose"].tolist() == [0]
    assert ds.WIDERFaceDataset(tmp_path, usage="valid").get_dataset_size() == 1
    assert ds.WIDERFaceDataset(tmp_path).get_dataset_size() == 3              # 'all'
    test = ds.WIDERFaceDataset(tmp_path, usage="test", shuffle=False, decode=True)
    assert test.get_col_names() == ["image"]
    assert abs(_summary(test)[0][0] - 90) <= 2


def _png(value, grey=False):
    buffer = io.BytesIO()
    shape = (2, 3) if grey else (2, 3, 3)
    PIL.fromarray(np.full(shape, value, np.uint8)).save(buffer, format="PNG")
    return buffer.getvalue()


_KITTI_ORDER = ["Car", "Van", "Truck", "Pedestrian", "Person_sitting", "Cyclist", "Tram", "Misc",
                "DontCare"]


def test_kitti(tmp_path):
    images = tmp_path / "data_object_image_2"
    labels = tmp_path / "data_object_label_2/training/label_2"
    _put(images / "training/image_2/000001.png", _png(10))
    _put(images / "training/image_2/000000.png", _png(200))
    _put(images / "testing/image_2/000000.png", _png(90))
    _put(labels / "000000.txt", "".join(
        f"{c} 0.{k} {k % 4} -1.5{k} 1.0 2.0 3.{k} 4.0 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59\n"
        for k, c in enumerate(_KITTI_ORDER)).encode())
    _put(labels / "000001.txt", b"Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 "
                                b"-0.65 1.71 46.70 -1.59\n")
    d = ds.KITTIDataset(tmp_path, shuffle=False, decode=True)
    assert d.get_col_names() == ["image", "label", "truncated", "occluded", "alpha", "bbox",
                                 "dimensions", "location", "rotation_y"]
    first, second = d.create_dict_iterator(output_numpy=True)
    assert abs(int(first["image"][0, 0, 0]) - 200) <= 2                 # 000000 first
    assert first["label"].dtype == np.uint32 and first["label"].shape == (9, 1)
    assert first["label"].ravel().tolist() == [0, 8, 7, 4, 5, 1, 6, 3, 2]     # probed
    assert first["occluded"].dtype == np.uint32 and \
        first["occluded"].ravel().tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert first["truncated"].dtype == np.float32 and first["truncated"][1, 0] == np.float32(0.1)
    assert first["bbox"].shape == (9, 4) and first["bbox"][2].tolist() == \
        [1.0, 2.0, np.float32(3.2), 4.0]
    assert first["dimensions"].shape == (9, 3) and first["location"].shape == (9, 3)
    np.testing.assert_array_equal(second["bbox"], np.array([[587.01, 173.33, 614.12, 200.12]],
                                                           np.float32))
    np.testing.assert_array_equal(second["rotation_y"], np.array([[-1.59]], np.float32))
    test = ds.KITTIDataset(tmp_path, usage="test", shuffle=False, decode=True)
    assert test.get_col_names() == ["image"] and abs(_summary(test)[0][0] - 90) <= 2


def _cityscapes(root):
    for split in ("train", "val", "test"):
        for stem, value in (("aachen_000001_000019", 10), ("aachen_000000_000019", 20)):
            _put(root / f"leftImg8bit/{split}/aachen/{stem}_leftImg8bit.png", _png(value))
            base = root / f"gtFine/{split}/aachen/{stem}_gtFine_"
            _put(base.parent / (base.name + "color.png"), _png(30))
            _put(base.parent / (base.name + "instanceIds.png"), _png(40, grey=True))
            _put(base.parent / (base.name + "labelIds.png"), _png(50, grey=True))
            _put(base.parent / (base.name + "polygons.json"),
                 b'{"objects": [{"polygon": [[0, 0], [1, 1]], "label": "road"}], '
                 b'"imgWidth": 3, "imgHeight": 2}')
    return root


def test_cityscapes(tmp_path):
    root = _cityscapes(tmp_path)
    for task, value in (("instance", 40), ("semantic", 50), ("color", 30)):
        d = ds.CityscapesDataset(root, task=task, shuffle=False, decode=True)
        assert d.get_col_names() == ["image", "task"]
        rows = list(d.create_tuple_iterator(output_numpy=True))
        assert [int(image[0, 0, 0]) for image, _ in rows] == [20, 10]      # name order
        assert all(t.shape == (2, 3, 3) and t.dtype == np.uint8 and int(t[0, 0, 0]) == value
                   for _, t in rows)                                        # grey -> RGB
    polygon = next(ds.CityscapesDataset(root, task="polygon", shuffle=False)
                   .create_dict_iterator(output_numpy=True))["task"]
    assert str(polygon) == ('{"imgHeight":2,"imgWidth":3,"objects":[{"label":"road",'
                            '"polygon":[[0,0],[1,1]]}]}')
    assert ds.CityscapesDataset(root, usage="all").get_dataset_size() == 6
    assert ds.CityscapesDataset(root, usage="test").get_dataset_size() == 2
    with pytest.raises(ValueError, match="usage"):
        ds.CityscapesDataset(root, usage="train_extra")
    with pytest.raises(ValueError, match="task"):
        ds.CityscapesDataset(root, task="depth")
