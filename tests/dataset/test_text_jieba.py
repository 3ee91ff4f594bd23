"""JiebaTokenizer on cppjieba-format model files written here from the ``jieba`` package's
dictionary and HMM tables. Expected words are MindSpore 2.10's on the same files (probed;
the three modes also agreed with it on a dozen sentences over the full dictionary)."""
import os

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset.text import JiebaMode, JiebaTokenizer

WORDS = set("我 来到 北京 清华大学 清华 华大 大学 今天 天气 不错 小明 硕士 毕业 于 中国 科学院 计算所 "
            "后 在 日本 京都 深造 他 来到了 网易 杭研 大厦 南京市 长江 大桥 市长 江大桥".split())


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """(hmm_path, mp_path): jieba's HMM tables in cppjieba's text format and the part of
    jieba's dictionary these tests use."""
    jieba = pytest.importorskip("jieba")
    from jieba.finalseg import prob_emit, prob_start, prob_trans
    folder = tmp_path_factory.mktemp("jieba")
    with open(os.path.join(os.path.dirname(jieba.__file__), "dict.txt"), encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.split(" ")[0] in WORDS]
    (folder / "jieba.dict.utf8").write_text("\n".join(lines) + "\n", encoding="utf-8")
    states = "BEMS"
    text = ["#prob_start", " ".join(str(prob_start.P[s]) for s in states), "#prob_trans"]
    text += [" ".join(str(prob_trans.P[a].get(b, -3.14e100)) for b in states) for a in states]
    text.append("#prob_emit")
    for s in states:
        text += ["#" + s, ",".join(f"{c}:{p}" for c, p in prob_emit.P[s].items())]
    (folder / "hmm_model.utf8").write_text("\n".join(text) + "\n", encoding="utf-8")
    return str(folder / "hmm_model.utf8"), str(folder / "jieba.dict.utf8")


SENTENCES = ["我来到北京清华大学", "小明硕士毕业于中国科学院计算所，后在日本京都大学深造",
             "他来到了网易杭研大厦", "南京市长江大桥", "今天天气不错 hello world 123",
             "Python3和C++很好用！"]
PROBED = {
    JiebaMode.MP: [
        ["我", "来到", "北京", "清华大学"],
        ["小", "明", "硕士", "毕业", "于", "中国", "科学院", "计算所", "，", "后", "在", "日本",
         "京都", "大学", "深造"],
        ["他", "来到", "了", "网易", "杭", "研", "大厦"], ["南京市", "长江", "大桥"],
        ["今天", "天气", "不错", " ", "h", "e", "l", "l", "o", " ", "w", "o", "r", "l", "d", " ",
         "1", "2", "3"],
        ["P", "y", "t", "h", "o", "n", "3", "和", "C", "+", "+", "很", "好", "用", "！"]],
    JiebaMode.HMM: [
        ["我来", "到", "北京", "清华大学"],
        ["小明", "硕士", "毕业于", "中国", "科学院", "计算", "所", "，", "后", "在", "日", "本京",
         "都", "大学", "深造"],
        ["他来", "到", "了", "网易", "杭", "研大厦"], ["南京市", "长江大桥"],
        ["今天", "天气", "不错", " ", "hello", " ", "world", " ", "123"],
        ["Python3", "和", "C", "+", "+", "很", "好用", "！"]],
    JiebaMode.MIX: [
        ["我", "来到", "北京", "清华大学"],
        ["小明", "硕士", "毕业", "于", "中国", "科学院", "计算所", "，", "后", "在", "日本", "京都",
         "大学", "深造"],
        ["他", "来到", "了", "网易", "杭研", "大厦"], ["南京市", "长江", "大桥"],
        ["今天", "天气", "不错", " ", "hello", " ", "world", " ", "123"],
        ["Python3", "和", "C", "+", "+", "很", "好用", "！"]],
}


@pytest.mark.parametrize("mode", list(PROBED))
def test_modes_match_mindspore(model, mode):
    tokenizer = JiebaTokenizer(*model, mode=mode)
    assert [tokenizer(s).tolist() for s in SENTENCES] == PROBED[mode]


def test_offsets_user_words_and_pipeline(model):
    tokens, starts, ends = JiebaTokenizer(*model, with_offsets=True)("我来到北京清华大学")
    assert tokens.tolist() == ["我", "来到", "北京", "清华大学"]
    assert starts.dtype == np.uint32 and starts.tolist() == [0, 3, 9, 15]
    assert ends.tolist() == [3, 9, 15, 27]
    tokenizer = JiebaTokenizer(*model)
    tokenizer.add_word("江大桥", 20000)
    assert tokenizer("南京市长江大桥").tolist() == ["南京市", "长江", "大桥"]       # probed
    tokenizer.add_word("京都大学")
    assert tokenizer("后在日本京都大学深造").tolist() == ["后", "在", "日本", "京都大学", "深造"]
    tokenizer.add_dict({"杭研大厦": 10})
    assert tokenizer("他来到了网易杭研大厦").tolist() == ["他", "来到", "了", "网易", "杭研大厦"]
    data = ds.NumpySlicesDataset({"text": ["南京市长江大桥"]}, shuffle=False)
    data = data.map(JiebaTokenizer(*model, mode=JiebaMode.HMM), input_columns="text",
                    num_parallel_workers=2)
    assert [r[0].tolist() for r in data.create_tuple_iterator(output_numpy=True)] == \
        [["南京市", "长江大桥"]]


def test_arguments_are_checked(model, tmp_path):
    with pytest.raises(TypeError, match="mode"):
        JiebaTokenizer(*model, mode="MIX")
    with pytest.raises(ValueError, match="does not exist"):
        JiebaTokenizer(str(tmp_path / "none.utf8"), model[1])
    with pytest.raises(ValueError, match="0-d"):
        JiebaTokenizer(*model)(np.array(["我", "你"]))
    with pytest.raises(ValueError, match="word"):
        JiebaTokenizer(*model).add_word("")
    assert [int(m) for m in JiebaMode] == [0, 1, 2]


def test_mp_mode_on_a_hand_written_dictionary(tmp_path):
    """No jieba package needed: MP takes the heaviest path; unknown characters stand
    alone; separators are tokens."""
    (tmp_path / "dict.utf8").write_text("ab 10\nabc 1\ncd 10\nd 5\n", encoding="utf-8")
    (tmp_path / "hmm.utf8").write_text("#start\n0 0 0 0\n" + "0 0 0 0\n" * 4 +
                                       "a:0\nb:0\nc:0\nd:0\n", encoding="utf-8")
    tokenizer = JiebaTokenizer(str(tmp_path / "hmm.utf8"), str(tmp_path / "dict.utf8"),
                               mode=JiebaMode.MP)
    assert tokenizer("abcd").tolist() == ["ab", "cd"]
    assert tokenizer("abcx，d").tolist() == ["abc", "x", "，", "d"]
