"""Text corpus readers on tiny files in the published layouts. Expected columns, dtypes and
orders are MindSpore 2.10's, probed on the same files (documented differences: a last
sentence without a closing blank line is kept, and sizes count rows)."""
import json

import numpy as np
import pytest

import spore.dataset as ds


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _rows(d):
    return [[a.tolist() for a in row] for row in d.create_tuple_iterator(output_numpy=True)]


@pytest.mark.parametrize("cls, columns, train_first", [
    (ds.AGNewsDataset, ["index", "title", "description"], False),
    (ds.DBpediaDataset, ["class", "title", "content"], False),
    (ds.AmazonReviewDataset, ["label", "title", "content"], False),
    (ds.YahooAnswersDataset, ["class", "title", "content", "answer"], False),
    (ds.YelpReviewDataset, ["label", "text"], True),
    (ds.SogouNewsDataset, ["index", "title", "content"], True)])
def test_csv_corpora(tmp_path, cls, columns, train_first):
    for split, n in (("train", 3), ("test", 2)):
        _write(tmp_path / f"{split}.csv", "".join(
            ",".join([f'"{i + 1}"'] + [f'"{split} f{j} r{i}, with ""q"""'
                                       for j in range(len(columns) - 1)]) + "\n"
            for i in range(n)))
    d = cls(str(tmp_path), shuffle=False)
    assert d.get_col_names() == columns and d.get_dataset_size() == 5
    rows = _rows(d)
    first, second = ("train", "test") if train_first else ("test", "train")
    # the two files' rows interleave, in MindSpore's file order
    assert [r[1].split()[0] for r in rows] == [first, second, first, second, "train"]
    assert rows[0][0] == "1" and rows[0][1] == f'{first} f0 r0, with "q"'
    assert _rows(cls(tmp_path, usage="test", shuffle=False))[1][0] == "2"
    with pytest.raises(ValueError, match="usage"):
        cls(tmp_path, usage="valid")


def test_imdb(tmp_path):
    for split in ("train", "test"):
        for label in ("pos", "neg", "unsup"):
            for i in range(2):
                _write(tmp_path / split / label / f"{i}_{7 + i}.txt", f"{split} {label} {i}<br />")
    d = ds.IMDBDataset(tmp_path, shuffle=False)
    assert d.get_col_names() == ["text", "label"] and d.get_dataset_size() == 8
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert rows[0][1].dtype == np.int32
    assert [(str(t), int(lab)) for t, lab in rows[:3]] == [
        ("train pos 0<br />", 1), ("train pos 1<br />", 1), ("train neg 0<br />", 0)]
    assert str(rows[4][0]) == "test pos 0<br />"
    assert ds.IMDBDataset(tmp_path, usage="test").get_dataset_size() == 4


def test_sst2(tmp_path):
    _write(tmp_path / "train.tsv", "sentence\tlabel\nhello world \t1\nbad movie \t0\n")
    _write(tmp_path / "dev.tsv", "sentence\tlabel\ndev one \t1\n")
    _write(tmp_path / "test.tsv", "index\tsentence\n0\ttest one\n1\ttest two\n")
    d = ds.SST2Dataset(tmp_path, usage="train", shuffle=False)
    assert d.get_col_names() == ["sentence", "label"]
    assert _rows(d) == [["hello world ", "1"], ["bad movie ", "0"]]
    d = ds.SST2Dataset(tmp_path, usage="test", shuffle=False)
    assert d.get_col_names() == ["sentence"] and _rows(d) == [["test one"], ["test two"]]


def test_line_corpora(tmp_path):
    for split in ("train", "valid", "test"):
        _write(tmp_path / "wiki" / f"wiki.{split}.tokens",
               f" \n = {split} title = \n\n {split} line . \n")
        _write(tmp_path / "ptb" / f"ptb.{split}.txt", f" {split} aer \n {split} pierre <unk> \n")
    rows = _rows(ds.WikiTextDataset(tmp_path / "wiki", shuffle=False))
    assert rows[:4] == [[" "], [" "], [" = test title = "], [" = train title = "]]
    assert len(rows) == 9  # empty lines are not rows
    assert _rows(ds.PennTreebankDataset(tmp_path / "ptb", usage="valid", shuffle=False)) == \
        [[" valid aer "], [" valid pierre <unk> "]]
    _write(tmp_path / "enwik" / "enwik9", "<mediawiki>\n  <page>\n\n  text\n")
    assert _rows(ds.EnWik9Dataset(tmp_path / "enwik", shuffle=False)) == \
        [["<mediawiki>"], ["  <page>"], [""], ["  text"]]


