"""SentencePieceVocab / SentencePieceTokenizer on a small corpus written here. The pieces and
ids are MindSpore 2.10's on the same corpus and settings (probed); where the reference
interpreter is installed, a model MindSpore saved tokenizes the same in Spore."""
import os
import random
import subprocess

import numpy as np
import pytest

import spore.dataset as ds
import spore.dataset.text as text
from spore.dataset.text import (SentencePieceModel, SentencePieceTokenizer, SentencePieceVocab,
                                SPieceTokenizerOutType)

pytest.importorskip("sentencepiece")
REFERENCE = os.environ.get("SPORE_REFERENCE_PYTHON", "/work/msref/bin/python")
SENTENCE = "Today is Friday. Bananas!"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    rng = random.Random(0)
    words = ("today is friday the weather is nice and we go to the market to buy some apples "
             "bananas and oranges while talking about machine learning models tokenizers and "
             "data pipelines").split()
    path = tmp_path_factory.mktemp("spm") / "corpus.txt"
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(300):
            n = rng.randint(4, 12)
            f.write(" ".join(rng.choice(words) for _ in range(n)).capitalize() + ".\n")
    return str(path)


PROBED = {   # MindSpore 2.10: from_file([corpus], size, 0.9995, model, {})
    SentencePieceModel.BPE: (60, ["▁", "T", "o", "day", "▁is", "▁", "F", "r", "i", "day", ".",
                                  "▁", "B", "an", "an", "a", "s", "!"],
                             [23, 45, 29, 15, 21, 23, 59, 33, 27, 15, 38, 23, 50, 4, 4, 25, 30,
                              0]),
    SentencePieceModel.CHAR: (30, list("▁Today▁is▁Friday.▁Bananas!"),
                              [3, 25, 9, 11, 5, 19, 3, 7, 10, 3, 0, 13, 7, 11, 5, 19, 18, 3, 0,
                               5, 6, 5, 6, 5, 10, 0]),
    SentencePieceModel.WORD: (60, ["▁Today", "▁is", "▁Friday.▁Bananas!"], [40, 6, 0]),
}


@pytest.mark.parametrize("model_type", list(PROBED))
def test_trained_models_match_mindspore(corpus, model_type):
    size, pieces, ids = PROBED[model_type]
    vocab = SentencePieceVocab.from_file([corpus], size, 0.9995, model_type, {})
    got = SentencePieceTokenizer(vocab, SPieceTokenizerOutType.STRING)(SENTENCE)
    assert got.tolist() == pieces
    got_ids = SentencePieceTokenizer(vocab, SPieceTokenizerOutType.INT)(SENTENCE)
    assert got_ids.dtype == np.int32 and got_ids.tolist() == ids


def test_unigram_pieces_params_and_dataset(corpus, tmp_path):
    vocab = SentencePieceVocab.from_file([corpus], 60, 0.9995, SentencePieceModel.UNIGRAM, {})
    pieces = SentencePieceTokenizer(vocab, SPieceTokenizerOutType.STRING)(SENTENCE).tolist()
    assert pieces == ["▁", "T", "o", "d", "a", "y", "▁is", "▁", "F", "r", "i", "d", "a", "y",
                      ".", "▁", "B", "a", "n", "a", "n", "a", "s", "!"]
    vocab = SentencePieceVocab.from_file([corpus], 60, 0.9995, SentencePieceModel.UNIGRAM,
                                         {"max_sentencepiece_length": "3",
                                          "split_by_whitespace": "false"})
    assert SentencePieceTokenizer(vocab, SPieceTokenizerOutType.STRING)(
        "Today is Friday.").tolist() == ["▁", "T", "o", "day", "▁is", "▁", "F", "r", "i", "day",
                                         "."]
    lines = ds.TextFileDataset(corpus, shuffle=False)
    vocab = SentencePieceVocab.from_dataset(lines, ["text"], 50, 1.0, SentencePieceModel.UNIGRAM,
                                            {})
    SentencePieceVocab.save_model(vocab, str(tmp_path), "m.model")
    from_file = SentencePieceTokenizer(str(tmp_path / "m.model"), SPieceTokenizerOutType.STRING)
    assert from_file("Today is Friday.").tolist() == \
        SentencePieceTokenizer(vocab, SPieceTokenizerOutType.STRING)("Today is Friday.").tolist()
    assert "".join(from_file("Today is Friday.").tolist()).replace("▁", " ").strip() == \
        "Today is Friday."


def test_tokenizer_in_a_pipeline_and_errors(corpus):
    vocab = SentencePieceVocab.from_file([corpus], 60, 0.9995, SentencePieceModel.BPE, {})
    data = ds.NumpySlicesDataset({"text": ["Today is", "Bananas"]}, shuffle=False)
    data = data.map(SentencePieceTokenizer(vocab, SPieceTokenizerOutType.INT),
                    input_columns="text", num_parallel_workers=2)
    assert [r[0].tolist() for r in data.create_tuple_iterator(output_numpy=True)] == \
        [[23, 45, 29, 15, 21], [23, 50, 4, 4, 25, 30]]
    with pytest.raises(TypeError, match="out_type"):
        SentencePieceTokenizer(vocab, "STRING")
    with pytest.raises(ValueError, match="does not exist"):
        SentencePieceTokenizer("/no/such.model", SPieceTokenizerOutType.INT)
    with pytest.raises(TypeError, match="model_type"):
        SentencePieceVocab.from_file([corpus], 40, 1.0, "bpe", {})
    with pytest.raises(RuntimeError, match="Vocabulary size is smaller"):
        SentencePieceVocab.from_file([corpus], 20, 1.0, SentencePieceModel.BPE, {})
    with pytest.raises(ValueError, match="0-d"):
        SentencePieceTokenizer(vocab, SPieceTokenizerOutType.INT)(np.array(["a", "b"]))
    assert ds.SentencePieceModel is text.SentencePieceModel
    assert [int(m) for m in SentencePieceModel] == [0, 1, 2, 3]
    assert [int(m) for m in text.SPieceTokenizerLoadType] == [0, 1]


@pytest.mark.skipif(not os.path.exists(REFERENCE), reason="reference MindSpore not installed")
def test_a_model_mindspore_saved_tokenizes_the_same(corpus, tmp_path):
    script = ("import sys, mindspore.dataset.text as t\n"
              "v = t.SentencePieceVocab.from_file([sys.argv[1]], 60, 0.9995, "
              "t.SentencePieceModel.UNIGRAM, {})\n"
              "t.SentencePieceVocab.save_model(v, sys.argv[2], 'ms.model')\n"
              "print(t.SentencePieceTokenizer(v, t.SPieceTokenizerOutType.INT)(sys.argv[3])"
              ".tolist())\n")
    out = subprocess.run([REFERENCE, "-c", script, corpus, str(tmp_path), SENTENCE],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    want = out.stdout.strip().splitlines()[-1]
    got = SentencePieceTokenizer(str(tmp_path / "ms.model"), SPieceTokenizerOutType.INT)(SENTENCE)
    assert str(got.tolist()) == want
