"""Rebuild a sentence string from original tokens, remembering where every token sits.

Rule (docs/build-pipeline.md#sentences-and-detokenization): the Moses detokenizer (sacremoses, English) decides where
spaces go; a few rules on top fix what it gets wrong for split-up original tokens (``U . S .``, ``6 . 1``,
``Lohan ’ s``), and LaTeX quotes: "``" is written as '"' (as in the reference's join heuristic,
docs/build-pipeline.md#join-heuristic) and "''" stays as it is but counts as a closing quote for
the spacing decision. Clitics ('m 've 're 'll 'd 's) are glued to the word before them ("I'm"), as Moses does:
spaCy then keeps them as one token ("I", "'m"), whereas "I 'm" would come back as "I", "'", "m". ``n't`` keeps
Moses' space: spaCy gives the same tokens for "was n't" and "wasn't", and gluing could build a non-word ("cann't").
Where the source knows the spacing (``SourceToken.space_after``), that wins. Whitespace inside a token (ECB+ has
"Awards\t") is kept: spaCy makes it a whitespace token of its own, as in the reference, and alignment skips it.

Every original token is recoverable: ``text[start:end] == normalized_token(token)`` for its span, which
:func:`rebuild_sentence` checks. The alignment stage maps tokens through these character spans, never by search.

Speed: what Moses and the rules look at in a token (its class for Moses -- by sacremoses' own patterns --, its proxy,
whether a rule could apply to it) is worked out once per distinct token text (:class:`_TokenClasses`), and Moses'
left-to-right loop for English (``MosesDetokenizer.tokenize``: currency and opening quotes shift right, punctuation
and contractions left, quotes alternate) runs on those classes, giving the space before every token directly
instead of a string to search. The rules run only where a token could start one. A sentence the port does not
cover (a ``@-@`` token, which Moses rewrites, or a sacremoses without the patterns) goes through sacremoses itself;
``tests/pipeline/test_detokenize.py`` checks the port against sacremoses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate
from operator import add, attrgetter, eq, sub
from typing import Any, NamedTuple

from ucdcr.records import SourceToken

_WHITESPACE = re.compile(r"\s")
_CLITIC_AFTER_APOSTROPHE = {"s", "S", "ve", "d", "m", "re", "ll", "t"}
_CLITICS_WITHOUT_APOSTROPHE = {"s", "re", "ve", "ll", "d", "m", "t", "em", "n"}
_INITIAL = re.compile(r"^[A-Za-z]\.$")
_LETTER = re.compile(r"^[A-Za-z]$")
_NUMBER_JOINERS = {".", ":"}
_URL_STARTS = {"http", "https", "www"}
_DOMAINS = {"com", "org", "net", "gov", "edu", "co", "uk"}


@lru_cache(maxsize=1)
def _moses():
    from sacremoses import MosesDetokenizer

    return MosesDetokenizer(lang="en")


def normalized_token(text: str) -> str:
    """The form a token takes in the rebuilt text."""
    return text.replace("``", '"')


def _quote_proxy(text: str) -> str:
    """What the Moses detokenizer sees for a token: LaTeX quotes as '"', whitespace inside a token as '_'."""
    return '"' if text in ("``", "''") else _WHITESPACE.sub("_", text)


# What Moses does with a token (MosesDetokenizer.tokenize for English, in its order of tests): a CJK first
# character; a currency symbol (shifts right); punctuation (shifts left); an English contraction (shifts left, not
# as the first token); an opening-quote run (alternates); anything else.
_CJK, _CURRENCY, _PUNCT, _CONTRACTION, _QUOTE, _PLAIN = range(6)
_HYPHEN_SPLIT = "@-@"  # Moses rewrites " @-@ " as "-": such a sentence goes through sacremoses itself
_GLUE_CURRENT = frozenset({"’", "'", ".", ":", ",", "-", "_", "$"})  # a rule may fire at such a token
_CACHE_LIMIT = 500_000  # distinct token texts remembered (then forgotten at once and learnt again)


class _TokenClass(NamedTuple):
    """What detokenizing needs to know of one token text."""

    form: str  # normalized_token(text): its characters in the rebuilt sentence
    proxy: str  # what Moses sees
    moses: int  # its Moses class (_CJK .. _PLAIN)
    first_moses: int  # its Moses class as the first token (no contraction there)
    quote: str  # for _QUOTE: the key Moses counts it under
    cjk_last: bool  # Moses: ends with a CJK character (the next CJK token is glued)
    ends_with_s: bool  # Moses: a following "'" is a possessive
    moses_code: str  # "p": plain for Moses in any place (it only takes the space the token before leaves), else "x"
    rule_code: str  # whether a rule of _apply_glue_rules may fire at this token ("c"), the next ("n"), both ("b")


class _TokenClasses(dict[str, _TokenClass]):
    """Token text -> :class:`_TokenClass`, worked out on first sight."""

    def __missing__(self, text: str) -> _TokenClass:
        moses = _moses()
        form = normalized_token(text)
        proxy = _quote_proxy(form) or "_"
        cjk = _is_cjk()
        kinds = (
            [
                (_CJK, bool(cjk(proxy[0]))),
                (_CURRENCY, bool(moses.IS_CURRENCY_SYMBOL.search(proxy))),
                (_PUNCT, bool(moses.IS_PUNCT.search(proxy))),
                (_CONTRACTION, bool(moses.IS_ENGLISH_CONTRACTION.search(proxy))),
                (_QUOTE, bool(moses.IS_OPEN_QUOTE.search(proxy))),
            ]
            if _ported()
            else []  # the sentence goes through sacremoses itself
        )
        kind = next((k for k, found in kinds if found), _PLAIN)
        first = next((k for k, found in kinds if found and k != _CONTRACTION), _PLAIN)
        quote = '"' if re.search(r"^[„“”]+$", proxy) else proxy
        here = text in _GLUE_CURRENT or text[:1] in ("'", "‘")
        after = text.endswith("-") or bool(_INITIAL.match(text))
        info = _TokenClass(
            form,
            proxy,
            kind,
            first,
            quote,
            bool(cjk(proxy[-1])),
            bool(re.search(r"[s]$", proxy)),
            "p" if kind == first == _PLAIN else "x",
            "b" if here and after else "c" if here else "n" if after else "-",
        )
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[text] = info
        return info


_CLASSES = _TokenClasses()


@lru_cache(maxsize=1)
def _is_cjk() -> Any:
    from sacremoses.util import is_cjk

    return is_cjk


@lru_cache(maxsize=1)
def _ported() -> bool:
    """Whether this sacremoses has the patterns the port uses (else every sentence goes through it)."""
    moses = _moses()
    names = ("IS_CURRENCY_SYMBOL", "IS_PUNCT", "IS_ENGLISH_CONTRACTION", "IS_OPEN_QUOTE")
    return all(hasattr(moses, name) for name in names) and moses.lang == "en"


def space_before_flags(texts: Sequence[str]) -> list[bool]:
    """For each token, whether a space precedes it in the detokenized sentence (False for the first)."""
    return _flags_and_classes(texts)[0]


_FORM, _MOSES_CODE, _RULE_CODE = (attrgetter(name) for name in ("form", "moses_code", "rule_code"))
_NOT_PLAIN = re.compile("x")
_RULE_HERE = re.compile("[cb]")
_RULE_NEXT = re.compile("[nb]")


def _flags_and_classes(texts: Sequence[str]) -> tuple[list[bool], list[_TokenClass]]:
    if not texts:
        return [], []
    classes = list(map(_CLASSES.__getitem__, texts))
    if _ported() and _HYPHEN_SPLIT not in texts:  # only the text "@-@" has that proxy
        flags = _moses_flags(classes, "".join(map(_MOSES_CODE, classes)))
    else:
        flags = _sacremoses_flags(texts)
    flags[0] = False
    if texts[0].lower() in _URL_STARTS:  # a sentence that is a URL (ECB+ documents begin with one)
        return [False] * len(texts), classes
    rules = "".join(map(_RULE_CODE, classes))
    if rules.count("-") < len(rules):
        here = {m.start() for m in _RULE_HERE.finditer(rules, 1)}
        starts = sorted(here.union(m.start() + 1 for m in _RULE_NEXT.finditer(rules, 0, len(rules) - 1)))
        _apply_glue_rules(texts, flags, starts)
    return flags, classes


def _moses_flags(classes: Sequence[_TokenClass], codes: str) -> list[bool]:
    """Moses' English detokenization loop on token classes: whether it puts a space before each token. ``codes``:
    the classes' :attr:`_TokenClass.moses_code`; the loop visits only the tokens that are not plain (a plain token
    takes the space the token before leaves, and leaves one)."""
    flags = [True] * len(classes)
    prepend = True  # Moses' prepend_space is " " (False: "")
    counts: dict[str, int] = {}
    last = -1  # the last token visited
    for i in (m.start() for m in _NOT_PLAIN.finditer(codes)):
        if i > last + 1:  # plain tokens in between: the first takes what the last visited one left
            flags[last + 1] = prepend
            prepend = True
        last = i
        token = classes[i]
        previous = classes[i - 1] if i else None
        kind = token.moses if previous is not None else token.first_moses
        if kind == _PLAIN:
            flags[i] = prepend
            prepend = True
        elif kind in (_PUNCT, _CONTRACTION):  # left shift
            flags[i] = False
            prepend = True
        elif kind == _CURRENCY:  # right shift
            flags[i] = prepend
            prepend = False
        elif kind == _CJK:
            flags[i] = prepend and not (previous is not None and previous.cjk_last)
            prepend = True
        else:  # an opening-quote run
            seen = counts.get(token.quote, 0)
            if seen % 2:  # a closing quote: left shift
                flags[i] = False
                prepend = True
                counts[token.quote] = seen + 1
            elif token.proxy == "'" and previous is not None and previous.ends_with_s:  # possessive: left shift
                flags[i] = False
                prepend = True
            else:  # an opening quote: right shift
                flags[i] = prepend
                prepend = False
                counts[token.quote] = seen + 1
    if last + 1 < len(classes):
        flags[last + 1] = prepend
    return flags


def _sacremoses_flags(texts: Sequence[str]) -> list[bool]:
    """The space before each token from sacremoses' detokenized string (the first token's flag is not used)."""
    proxies = [_quote_proxy(normalized_token(t)) or "_" for t in texts]
    detokenized = _moses().detokenize(proxies, unescape=False)
    flags: list[bool] = []
    cursor = 0
    for proxy in proxies:
        start = cursor
        while cursor < len(detokenized) and detokenized[cursor] == " ":
            cursor += 1
        spaced = cursor > start
        if detokenized.startswith(proxy, cursor):
            cursor += len(proxy)
        else:  # the detokenizer rewrote this token; fall back to a space and resynchronise on the next one
            next_space = detokenized.find(" ", cursor)
            cursor = len(detokenized) if next_space < 0 else next_space
            spaced = True
        flags.append(spaced)
    return flags


def _apply_glue_rules(texts: Sequence[str], flags: list[bool], starts: Sequence[int]) -> None:
    """Spacing the detokenizer gets wrong for split-up original tokens (ECB+ splits "U.S.", "6.1", "Lohan’s").
    ``starts``: the positions where a rule may fire, in order (at any other position none does)."""
    for i in starts:
        previous, current = texts[i - 1], texts[i]
        following = texts[i + 1] if i + 1 < len(texts) else ""
        if current == "," and not (previous[-1:].isdigit() or previous.endswith("-")):
            continue  # (the common case) no rule fires at a comma but after a digit or a hyphen
        if current == "." and not (
            following[:1].isdigit()
            or previous.endswith("-")
            or _LETTER.match(previous)
            or following.lower() in _DOMAINS
        ):
            continue  # (the common case) no rule fires at a full stop but for these
        if current in ("’", "'") and following in _CLITIC_AFTER_APOSTROPHE:  # Lohan ’ s -> Lohan’s
            flags[i] = flags[i + 1] = False
        elif _opens_quote(current):  # Vincent 'The Chin' (Moses would glue it like a clitic: Vincent'The)
            flags[i] = True
        elif _INITIAL.match(previous) and _INITIAL.match(current):  # U. S. -> U.S., a. m. -> a.m.
            flags[i] = False
        elif current == "." and _LETTER.match(previous) and _in_initials(texts, i):  # U . S . -> U.S.
            flags[i] = False
            if _LETTER.match(following):
                flags[i + 1] = False
        elif (current in _NUMBER_JOINERS and previous[-1:].isdigit() and following[:1].isdigit()) or (
            current == "," and previous[-1:].isdigit() and re.fullmatch(r"\d{3}", following)
        ):  # 6 . 1 -> 6.1
            flags[i] = flags[i + 1] = False
        elif current == "." and following[:1].isdigit() and previous.istitle():  # Nov . 30 -> Nov. 30
            flags[i], flags[i + 1] = False, True
        elif current == "." and following[:1].isdigit() and not previous[-1:].isdigit():  # a .357 magnum
            flags[i], flags[i + 1] = True, False
        elif current == "-" and previous == "-":  # - - -> --
            flags[i] = False
        elif current == "-" and previous[-1:].isalpha() and following[:1].isdigit():  # CVE - 2013 -> CVE-2013
            flags[i] = flags[i + 1] = False
        elif len(previous) > 1 and previous.endswith("-") and previous[-2].isalnum():  # post- mortem -> post-mortem
            flags[i] = False
        elif current == "." and following.lower() in _DOMAINS and previous[-1:].isalnum():  # hp . com -> hp.com
            flags[i] = flags[i + 1] = False
        elif current == "_":  # crime _ and _ courts -> crime_and_courts
            flags[i] = False
            if following:
                flags[i + 1] = False
        elif (current == "$" and previous.isupper() and previous.isalpha()) or (
            _INITIAL.match(previous) and _LETTER.match(current) and current.isupper()
        ):  # US $ -> US$
            flags[i] = False


def _opens_quote(text: str) -> bool:
    """A token that starts with a quote glued to a word, such as 'The, which is not a clitic such as 's or 've."""
    return (
        len(text) > 1 and text[0] in "'‘" and text[1].isalnum() and text[1:].lower() not in _CLITICS_WITHOUT_APOSTROPHE
    )


