"""VOC, COCO, Manifest and CelebA readers on tiny files written here in the real layouts.
The expected rows are MindSpore 2.10's, probed on the same files."""
import json

import numpy as np
import pytest

import spore.dataset as ds

Image = pytest.importorskip("PIL.Image")


def _jpeg(path, h, w, seed):
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(path)


def _rows(dataset):
    return list(dataset.create_tuple_iterator(output_numpy=True))


@pytest.fixture
def voc(tmp_path):
    for d in ["JPEGImages", "Annotations", "SegmentationClass", "ImageSets/Segmentation",
              "ImageSets/Main"]:
        (tmp_path / d).mkdir(parents=True)
    ids = ["2007_000001", "2007_000002", "2007_000003"]
    for k, i in enumerate(ids):
        _jpeg(tmp_path / f"JPEGImages/{i}.jpg", 6 + k, 8, k)
        Image.fromarray(np.full((6 + k, 8), k, np.uint8)).save(
            tmp_path / f"SegmentationClass/{i}.png")
        objs = "".join(
            f"<object><name>{name}</name><truncated>{trunc}</truncated><difficult>{diff}"
            f"</difficult><bndbox><xmin>{1 + j}</xmin><ymin>{2 + j}</ymin><xmax>{5 + j}.5</xmax>"
            f"<ymax>{6 + j}</ymax></bndbox></object>"
            for j, (name, diff, trunc) in enumerate([("dog", 0, 1), ("cat", 1, 0),
                                                     ("person", 0, 0)][:k + 1]))
        (tmp_path / f"Annotations/{i}.xml").write_text(
            f"<annotation><filename>{i}.jpg</filename>{objs}</annotation>")
    (tmp_path / "ImageSets/Segmentation/train.txt").write_text("\n".join(ids[:2]) + "\n")
    (tmp_path / "ImageSets/Main/train.txt").write_text("\n".join(ids) + "\n")
    (tmp_path / "ImageSets/Main/val.txt").write_text(ids[1] + "\n")
    return tmp_path


def test_voc_segmentation(voc):
    d = ds.VOCDataset(str(voc), task="Segmentation", usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "target"] and d.get_dataset_size() == 2
    image, target = _rows(d)[0]
    assert image.dtype == np.uint8 and image.ndim == 1 and list(image[:2]) == [255, 216]
    assert list(target[:4]) == [137, 80, 78, 71]  # the PNG's signature: raw bytes
    image, target = _rows(ds.VOCDataset(voc, usage="train", shuffle=False, decode=True))[1]
    assert image.shape == (7, 8, 3) and target.shape == (7, 8, 3)
    assert (target == 1).all()
    with pytest.raises(RuntimeError, match="Only 'Detection'"):
        d.get_class_indexing()


def test_voc_detection(voc):
    d = ds.VOCDataset(voc, task="Detection", usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "bbox", "label", "difficult", "truncate"]
    assert d.get_class_indexing() == {"cat": 0, "dog": 1, "person": 2}
    _, bbox, label, difficult, truncate = _rows(d)[2]
    assert bbox.dtype == np.float32 and bbox.shape == (3, 4)
    # xmin, ymin, width, height
    assert bbox.tolist() == [[1, 2, 4.5, 4], [2, 3, 4.5, 4], [3, 4, 4.5, 4]]
    assert label.dtype == np.uint32 and label.tolist() == [[1], [0], [2]]
    assert difficult.tolist() == [[0], [1], [0]] and truncate.tolist() == [[1], [0], [0]]
    val = ds.VOCDataset(voc, task="Detection", usage="val", shuffle=False)
    assert val.get_dataset_size() == 1 and val.get_class_indexing() == {"cat": 0, "dog": 1}


def test_voc_class_indexing_drops_unlisted_objects(voc):
    d = ds.VOCDataset(voc, task="Detection", usage="train", shuffle=False,
                      class_indexing={"dog": 3})
    assert [r[2].tolist() for r in _rows(d)] == [[[3]]] * 3


def test_voc_extra_metadata_is_hidden_unless_renamed(voc):
    d = ds.VOCDataset(voc, task="Detection", usage="val", shuffle=False, extra_metadata=True)
    assert d.get_col_names()[-1] == "_meta-filename"
    assert list(next(d.create_dict_iterator(output_numpy=True))) == \
        ["image", "bbox", "label", "difficult", "truncate"]
    d = d.rename(["_meta-filename"], ["filename"])
    assert str(next(d.create_dict_iterator(output_numpy=True))["filename"]) == "2007_000002"


def test_voc_bad_arguments(voc):
    with pytest.raises(ValueError, match="Invalid task"):
        ds.VOCDataset(voc, task="Foo")
    with pytest.raises(ValueError, match="test.txt does not exist"):
        ds.VOCDataset(voc, task="Detection", usage="test")
    (voc / "Annotations/2007_000001.xml").write_text("<annotation><object>")
    with pytest.raises(RuntimeError, match="2007_000001.xml"):
        ds.VOCDataset(voc, task="Detection")


