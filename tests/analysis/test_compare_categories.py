"""Categories of context-window differences (ucdcr.analysis.compare._categorize), on hand-made token lists."""

from __future__ import annotations

import pytest

from ucdcr.analysis.compare import CATEGORIES, _categorize, _sentence_agreement


@pytest.mark.parametrize(
    ("ours", "theirs", "expected"),
    [
        # each pair written by hand after an example seen in the ECB+ / NP4E comparison
        (["her", "rep", "says", "x"], ["her", "repsays", "x"], "words_merged"),
        (["at", "11:25", "x"], ["at", "11", ":", "25", "x"], "split_in_theirs"),
        (["the", "playoffs", "-", "and"], ["the", "playoffs-", "and"], "glued_in_theirs"),
        (["x", "I", "'m", "y"], ["x", "I", "'", "m", "y"], "clitic"),
        (["x", "''", "y"], ["x", "'", "'", "y"], "quote"),
        (["x", "http://a.com/b-c", "y"], ["x", "http://a.com/", "b", "-", "c", "y"], "url"),
        (["x", "--", "y"], ["x", "-", "y"], "different_chars"),
        (["x", "y", "z"], ["x", "y"], "window_edge"),
    ],
)
def test_category(ours: list[str], theirs: list[str], expected: str) -> None:
    from difflib import SequenceMatcher

    ops = [op for op in SequenceMatcher(None, ours, theirs, autojunk=False).get_opcodes() if op[0] != "equal"]
    assert [_categorize(ours, theirs, *op[1:]) for op in ops] == [expected]
    assert expected in CATEGORIES


def test_sentence_agreement_reads_sentences_from_the_windows() -> None:
    def row(context: list[str], sentence: list[int]) -> dict:
        return {"mention_context": context, "mention_sentence_start_end": sentence}

    # doc d: sentence 0 = [A, B] on both sides; sentence 1 = [C, D] vs [CD] (hand-made): 1 of 2 identical = 50%
    ours = {("d", 0, (0,)): row(["A", "B", "C", "D"], [0, 2]), ("d", 1, (0,)): row(["A", "B", "C", "D"], [2, 4])}
    theirs = {("d", 0, (0,)): row(["A", "B", "CD"], [0, 2]), ("d", 1, (0,)): row(["A", "B", "CD"], [2, 3])}
    assert _sentence_agreement(ours, theirs) == 50.0
