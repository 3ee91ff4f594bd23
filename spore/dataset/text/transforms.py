"""Text transforms (``mindspore.dataset.text``) on NumPy string arrays.

Tokenizers take one string (a 0-d array) and give a 1-D array of tokens; with
``with_offsets=True`` they also give the tokens' start and end offsets, in UTF-8
bytes, as uint32 arrays (three output columns), as MindSpore does.
"""
from __future__ import annotations

import enum
import re
import unicodedata

import numpy as np

from ... import _dtype as D
from ..engine.rows import pipeline_error
from ..transforms.base import TensorOperation, UnaryOperation
from .vocab import Vocab, _as_str


def _strings(op, array):
    if array.dtype.kind not in "US":
        raise op._error(f"the input must be strings, but got {array.dtype}.", TypeError)
    return array.astype(str) if array.dtype.kind == "S" else array


def _one_string(op, arrays):
    """The one string a tokenizer's single input column holds (a 0-d string array)."""
    if len(arrays) != 1:
        raise op._error(f"expected 1 input column, but got {len(arrays)}.", TypeError)
    array = _strings(op, arrays[0])
    if array.ndim != 0:
        raise op._error(f"the input must be one string (a 0-d array), but got shape "
                        f"{array.shape}.")
    return str(array)


def _token_array(tokens):
    return np.array(tokens, dtype=str) if tokens else np.array([], dtype="<U1")


def _check_bool(op, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{op}', '{name}' must be bool, but got {type(value).__name__}.")
    return value


def _check_positive(op, name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"For '{op}', '{name}' must be a positive int, but got {value!r}.")
    return value


# ------------------------------------------------------------------ tokenizers
class _Tokenizer(TensorOperation):
    """Splits one string into tokens: subclasses give ``_spans(text)``, the (start, end)
    character positions of the tokens."""

    with_offsets = False

    def _run(self, arrays, rand):
        text = self._prepare(_one_string(self, arrays))
        spans = self._spans(text)
        tokens = _token_array([text[a:b] for a, b in spans])
        if not self.with_offsets:
            return (tokens,)
        byte_at = np.cumsum([0] + [len(c.encode("utf-8")) for c in text])
        starts = np.array([byte_at[a] for a, _ in spans], np.uint32)
        ends = np.array([byte_at[b] for _, b in spans], np.uint32)
        return tokens, starts, ends

    def _prepare(self, text):
        return text

    def _spans(self, text):
        raise NotImplementedError


class WhitespaceTokenizer(_Tokenizer):
    """Tokens separated by whitespace."""

    def __init__(self, with_offsets=False):
        self.with_offsets = _check_bool("WhitespaceTokenizer", "with_offsets", with_offsets)

    def _spans(self, text):
        return [m.span() for m in re.finditer(r"\S+", text)]


class UnicodeCharTokenizer(_Tokenizer):
    """One token per character."""

    def __init__(self, with_offsets=False):
        self.with_offsets = _check_bool("UnicodeCharTokenizer", "with_offsets", with_offsets)

    def _spans(self, text):
        return [(i, i + 1) for i in range(len(text))]


class RegexTokenizer(_Tokenizer):
    """Tokens between matches of ``delim_pattern``; a delimiter that matches
    ``keep_delim_pattern`` is a token too. Empty tokens are dropped."""

    def __init__(self, delim_pattern, keep_delim_pattern="", with_offsets=False):
        if not isinstance(delim_pattern, str) or not isinstance(keep_delim_pattern, str):
            raise TypeError("For 'RegexTokenizer', the patterns must be str.")
        self.delim_pattern, self.keep_delim_pattern = delim_pattern, keep_delim_pattern
        self.with_offsets = _check_bool("RegexTokenizer", "with_offsets", with_offsets)
        self._delim = re.compile(delim_pattern)
        self._keep = re.compile(keep_delim_pattern) if keep_delim_pattern else None

    def _spans(self, text):
        spans, pos = [], 0
        for m in self._delim.finditer(text):
            if m.start() == m.end():
                continue
            if m.start() > pos:
                spans.append((pos, m.start()))
            if self._keep is not None and self._keep.fullmatch(m.group()):
                spans.append(m.span())
            pos = m.end()
        if pos < len(text):
            spans.append((pos, len(text)))
        return spans


class NormalizeForm(enum.Enum):
    """Unicode normalization forms for ``NormalizeUTF8`` and ``BasicTokenizer``."""

    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


def _normalize(text, form):
    return text if form == NormalizeForm.NONE else unicodedata.normalize(form.name, text)


_UNUSED = re.compile(r"\[(?:CLS|SEP|UNK|PAD|MASK|unused\d+)\]")
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def _is_punctuation(char):
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(char):
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _CJK)


