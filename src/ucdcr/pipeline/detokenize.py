"""Rebuild a sentence string from original tokens, remembering where every token sits.

Rule (DESIGN.md §4 item 7): the Moses detokenizer (sacremoses, English) decides where spaces go; a few rules
on top fix what it leaves spaced (contraction pieces such as ``n't``) and LaTeX quotes: "``" is written as '"'
(the reference's rule 0) and "''" stays as it is but counts as a closing quote for the spacing decision.
Where the source knows the spacing (``SourceToken.space_after``), that wins. Characters inside a token that are
whitespace become plain spaces (one for one).

Every original token is recoverable: ``text[start:end] == normalized_token(token)`` for its span, which
:func:`rebuild_sentence` checks. The alignment stage maps tokens through these character spans, never by search.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ucdcr.records import SourceToken

_WHITESPACE = re.compile(r"\s")
_GLUED_LEFT = {"n't", "N'T", "'s", "'S", "'re", "'ll", "'ve", "'m", "'d", "'RE", "'LL", "'VE", "'M", "'D"}


@lru_cache(maxsize=1)
def _moses():  # noqa: ANN202 - sacremoses has no types
    from sacremoses import MosesDetokenizer

    return MosesDetokenizer(lang="en")


def normalized_token(text: str) -> str:
    """The form a token takes in the rebuilt text."""
    return _WHITESPACE.sub(" ", text.replace("``", '"'))


def _quote_proxy(text: str) -> str:
    return '"' if text in ("``", "''") else text


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
    for i, text in enumerate(texts):
        if i and text in _GLUED_LEFT:
            flags[i] = False
    return flags


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
