"""HyperCoref CreateSplitsStage parquet files, written as pandas + pyarrow write them (index levels as columns)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ucdcr.errors import FormatError
from ucdcr.formats.hypercoref_parquet import (
    read_hyperlinks,
    read_sentences,
    read_tokens,
    space_after_flags,
    url_structure,
)


def _write(path: Path, columns: dict[str, list], index_columns: list) -> Path:
    """A parquet file with the pandas metadata pandas.to_parquet(engine="pyarrow") writes for these index columns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.table(columns)
    pandas_meta = {"index_columns": index_columns, "column_indexes": [], "columns": [], "pandas_version": "1.3.5"}
    table = table.replace_schema_metadata({b"pandas": json.dumps(pandas_meta).encode()})
    pq.write_table(table, path)
    return path


def write_split(folder: Path, documents: dict[str, list[str]], links: list[tuple], range_index: bool = False) -> None:
    """tokens/sentences/hyperlinks.parquet of one split.

    documents: url -> sentences (tokens separated by single spaces; "~" glues a token to the next without space);
    links: (row id, url, target, sentence, token_from, token_to).
    """
    tokens = {"url-normalized": [], "sentence-idx": [], "token-idx": [], "token": []}
    sentences = {"url-normalized": [], "sentence-idx": [], "sentence": []}
    strings: dict[tuple[str, int], tuple[str, list[tuple[int, int]]]] = {}
    for url, sents in documents.items():
        for s, sentence in enumerate(sents):
            text, offsets = "", []
            for t, written in enumerate(sentence.split(" ")):
                glued = written.endswith("~")
                word = written.rstrip("~")
                offsets.append((len(text), len(text) + len(word)))
                text += word + ("" if glued else " ")
                tokens["url-normalized"].append(url)
                tokens["sentence-idx"].append(s)
                tokens["token-idx"].append(t)
                tokens["token"].append(word)
            sentences["url-normalized"].append(url)
            sentences["sentence-idx"].append(s)
            sentences["sentence"].append(text.rstrip())
            strings[(url, s)] = (text, offsets)
    _write(folder / "tokens.parquet", tokens, ["url-normalized", "sentence-idx", "token-idx"])
    _write(folder / "sentences.parquet", sentences, ["url-normalized", "sentence-idx"])
    hyperlinks = {
        "to-url": [],
        "sentence-idx": [],
        "chars-start": [],
        "chars-end": [],
        "url-normalized": [],
        "to-url-normalized": [],
        "token-idx-from": [],
        "token-idx-to": [],
    }
    for _, url, target, sentence, start, end in links:
        offsets = strings[(url, sentence)][1]
        hyperlinks["to-url"].append("https://www." + target)
        hyperlinks["sentence-idx"].append(sentence)
        hyperlinks["chars-start"].append(offsets[start][0])
        hyperlinks["chars-end"].append(offsets[end - 1][1])
        hyperlinks["url-normalized"].append(url)
        hyperlinks["to-url-normalized"].append(target)
        hyperlinks["token-idx-from"].append(start)
        hyperlinks["token-idx-to"].append(end)
    if range_index:
        index: list = [{"kind": "range", "name": None, "start": 0, "stop": len(links), "step": 1}]
    else:
        hyperlinks["__index_level_0__"] = [link[0] for link in links]
        index = ["__index_level_0__"]
    _write(folder / "hyperlinks.parquet", hyperlinks, index)


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
    _write(tmp_path / "hyperlinks.parquet", {"url-normalized": ["x"], "sentence-idx": [0]}, [])
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