class BasicTokenizer(_Tokenizer):
    """BERT's basic tokenizer: splits on whitespace, around punctuation and around each CJK
    character. ``lower_case`` case-folds and strips accents (NFD, then marks removed);
    otherwise ``normalization_form`` applies. ``preserve_unused_token`` keeps ``[CLS]``,
    ``[SEP]``, ``[UNK]``, ``[PAD]``, ``[MASK]`` and ``[unusedN]`` whole; ``keep_whitespace``
    keeps runs of whitespace as tokens. Offsets refer to the normalized text."""

    def __init__(self, lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        self.lower_case = _check_bool("BasicTokenizer", "lower_case", lower_case)
        self.keep_whitespace = _check_bool("BasicTokenizer", "keep_whitespace", keep_whitespace)
        if not isinstance(normalization_form, NormalizeForm):
            raise TypeError("For 'BasicTokenizer', 'normalization_form' must be a "
                            "NormalizeForm.")
        self.normalization_form = normalization_form
        self.preserve_unused_token = _check_bool("BasicTokenizer", "preserve_unused_token",
                                                 preserve_unused_token)
        self.with_offsets = _check_bool("BasicTokenizer", "with_offsets", with_offsets)

    def _prepare(self, text):
        if self.lower_case:
            text = unicodedata.normalize("NFD", text.casefold())
            text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        else:
            text = _normalize(text, self.normalization_form)
        # control and format characters count as spaces (BERT's cleaning)
        return "".join(" " if unicodedata.category(c) in ("Cc", "Cf") and c not in "\t\n\r"
                       else c for c in text)

    def _spans(self, text):
        spans, pos = [], 0
        if self.preserve_unused_token:
            for m in _UNUSED.finditer(text):
                spans.extend(self._split(text, pos, m.start()))
                spans.append(m.span())
                pos = m.end()
        spans.extend(self._split(text, pos, len(text)))
        return spans

    def _split(self, text, start, end):
        spans, begin, i = [], None, start
        while i < end:
            char = text[i]
            if char.isspace():
                if begin is not None:
                    spans.append((begin, i))
                    begin = None
                j = i
                while j < end and text[j].isspace():
                    j += 1
                if self.keep_whitespace:
                    spans.append((i, j))
                i = j
                continue
            if _is_punctuation(char) or _is_cjk(char):
                if begin is not None:
                    spans.append((begin, i))
                    begin = None
                spans.append((i, i + 1))
            elif begin is None:
                begin = i
            i += 1
        if begin is not None:
            spans.append((begin, end))
        return spans


class PythonTokenizer(UnaryOperation):
    """Tokens from a Python function of one string (returning a list of str)."""

    def __init__(self, tokenizer):
        if not callable(tokenizer):
            raise TypeError("For 'PythonTokenizer', 'tokenizer' must be callable.")
        self.tokenizer = tokenizer

    def __call__(self, *inputs):
        if inputs and not isinstance(inputs[0], np.ndarray):
            raise TypeError(f"input should be a NumPy array. Got {type(inputs[0])}.")
        return super().__call__(*inputs)

    def _apply(self, array, rand):
        array = _strings(self, array)
        return _token_array(list(self.tokenizer(str(array))))


# ------------------------------------------------------------------ string edits
class _StringMap(UnaryOperation):
    """Applies ``_edit`` to every string of the array."""

    def _apply(self, array, rand):
        array = _strings(self, array)
        edited = [self._edit(s) for s in array.reshape(-1).tolist()]
        return np.array(edited, dtype=str).reshape(array.shape)

    def _edit(self, text):
        raise NotImplementedError


class CaseFold(_StringMap):
    """Case-folding (a stronger lower-casing: 'ß' becomes 'ss')."""

    def _edit(self, text):
        return text.casefold()


class NormalizeUTF8(_StringMap):
    """Unicode normalization (``NormalizeForm.NFKC`` by default)."""

    def __init__(self, normalize_form=NormalizeForm.NFKC):
        if not isinstance(normalize_form, NormalizeForm):
            raise TypeError("For 'NormalizeUTF8', 'normalize_form' must be a NormalizeForm.")
        self.normalize_form = normalize_form

    def _edit(self, text):
        return _normalize(text, self.normalize_form)


class RegexReplace(_StringMap):
    """Replace matches of ``pattern`` with ``replace`` (all of them, or the first)."""

    def __init__(self, pattern, replace, replace_all=True):
        if not isinstance(pattern, str) or not isinstance(replace, str):
            raise TypeError("For 'RegexReplace', 'pattern' and 'replace' must be str.")
        self.pattern, self.replace = pattern, replace
        self.replace_all = _check_bool("RegexReplace", "replace_all", replace_all)
        self._regex = re.compile(pattern)

    def _edit(self, text):
        return self._regex.sub(self.replace.replace("\\", "\\\\"), text,
                               count=0 if self.replace_all else 1)


# ------------------------------------------------------------------ token sequences
class Lookup(UnaryOperation):
    """Tokens to ids with a ``Vocab``; a token not in it gets the id of ``unknown_token``
    (an error without one). Output ``data_type`` (int32 by default), same shape."""

    def __init__(self, vocab, unknown_token=None, data_type=None):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"For 'Lookup', 'vocab' must be a text.Vocab, but got "
                            f"{type(vocab).__name__}.")
        if unknown_token is not None and not isinstance(unknown_token, str):
            raise TypeError("For 'Lookup', 'unknown_token' must be str.")
        self.vocab, self.unknown_token = vocab, unknown_token
        self.data_type = np.dtype(np.int32) if data_type is None else \
            D.to_numpy_dtype(data_type)
        if self.data_type.kind not in "iu":
            raise TypeError(f"For 'Lookup', 'data_type' must be an integer type, but got "
                            f"{data_type}.")

    def _apply(self, array, rand):
        array = _strings(self, array)
        ids = self.vocab._ids
        default = None
        if self.unknown_token is not None:
            default = ids.get(self.unknown_token)
            if default is None:
                raise pipeline_error(f"Lookup: the unknown_token '{self.unknown_token}' is not "
                                     "in the vocab.")
        out = []
        for token in array.reshape(-1).tolist():
            found = ids.get(_as_str(token), default)
            if found is None:
                raise pipeline_error(f"Lookup: the token '{token}' is not in the vocab and no "
                                     "unknown_token was given.")
            out.append(found)
        return np.array(out, dtype=self.data_type).reshape(array.shape)


