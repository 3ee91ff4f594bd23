"""``JiebaTokenizer`` (``mindspore.dataset.text``): Chinese word segmentation with the
dictionary and HMM model files MindSpore's tokenizer takes (cppjieba's formats).

MindSpore runs cppjieba; this is a NumPy-free re-implementation of the same three cutters
on the same files, so no extra package is needed:

* MP: a maximum-probability path through the dictionary's word lattice (a word weighs
  log(freq / total); a character outside the dictionary the smallest weight);
* HMM: a B/E/M/S hidden Markov model (Viterbi) over runs of non-ASCII characters, ASCII
  letters+digits, numbers and other ASCII characters being tokens of their own;
* MIX (default): MP, then HMM over each run of single characters MP left that the user
  did not add as words.

Text is first split at spaces, tabs, newlines, "，" and "。", which are tokens themselves.
"""
from __future__ import annotations

import enum
import math
import os

import numpy as np

from ..transforms.base import TensorOperation
from .transforms import _check_bool, _one_string, _token_array

_SEPARATORS = frozenset(" \t\n，。")
_MIN = -3.14e100
_STATES = "BEMS"


class JiebaMode(enum.IntEnum):
    """The cutter ``JiebaTokenizer`` uses: MIX (MP then HMM), MP or HMM."""

    MIX = 0
    MP = 1
    HMM = 2


def _read_lines(path, what):
    if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        raise ValueError(f"For 'JiebaTokenizer', the {what} file {path} does not exist.")
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


