"""``Vocab``: a mapping from token to id, built from a list, a dict, a file or a dataset."""
from __future__ import annotations

import collections
import os

import numpy as np


def _check_tokens(name, tokens):
    if tokens is None:
        return []
    if not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
        raise TypeError(f"For 'Vocab.{name}', 'special_tokens' must be a list of str, but got "
                        f"{tokens!r}.")
    if len(set(tokens)) != len(tokens):
        raise ValueError(f"special_tokens contains duplicate token: {tokens}.")
    return list(tokens)


class Vocab:
    """Token -> id table (MindSpore's ``text.Vocab``); build it with a ``from_*`` method.

    Examples:
        >>> from spore.dataset import text
        >>> vocab = text.Vocab.from_list(["a", "b"], special_tokens=["<pad>"])
        >>> vocab.vocab()
        {'<pad>': 0, 'a': 1, 'b': 2}
        >>> vocab.tokens_to_ids(["b", "zz"]), vocab.ids_to_tokens(1)
        ([2, -1], 'a')
    """

    def __init__(self, ids=None):
        self._ids = dict(ids or {})
        self._tokens = {i: t for t, i in self._ids.items()}

    # ------------------------------------------------------------ builders
    @classmethod
    def _from_words(cls, name, words, special_tokens, special_first):
        specials = _check_tokens(name, special_tokens)
        clash = sorted(set(specials) & set(words))
        if clash:
            raise ValueError(f"For 'Vocab.{name}', special_tokens and the words share "
                             f"{clash}.")
        ordered = specials + list(words) if special_first else list(words) + specials
        return cls({t: i for i, t in enumerate(ordered)})

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        """Ids in list order; ``special_tokens`` before the words (``special_first``) or
        after them."""
        if not isinstance(word_list, (list, tuple)) or \
                not all(isinstance(w, str) for w in word_list):
            raise TypeError(f"For 'Vocab.from_list', 'word_list' must be a list of str, but got "
                            f"{type(word_list).__name__}.")
        seen = set()
        for word in word_list:
            if word in seen:
                raise ValueError(f"word_list contains duplicate word: {word}.")
            seen.add(word)
        return cls._from_words("from_list", word_list, special_tokens, special_first)

    @classmethod
    def from_dict(cls, word_dict):
        """The given token -> id pairs (ids non-negative ints)."""
        if not isinstance(word_dict, dict) or not all(
                isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
                for k, v in word_dict.items()):
            raise TypeError("For 'Vocab.from_dict', 'word_dict' must be a dict from str to "
                            "non-negative int.")
        return cls(word_dict)

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None,
                  special_first=True):
        """One word per line (the text before ``delimiter`` when one is given), the first
        ``vocab_size`` lines; a repeated word is an error, as in MindSpore."""
        if not isinstance(file_path, (str, os.PathLike)) or not os.path.isfile(file_path):
            raise ValueError(f"For 'Vocab.from_file', the file {file_path} does not exist or "
                             "is not a file.")
        if vocab_size is not None and (isinstance(vocab_size, bool) or
                                       not isinstance(vocab_size, int) or vocab_size <= 0):
            raise ValueError(f"For 'Vocab.from_file', 'vocab_size' must be a positive int, but "
                             f"got {vocab_size!r}.")
        words, seen = [], set()
        with open(file_path, encoding="utf-8") as f:
            for line in f:
                if vocab_size is not None and len(words) >= vocab_size:
                    break
                word = line.rstrip("\r\n")
                if delimiter:
                    word = word.split(delimiter, 1)[0]
                if not word:
                    continue
                if word in seen:
                    raise RuntimeError(f"from_file: word_list contains duplicate word:{word} "
                                       f"({file_path}).")
                seen.add(word)
                words.append(word)
        return cls._from_words("from_file", words, special_tokens, special_first)

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None,
                     special_tokens=None, special_first=True):
        """Every token of the string ``columns`` (default: all), kept when its count is in
        ``freq_range`` (inclusive), most frequent first (ties in token order), at most
        ``top_k`` of them; then the special tokens."""
        names = dataset.get_col_names()
        columns = names if columns is None else ([columns] if isinstance(columns, str)
                                                 else list(columns))
        missing = [c for c in columns if c not in names]
        if missing:
            raise ValueError(f"For 'Vocab.from_dataset', columns {missing} do not exist in "
                             f"{names}.")
        low, high = _freq_range(freq_range)
        counts = collections.Counter()
        for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
            for name in columns:
                value = row[name]
                if value.dtype.kind not in "US":
                    raise TypeError(f"For 'Vocab.from_dataset', column '{name}' must hold "
                                    f"strings, but got {value.dtype}.")
                counts.update(_as_str(t) for t in value.reshape(-1).tolist())
        ranked = sorted((w for w, c in counts.items() if low <= c <= high),
                        key=lambda w: (-counts[w], w))
        if top_k is not None:
            if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k <= 0:
                raise ValueError(f"For 'Vocab.from_dataset', 'top_k' must be a positive int, "
                                 f"but got {top_k!r}.")
            ranked = ranked[:top_k]
        return cls._from_words("from_dataset", ranked, special_tokens, special_first)

    # ------------------------------------------------------------ queries
    def vocab(self):
        """The token -> id dict."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens):
        """Id of a token (-1 when absent), or a list of ids for a list of tokens."""
        if isinstance(tokens, np.ndarray):
            tokens = tokens.tolist()
        if isinstance(tokens, (str, bytes)):
            return self._ids.get(_as_str(tokens), -1)
        return [self._ids.get(_as_str(t), -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """Token of an id ('' when absent), or a list of tokens for a list of ids."""
        if isinstance(ids, np.ndarray):
            ids = ids.tolist()
        if isinstance(ids, (int, np.integer)):
            return self._tokens.get(int(ids), "")
        return [self._tokens.get(int(i), "") for i in ids]

    def __len__(self):
        return len(self._ids)


def _freq_range(freq_range):
    if freq_range is None:
        return 0, float("inf")
    if not isinstance(freq_range, (list, tuple)) or len(freq_range) != 2:
        raise ValueError(f"For 'Vocab.from_dataset', 'freq_range' must be a (min, max) pair, but "
                         f"got {freq_range!r}.")
    low, high = freq_range
    return (0 if low is None else low), (float("inf") if high is None else high)


def _as_str(token):
    return token.decode("utf-8") if isinstance(token, bytes) else str(token)