def test_multi30k(tmp_path):
    for folder, stem, n in (("training", "train", 2), ("validation", "val", 1),
                            ("mmt16_task1_test", "test", 2)):
        for lang in ("en", "de"):
            _write(tmp_path / folder / f"{stem}.{lang}",
                   "".join(f"{stem} {lang} {i}\n" for i in range(n)))
    d = ds.Multi30kDataset(tmp_path, usage="train", shuffle=False)
    assert d.get_col_names() == ["text", "translation"]
    assert _rows(d) == [["train en 0", "train de 0"], ["train en 1", "train de 1"]]
    rows = _rows(ds.Multi30kDataset(tmp_path, language_pair=["de", "en"], shuffle=False))
    assert [r[0] for r in rows] == ["test de 0", "train de 0", "test de 1", "train de 1",
                                    "val de 0"]
    with pytest.raises(ValueError, match="language_pair"):
        ds.Multi30kDataset(tmp_path, language_pair=["en", "fr"])


def test_squad(tmp_path):
    data = {"data": [{"title": "T", "paragraphs": [{"context": "ctx one", "qas": [
        {"id": "q1", "question": "what?", "answers": [{"text": "one", "answer_start": 4},
                                                      {"text": "ctx", "answer_start": 0}]},
        {"id": "q2", "question": "who?", "answers": [{"text": "ctx", "answer_start": 0}]}]}]}]}
    _write(tmp_path / "train-v1.1.json", json.dumps(data))
    d = ds.SQuADDataset(tmp_path, usage="train", shuffle=False)
    assert d.get_col_names() == ["context", "question", "text", "answer_start"]
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert rows[0][2].tolist() == ["one", "ctx"] and rows[0][3].dtype == np.uint32
    assert rows[0][3].tolist() == [4, 0] and str(rows[1][1]) == "who?"
    with pytest.raises(ValueError, match="no dev file"):
        ds.SQuADDataset(tmp_path, usage="dev")


def test_clue(tmp_path):
    every = {"id": 7, "idx": 3, "label": "1", "label_desc": "d", "label_des": "e",
             "sentence": "s", "sentence1": "a", "sentence2": "b", "keywords": "k",
             "keyword": ["k1", "k2"], "abst": "x", "text": "t",
             "target": {"span1_index": 1, "span2_index": 2, "span1_text": "p",
                        "span2_text": "q"}}
    path = tmp_path / "c.json"
    _write(path, json.dumps(every) + "\n")
    expected = {("AFQMC", "train"): ["label", "sentence1", "sentence2"],
                ("AFQMC", "test"): ["id", "sentence1", "sentence2"],
                ("TNEWS", "eval"): ["keywords", "label", "label_desc", "sentence"],
                ("TNEWS", "test"): ["id", "keywords", "sentence"],
                ("IFLYTEK", "train"): ["label", "label_des", "sentence"],
                ("WSC", "train"): ["idx", "label", "span1_index", "span1_text", "span2_index",
                                   "span2_text", "text"],
                ("CSL", "test"): ["abst", "id", "keyword"]}
    for (task, usage), columns in expected.items():
        assert ds.CLUEDataset(str(path), task=task, usage=usage).get_col_names() == columns
    row = next(ds.CLUEDataset(str(path), task="CSL", usage="train")
               .create_tuple_iterator(output_numpy=True))
    assert row[1].dtype == np.uint32 and int(row[1]) == 7 and row[2].tolist() == ["k1", "k2"]
    _write(path, json.dumps({"sentence1": "a", "label": "1"}) + "\n")
    with pytest.raises(RuntimeError, match="failed to find key: sentence2"):
        _rows(ds.CLUEDataset(str(path)))


def test_tagged_corpora(tmp_path):
    for split in ("train", "dev", "test"):
        _write(tmp_path / f"en-ud-tag.v2.{split}.txt",
               f"Al\tPROPN\tNNP\n-\tPUNCT\tHYPH\n\n{split}\tNOUN\tNN\n\n")
    d = ds.UDPOSDataset(tmp_path, usage="valid", shuffle=False)
    assert d.get_col_names() == ["word", "universal", "stanford"]
    assert _rows(d) == [[["Al", "-"], ["PROPN", "PUNCT"], ["NNP", "HYPH"]],
                        [["dev"], ["NOUN"], ["NN"]]]
    _write(tmp_path / "test.txt", "Confidence NN B-NP\nin IN B-PP\n\nlast NN B-NP\n")
    rows = _rows(ds.CoNLL2000Dataset(tmp_path, usage="test", shuffle=False))
    assert rows[0] == [["Confidence", "in"], ["NN", "IN"], ["B-NP", "B-PP"]]
    assert rows[1] == [["last"], ["NN"], ["B-NP"]]  # kept without a closing blank line