def _in_initials(texts: Sequence[str], i: int) -> bool:
    """texts[i] is a "." after a single letter, in a run such as U . S . (at least two letter-dot pairs)."""
    after = i + 2 < len(texts) and _LETTER.match(texts[i + 1]) and texts[i + 2] == "."
    before = i >= 3 and texts[i - 2] == "." and _LETTER.match(texts[i - 3])
    return bool(after or before)


_SPACE_BEFORE = ("", " ")


def rebuild_sentence(tokens: Sequence[SourceToken]) -> tuple[str, list[tuple[int, int]]]:
    """The sentence text and the [start, end) character span of every token in it."""
    if not tokens:
        return "", []
    forms, spaced = _forms_and_spaces(tokens)
    lengths = list(map(len, forms))
    ends = list(accumulate(map(add, lengths, spaced)))
    starts = list(map(sub, ends, lengths))
    text = "".join(map(add, map(_SPACE_BEFORE.__getitem__, spaced), forms))
    assert all(map(eq, map(text.__getitem__, map(slice, starts, ends)), forms)), (tokens, text)
    return text, list(zip(starts, ends, strict=True))


def sentence_text(tokens: Sequence[SourceToken]) -> str:
    """The text of :func:`rebuild_sentence`, without the spans (for a sentence whose tokens are not aligned)."""
    if not tokens:
        return ""
    forms, spaced = _forms_and_spaces(tokens)
    return "".join(map(add, map(_SPACE_BEFORE.__getitem__, spaced), forms))


def _forms_and_spaces(tokens: Sequence[SourceToken]) -> tuple[list[str], list[bool]]:
    """The tokens' forms in the text, and whether a space comes before each."""
    _, texts, _, space_after = zip(*tokens, strict=True)
    spaced, classes = _flags_and_classes(texts)
    known = space_after[:-1]  # the space after a token is the space before the next one
    if known.count(None) < len(known):  # the source knows some spacing: that wins
        spaced = [False] + [k if k is not None else flag for k, flag in zip(known, spaced[1:], strict=True)]
    return list(map(_FORM, classes)), spaced
