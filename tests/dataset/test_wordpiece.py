"""WordpieceTokenizer and BertTokenizer against outputs probed from MindSpore 2.10."""
import numpy as np
import pytest

import spore.dataset as ds
import spore.dataset.text as text

VOCAB = ["book", "cholera", "era", "favor", "##ite", "my", "is", "love", "dur", "##ing", "the",
         "[UNK]", "un", "##aff", "##able", "[CLS]", ".", "é", "##s"]


def vocab(words=VOCAB):
    return text.Vocab.from_list(list(words))


def test_wordpiece_tokens_unknowns_and_offsets():
    words = np.array(["my", "favorite", "book", "is", "love", "during", "the", "cholera", "era",
                      "unaffable", "xyz", "favorites"])
    assert text.WordpieceTokenizer(vocab(VOCAB[:15]))(words).tolist() == [
        "my", "favor", "##ite", "book", "is", "love", "dur", "##ing", "the", "cholera", "era",
        "un", "##aff", "##able", "[UNK]", "[UNK]"]
    tokens, starts, ends = text.WordpieceTokenizer(vocab(), with_offsets=True)(
        np.array(["favorite", "xyz"]))
    assert tokens.tolist() == ["favor", "##ite", "[UNK]"]
    assert starts.tolist() == [0, 5, 0] and ends.tolist() == [5, 8, 3]
    assert starts.dtype == np.uint32
    op = text.WordpieceTokenizer(vocab(), unknown_token="", max_bytes_per_token=5)
    assert op(np.array(["favorite", "xyz", "cholera"])).tolist() == ["favorite", "xyz", "cholera"]
    assert text.WordpieceTokenizer(vocab())(np.array("favorite")).tolist() == ["favor", "##ite"]
    with pytest.raises(TypeError, match="WordpieceTokenizer"):
        text.WordpieceTokenizer(["book"])


def test_bert_tokenizer():
    tokens, starts, ends = text.BertTokenizer(vocab(), with_offsets=True)(
        np.array("my favorite book is love during the cholera era. [CLS] unaffable xyz"))
    assert tokens.tolist() == ["my", "favor", "##ite", "book", "is", "love", "dur", "##ing",
                               "the", "cholera", "era", ".", "[CLS]", "un", "##aff", "##able",
                               "[UNK]"]
    assert starts.tolist() == [0, 3, 8, 12, 17, 20, 25, 28, 32, 36, 44, 47, 49, 55, 57, 60, 65]
    assert ends.tolist() == [2, 8, 11, 16, 19, 24, 28, 31, 35, 43, 47, 48, 54, 57, 60, 64, 68]
    tokens, starts, ends = text.BertTokenizer(vocab(), lower_case=True, with_offsets=True)(
        np.array("My FAVORITE Book é."))
    assert tokens.tolist() == ["my", "favor", "##ite", "book", "[UNK]", "."]
    assert starts.tolist() == [0, 3, 8, 12, 17, 18] and ends.tolist() == [2, 8, 11, 16, 18, 19]
    assert text.BertTokenizer(vocab())(np.array("book  books")).tolist() == ["book", "book", "##s"]


def test_bert_tokenizer_in_a_pipeline():
    data = ds.NumpySlicesDataset({"text": ["my favorite book", "the era"]}, shuffle=False)
    data = data.map(text.BertTokenizer(vocab()), "text")
    rows = [r["text"].tolist() for r in data.create_dict_iterator(output_numpy=True)]
    assert rows == [["my", "favor", "##ite", "book"], ["the", "era"]]