@pytest.fixture
def coco(tmp_path):
    (tmp_path / "images").mkdir()
    for k in range(3):
        _jpeg(tmp_path / f"images/{k:012d}.jpg", 5, 7, 10 + k)
    images = [{"id": k + 1, "file_name": f"{k:012d}.jpg", "height": 5, "width": 7}
              for k in range(3)]
    cats = [{"id": 18, "name": "dog", "isthing": 1}, {"id": 3, "name": "car", "isthing": 0}]
    anns = [
        {"id": 1, "image_id": 1, "category_id": 18, "bbox": [1, 2, 3, 4], "iscrowd": 0,
         "keypoints": [1, 2, 2, 3, 4, 1], "num_keypoints": 2,
         "segmentation": [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10]]},
        {"id": 2, "image_id": 1, "category_id": 3, "bbox": [0.5, 1, 2, 2], "iscrowd": 1,
         "keypoints": [5, 5, 2, 0, 0, 0], "num_keypoints": 1,
         "segmentation": {"counts": [3, 4, 5], "size": [5, 7]}},
        {"id": 3, "image_id": 3, "category_id": 3, "bbox": [1, 1, 1, 1], "iscrowd": 0,
         "keypoints": [1, 1, 1, 2, 2, 2], "num_keypoints": 2,
         "segmentation": [[0, 0, 1, 1, 2, 2]], "caption": "d"}]
    (tmp_path / "ann.json").write_text(json.dumps(
        {"images": images, "categories": cats, "annotations": anns}))
    panoptic = [{"image_id": 1, "segments_info": [
        {"id": 5, "category_id": 18, "iscrowd": 0, "bbox": [1, 2, 3, 4], "area": 12},
        {"id": 6, "category_id": 3, "iscrowd": 1, "bbox": [0, 0, 1, 1], "area": 1}]}]
    (tmp_path / "pan.json").write_text(json.dumps(
        {"images": images, "categories": cats, "annotations": panoptic}))
    captions = [{"image_id": 1, "caption": "a dog"}, {"image_id": 1, "caption": "two"}]
    (tmp_path / "cap.json").write_text(json.dumps({"images": images, "annotations": captions}))
    return tmp_path


def test_coco_detection(coco):
    d = ds.CocoDataset(coco / "images", coco / "ann.json", shuffle=False)
    assert d.get_col_names() == ["image", "bbox", "category_id", "iscrowd"]
    assert d.get_dataset_size() == 2  # the image without annotations is left out
    assert d.get_class_indexing() == {"dog": [18], "car": [3]}
    (_, bbox, cat, crowd), (_, bbox2, cat2, _) = _rows(d)
    assert bbox.dtype == np.float32 and bbox.tolist() == [[1, 2, 3, 4], [0.5, 1, 2, 2]]
    assert cat.dtype == np.uint32 and cat.tolist() == [[18], [3]]
    assert crowd.tolist() == [[0], [1]] and cat2.tolist() == [[3]]


def test_coco_other_tasks(coco):
    rows = _rows(ds.CocoDataset(coco / "images", coco / "ann.json", task="Stuff", shuffle=False))
    seg, crowd = rows[0][1:]
    # one row per polygon (or per crowd RLE's counts), padded with -1
    assert seg.dtype == np.float32 and seg.tolist() == [
        [1, 2, 3, 4, 5, 6], [7, 8, 9, 10, -1, -1], [3, 4, 5, -1, -1, -1]]
    assert crowd.tolist() == [[0], [1]]
    keypoints, num = _rows(ds.CocoDataset(coco / "images", coco / "ann.json", task="Keypoint",
                                          shuffle=False))[0][1:]
    assert keypoints.shape == (2, 6) and num.dtype == np.uint32 and num.tolist() == [[2], [1]]
    pan = ds.CocoDataset(coco / "images", coco / "pan.json", task="Panoptic", shuffle=False)
    assert pan.get_class_indexing() == {"dog": [18, 1], "car": [3, 0]}
    _, bbox, cat, crowd, area = _rows(pan)[0]
    assert bbox.shape == (2, 4) and area.dtype == np.uint32 and area.tolist() == [[12], [1]]
    cap = _rows(ds.CocoDataset(coco / "images", coco / "cap.json", task="Captioning"))[0][1]
    assert cap.shape == (2, 1) and cap.tolist() == [["a dog"], ["two"]]
    with pytest.raises(ValueError, match="Invalid task type"):
        ds.CocoDataset(coco / "images", coco / "ann.json", task="Foo")


