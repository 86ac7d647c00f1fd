"""Lexical metrics on hand-computed cases: the worked examples of docs/analysis.md#phrasing-diversity (PD) and
docs/analysis.md#mtld-ucdcr-variant (MTLD)."""

from __future__ import annotations

import pytest
from tests.fixtures.unified import mention

from ucdcr.analysis.diversity import (
    chain_diversity,
    english_stopwords,
    mtld_standard,
    mtld_ucdcr,
    phrasing_diversity,
    scope_diversity,
    table5_row,
)
from ucdcr.io.load import load_mentions


def test_stopword_list_is_nltk_english_179_words() -> None:
    words = english_stopwords()
    assert len(words) == 179  # NLTK's English list (pre-2024 nltk_data) has 179 entries
    assert {"i", "the", "on", "after", "few", "wouldn't"} <= words
    assert "The" not in words  # lowercase only: the PD filter is case-sensitive


@pytest.mark.parametrize(
    ("mentions", "expected"),
    [
        # first worked example: [late Thursday]x3 (head Thursday) + [on Thursday night] (head on): (1/3+1)*2/4
        ([(["late", "Thursday"], "Thursday")] * 3 + [(["on", "Thursday", "night"], "on")], 0.667),
        # [judge]x2 + [James R. Dabney]x2: (1/2+1/2)*2/4; "R." is not a punctuation substring
        ([(["judge"], "judge")] * 2 + [(["James", "R.", "Dabney"], "Dabney")] * 2, 0.5),
        # [he] is all stopwords: skipped but counted in |M| = 5; [Tony Reagins]x4: (1/4)*1/5
        ([(["he"], "he")] + [(["Tony", "Reagins"], "Reagins")] * 4, 0.05),
        # heads minutes / Minutes / couple / after(x2, same word set): (1+1+1+1/2)*4/5
        (
            [
                (["two", "minutes"], "minutes"),
                (["Two", "Minutes", "Later"], "Minutes"),
                (["a", "couple", "of", "minutes"], "couple"),
                (["after", "a", "few", "minutes"], "after"),
                (["after", "a", "few", "minutes"], "after"),
            ],
            2.8,
        ),
        ([(["anything"], "anything")], 1.0),  # a one-mention chain has PD 1 by definition
    ],
)
def test_phrasing_diversity_worked_examples(mentions, expected) -> None:
    assert phrasing_diversity(mentions) == expected


def test_phrasing_diversity_drops_punctuation_substrings() -> None:
    # "()" is a substring of string.punctuation, so it is filtered like "(" (docs/analysis.md#phrasing-diversity);
    # both mentions reduce to {"x"} under head x: U=1, n=2 -> (1/2)*1/2 = 0.25
    assert phrasing_diversity([(["x", "()"], "x"), (["x", ","], "x")]) == 0.25


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        # docs/analysis.md#mtld-ucdcr-variant: forward factor 6 + partial 2*(1-0.72)/0.28 = 2 -> mean 4; backward also 4
        (["judge", "James", "R.", "Dabney", "James", "R.", "Dabney", "judge"], 4.0),
        # forward factors 5, 3, partial 1 -> 3; backward 3, 3, partial 3 -> 3
        (["he"] + ["Tony", "Reagins"] * 4, 3.0),
        (["a", "b", "c"], 3.0),  # one mention of k distinct tokens gives k
        (["a", "a"], 2.0),  # TTR 1/2 closes a factor of 2, no partial
        # no factor closes; the partial 4*(0.75-0.72)/0.28 = 0.4286 is the only element, both directions
        (["a", "b", "c", "a"], 0.12 / 0.28),
    ],
)
def test_mtld_ucdcr_worked_examples(tokens, expected) -> None:
    assert mtld_ucdcr(tokens) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        # forward: factors at 5 and 3 tokens, final [Reagins] TTR 1 adds 0 -> 9/2 = 4.5;
        # backward: factors at 3 and 3 tokens, final [Reagins, Tony, he] TTR 1 adds 0 -> 9/2 = 4.5
        (["he"] + ["Tony", "Reagins"] * 4, 4.5),
        # one factor (6 tokens), final TTR 1 adds 0 -> 8/1 both ways
        (["judge", "James", "R.", "Dabney", "James", "R.", "Dabney", "judge"], 8.0),
        # no factor: partial (1-0.75)/(1-0.72) = 0.892857 -> 4/0.892857 = 4.48 both ways
        (["a", "b", "c", "a"], 4.48),
        (["a", "b", "c"], 3.0),  # undefined (0 factors): reported as the token count
    ],
)
def test_mtld_standard_hand_computed(tokens, expected) -> None:
    assert mtld_standard(tokens) == pytest.approx(expected)


def test_mtld_rejects_empty_chains() -> None:
    with pytest.raises(ValueError):
        mtld_ucdcr([])


def _toy(make_dataset):
    # chain A: lemmas attack/Attack/strike; chain B: attack/bombing; chain C: one mention (a singleton)
    records = [
        mention("A", ["attack"]),
        mention("A", ["Attack"]),
        mention("A", ["strike"]),
        mention("B", ["attack"], doc="d2"),
        mention("B", ["bombing"], doc="d2"),
        mention("C", ["attack"], doc="d3", singleton=True),
    ]
    return load_mentions(make_dataset({("test", "event"): records}))


def test_scope_values_hand_computed(make_dataset) -> None:
    table = _toy(make_dataset)
    chains = chain_diversity(table)
    values = scope_diversity(table, chains, "", "wo_singl")
    assert values is not None
    assert values["average_size"] == 2.5  # (3 + 2) / 2
    assert values["unique_lemmas_avg"] == 2.0  # UL(A) = |{attack, strike}| (lowercased) = 2, UL(B) = 2
    assert values["unique_lemmas_sum"] == 4  # case-sensitive {attack, Attack, strike, bombing}
    assert values["lexical_ambiguity"] == 1.25  # attack: 2 chains, Attack/strike/bombing: 1 each -> 5/4
    assert values["phrasing_diversity_weighted"] == pytest.approx(2.6)  # PD(A)=3*3/3=3, PD(B)=2: (9+4)/5
    assert values["MLTD"] == pytest.approx(2.6)  # all tokens distinct: MTLD(A)=3, MTLD(B)=2: (9+4)/5
    assert values["MTLD_standard"] == pytest.approx(2.6)
    with_singletons = scope_diversity(table, chains, "", "all")
    assert with_singletons is not None and with_singletons["average_size"] == 2.0  # (3+2+1)/3


def test_table5_takes_ul_o_from_the_test_split(make_dataset) -> None:
    table = _toy(make_dataset)
    row = table5_row(table)
    assert row["UL-o"] == 4 and row["AL"] == 1.25 and row["UL-a"] == 2.0
