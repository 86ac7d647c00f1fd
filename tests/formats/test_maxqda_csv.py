"""MAXQDA CSV export, concept categorisation CSV and news-please JSON: tiny fixtures in the original formats."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.fixtures.raw.newswcl50r import HEADER, maxqda_row, write_article, write_maxqda

from ucdcr.errors import FormatError
from ucdcr.formats.maxqda_csv import (
    find_segment,
    read_concept_types,
    read_maxqda_csv,
    read_news_please_json,
    tokenize,
)


def test_reads_segments_with_bom_quotes_and_line_numbers(tmp_path: Path) -> None:
    path = write_maxqda(
        tmp_path / "1_ComeyMemo.csv",
        [
            maxqda_row("1_L", "USA\\Trump", "President Trump", 1),
            maxqda_row("1_L", "Properties\\Tone", "harsh", 2),
            maxqda_row("1_L", "USA\\Comey", "Matt Smith, the attorney", 3),
        ],
    )
    segments = read_maxqda_csv(path)
    assert [s.code for s in segments] == ["USA\\Trump", "Properties\\Tone", "USA\\Comey"]
    assert segments[0].document == "1_L" and segments[0].beginning == 1 and segments[0].line == 2
    assert segments[2].segment == "Matt Smith, the attorney"  # quoted field with a comma
    assert [s.is_property for s in segments] == [False, True, False]


def test_missing_column_is_a_format_error(tmp_path: Path) -> None:
    path = write_maxqda(tmp_path / "0_x.csv", [["●", "0_L", "A", "x"]], header=HEADER[:4])
    with pytest.raises(FormatError, match=r"0_x.csv:1: missing column\(s\) Segment, Beginning, End"):
        read_maxqda_csv(path)


def test_bad_paragraph_number_names_the_line(tmp_path: Path) -> None:
    rows = [maxqda_row("0_L", "A", "x", 1), maxqda_row("0_L", "A", "y", 1)]
    rows[1][11] = "two"
    path = write_maxqda(tmp_path / "0_x.csv", rows)
    with pytest.raises(FormatError, match=r"0_x.csv:3: column 'Beginning' must be a paragraph number, got 'two'"):
        read_maxqda_csv(path)


def test_end_before_beginning_and_empty_segment_are_errors(tmp_path: Path) -> None:
    path = write_maxqda(tmp_path / "0_x.csv", [maxqda_row("0_L", "A", "x", 3, 2)])
    with pytest.raises(FormatError, match=r":2: 'End' \(2\) is before 'Beginning' \(3\)"):
        read_maxqda_csv(path)
    path = write_maxqda(tmp_path / "0_y.csv", [maxqda_row("0_L", "A", "  ", 1)])
    with pytest.raises(FormatError, match=r"0_y.csv:2: empty 'Segment'"):
        read_maxqda_csv(path)


def test_concept_types(tmp_path: Path) -> None:
    path = tmp_path / "aggr_m_conceptcategorization.csv"
    path.write_text(
        "topic_id,Code,type,comments\n0,Trip to PRK,ACTION,\n0,USA\\Trump,ACTOR,\n"
        '7,"Negotiations with CAN, MEX, EU",EVENT,\n36ecbplus2,Charges,ACTION,\n',
        encoding="utf-8",
    )
    types = read_concept_types(path)
    assert types[("0", "USA\\Trump")] == "ACTOR"
    assert types[("7", "Negotiations with CAN, MEX, EU")] == "EVENT"
    assert len(types) == 4
    path.write_text("topic_id,Code,type,comments\n0,A,ACTOR,\n0,A,ACTION,\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r":3: code 'A' of topic 0 typed both ACTOR and ACTION"):
        read_concept_types(path)


def test_news_please_paragraphs(tmp_path: Path) -> None:
    path = write_article(tmp_path / "1" / "1_L.json", "1_L", "Title here", "", "First para.  \nSecond para.")
    article = read_news_please_json(path)
    assert article.name == "1_L"
    # empty description is skipped: paragraph 1 = title, then the text lines
    assert article.paragraphs == ("Title here", "First para.  ", "Second para.")


def test_news_please_name_from_file_when_source_domain_is_a_domain(tmp_path: Path) -> None:
    path = write_article(tmp_path / "0_L.json", "www.nytimes.com", "T", "", "Body.")
    assert read_news_please_json(path).name == "0_L"
    path = write_article(tmp_path / "0_R.json", "", "T", "", "Body.")
    assert read_news_please_json(path).name == "0_R"


def test_news_please_errors(tmp_path: Path) -> None:
    broken = tmp_path / "b.json"
    broken.write_text('{"title": "x", "text": ', encoding="utf-8")
    with pytest.raises(FormatError, match=r"b.json:1: invalid JSON"):
        read_news_please_json(broken)
    no_text = write_article(tmp_path / "n.json", "0_L", "T", "D", "")
    with pytest.raises(FormatError, match="field 'text' is missing or empty"):
        read_news_please_json(no_text)


def test_find_segment_unifies_quotes_and_whitespace() -> None:
    paragraph = 'He said \u201cno deal\u201d  and   left. He said "no deal" again.'
    spans = find_segment(paragraph, 'said "no deal"')
    assert [paragraph[s:e] for s, e in spans] == ["said \u201cno deal\u201d", 'said "no deal"']
    assert find_segment("and   left", "and left") == [(0, 10)]
    assert find_segment("abc", "xyz") == []


def test_tokenize_keeps_offsets() -> None:
    text = "Mr. Comey's memos, 2018."
    assert [text[s:e] for s, e in tokenize(text)] == ["Mr", ".", "Comey", "'", "s", "memos", ",", "2018", "."]
    # a segment boundary inside a word splits the word there ("Iran" coded inside "Iranian")
    other = "Iranian oil"
    assert [other[s:e] for s, e in tokenize(other, cuts={0, 4})] == ["Iran", "ian", "oil"]
