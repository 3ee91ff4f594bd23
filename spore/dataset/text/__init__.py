"""Text processing (``mindspore.dataset.text``): vocabularies, tokenizers and transforms of
token sequences, on NumPy string arrays."""
from . import transforms as transforms
from .transforms import (AddToken as AddToken, BasicTokenizer as BasicTokenizer,  # noqa
                         BertTokenizer as BertTokenizer, WordpieceTokenizer as WordpieceTokenizer,
                         CaseFold as CaseFold, Lookup as Lookup, Ngram as Ngram,
                         NormalizeForm as NormalizeForm, NormalizeUTF8 as NormalizeUTF8,
                         PythonTokenizer as PythonTokenizer, RegexReplace as RegexReplace,
                         RegexTokenizer as RegexTokenizer, SlidingWindow as SlidingWindow,
                         ToNumber as ToNumber, Truncate as Truncate,
                         TruncateSequencePair as TruncateSequencePair,
                         UnicodeCharTokenizer as UnicodeCharTokenizer,
                         WhitespaceTokenizer as WhitespaceTokenizer, to_bytes as to_bytes,
                         to_str as to_str)
from .vectors import (CharNGram as CharNGram, FastText as FastText, GloVe as GloVe,
                      ToVectors as ToVectors, Vectors as Vectors)
from .vocab import Vocab as Vocab
from .sentencepiece import (SentencePieceModel as SentencePieceModel,
                            SentencePieceTokenizer as SentencePieceTokenizer,
                            SentencePieceVocab as SentencePieceVocab,
                            SPieceTokenizerLoadType as SPieceTokenizerLoadType,
                            SPieceTokenizerOutType as SPieceTokenizerOutType)
from .jieba import JiebaMode as JiebaMode, JiebaTokenizer as JiebaTokenizer
from . import utils as utils  # noqa: E402
from .script import (FilterWikipediaXML as FilterWikipediaXML,
                     UnicodeScriptTokenizer as UnicodeScriptTokenizer)


def __getattr__(name):
    """MindSpore names Spore leaves out on purpose raise NotImplementedError saying why
    (spore/_absent.py)."""
    from ... import _absent
    return _absent.missing(__name__, name)
