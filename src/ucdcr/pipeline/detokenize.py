"""Rebuild a sentence string from original tokens, remembering where every token sits.

Rule (DESIGN.md §4 item 7): the Moses detokenizer (sacremoses, English) decides where spaces go; a few rules
on top fix what it gets wrong for split-up original tokens (``U . S .``, ``6 . 1``, ``Lohan ’ s``), and LaTeX
quotes: "``" is written as '"' (the reference's rule 0) and "''" stays as it is but counts as a closing quote for
the spacing decision. Clitics ('m 've 're 'll 'd 's) are glued to the word before them ("I'm"), as Moses does:
spaCy then keeps them as one token ("I", "'m"), whereas "I 'm" would come back as "I", "'", "m". ``n't`` keeps
Moses' space: spaCy gives the same tokens for "was n't" and "wasn't", and gluing could build a non-word ("cann't").
Where the source knows the spacing (``SourceToken.space_after``), that wins. Whitespace inside a token (ECB+ has
"Awards\t") is kept: spaCy makes it a whitespace token of its own, as in the reference, and alignment skips it.

Every original token is recoverable: ``text[start:end] == normalized_token(token)`` for its span, which
:func:`rebuild_sentence` checks. The alignment stage maps tokens through these character spans, never by search.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

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


def space_before_flags(texts: Sequence[str]) -> list[bool]:
    """For each token, whether a space precedes it in the detokenized sentence (False for the first)."""
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
    if flags:
        flags[0] = False
    if texts and texts[0].lower() in _URL_STARTS:  # a sentence that is a URL (ECB+ documents begin with one)
        return [False] * len(texts)
    _apply_glue_rules(texts, flags)
    return flags


def _apply_glue_rules(texts: Sequence[str], flags: list[bool]) -> None:
    """Spacing the detokenizer gets wrong for split-up original tokens (ECB+ splits "U.S.", "6.1", "Lohan’s")."""
    for i in range(1, len(texts)):
        previous, current = texts[i - 1], texts[i]
        following = texts[i + 1] if i + 1 < len(texts) else ""
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


def rebuild_sentence(tokens: Sequence[SourceToken]) -> tuple[str, list[tuple[int, int]]]:
    """The sentence text and the [start, end) character span of every token in it."""
    detokenizer_flags = space_before_flags([t.text for t in tokens])
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    length = 0
    for i, token in enumerate(tokens):
        if i:
            known = tokens[i - 1].space_after
            if known if known is not None else detokenizer_flags[i]:
                pieces.append(" ")
                length += 1
        form = normalized_token(token.text)
        spans.append((length, length + len(form)))
        pieces.append(form)
        length += len(form)
    text = "".join(pieces)
    for token, (start, end) in zip(tokens, spans):
        assert text[start:end] == normalized_token(token.text), (token, text)
    return text, spans