class ToNumber(UnaryOperation):
    """Strings to numbers of ``data_type``; a string that is not a number, or a number out
    of the type's range, is an error."""

    def __init__(self, data_type):
        self.data_type = D.to_numpy_dtype(data_type)
        if self.data_type.kind not in "iuf":
            raise TypeError(f"For 'ToNumber', 'data_type' must be a numeric type, but got "
                            f"{data_type}.")

    def _apply(self, array, rand):
        array = _strings(self, array)
        return np.array([self._number(s) for s in array.reshape(-1).tolist()],
                        dtype=self.data_type).reshape(array.shape)

    def _number(self, text):
        try:
            value = int(text) if self.data_type.kind in "iu" else float(text)
        except ValueError:
            raise pipeline_error(f"ToNumber: '{text}' is not a valid {self.data_type} "
                                 "number.") from None
        if self.data_type.kind in "iu":
            info = np.iinfo(self.data_type)
            out_of_range = not info.min <= value <= info.max
        else:
            out_of_range = np.isfinite(value) and \
                abs(value) > np.finfo(self.data_type).max
        if out_of_range:
            raise pipeline_error(f"ToNumber: '{text}' is out of the range of "
                                 f"{self.data_type}.")
        return value


class Truncate(UnaryOperation):
    """Cut the last axis (of a 1-D or 2-D array) to ``max_seq_len``."""

    def __init__(self, max_seq_len):
        self.max_seq_len = _check_positive("Truncate", "max_seq_len", max_seq_len)

    def _apply(self, array, rand):
        if array.ndim not in (1, 2):
            raise self._error(f"the input must be 1-D or 2-D, but got shape {array.shape}.")
        return array[..., :self.max_seq_len].copy()


