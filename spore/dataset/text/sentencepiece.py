"""SentencePiece subword models (``mindspore.dataset.text``): ``SentencePieceVocab`` trains
or holds a model, ``SentencePieceTokenizer`` splits text with it.

Both run on the ``sentencepiece`` package (the optional extra ``spore[text]``), which is
the library MindSpore builds in: model files move between the two frameworks unchanged
(a model MindSpore saved tokenizes the same here). Training is the library's; BPE, CHAR
and WORD models come out as MindSpore's, UNIGRAM ones may number their pieces differently
(the library's unigram trainer changed between the version MindSpore bundles and today's).
"""
from __future__ import annotations

import enum
import io
import os

import numpy as np

from ..transforms.base import TensorOperation
from .transforms import _one_string, _token_array


class SentencePieceModel(enum.IntEnum):
    """The subword algorithm ``SentencePieceVocab`` trains."""

    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


class SPieceTokenizerLoadType(enum.IntEnum):
    """Where ``SentencePieceTokenizer`` takes its model from: a file or a vocab object."""

    FILE = 0
    MODEL = 1


class SPieceTokenizerOutType(enum.IntEnum):
    """``SentencePieceTokenizer`` gives pieces (``STRING``) or their ids (``INT``)."""

    STRING = 0
    INT = 1


def sentencepiece():
    """The ``sentencepiece`` module, or an ImportError saying how to get it."""
    try:
        import sentencepiece as spm
    except ImportError:
        raise ImportError("SentencePieceVocab and SentencePieceTokenizer need the "
                          "'sentencepiece' package: pip install 'spore[text]' (or "
                          "sentencepiece).") from None
    return spm


def _check_training(vocab_size, character_coverage, model_type, params):
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= 0:
        raise ValueError(f"For 'SentencePieceVocab', 'vocab_size' must be a positive int, but "
                         f"got {vocab_size!r}.")
    if isinstance(character_coverage, bool) or \
            not isinstance(character_coverage, (int, float)) or \
            not 0.98 <= character_coverage <= 1.0:
        raise ValueError(f"For 'SentencePieceVocab', 'character_coverage' must be in "
                         f"[0.98, 1.0], but got {character_coverage!r}.")
    if not isinstance(model_type, SentencePieceModel):
        raise TypeError(f"For 'SentencePieceVocab', 'model_type' must be a SentencePieceModel, "
                        f"but got {model_type!r}.")
    if not isinstance(params, dict):
        raise TypeError(f"For 'SentencePieceVocab', 'params' must be a dict, but got "
                        f"{type(params).__name__}.")


class SentencePieceVocab:
    """A SentencePiece model: trained from text (``from_file``, ``from_dataset``) and saved
    to a ``.model`` file (``save_model``) that MindSpore and the ``sentencepiece`` library
    read."""

    def __init__(self, model_proto=b""):
        self.model_proto = bytes(model_proto)

    @classmethod
    def _train(cls, vocab_size, character_coverage, model_type, params, **source):
        _check_training(vocab_size, character_coverage, model_type, params)
        spm = sentencepiece()
        options = {"vocab_size": vocab_size, "character_coverage": float(character_coverage),
                   "model_type": model_type.name.lower(), "minloglevel": 1}
        options.update({str(k): v for k, v in params.items()})
        model = io.BytesIO()
        try:
            spm.SentencePieceTrainer.train(model_writer=model, **source, **options)
        except RuntimeError as exc:
            raise RuntimeError(f"SentencePieceVocab: {exc}") from None
        return cls(model.getvalue())

    @classmethod
    def from_file(cls, file_path, vocab_size, character_coverage, model_type, params):
        """Train on the sentences (one a line) of the files ``file_path``."""
        if isinstance(file_path, (str, os.PathLike)):
            file_path = [file_path]
        paths = [os.fspath(p) for p in file_path]
        for path in paths:
            if not os.path.isfile(path):
                raise ValueError(f"For 'SentencePieceVocab.from_file', the file {path} does "
                                 "not exist.")
        return cls._train(vocab_size, character_coverage, model_type, params,
                          input=",".join(paths))

    @classmethod
    def from_dataset(cls, dataset, col_names, vocab_size, character_coverage, model_type,
                     params):
        """Train on the strings of ``dataset``'s columns ``col_names``."""
        if isinstance(col_names, str):
            col_names = [col_names]
        columns = list(dataset.get_col_names())
        for name in col_names:
            if name not in columns:
                raise ValueError(f"For 'SentencePieceVocab.from_dataset', the column {name!r} "
                                 f"is not one of {columns}.")

        def sentences():
            for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
                for name in col_names:
                    for value in np.asarray(row[name]).reshape(-1).tolist():
                        yield value.decode() if isinstance(value, bytes) else str(value)
        return cls._train(vocab_size, character_coverage, model_type, params,
                          sentence_iterator=sentences())

    @classmethod
    def save_model(cls, vocab, path, filename):
        """Write ``vocab``'s model to ``path/filename``."""
        if not isinstance(vocab, SentencePieceVocab):
            raise TypeError("For 'SentencePieceVocab.save_model', 'vocab' must be a "
                            "SentencePieceVocab.")
        if not os.path.isdir(path):
            raise ValueError(f"For 'SentencePieceVocab.save_model', the folder {path} does not "
                             "exist.")
        with open(os.path.join(path, filename), "wb") as f:
            f.write(vocab.model_proto)


class SentencePieceTokenizer(TensorOperation):
    """Splits one string into SentencePiece pieces (``out_type`` ``STRING``) or their int32
    ids (``INT``); ``mode`` is a ``SentencePieceVocab`` or the path of a ``.model`` file."""

    def __init__(self, mode, out_type):
        if isinstance(mode, SentencePieceVocab):
            self._proto = mode.model_proto
        elif isinstance(mode, (str, os.PathLike)):
            if not os.path.isfile(mode):
                raise ValueError(f"For 'SentencePieceTokenizer', the model file {mode} does not "
                                 "exist.")
            with open(mode, "rb") as f:
                self._proto = f.read()
        else:
            raise TypeError("For 'SentencePieceTokenizer', 'mode' must be a SentencePieceVocab "
                            f"or a model file path, but got {type(mode).__name__}.")
        if not isinstance(out_type, SPieceTokenizerOutType):
            raise TypeError("For 'SentencePieceTokenizer', 'out_type' must be a "
                            f"SPieceTokenizerOutType, but got {out_type!r}.")
        self.mode, self.out_type = mode, out_type
        self._processor = None

    def __getstate__(self):            # the library's processor does not pickle
        state = dict(self.__dict__)
        state["_processor"] = None
        return state

    def _model(self):
        if self._processor is None:
            spm = sentencepiece()
            self._processor = spm.SentencePieceProcessor(model_proto=self._proto)
        return self._processor

    def _run(self, arrays, rand):
        text = _one_string(self, arrays)
        if self.out_type == SPieceTokenizerOutType.INT:
            return (np.array(self._model().encode(text), np.int32),)
        return (_token_array(self._model().encode(text, out_type=str)),)
