"""Rebuilding sentence text from original tokens (ucdcr.pipeline.detokenize)."""

from __future__ import annotations

import pytest

from ucdcr.pipeline.detokenize import normalized_token, rebuild_sentence
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
    assert text == expected
    assert [text[a:b] for a, b in spans] == [normalized_token(w) for w in words]


def test_known_spacing_wins() -> None:
    text, spans = rebuild_sentence(tokens("New", "York", "-", "based", space_after=[True, False, False, None]))
    assert text == "New York-based" and spans == [(0, 3), (4, 8), (8, 9), (9, 14)]


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
