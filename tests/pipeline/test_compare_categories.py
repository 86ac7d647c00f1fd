"""Categories of context-window differences (ucdcr.pipeline.compare._categorize), on hand-made token lists."""

from __future__ import annotations

import pytest

from ucdcr.pipeline.compare import CATEGORIES, _categorize


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
