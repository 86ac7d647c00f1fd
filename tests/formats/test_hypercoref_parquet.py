"""HyperCoref CreateSplitsStage parquet files, written as pandas + pyarrow write them (index levels as columns)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.fixtures.raw.hypercoref import write_parquet, write_split

from ucdcr.errors import FormatError
from ucdcr.formats.hypercoref_parquet import (
    read_hyperlinks,
    read_sentences,
    read_tokens,
    space_after_flags,
    url_structure,
)

DOCS = {
    "bbc.com/sport/football/40001": ["Arsenal beat Chelsea on Sunday~ .", 'It was " big~ " .'],
    "bbc.com/news/world-europe-40003": ["Angela Merkel spoke ."],
}


def test_reads_the_three_tables(tmp_path: Path) -> None:
    write_split(tmp_path, DOCS, [(17, "bbc.com/sport/football/40001", "bbc.com/sport/football/39999", 0, 1, 2)])
    link = read_hyperlinks(tmp_path / "hyperlinks.parquet")[0]
    assert (link.row, link.target, link.sentence, link.token_from, link.token_to) == (
        17,
        "bbc.com/sport/football/39999",
        0,
        1,
        2,
    )
    assert (link.chars_start, link.chars_end) == (8, 12)  # "beat"
    tokens = read_tokens(tmp_path / "tokens.parquet", {"bbc.com/sport/football/40001"})
    assert list(tokens) == ["bbc.com/sport/football/40001"]  # filtered to the wanted documents
    assert tokens["bbc.com/sport/football/40001"][:2] == [(0, 0, "Arsenal"), (0, 1, "beat")]
    sentences = read_sentences(tmp_path / "sentences.parquet", {"bbc.com/sport/football/40001"})
    assert sentences[("bbc.com/sport/football/40001", 1)] == 'It was " big" .'


def test_range_index_gives_row_numbers(tmp_path: Path) -> None:
    url = "bbc.com/sport/football/40001"
    write_split(tmp_path, DOCS, [(0, url, "a", 0, 0, 1), (0, url, "b", 0, 2, 3)], range_index=True)
    assert [link.row for link in read_hyperlinks(tmp_path / "hyperlinks.parquet")] == [0, 1]


def test_missing_column_and_bad_span(tmp_path: Path) -> None:
    write_parquet(tmp_path / "hyperlinks.parquet", {"url-normalized": ["x"], "sentence-idx": [0]}, [])
    with pytest.raises(FormatError, match=r"hyperlinks.parquet: missing column\(s\) to-url-normalized, chars-start"):
        read_hyperlinks(tmp_path / "hyperlinks.parquet")
    write_split(tmp_path / "b", DOCS, [(5, "bbc.com/sport/football/40001", "t", 0, 2, 2)])
    with pytest.raises(FormatError, match=r"hyperlink 5: bad token span 2..2"):
        read_hyperlinks(tmp_path / "b" / "hyperlinks.parquet")
    (tmp_path / "c.parquet").write_text("not parquet")
    with pytest.raises(FormatError, match="not a readable parquet file"):
        read_sentences(tmp_path / "c.parquet", {"x"})


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("bbc.com/sport/winter-olympics/42123242", ("Sport", "bbc_winter")),  # docstring example of uCDCR
        ("bbc.com/news/world-europe-40003", ("News", "bbc_world")),
        ("bbc.com/sport/0/football/27993322", ("Sport", "bbc_football")),
        ("bbc.com/news/0/12345", ("News", "bbc_news")),
        ("bbc.com/news/40003", ("News", "bbc_news")),
        ("bbc.com/news", ("News", "bbc_news")),
        ("abcnews.go.com/Politics/Trump-visit/story", ("Politics", "abcnews_trump-visit")),
        ("abcnews.go.com/international/story", ("Misc", "abcnews_misc")),
    ],
)
def test_url_structure(url: str, expected: tuple[str, str]) -> None:
    assert url_structure(url) == expected


def test_space_after_flags() -> None:
    assert space_after_flags(["Sunday", ".", "It", "zzz"], "Sunday. It") == [False, True, False, None]