def test_coco_decode_and_metadata(coco):
    d = ds.CocoDataset(coco / "images", coco / "ann.json", shuffle=False, decode=True,
                       extra_metadata=True).rename(["_meta-filename"], ["filename"])
    row = next(d.create_dict_iterator(output_numpy=True))
    assert row["image"].shape == (5, 7, 3) and str(row["filename"]) == "000000000000"


@pytest.fixture
def manifest(tmp_path):
    lines = []
    for k, (usage, labels) in enumerate([("train", ["dog"]), ("train", ["cat"]),
                                         ("eval", ["dog"]), ("train", ["dog", "cat"])]):
        path = tmp_path / f"{k}.jpg"
        _jpeg(path, 4, 4, 20 + k)
        lines.append(json.dumps({"source": str(path), "usage": usage, "annotation": [
            {"type": "modelarts/image_classification", "name": n} for n in labels]}))
    (tmp_path / "m.json").write_text("\n".join(lines) + "\n")
    return tmp_path / "m.json"


def test_manifest(manifest):
    d = ds.ManifestDataset(manifest, shuffle=False)
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 3
    assert d.get_class_indexing() == {"cat": 0, "dog": 1}
    labels = [r[1] for r in _rows(d)]
    assert labels[0].dtype == np.int32 and labels[0].shape == () and int(labels[0]) == 1
    assert labels[2].tolist() == [1, 0]  # several classes: a 1-D label
    d = ds.ManifestDataset(manifest, shuffle=False, class_indexing={"dog": 5, "cat": 7})
    assert [r[1].tolist() for r in _rows(d)] == [5, 7, [5, 7]]
    d = ds.ManifestDataset(manifest, usage="eval", decode=True)
    assert d.get_class_indexing() == {"dog": 0} and _rows(d)[0][0].shape == (4, 4, 3)
    with pytest.raises(RuntimeError, match="no data found"):
        ds.ManifestDataset(manifest, usage="inference")
    with pytest.raises(ValueError, match="usage"):
        ds.ManifestDataset(manifest, usage="foo")


def test_celeba(tmp_path):
    for k in range(3):
        _jpeg(tmp_path / f"{k + 1:06d}.jpg", 5, 4, 30 + k)
    (tmp_path / "list_attr_celeba.txt").write_text(
        "3\n5_o_Clock_Shadow Arched_Eyebrows Smiling\n000001.jpg -1  1 1\n"
        "000002.jpg  1 -1 -1\n000003.jpg 1 1 1\n")
    (tmp_path / "list_eval_partition.txt").write_text("000001.jpg 0\n000002.jpg 1\n000003.jpg 2\n")
    d = ds.CelebADataset(tmp_path, shuffle=False)
    assert d.get_col_names() == ["image", "attr"]
    attrs = [r[1] for r in _rows(d)]
    assert attrs[0].dtype == np.uint32 and [a.tolist() for a in attrs] == \
        [[0, 1, 1], [1, 0, 0], [1, 1, 1]]
    for usage, expected in (("train", [0, 1, 1]), ("valid", [1, 0, 0]), ("test", [1, 1, 1])):
        rows = _rows(ds.CelebADataset(tmp_path, usage=usage, decode=True))
        assert len(rows) == 1 and rows[0][1].tolist() == expected
        assert rows[0][0].shape == (5, 4, 3)
    with pytest.raises(ValueError, match="usage should be"):
        ds.CelebADataset(tmp_path, usage="foo")
    with pytest.raises(RuntimeError, match="no data found"):
        ds.CelebADataset(tmp_path, extensions=[".png"])


def test_caltech256_and_food101(tmp_path):
    for path, seed in (("c256/001.ak47/001_0001.jpg", 1), ("c256/001.ak47/001_0002.jpg", 2),
                       ("c256/002.bat/002_0001.jpg", 3), ("c256/257.clutter/257_0001.jpg", 4)):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        _jpeg(tmp_path / path, 4, 5, seed)
    (tmp_path / "c256/001.ak47/notes.txt").write_text("x")
    d = ds.Caltech256Dataset(tmp_path / "c256", shuffle=False)
    labels = [r[1] for r in _rows(d)]
    assert labels[0].dtype == np.int32 and [int(v) for v in labels] == [0, 0, 1, 2]
    assert _rows(ds.Caltech256Dataset(tmp_path / "c256", decode=True))[0][0].shape == (4, 5, 3)
    for cls in ("apple_pie", "baby_back_ribs"):
        (tmp_path / "food/images" / cls).mkdir(parents=True)
        for i in range(2):
            _jpeg(tmp_path / f"food/images/{cls}/{100 + i}.jpg", 4, 5, i)
    (tmp_path / "food/meta").mkdir()
    (tmp_path / "food/meta/train.txt").write_text("apple_pie/100\nbaby_back_ribs/101\n")
    (tmp_path / "food/meta/test.txt").write_text("apple_pie/101\nbaby_back_ribs/100\n")
    d = ds.Food101Dataset(tmp_path / "food", shuffle=False)
    assert d.get_dataset_size() == 4
    assert [str(r[1]) for r in _rows(d)] == ["apple_pie", "baby_back_ribs"] * 2
    test = _rows(ds.Food101Dataset(tmp_path / "food", usage="test", decode=True, shuffle=False))
    assert test[0][0].shape == (4, 5, 3) and str(test[1][1]) == "baby_back_ribs"