class TruncateSequencePair(TensorOperation):
    """Cut two 1-D sequences until their total length is at most ``max_length``,
    taking from the longer one first."""

    def __init__(self, max_length):
        self.max_length = _check_positive("TruncateSequencePair", "max_length", max_length)

    def _run(self, arrays, rand):
        if len(arrays) != 2:
            raise self._error(f"expected 2 input columns, but got {len(arrays)}.", TypeError)
        a, b = arrays
        la, lb = len(a), len(b)
        while la + lb > self.max_length:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la].copy(), b[:lb].copy()


class SlidingWindow(UnaryOperation):
    """The windows of ``width`` consecutive items of a 1-D array, one per row."""

    def __init__(self, width, axis=0):
        self.width = _check_positive("SlidingWindow", "width", width)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError("For 'SlidingWindow', 'axis' must be int.")
        self.axis = axis

    def _apply(self, array, rand):
        if array.ndim != 1 or self.axis not in (0, -1):
            raise self._error(f"only 1-D input with axis 0 is supported, but got shape "
                              f"{array.shape} and axis {self.axis}.")
        n = len(array) - self.width + 1
        if n <= 0:
            return np.zeros(0, dtype=array.dtype)
        return np.stack([array[i:i + self.width] for i in range(n)])


class Ngram(UnaryOperation):
    """The n-grams of a 1-D string array, for each n in ``n``, joined by ``separator``;
    ``left_pad`` / ``right_pad`` are (token, count) pads added first."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" "):
        n = [n] if isinstance(n, int) else list(n)
        if not n or not all(isinstance(k, int) and k > 0 for k in n):
            raise ValueError(f"For 'Ngram', 'n' must be positive ints, but got {n!r}.")
        self.n, self.left_pad, self.right_pad, self.separator = n, left_pad, right_pad, separator

    def _apply(self, array, rand):
        tokens = _strings(self, array)
        if tokens.ndim != 1:
            raise self._error(f"the input must be 1-D, but got shape {tokens.shape}.")
        words = [self.left_pad[0]] * self.left_pad[1] + tokens.tolist() + \
            [self.right_pad[0]] * self.right_pad[1]
        grams = [self.separator.join(words[i:i + k]) for k in self.n
                 for i in range(len(words) - k + 1)]
        return _token_array(grams)


class AddToken(UnaryOperation):
    """Add ``token`` at the start (``begin``) or end of a 1-D string array."""

    def __init__(self, token, begin=True):
        if not isinstance(token, str):
            raise TypeError("For 'AddToken', 'token' must be str.")
        self.token, self.begin = token, _check_bool("AddToken", "begin", begin)

    def _apply(self, array, rand):
        tokens = _strings(self, array).tolist()
        return _token_array([self.token] + tokens if self.begin else tokens + [self.token])


# ------------------------------------------------------------------ helpers
def to_str(array, encoding="utf8"):
    """A bytes array as a str array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"input should be a NumPy array, but got {type(array).__name__}.")
    return np.char.decode(array, encoding)


