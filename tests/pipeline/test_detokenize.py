"""Rebuilding sentence text from original tokens (ucdcr.pipeline.detokenize)."""

from __future__ import annotations

import pytest

from ucdcr.pipeline.detokenize import normalized_token, rebuild_sentence, sentence_text
from ucdcr.records import SourceToken


def tokens(*texts: str, space_after: list[bool | None] | None = None) -> list[SourceToken]:
    spaces = space_after or [None] * len(texts)
    return [SourceToken(str(i), text, 0, spaces[i]) for i, text in enumerate(texts)]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        # expected strings written by hand from the rules in the module docstring
        (
            ["Zaire", "'s", "government", ",", "hard", "-", "to", "-", "understand", "."],
            "Zaire's government, hard - to - understand.",
        ),
        (["He", "said", "``", "no", "''", "."], "He said \"no''."),
        (["the", "U", ".", "S", ".", "Geological", "Survey"], "the U.S. Geological Survey"),
        (
            ["a", "magnitude", "6", ".", "1", "quake", "at", "9", ":", "36", "a.", "m."],
            "a magnitude 6.1 quake at 9:36 a.m.",
        ),
        (["Lohan", "’", "s", "lawyer"], "Lohan’s lawyer"),
        (["I", "'m", "sure", "it", "was", "n't"], "I'm sure it was n't"),
        (["Nov", ".", "30", ",", "2013", "4", ",", "051", "people"], "Nov. 30, 2013 4,051 people"),
        (["a", ".", "357", "magnum"], "a .357 magnum"),
        (["wait", "-", "-", "what", "(", "really", ")", "?"], "wait -- what (really)?"),
        (
            ["boss", "Vincent", "'The", "Chin'", "Gigante", "we", "'re", "in", "the", "'90s"],
            "boss Vincent 'The Chin' Gigante we're in the '90s",
        ),
    ],
)
def test_rebuilt_text(words: list[str], expected: str) -> None:
    text, spans = rebuild_sentence(tokens(*words))
    assert text == expected == sentence_text(tokens(*words))
    assert [text[a:b] for a, b in spans] == [normalized_token(w) for w in words]


def test_known_spacing_wins() -> None:
    words = tokens("New", "York", "-", "based", space_after=[True, False, False, None])
    text, spans = rebuild_sentence(words)
    assert text == "New York-based" == sentence_text(words) and spans == [(0, 3), (4, 8), (8, 9), (9, 14)]


def test_every_token_recoverable_even_odd_ones() -> None:
    words = ["", "a\tb", "``", "''", "&amp;", "http://x.org/a_b", "."]
    text, spans = rebuild_sentence(tokens(*words))
    assert [text[a:b] for a, b in spans] == ["", "a\tb", '"', "''", "&amp;", "http://x.org/a_b", "."]


@pytest.mark.parametrize(
    ("word", "clitic"), [("I", "'m"), ("we", "'ve"), ("you", "'re"), ("they", "'ll"), ("she", "'d")]
)
def test_clitic_stays_one_token_after_retokenization(word: str, clitic: str) -> None:
    # "I 'm" would come back from spaCy as "I", "'", "m" (measured); glued, the clitic is one token again
    from ucdcr.pipeline import nlp

    text, _ = rebuild_sentence(tokens(word, clitic, "gone"))
    assert text == f"{word}{clitic} gone"
    assert [t.text for t in nlp.tokenize(text)] == [word, clitic, "gone"]


def _spaced(tokens: str) -> list[str]:
    return tokens.split(" ")


# Tokens on which Moses and the rules decide something: quotes of every kind, currency, punctuation, contractions,
# CJK (also the first and last code point of a CJK range), whitespace inside a token, the "@-@" Moses rewrites,
# initials, numbers, hyphens, URLs.
TRICKY = [
    *_spaced("' \" `` '' ` „ “ ” ‘ ’ ''' „“ ''s 's 'S 'm 're 've 'll 'd n't 'The '90s Chin' s Jones dogs"),
    *_spaced("$ US € £ ( [ { ¿ ¡ $( , . ? ! : ; \\ % } ] ) ., ... - -- _ @-@ @"),
    *_spaced("東 京 ᄀ ᇿ 가 日本 a東 東a U S U. S. a. m. 6 1 051 2013 Nov CVE post- hp com http www word the I was é"),
    *["Ελλάδα", "", " ", "a\tb", "\u00a0", "x\u2028y"],
]


def _reference_flags(texts: list[str]) -> list[bool]:
    """The flags as sacremoses' detokenized string and every rule at every position give them."""
    from ucdcr.pipeline import detokenize

    flags = detokenize._sacremoses_flags(texts)
    if flags:
        flags[0] = False
    if texts and texts[0].lower() in detokenize._URL_STARTS:
        return [False] * len(texts)
    detokenize._apply_glue_rules(texts, flags, range(1, len(texts)))
    return flags


def test_port_of_moses_gives_sacremoses_spacing() -> None:
    # the port of Moses' loop over token classes, and the rules run only where one may fire, against sacremoses'
    # string and every rule at every position, on random sentences of tricky tokens
    import random

    from ucdcr.pipeline.detokenize import space_before_flags

    generator = random.Random(41)
    for _ in range(4000):
        texts = [generator.choice(TRICKY) for _ in range(generator.randint(1, 12))]
        assert space_before_flags(texts) == _reference_flags(texts), texts