class _Dictionary:
    """Word -> log weight, from a ``word freq [tag]`` file; user words added later."""

    def __init__(self, path):
        freqs = {}
        for number, line in enumerate(_read_lines(path, "mp_path (dictionary)"), 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) < 2:
                raise ValueError(f"For 'JiebaTokenizer', line {number} of {path} must be "
                                 "'word freq [tag]'.")
            freqs[fields[0]] = float(fields[1])
        if not freqs:
            raise ValueError(f"For 'JiebaTokenizer', the dictionary {path} is empty.")
        self.total = sum(freqs.values())
        self.weights = {w: math.log(f / self.total) for w, f in freqs.items()}
        ordered = sorted(self.weights.values())
        self.min_weight = ordered[0]
        self.median_weight = ordered[len(ordered) // 2]
        self.max_len = max(len(w) for w in self.weights)
        self.user_single = set()

    def add(self, word, freq=None):
        weight = self.median_weight if freq is None else math.log(freq / self.total)
        self.weights[word] = weight
        self.max_len = max(self.max_len, len(word))
        if len(word) == 1:
            self.user_single.add(word)

    def cut(self, text):
        """MP: the maximum-weight segmentation of ``text`` into (start, end) spans."""
        n = len(text)
        best = [0.0] * (n + 1)
        choice = [0] * n
        for i in range(n - 1, -1, -1):
            best_value, best_end = None, i + 1
            for end in range(i + 1, min(n, i + self.max_len) + 1):
                weight = self.weights.get(text[i:end])
                if weight is None:
                    if end != i + 1:
                        continue
                    weight = self.min_weight
                value = weight + best[end]
                if best_value is None or value > best_value:
                    best_value, best_end = value, end
            best[i], choice[i] = best_value, best_end
        spans, i = [], 0
        while i < n:
            spans.append((i, choice[i]))
            i = choice[i]
        return spans


class _HMM:
    """cppjieba's B/E/M/S model file: start, transition and emission log probabilities."""

    def __init__(self, path):
        lines = [line for line in _read_lines(path, "hmm_path (HMM model)")
                 if line.strip() and not line.startswith("#")]
        try:
            self.start = [float(v) for v in lines[0].split()]
            self.trans = [[float(v) for v in lines[1 + k].split()] for k in range(4)]
            self.emit = []
            for k in range(4):
                table = {}
                for item in lines[5 + k].split(","):
                    char, _, prob = item.rpartition(":")
                    if char:
                        table[char] = float(prob)
                self.emit.append(table)
        except (IndexError, ValueError) as exc:
            raise ValueError(f"For 'JiebaTokenizer', {path} is not a jieba HMM model file "
                             f"({exc}).") from None
        if len(self.start) != 4 or any(len(row) != 4 for row in self.trans):
            raise ValueError(f"For 'JiebaTokenizer', {path} is not a jieba HMM model file.")

    def viterbi(self, text):
        """(start, end) spans of the words the most likely state path marks."""
        n = len(text)
        weight = [[self.start[y] + self.emit[y].get(text[0], _MIN) for y in range(4)]]
        path = [[0] * 4]
        for t in range(1, n):
            row, back = [_MIN] * 4, [1] * 4        # no better path: from E, as cppjieba
            for y in range(4):
                emit = self.emit[y].get(text[t], _MIN)
                for prev in range(4):
                    value = weight[t - 1][prev] + self.trans[prev][y] + emit
                    if value > row[y]:
                        row[y], back[y] = value, prev
            weight.append(row)
            path.append(back)
        state = 1 if weight[-1][1] >= weight[-1][3] else 3          # end in E or S
        states = [0] * n
        for t in range(n - 1, -1, -1):
            states[t] = state
            state = path[t][state]
        spans, start = [], 0
        for t, s in enumerate(states):
            if _STATES[s] in "ES":
                spans.append((start, t + 1))
                start = t + 1
        if start < n:
            spans.append((start, n))
        return spans

    def cut(self, text, offset=0):
        """HMM spans: ASCII letter+digit runs, numbers (digits and '.') and other ASCII
        characters are tokens; runs of other characters go through ``viterbi``."""
        spans, left, i, n = [], 0, 0, len(text)
        while i < n:
            if ord(text[i]) >= 0x80:
                i += 1
                continue
            if left < i:
                spans += [(offset + a + left, offset + b + left)
                          for a, b in self.viterbi(text[left:i])]
            end = i + 1
            if text[i].isascii() and text[i].isalpha():
                while end < n and text[end].isascii() and text[end].isalnum():
                    end += 1
            elif text[i].isdigit():
                while end < n and (text[end].isdigit() or text[end] == ".") and \
                        text[end].isascii():
                    end += 1
            spans.append((offset + i, offset + end))
            left = i = end
        if left < n:
            spans += [(offset + a + left, offset + b + left)
                      for a, b in self.viterbi(text[left:])]
        return spans


class JiebaTokenizer(TensorOperation):
    """Splits one Chinese string into words with the HMM model file ``hmm_path`` and the
    dictionary ``mp_path`` (cppjieba's ``hmm_model.utf8`` and ``jieba.dict.utf8``), by
    ``mode`` (``JiebaMode.MIX`` default, ``MP`` or ``HMM``; see the module docstring).
    ``add_word`` / ``add_dict`` add user words (a user word without a frequency weighs the
    dictionary's median word). With ``with_offsets`` the UTF-8 byte offsets of the words
    come too."""

    def __init__(self, hmm_path, mp_path, mode=JiebaMode.MIX, with_offsets=False):
        if not isinstance(mode, JiebaMode):
            raise TypeError(f"For 'JiebaTokenizer', 'mode' must be a JiebaMode, but got "
                            f"{mode!r}.")
        self.with_offsets = _check_bool("JiebaTokenizer", "with_offsets", with_offsets)
        self.hmm_path, self.mp_path, self.mode = hmm_path, mp_path, mode
        self._hmm = _HMM(hmm_path)
        self._dict = _Dictionary(mp_path)

    def add_word(self, word, freq=None):
        """Add ``word`` (with frequency ``freq``, default the dictionary's median weight)."""
        if not isinstance(word, str) or not word:
            raise ValueError("For 'JiebaTokenizer.add_word', 'word' must be a non-empty str.")
        if freq is not None and (isinstance(freq, bool) or not isinstance(freq, int) or
                                 freq < 0):
            raise ValueError("For 'JiebaTokenizer.add_word', 'freq' must be a non-negative "
                             f"int, but got {freq!r}.")
        self._dict.add(word, freq if freq else None)

    def add_dict(self, user_dict):
        """Add words from a dict (word -> frequency or None) or a file of ``word [freq]``
        lines."""
        if isinstance(user_dict, dict):
            for word, freq in user_dict.items():
                self.add_word(word, freq)
            return
        for line in _read_lines(user_dict, "user dictionary"):
            fields = line.split()
            if fields:
                self.add_word(fields[0], int(fields[1]) if len(fields) > 1 and
                              fields[1].isdigit() else None)

    def _cut_piece(self, text, offset):
        if self.mode == JiebaMode.HMM:
            return self._hmm.cut(text, offset)
        spans = [(offset + a, offset + b) for a, b in self._dict.cut(text)]
        if self.mode == JiebaMode.MP:
            return spans
        out, k = [], 0
        while k < len(spans):
            a, b = spans[k]
            if b - a > 1 or text[a - offset] in self._dict.user_single:
                out.append((a, b))
                k += 1
                continue
            j = k
            while j < len(spans) and spans[j][1] - spans[j][0] == 1 and \
                    text[spans[j][0] - offset] not in self._dict.user_single:
                j += 1
            out += self._hmm.cut(text[a - offset:spans[j - 1][1] - offset], a)
            k = j
        return out

    def _spans(self, text):
        spans, start = [], 0
        for i, char in enumerate(text):
            if char in _SEPARATORS:
                if start < i:
                    spans += self._cut_piece(text[start:i], start)
                spans.append((i, i + 1))
                start = i + 1
        if start < len(text):
            spans += self._cut_piece(text[start:], start)
        return spans

    def _run(self, arrays, rand):
        text = _one_string(self, arrays)
        spans = self._spans(text)
        tokens = _token_array([text[a:b] for a, b in spans])
        if not self.with_offsets:
            return (tokens,)
        byte_at = np.cumsum([0] + [len(c.encode("utf-8")) for c in text])
        return (tokens, np.array([byte_at[a] for a, _ in spans], np.uint32),
                np.array([byte_at[b] for _, b in spans], np.uint32))
