"""``spore.dataset.text``: vocabularies, tokenizers and token transforms. The expected values
are MindSpore 2.10's, probed with the same inputs."""
import numpy as np
import pytest

import spore as ms
import spore.dataset as ds
from spore.dataset import text, transforms


def _vocab():
    return text.Vocab.from_list(["a", "b", "c"], special_tokens=["<pad>", "<unk>"])


def test_vocab_from_list_places_special_tokens_first_or_last():
    assert _vocab().vocab() == {"<pad>": 0, "<unk>": 1, "a": 2, "b": 3, "c": 4}
    last = text.Vocab.from_list(["a", "b", "c"], ["<pad>", "<unk>"], special_first=False)
    assert last.vocab() == {"a": 0, "b": 1, "c": 2, "<pad>": 3, "<unk>": 4}
    assert last.tokens_to_ids(["a", "zz"]) == [0, -1] and last.tokens_to_ids("c") == 2
    assert last.ids_to_tokens([0, 4]) == ["a", "<unk>"] and last.ids_to_tokens(1) == "b"
    assert last.ids_to_tokens(99) == ""
    with pytest.raises(ValueError, match="duplicate word: a"):
        text.Vocab.from_list(["a", "a"])
    assert text.Vocab.from_dict({"x": 3, "y": 7}).vocab() == {"x": 3, "y": 7}


def test_vocab_from_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("home,1\nbehind,2\nthe,3\n")
    vocab = text.Vocab.from_file(str(path), ",", vocab_size=2, special_tokens=["<pad>"])
    assert vocab.vocab() == {"<pad>": 0, "home": 1, "behind": 2}
    path.write_text("home\nbehind\nthe\nworld\nhome\n")
    with pytest.raises(RuntimeError, match="duplicate word:home"):
        text.Vocab.from_file(path)


def _corpus():
    for line in ["b a c a", "d b a", "c c e"]:
        yield (np.array(line.split()),)


def test_vocab_from_dataset_ranks_by_count_then_token():
    def corpus():
        return ds.GeneratorDataset(_corpus, ["text"], shuffle=False)

    assert text.Vocab.from_dataset(corpus(), columns=["text"]).vocab() == \
        {"a": 0, "c": 1, "b": 2, "d": 3, "e": 4}
    assert text.Vocab.from_dataset(corpus(), top_k=3, special_tokens=["<unk>"]).vocab() == \
        {"<unk>": 0, "a": 1, "c": 2, "b": 3}
    assert text.Vocab.from_dataset(corpus(), freq_range=(2, 3), special_tokens=["<unk>"],
                                   special_first=False).vocab() == \
        {"a": 0, "c": 1, "b": 2, "<unk>": 3}


def test_lookup_maps_tokens_to_ids():
    lookup = text.Lookup(_vocab(), unknown_token="<unk>")
    out = lookup(np.array(["a", "zz", "c"]))
    assert out.dtype == np.int32 and out.tolist() == [2, 1, 4]
    assert lookup("b").tolist() == 3
    wide = text.Lookup(_vocab(), "<unk>", ms.int64)(np.array([["a", "b"], ["c", "q"]]))
    assert wide.dtype == np.int64 and wide.tolist() == [[2, 3], [4, 1]]
    with pytest.raises(RuntimeError, match="'zz' is not in the vocab"):
        text.Lookup(_vocab())(np.array(["zz"]))


def test_tokenizers():
    assert text.WhitespaceTokenizer()("Welcome to  Beijing!\tok\n x").tolist() == \
        ["Welcome", "to", "Beijing!", "ok", "x"]
    tokens, starts, ends = text.WhitespaceTokenizer(True)("ab  cd")
    assert tokens.tolist() == ["ab", "cd"] and starts.dtype == ends.dtype == np.uint32
    assert starts.tolist() == [0, 4] and ends.tolist() == [2, 6]
    assert text.UnicodeCharTokenizer()("ab c").tolist() == ["a", "b", " ", "c"]
    assert text.RegexTokenizer(r"\s+")("a  b c").tolist() == ["a", "b", "c"]
    assert text.RegexTokenizer(r"\s+", r"\s+")("a  b").tolist() == ["a", "  ", "b"]
    assert text.RegexTokenizer(r"[,.]", r"[,.]")("hi,there.x").tolist() == \
        ["hi", ",", "there", ".", "x"]
    tokens, starts, ends = text.RegexTokenizer(r"\s+", with_offsets=True)("a  bc")
    assert (tokens.tolist(), starts.tolist(), ends.tolist()) == (["a", "bc"], [0, 3], [1, 5])


def test_offsets_count_utf8_bytes():
    tokens, starts, ends = text.WhitespaceTokenizer(True)("né x")
    assert tokens.tolist() == ["né", "x"] and starts.tolist() == [0, 4] and ends.tolist() == [3, 5]


