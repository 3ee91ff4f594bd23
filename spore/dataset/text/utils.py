"""``mindspore.dataset.text.utils``: the vocabularies, enums and string helpers of
``dataset.text`` under the module name MindSpore gives them."""
from .jieba import JiebaMode as JiebaMode  # noqa: F401
from .sentencepiece import (SentencePieceModel as SentencePieceModel,  # noqa: F401
                            SentencePieceVocab as SentencePieceVocab,
                            SPieceTokenizerLoadType as SPieceTokenizerLoadType,
                            SPieceTokenizerOutType as SPieceTokenizerOutType)
from .transforms import NormalizeForm as NormalizeForm, to_bytes as to_bytes  # noqa: F401
from .transforms import to_str as to_str  # noqa: F401
from .vectors import (CharNGram as CharNGram, FastText as FastText,  # noqa: F401
                      GloVe as GloVe, Vectors as Vectors)
from .vocab import Vocab as Vocab  # noqa: F401
