"""``UnicodeScriptTokenizer`` and ``FilterWikipediaXML`` (``mindspore.dataset.text``).

MindSpore asks ICU for a character's script; Python's ``unicodedata`` has no script
property, so ``unicode_script`` reads it off the character's Unicode name ("CYRILLIC SMALL
LETTER A" is Cyrillic, "CJK UNIFIED IDEOGRAPH-4E2D" Han, a combining mark Inherited, a
digit, punctuation mark or symbol without a script in its name Common). That agrees with
ICU for the letters, digits, marks and punctuation of the scripts below (and the
ideographic marks listed in ``_HAN_EXTRA``); a rare character whose name does not start
with its script may differ.
"""
from __future__ import annotations

import re
import unicodedata

import numpy as np

from ..transforms.base import UnaryOperation
from .transforms import _Tokenizer, _check_bool, _strings

_SCRIPTS = frozenset("""
    LATIN GREEK COPTIC CYRILLIC ARMENIAN HEBREW ARABIC SYRIAC THAANA NKO SAMARITAN MANDAIC
    DEVANAGARI BENGALI GURMUKHI GUJARATI ORIYA TAMIL TELUGU KANNADA MALAYALAM SINHALA THAI LAO
    TIBETAN MYANMAR GEORGIAN HANGUL ETHIOPIC CHEROKEE OGHAM RUNIC TAGALOG HANUNOO BUHID
    TAGBANWA KHMER MONGOLIAN LIMBU TAI BUGINESE BALINESE SUNDANESE LEPCHA VAI BAMUM JAVANESE
    HIRAGANA KATAKANA BOPOMOFO YI GLAGOLITIC TIFINAGH SYLOTI OL CHAM KAYAH REJANG SAURASHTRA
    LISU GOTHIC DESERET SHAVIAN OSMANYA LINEAR CYPRIOT PHOENICIAN KHAROSHTHI CUNEIFORM
    BRAHMI KAITHI CHAKMA SHARADA TAKRI ADLAM""".split())
_HAN_PREFIXES = ("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH", "CJK RADICAL",
                 "KANGXI RADICAL")
# ideographic marks and numerals whose names do not say Han (U+3005, U+3007, U+3021..3029,
# U+3038..303B)
_HAN_EXTRA = frozenset("\u3005\u3007" + "".join(map(chr, range(0x3021, 0x302A))) +
                       "".join(map(chr, range(0x3038, 0x303C))))
_NAME_SCRIPTS = (("CANADIAN SYLLABICS", "CANADIAN_ABORIGINAL"), ("HALFWIDTH KATAKANA", "KATAKANA"),
                 ("HALFWIDTH HANGUL", "HANGUL"), ("FULLWIDTH LATIN", "LATIN"))


def unicode_script(char):
    """The Unicode script of one character, from its name (see the module docstring)."""
    name = unicodedata.name(char, "")
    if name.startswith(_HAN_PREFIXES) or char in _HAN_EXTRA:
        return "HAN"
    for prefix, script in _NAME_SCRIPTS:
        if name.startswith(prefix):
            return script
    first = name.split(" ", 1)[0]
    if first in _SCRIPTS:
        return first
    if unicodedata.category(char).startswith("M"):
        return "INHERITED"
    if unicodedata.category(char) in ("Lo", "Lm", "Ll", "Lu", "Lt"):
        return first or "UNKNOWN"              # a letter of a script not listed above
    return "COMMON"


def _is_white_space(char):
    """Unicode's White_Space property (``str.isspace`` also takes U+001C..U+001F)."""
    return char.isspace() and not "\x1c" <= char <= "\x1f"


class UnicodeScriptTokenizer(_Tokenizer):
    """Tokens are runs of characters of one Unicode script (Common - digits, punctuation,
    symbols - counting as a script of its own), split again where whitespace starts or
    ends; whitespace runs are dropped unless ``keep_whitespace``. "Chinese中国 3.14!"
    gives ``['Chinese', '中国', '3.14!']``."""

    def __init__(self, keep_whitespace=False, with_offsets=False):
        self.keep_whitespace = _check_bool("UnicodeScriptTokenizer", "keep_whitespace",
                                           keep_whitespace)
        self.with_offsets = _check_bool("UnicodeScriptTokenizer", "with_offsets", with_offsets)

    def _spans(self, text):
        spans, start, last = [], 0, None
        for i, char in enumerate(text):
            key = (unicode_script(char), _is_white_space(char))
            if i and key != last:
                spans.append((start, i, last[1]))
                start = i
            last = key
        if text:
            spans.append((start, len(text), last[1]))
        return [(a, b) for a, b, space in spans if self.keep_whitespace or not space]


# ------------------------------------------------------------------ FilterWikipediaXML
def _wiki_rules():
    """MindSpore's clean-up rules (after Matt Mahoney's wikifil.pl) in the order MindSpore
    applies them: sorted by pattern text, as its table is an ordered map. That order
    decides the results (a link's target is kept, "R" is dropped, a blank line leaves an
    "n"), so it is kept here too."""
    rules = [(r"<.*>", ""), (r"&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"),
             (r"<ef[^<]*<\/ef>", ""), ("<[^>]*>", ""), (r"\[http:[^] ]*", "["),
             (r"\|thumb", ""), (r"\|left", ""), (r"\|right", ""), (r"\|\d+px", ""),
             (r"\[\[image:[^\[\]]*\|", ""), (r"\[\[category:([^|\]]*)[^]]*\]\]", r"[[\1]]"),
             (r"\[\[[a-z\-]*:[^\]]*\]\]", ""), (r"\[\[[^\|\]]*\|", "[["),
             (r"\{\{[^\}]*\}\}", ""), (r"\{[^\}]*\}", ""), (r"\[", ""), (r"\]", ""),
             ("&[^;]*;", " "), (r"[^a-z\n]+", " "), (r"\n ", ""), (r"\s+", " "),
             (r"\n\s*\n", "n")]
    rules += [(c, "" if c == "R" else c.lower()) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
    words = "zero one two three four five six seven eight nine".split()
    rules += [(str(d), f" {w} ") for d, w in enumerate(words)]
    return [(re.compile(p), r) for p, r in sorted(rules, key=lambda rule: rule[0])]


_WIKI_RULES = _wiki_rules()


def filter_wikipedia_text(text):
    """One string cleaned as MindSpore's ``FilterWikipediaXML`` cleans it."""
    if "#redirect" in text or "#REDIRECT" in text:
        return ""
    for pattern, replacement in _WIKI_RULES:
        text = pattern.sub(replacement, text).strip()
    return text


class FilterWikipediaXML(UnaryOperation):
    """Cleans Wikipedia XML dump text to lower-case letters and single spaces: markup,
    tags and entities go, links and captions keep their words, digits are spelled out
    ("7" -> "seven"), a ``#REDIRECT`` page becomes empty. As in MindSpore, only the first
    string of an array is cleaned; the others come back empty."""

    def _apply(self, array, rand):
        array = _strings(self, np.asarray(array))
        out = [""] * max(array.size, 1)
        if array.size:
            out[0] = filter_wikipedia_text(str(array.reshape(-1)[0]))
        return np.array(out[:array.size] if array.size else out, dtype=str).reshape(array.shape)
