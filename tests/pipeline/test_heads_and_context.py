"""Head rule (DESIGN.md §4 item 1) and context windows (REFERENCE.md §2.3) on hand-built inputs."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from ucdcr.pipeline.context import SentenceIndex, context_window
from ucdcr.pipeline.heads import syntactic_head
from ucdcr.registry import ContextRule


@dataclass(eq=False)
class Tok:
    i: int
    text: str
    pos_: str = "NOUN"
    head: Tok | None = None
    ancestors: list = field(default_factory=list)


def sentence(words: list[tuple[str, str, int]]) -> list[Tok]:
    """(text, pos, head index) per token; a token whose head is itself is a root."""
    toks = [Tok(i, text, pos) for i, (text, pos, _) in enumerate(words)]
    for tok, (_, _, head) in zip(toks, words):
        tok.head = toks[head]
    for tok in toks:
        node, chain = tok, []
        while node.head is not node:
            node = node.head
            chain.append(node)
        tok.ancestors = chain
    return toks


# "She captured much of the country 's east": captured is the root
SENT = sentence(
    [
        ("She", "PRON", 1),
        ("captured", "VERB", 1),
        ("much", "ADJ", 1),
        ("of", "ADP", 2),
        ("the", "DET", 5),
        ("country", "NOUN", 7),
        ("'s", "PART", 5),
        ("east", "NOUN", 3),
    ]
)


def test_head_is_the_token_whose_head_is_outside() -> None:
    # the reference's rule A would say "country" (head of the first token, REFERENCE.md §2.1); the paper's definition
    # gives the phrase root "east"
    assert syntactic_head(SENT[4:8]).text == "east"


def test_root_inside_span_wins() -> None:
    assert syntactic_head(SENT[0:3]).text == "captured"


def test_single_token() -> None:
    assert syntactic_head(SENT[6:7]).text == "'s"


def test_ties_prefer_content_then_depth_then_left() -> None:
    # "of the" : of -> much (outside), the -> country (outside): two candidates; "the" is a DET, so "of"
    assert syntactic_head(SENT[3:5]).text == "of"
    # "'s east": 's -> country (outside, depth 5), east -> of (outside, depth 3): the shallower "east" wins
    assert syntactic_head(SENT[6:8]).text == "east"
    flat = sentence([("a", "NOUN", 2), ("b", "NOUN", 2), ("c", "VERB", 2)])
    assert syntactic_head(flat[0:2]).text == "a"  # same depth: leftmost


def test_np4e_worked_example_first_token_rule() -> None:
    # docs/build-pipeline.md#first-token-rule, NP4E doc 0/0_bukavu/381791: g = 49, sentence 34..80 (47 tokens),
    # 148 in a sentence ending at 153
    index = SentenceIndex([34, 47, 73, 40])
    window = context_window(index, ContextRule.AROUND_FIRST_TOKEN, 49, 52, 15)
    assert (window.left, window.right, window.sentence_start, window.sentence_end) == (0, 153, 34, 81)


def test_np4e_second_worked_example() -> None:
    # REFERENCE.md §2.3, "Its" in 0/4_tajikistan/360701: g = 141; g - 100 = 41 lies in a sentence starting at 26;
    # right = 242; mention_sentence_start_end = [115, 132]
    index = SentenceIndex([26, 115, 17, 85, 57])
    window = context_window(index, ContextRule.AROUND_FIRST_TOKEN, 141, 141, 0)
    assert (window.left, window.right, window.sentence_start, window.sentence_end) == (26, 242, 115, 132)


def test_ecbplus_worked_example() -> None:
    # REFERENCE.md §1.2: "said" at global 32 (sentence 8..33, 26 tokens) -> context [0, 145], sentence [8, 34]
    index = SentenceIndex([8, 26, 112, 30])
    window = context_window(index, ContextRule.AROUND_FIRST_TOKEN, 32, 32, 24)
    assert (window.left, window.right, window.sentence_start, window.sentence_end) == (0, 145, 8, 34)


@pytest.mark.parametrize(
    ("rule", "first", "last", "local", "expected"),
    [
        # sentences s0 0..99, s1 100..149, s2 150..249, s3 250..299 (N = 300); by hand:
        # g=160: 160-100=60 in s0 -> left 0; min(260, 300)-1 = 259 in s3 -> right 299; s2 -> [150, 250)
        (ContextRule.AROUND_FIRST_TOKEN, 160, 165, 10, (0, 299, 150, 250)),
        # g=260: 160 in s2 -> left 150; right 299; s3 -> [250-150, 299+1-150]
        (ContextRule.AROUND_FIRST_TOKEN, 260, 261, 110, (150, 299, 100, 150)),
        # first token 20, last 60: first_token: min(120, 300)-1 = 119 in s1 -> right 149
        (ContextRule.AROUND_FIRST_TOKEN, 20, 60, 20, (0, 149, 0, 100)),
        # last_token: min(60+100, 299) = 160 in s2 -> right 249; inclusive sentence end 99
        (ContextRule.TO_LAST_TOKEN, 20, 60, 20, (0, 249, 0, 99)),
        # paragraph: the branch test uses the in-paragraph index: 10-100 < 0 -> left 0 although g = 260
        (ContextRule.AROUND_FIRST_TOKEN_BY_PARAGRAPH, 260, 261, 10, (0, 299, 250, 300)),
        (ContextRule.AROUND_FIRST_TOKEN_BY_PARAGRAPH, 260, 261, 110, (150, 299, 100, 150)),
    ],
)
def test_variants(rule: ContextRule, first: int, last: int, local: int, expected: tuple[int, int, int, int]) -> None:
    index = SentenceIndex([100, 50, 100, 50])
    window = context_window(index, rule, first, last, local)
    assert (window.left, window.right, window.sentence_start, window.sentence_end) == expected
