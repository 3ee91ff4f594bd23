"""Without the optional ``text`` extra, the tokenizers that need it fail with an ImportError
that names the extra (the rest of dataset.text keeps working)."""
import sys

import pytest

import spore.dataset.text as text


def test_sentencepiece_missing_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "sentencepiece", None)
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b c\n")
    with pytest.raises(ImportError, match=r"spore\[text\]"):
        text.SentencePieceVocab.from_file([str(corpus)], 10, 1.0, text.SentencePieceModel.BPE,
                                          {})
    tokenizer = text.SentencePieceTokenizer(text.SentencePieceVocab(b""),
                                            text.SPieceTokenizerOutType.INT)
    with pytest.raises(ImportError, match=r"spore\[text\]"):
        tokenizer("a b")
    assert text.WhitespaceTokenizer()("a b").tolist() == ["a", "b"]


def test_text_utils_module_holds_mindspores_names():
    from spore.dataset.text import utils
    for name in ("Vocab", "SentencePieceVocab", "to_str", "to_bytes", "JiebaMode",
                 "NormalizeForm", "SentencePieceModel", "SPieceTokenizerLoadType",
                 "SPieceTokenizerOutType", "GloVe", "FastText", "CharNGram", "Vectors"):
        assert getattr(utils, name) is getattr(text, name)