def test_basic_tokenizer():
    assert text.BasicTokenizer()("Hello, World! I'm HERE 中国 naïve").tolist() == \
        ["Hello", ",", "World", "!", "I", "'", "m", "HERE", "中", "国", "naïve"]
    assert text.BasicTokenizer(lower_case=True)("Hello, World! I'm HERE naïve Ça").tolist() == \
        ["hello", ",", "world", "!", "i", "'", "m", "here", "naive", "ca"]
    assert text.BasicTokenizer(keep_whitespace=True)("a b").tolist() == ["a", " ", "b"]
    assert text.BasicTokenizer()("[CLS] hi [SEP] [UNK] [MASK] [PAD] [unused1]").tolist() == \
        ["[CLS]", "hi", "[SEP]", "[UNK]", "[MASK]", "[PAD]", "[unused1]"]
    tokens, starts, ends = text.BasicTokenizer(with_offsets=True)("ab, cd")
    assert (tokens.tolist(), starts.tolist(), ends.tolist()) == \
        (["ab", ",", "cd"], [0, 2, 4], [2, 3, 6])


def test_to_number():
    assert text.ToNumber(ms.int32)(np.array(["1", "-2", "3"])).tolist() == [1, -2, 3]
    out = text.ToNumber(ms.float32)(np.array(["1.5", "2e3"]))
    assert out.dtype == np.float32 and out.tolist() == [1.5, 2000.0]
    with pytest.raises(RuntimeError, match="out of the range of int8"):
        text.ToNumber(ms.int8)(np.array(["300"]))
    with pytest.raises(RuntimeError, match="'x' is not a valid"):
        text.ToNumber(ms.int32)(np.array(["x"]))


def test_truncate_sliding_window_pad_end_and_pairs():
    assert text.Truncate(2)(np.array(["a", "b", "c"])).tolist() == ["a", "b"]
    assert text.Truncate(5)(np.array([1, 2])).tolist() == [1, 2]
    assert text.Truncate(2)(np.array([[1, 2, 3], [4, 5, 6]])).tolist() == [[1, 2], [4, 5]]
    assert text.SlidingWindow(2, 0)(np.array(["a", "b", "c", "d"])).tolist() == \
        [["a", "b"], ["b", "c"], ["c", "d"]]
    assert text.SlidingWindow(3)(np.array([1, 2])).shape == (0,)
    with pytest.raises(ValueError, match="1-D"):
        text.SlidingWindow(2, 1)(np.array([[1, 2, 3], [4, 5, 6]]))
    assert transforms.PadEnd([5], "<pad>")(np.array(["a", "b"])).tolist() == \
        ["a", "b", "<pad>", "<pad>", "<pad>"]
    pair = text.TruncateSequencePair(3)
    assert [x.tolist() for x in pair(np.array([1, 2, 3]), np.array([4, 5]))] == [[1, 2], [4]]
    assert [x.tolist() for x in pair(np.array([1, 2]), np.array([3, 4]))] == [[1, 2], [3]]


def test_string_edits_and_helpers():
    assert text.Ngram([2])(np.array(["a", "b", "c"])).tolist() == ["a b", "b c"]
    assert text.CaseFold()("AbC ß").tolist() == "abc ss"
    assert text.RegexReplace("a+", "X")("baaac a").tolist() == "bXc X"
    assert text.RegexReplace("a", "X", replace_all=False)("aa").tolist() == "Xa"
    assert text.AddToken("<s>", True)(np.array(["a", "b"])).tolist() == ["<s>", "a", "b"]
    assert text.NormalizeUTF8(text.NormalizeForm.NFKC)("ﬁ").tolist() == "fi"
    assert text.PythonTokenizer(lambda s: s.split("-"))(np.array("a-b-c")).tolist() == \
        ["a", "b", "c"]
    assert text.to_str(np.array([b"ab", b"c"])).tolist() == ["ab", "c"]
    assert text.to_bytes(np.array(["ab"])).tolist() == [b"ab"]


def test_text_pipeline_as_the_sentiment_tutorial_builds_it():
    vocab = text.Vocab.from_list(["good", "bad", "movie"], special_tokens=["<unk>", "<pad>"],
                                 special_first=False)
    pad = vocab.tokens_to_ids("<pad>")

    def reviews():
        for line, label in [("good movie", 1), ("bad bad plot movie", 0)]:
            yield line, label

    d = ds.GeneratorDataset(reviews, ["text", "label"], shuffle=False)
    d = d.map(text.WhitespaceTokenizer(), "text")
    d = d.map([text.Lookup(vocab, unknown_token="<unk>"), transforms.PadEnd([5], pad)], "text")
    d = d.map(transforms.TypeCast(ms.float32), "label").batch(2)
    tokens, labels = next(iter(d))
    assert tokens.dtype == ms.int32 and tokens.asnumpy().tolist() == \
        [[0, 2, 4, 4, 4], [1, 1, 3, 2, 4]]
    assert labels.asnumpy().tolist() == [1.0, 0.0]


def test_mindspore_dataset_text_resolves_through_the_alias():
    import importlib

    from spore import _alias
    _alias.install()
    try:
        module = importlib.import_module("mindspore.dataset.text")
        assert module is text and module.Vocab is text.Vocab
    finally:
        _alias.uninstall()