# ---------------------------------------------------------------------------- IWSLT
def _iwslt_xml(segs):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<mteval>\n<srcset setid="x" '
            'srclang="german">\n<doc docid="1" genre="lectures">\n<url>http://x</url>\n'
            '<talkid>1</talkid>\n' +
            "".join(f'<seg id="{i + 1}"> {s} </seg>\n' for i, s in enumerate(segs)) +
            "</doc>\n</srcset>\n</mteval>\n")


def _iwslt_folder(folder, prefix, sets):
    folder.mkdir(parents=True)
    (folder / "train.tags.de-en.de").write_text(
        "<url>http://u</url>\n<keywords>k</keywords>\n  Hallo Welt  \nZweiter Satz\n"
        "<title>T</title>\nDritter\n", encoding="utf-8")
    (folder / "train.tags.de-en.en").write_text(
        "<url>http://u</url>\n<keywords>k</keywords>\n  Hello world  \nSecond sentence\n"
        "<title>T</title>\nThird\n", encoding="utf-8")
    for tag, n in sets:
        for lang in ("de", "en"):
            (folder / f"{prefix}.TED.{tag}.de-en.{lang}.xml").write_text(
                _iwslt_xml([f"{lang} {tag} {i}" for i in range(n)]), encoding="utf-8")


def _pairs(d):
    return [(str(r["text"]), str(r["translation"]))
            for r in d.create_dict_iterator(output_numpy=True)]


def test_iwslt2016(tmp_path):
    _iwslt_folder(tmp_path / "texts/de/en/de-en", "IWSLT16",
                  [("tst2013", 2), ("tst2014", 1), ("dev2010", 1)])
    train = ds.IWSLT2016Dataset(tmp_path, usage="train", shuffle=False)
    assert train.get_col_names() == ["text", "translation"]
    assert _pairs(train) == [("Hallo Welt", "Hello world"), ("Zweiter Satz", "Second sentence"),
                             ("Dritter", "Third")]
    assert _pairs(ds.IWSLT2016Dataset(tmp_path, usage="valid", shuffle=False)) == \
        [("de tst2013 0", "en tst2013 0"), ("de tst2013 1", "en tst2013 1")]
    assert _pairs(ds.IWSLT2016Dataset(tmp_path, usage="test", shuffle=False)) == \
        [("de tst2014 0", "en tst2014 0")]
    assert _pairs(ds.IWSLT2016Dataset(tmp_path, usage="valid", valid_set="dev2010",
                                      shuffle=False)) == [("de dev2010 0", "en dev2010 0")]
    assert _pairs(ds.IWSLT2016Dataset(tmp_path, shuffle=False)) == [     # MindSpore's order
        ("Hallo Welt", "Hello world"), ("de tst2013 0", "en tst2013 0"),
        ("Zweiter Satz", "Second sentence"), ("de tst2013 1", "en tst2013 1"),
        ("Dritter", "Third"), ("de tst2014 0", "en tst2014 0")]
    with pytest.raises(ValueError, match="language_pair"):
        ds.IWSLT2016Dataset(tmp_path, language_pair=("de", "fr"))
    with pytest.raises(ValueError, match="valid_set"):
        ds.IWSLT2016Dataset(tmp_path, valid_set="tst2099")


def test_iwslt2017(tmp_path):
    _iwslt_folder(tmp_path / "texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo", "IWSLT17",
                  [("dev2010", 1), ("tst2010", 1)])
    assert _pairs(ds.IWSLT2017Dataset(tmp_path, shuffle=False)) == [     # MindSpore's order
        ("Hallo Welt", "Hello world"), ("de dev2010 0", "en dev2010 0"),
        ("Zweiter Satz", "Second sentence"), ("Dritter", "Third"),
        ("de tst2010 0", "en tst2010 0")]
    assert ds.IWSLT2017Dataset(tmp_path, usage="train").get_dataset_size() == 3
    with pytest.raises(ValueError, match="language_pair"):
        ds.IWSLT2017Dataset(tmp_path, language_pair=("de", "de"))