def test_sun397_and_omniglot(tmp_path):
    sun = tmp_path / "sun"
    for rel, seed in (("a/abbey/sun_b.jpg", 1), ("a/abbey/sun_a.jpg", 2),
                      ("a/apartment_building/outdoor/sun_c.jpg", 3),
                      ("b/badlands/sun_d.jpg", 4)):
        (sun / rel).parent.mkdir(parents=True, exist_ok=True)
        _jpeg(sun / rel, 4, 5, seed)
    Image.fromarray(np.zeros((2, 2, 3), np.uint8)).save(sun / "b/badlands/sun_e.png")
    (sun / "ClassName.txt").write_text("/a/abbey\n/a/apartment_building/outdoor\n/b/badlands\n")
    rows = _rows(ds.SUN397Dataset(sun, shuffle=False, decode=True))
    assert [int(r[1]) for r in rows] == [0, 0, 1, 2] and rows[0][1].dtype == np.uint32
    from spore.dataset import vision
    first = vision.read_image(str(sun / "a/abbey/sun_a.jpg"))
    assert (rows[0][0] == first).all()  # files in name order: sun_a before sun_b
    omni = tmp_path / "omni"
    for split in ("images_background", "images_evaluation"):
        for alphabet in ("Alpha", "Beta"):
            for character in ("character01", "character02"):
                (omni / split / alphabet / character).mkdir(parents=True)
                for k in range(2):
                    Image.fromarray(np.full((3, 3), k * 200, np.uint8)).save(
                        omni / split / alphabet / character / f"{k}.png")
    d = ds.OmniglotDataset(omni, shuffle=False)
    labels = [r[1] for r in _rows(d)]
    assert labels[0].dtype == np.int32 and [int(v) for v in labels] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert ds.OmniglotDataset(omni, background=False).get_dataset_size() == 8


def test_rendered_sst2(tmp_path):
    for split, height in (("train", 2), ("valid", 3), ("test", 4)):
        for cls in ("negative", "positive"):
            (tmp_path / split / cls).mkdir(parents=True)
            for k in range(2):
                Image.fromarray(np.zeros((height, 5, 3), np.uint8)).save(
                    tmp_path / split / cls / f"{k}.png")
    d = ds.RenderedSST2Dataset(tmp_path, usage="val", shuffle=False)
    labels = [r[1] for r in _rows(d)]
    assert labels[0].dtype == np.uint32 and [int(v) for v in labels] == [0, 0, 1, 1]
    rows = _rows(ds.RenderedSST2Dataset(tmp_path, shuffle=False, decode=True))
    assert [r[0].shape[0] for r in rows] == [4] * 4 + [2] * 4 + [3] * 4  # test, train, valid


def test_places365(tmp_path):
    (tmp_path / "places365_train_standard.txt").write_text(
        "/a/airfield/00000001.jpg 0\n/b/bakery/shop/00000001.jpg 2\n/a/cabin/00000002.jpg 1\n")
    (tmp_path / "places365_val.txt").write_text("Places365_val_00000001.jpg 1\n"
                                                "Places365_val_00000002.jpg 2\n")
    for folder in ("data_256_standard", "data_large_standard"):
        for rel, seed in (("a/airfield/00000001.jpg", 1), ("b/bakery/shop/00000001.jpg", 2),
                          ("a/cabin/00000002.jpg", 3)):
            (tmp_path / folder / rel).parent.mkdir(parents=True, exist_ok=True)
            _jpeg(tmp_path / folder / rel, 4, 5, seed)
    (tmp_path / "val_large").mkdir()
    for k in (1, 2):
        _jpeg(tmp_path / f"val_large/Places365_val_0000000{k}.jpg", 4, 5, k)
    d = ds.Places365Dataset(tmp_path, shuffle=False)
    labels = [r[1] for r in _rows(d)]
    assert labels[0].dtype == np.uint32 and [int(v) for v in labels] == [0, 2, 1]
    rows = _rows(ds.Places365Dataset(tmp_path, usage="val", small=False, decode=True,
                                     shuffle=False))
    assert [int(r[1]) for r in rows] == [1, 2] and rows[0][0].shape == (4, 5, 3)
    with pytest.raises(ValueError, match="places365_train_challenge"):
        ds.Places365Dataset(tmp_path, usage="train-challenge")