def to_bytes(array, encoding="utf8"):
    """A str array as a bytes array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"input should be a NumPy array, but got {type(array).__name__}.")
    return np.char.encode(array, encoding)


# ------------------------------------------------------------------ WordPiece and BERT
def _check_vocab(op, vocab):
    if not isinstance(vocab, Vocab):
        raise TypeError(f"For '{op}', 'vocab' must be a text.Vocab, but got "
                        f"{type(vocab).__name__}.")
    return vocab


class _WordPiece:
    """Greedy longest-match-first splitting of one word into vocabulary pieces; the pieces
    after the first carry ``suffix_indicator``. A word with a part no piece matches, or
    longer than ``max_bytes_per_token``, becomes ``unknown_token`` (the word itself when
    that is empty)."""

    def __init__(self, op, vocab, suffix_indicator, max_bytes_per_token, unknown_token):
        self.vocab = _check_vocab(op, vocab)
        if not isinstance(suffix_indicator, str) or not isinstance(unknown_token, str):
            raise TypeError(f"For '{op}', 'suffix_indicator' and 'unknown_token' must be str.")
        if isinstance(max_bytes_per_token, bool) or not isinstance(max_bytes_per_token, int) \
                or max_bytes_per_token < 0:
            raise ValueError(f"For '{op}', 'max_bytes_per_token' must be a non-negative int, "
                             f"but got {max_bytes_per_token!r}.")
        self.suffix_indicator, self.unknown_token = suffix_indicator, unknown_token
        self.max_bytes_per_token = max_bytes_per_token

    def _known(self, piece):
        return self.vocab.tokens_to_ids(piece) != -1

    def pieces(self, word):
        """[(piece, start byte, end byte)] of ``word``."""
        size = len(word.encode("utf-8"))
        unknown = [(self.unknown_token or word, 0, size)]
        if size > self.max_bytes_per_token:
            return unknown
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else self.suffix_indicator + word[start:end]
                if self._known(piece):
                    break
                end -= 1
            if end == start:
                return unknown
            out.append((piece, len(word[:start].encode("utf-8")),
                        len(word[:end].encode("utf-8"))))
            start = end
        return out


class WordpieceTokenizer(TensorOperation):
    """Split each word of a string array into WordPiece tokens of ``vocab``."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100,
                 unknown_token="[UNK]", with_offsets=False):
        self._wordpiece = _WordPiece("WordpieceTokenizer", vocab, suffix_indicator,
                                     max_bytes_per_token, unknown_token)
        self.with_offsets = _check_bool("WordpieceTokenizer", "with_offsets", with_offsets)

    def _run(self, arrays, rand):
        if len(arrays) != 1:
            raise self._error(f"expected 1 input column, but got {len(arrays)}.", TypeError)
        words = _strings(self, arrays[0]).reshape(-1)
        found = [p for w in words for p in self._wordpiece.pieces(str(w))]
        tokens = _token_array([p[0] for p in found])
        if not self.with_offsets:
            return (tokens,)
        return (tokens, np.array([p[1] for p in found], np.uint32),
                np.array([p[2] for p in found], np.uint32))


class BertTokenizer(BasicTokenizer):
    """BasicTokenizer, then WordpieceTokenizer on each of its tokens (offsets in bytes of
    the normalized text)."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100,
                 unknown_token="[UNK]", lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        super().__init__(lower_case, keep_whitespace, normalization_form, preserve_unused_token,
                         with_offsets)
        self._wordpiece = _WordPiece("BertTokenizer", vocab, suffix_indicator,
                                     max_bytes_per_token, unknown_token)

    def _run(self, arrays, rand):
        out = super()._run(arrays, rand)
        words = [str(w) for w in out[0].reshape(-1)]
        starts = out[1] if self.with_offsets else [0] * len(words)
        found = [(piece, int(base) + a, int(base) + b) for word, base in zip(words, starts)
                 for piece, a, b in self._wordpiece.pieces(word)]
        tokens = _token_array([p[0] for p in found])
        if not self.with_offsets:
            return (tokens,)
        return (tokens, np.array([p[1] for p in found], np.uint32),
                np.array([p[2] for p in found], np.uint32))
