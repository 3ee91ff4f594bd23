"""Pre-trained word vectors (``Vectors``, ``GloVe``, ``FastText``, ``CharNGram``) read
from their text files, and ``ToVectors``, which maps string tokens to their vectors."""
from __future__ import annotations

import fnmatch
import os

import numpy as np

from ..transforms.base import UnaryOperation


def _read_vectors(name, file_path, max_vectors, pattern=None, skip_header=False):
    """{token: float32 vector} of a ``token v1 v2 ...`` text file, and the dimension."""
    if not isinstance(file_path, (str, os.PathLike)) or not os.path.isfile(file_path):
        raise ValueError(f"{name}: the file {file_path} does not exist or permission denied!")
    path = os.fspath(file_path)
    if pattern is not None and not fnmatch.fnmatch(os.path.basename(path), pattern):
        raise RuntimeError(f"{name}: invalid file, can not find file '{pattern}', but got: "
                           f"{path}")
    if max_vectors is not None and (isinstance(max_vectors, bool) or
                                    not isinstance(max_vectors, int) or max_vectors < 0):
        raise ValueError(f"{name}: 'max_vectors' must be a non-negative int, but got "
                         f"{max_vectors!r}.")
    table, dim = {}, None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.rstrip("\n").rstrip(" ").split(" ")
            if number == 1 and (skip_header or (len(fields) == 2 and
                                                all(v.isdigit() for v in fields))):
                continue
            if len(fields) < 2 or not fields[0]:
                continue
            if max_vectors is not None and len(table) >= max_vectors:
                break
            try:
                vector = np.array(fields[1:], np.float32)
            except ValueError:
                raise RuntimeError(f"{name}: invalid file {path}, line {number}: the values "
                                   "after the token must be numbers.") from None
            if dim is None:
                dim = len(vector)
            elif len(vector) != dim:
                raise RuntimeError(f"{name}: invalid file {path}, line {number}: a vector of "
                                   f"{len(vector)} values, but the first has {dim}.")
            table.setdefault(fields[0], vector)
    return table, dim or 0


class Vectors:
    """Word vectors from a text file of ``token v1 v2 ...`` lines (a leading ``count dim``
    line is skipped); ``max_vectors`` keeps the first ones."""

    pattern, skip_header = None, False

    def __init__(self, table, dim):
        self.table, self.dim = table, dim

    @classmethod
    def from_file(cls, file_path, max_vectors=None):
        return cls(*_read_vectors(cls.__name__, file_path, max_vectors, cls.pattern,
                                  cls.skip_header))

    def lookup(self, token, unk, lower_case_backup):
        vector = self.table.get(token)
        if vector is None and lower_case_backup:
            vector = self.table.get(token.lower())
        return unk if vector is None else vector


class GloVe(Vectors):
    """GloVe vectors: a file named ``glove.6B.*.txt``."""

    pattern = "glove.6B.*.txt"


class FastText(Vectors):
    """fastText vectors: a ``*.vec`` file (its ``count dim`` first line is skipped)."""

    pattern, skip_header = "*.vec", True


class CharNGram(Vectors):
    """Character n-gram vectors (``2gram-ab`` ... entries): a token's vector is the mean of
    its 2-, 3- and 4-grams (with ``#BEGIN#`` / ``#END#`` marks) found in the file."""

    def lookup(self, token, unk, lower_case_backup):
        found = self._grams(token)
        if not found and lower_case_backup:
            found = self._grams(token.lower())
        return np.mean(found, axis=0).astype(np.float32) if found else unk

    def _grams(self, token):
        chars = ["#BEGIN#"] + list(token) + ["#END#"]
        found = []
        for n in (2, 3, 4):
            for i in range(len(chars) - n + 1):
                vector = self.table.get(f"{n}gram-" + "".join(chars[i:i + n]))
                if vector is not None:
                    found.append(vector)
        return found


class ToVectors(UnaryOperation):
    """String tokens (any shape) to their float32 vectors (shape + (dim,)); an unknown
    token gets ``unk_init`` (zeros by default), after trying its lower case when
    ``lower_case_backup``."""

    def __init__(self, vectors, unk_init=None, lower_case_backup=False):
        if not isinstance(vectors, Vectors):
            raise TypeError(f"For 'ToVectors', 'vectors' must be a Vectors, GloVe, FastText or "
                            f"CharNGram, but got {type(vectors).__name__}.")
        if not isinstance(lower_case_backup, bool):
            raise TypeError("For 'ToVectors', 'lower_case_backup' must be bool.")
        unk = np.zeros(vectors.dim, np.float32) if unk_init is None else \
            np.asarray(unk_init, np.float32)
        if unk.shape != (vectors.dim,):
            raise ValueError(f"For 'ToVectors', 'unk_init' must hold {vectors.dim} values, but "
                             f"got {len(unk)}.")
        self.vectors, self.unk, self.lower_case_backup = vectors, unk, lower_case_backup

    def _apply(self, array, rand):
        if array.dtype.kind not in "US":
            raise self._error(f"the input must be strings, but got {array.dtype}.", TypeError)
        tokens = array.astype(str)
        out = [self.vectors.lookup(t, self.unk, self.lower_case_backup) for t in tokens.ravel()]
        return np.array(out, np.float32).reshape(tokens.shape + (self.vectors.dim,))
