"""The document viewer (ucdcr.report.viewer) and `ucdcr view` on the tiny dataset."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pyarrow as pa
import pytest
from tests.fixtures.tiny_dataset import document_rows, mention_records, write_tiny_dataset
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.errors import UcdcrError
from ucdcr.report.viewer import page_name, render_document
from ucdcr.schema import DOCUMENT_SCHEMA, MENTION_SCHEMA


def _tables(extra: list[dict] | None = None) -> tuple[pa.Table, pa.Table]:
    return (
        pa.Table.from_pylist(mention_records() + (extra or []), schema=MENTION_SCHEMA),
        pa.Table.from_pylist(document_rows(), schema=DOCUMENT_SCHEMA),
    )


class _Spans(HTMLParser):
    """Collects the text inside each mention span (by id) and checks that tags are balanced."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str | None] = []
        self.text: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "span":
            values = dict(attrs)
            ident = values.get("id")
            if ident and ident.startswith("m-"):
                self.stack.append(ident[2:])
                self.text[ident[2:]] = ""
            else:  # a further piece of a mention drawn in pieces, or no mention
                self.stack.append(values.get("data-part"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "span":
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        for ident in self.stack:
            if ident:
                self.text[ident] += data


def test_every_mention_of_the_document_is_a_span_with_its_text() -> None:
    mentions, documents = _tables()
    page = render_document("tiny", mentions, documents, "0/s1/d1")
    parser = _Spans()
    parser.feed(page)
    assert parser.stack == []
    # d1 mentions TINY_00..03 (tiny_dataset.MENTIONS); VISIT holds the nested PARIS span.
    assert parser.text == {"TINY_00": "Obama", "TINY_01": "the visit to Paris", "TINY_02": "Paris", "TINY_03": "He"}
    assert 'title="chain VISIT | type EVENT | head Paris | TINY_01"' in page


def test_chain_list_links_to_the_other_documents_of_the_chain() -> None:
    mentions, documents = _tables()
    page = render_document("tiny", mentions, documents, "0/s1/d1", linked={"0/s1/d2"})
    # OBAMA continues in d2; the link targets that document's page file.
    assert f'href="{page_name("0/s1/d2")}"' in page
    assert "only in this document" in page  # VISIT and PARIS
    page_d3 = render_document("tiny", mentions, documents, "0/s2/d3", linked={"1/s3/d4"})
    assert f'href="{page_name("1/s3/d4")}"' in page_d3 and "(other subtopic)" in page_d3


def test_documents_without_a_page_are_named_not_linked() -> None:
    mentions, documents = _tables()
    page = render_document("tiny", mentions, documents, "0/s1/d1")
    assert "href=" not in page
    assert '<span class="nopage" title="no page written; `ucdcr view tiny 0/s1/d2` writes it">0/s1/d2</span>' in page


def test_crossing_mentions_are_drawn_in_pieces() -> None:
    visit = mention_records()[1]  # tokens 2..5 of d1 sentence 0
    crossing = {**visit, "mention_id": "CROSS", "coref_chain": "X", "tokens_number": [4, 5, 6]}
    mentions, documents = _tables([crossing])
    page = render_document("tiny", mentions, documents, "0/s1/d1")
    parser = _Spans()
    parser.feed(page)
    assert parser.stack == []
    assert parser.text["CROSS"].replace(" ", "") == "toParis."
    # CROSS opens inside VISIT and outlives it: closed with VISIT at "Paris", reopened for ".".
    assert 'data-part="CROSS"' in page
    assert len(re.findall(r'id="m-CROSS"', page)) == 1


def test_page_is_self_contained_and_deterministic() -> None:
    mentions, documents = _tables()
    page = render_document("tiny", mentions, documents, "0/s2/d3")
    assert page == render_document("tiny", mentions, documents, "0/s2/d3")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<link" not in page


def test_unknown_document_names_known_keys() -> None:
    mentions, documents = _tables()
    with pytest.raises(UcdcrError, match="'9/9/9' is not in the document table; keys look like: 0/s1/d1"):
        render_document("tiny", mentions, documents, "9/9/9")


def _links(page: Path) -> list[str]:
    return re.findall(r'href="([^"]+)"', page.read_text(encoding="utf-8"))


def test_view_command_writes_the_subtopic_pages(tmp_path: Path) -> None:
    folder = write_tiny_dataset(tmp_path / "tiny")
    out = tmp_path / "pages" / "d1.html"
    result = CliRunner().invoke(app, ["view", str(folder), "0/s1/d1", "--out", str(out), "--subtopic"])
    assert result.exit_code == 0, result.output
    d2 = out.parent / page_name("0/s1/d2")
    assert out.is_file() and d2.is_file()
    assert 'id="m-TINY_04"' in d2.read_text(encoding="utf-8")
    # every page written is named with its absolute path
    assert f"wrote {out.resolve()}" in result.output and f"wrote {d2.resolve()}" in result.output
    # d1 links to d2 (written); d2's link back to d1 would need view_0_s1_d1.html, but d1 went to d1.html
    assert _links(out) == [page_name("0/s1/d2")] and _links(d2) == []


def test_view_links_only_pages_that_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = write_tiny_dataset(tmp_path / "tiny")
    monkeypatch.chdir(tmp_path)
    first = CliRunner().invoke(app, ["view", str(folder), "0/s1/d1"])
    assert first.exit_code == 0, first.output
    d1 = tmp_path / page_name("0/s1/d1")
    assert f"wrote {d1}" in first.output
    assert _links(d1) == []  # d2's page was not written: no link pointing nowhere
    second = CliRunner().invoke(app, ["view", str(folder), "0/s1/d2"])
    assert second.exit_code == 0, second.output
    assert _links(tmp_path / page_name("0/s1/d2")) == [page_name("0/s1/d1")]  # d1's page is there now
    for href in _links(tmp_path / page_name("0/s1/d2")):
        assert (tmp_path / href).is_file()


def test_view_out_must_be_writable(tmp_path: Path) -> None:
    folder = write_tiny_dataset(tmp_path / "tiny")
    (tmp_path / "a_file").write_text("x")
    result = CliRunner().invoke(app, ["view", str(folder), "0/s1/d1", "--out", str(tmp_path / "a_file" / "p.html")])
    assert result.exit_code == 2 and f"{tmp_path / 'a_file'} is a file, not a folder" in result.output
    result = CliRunner().invoke(app, ["view", str(folder), "0/s1/d1", "--out", str(tmp_path)])
    assert result.exit_code == 2 and f"{tmp_path} is a folder, not a file" in result.output


def _sentence_windows(records: list[dict]) -> list[dict]:
    """d3's mentions with context windows of their own sentence only, sentence 0 cut before its final "."."""
    sentences = [s.split() for s in ("A fire destroyed the city hall .", "The blaze spread in the city .")]
    windowed = []
    for record in records:
        sent = record["sent_id"]
        words = sentences[sent][:6] if sent == 0 else sentences[sent]
        first = 0 if sent == 0 else 7  # document-global id of the window's first token
        windowed.append(
            {
                **record,
                "mention_context": words,
                "context_start_end_global_id": [first, first + len(words) - 1],
                "mention_sentence_start_end": [0, len(words)],
                "tokens_number_context": list(record["tokens_number"]),
            }
        )
    return windowed


def test_without_texts_the_page_is_rebuilt_from_the_context_windows() -> None:
    records = _sentence_windows([r for r in mention_records() if r["conll_doc_key"] == "0/s2/d3"])
    mentions = pa.Table.from_pylist(records, schema=MENTION_SCHEMA)
    page = render_document("tiny", mentions, None, "0/s2/d3")
    parser = _Spans()
    parser.feed(page)
    assert parser.stack == []
    # d3: FIRE "fire", CITY "the city hall" (sentence 0), FIRE "The blaze", CITY "the city" (sentence 1).
    assert {key: text.strip() for key, text in parser.text.items()} == {
        "TINY_08": "fire",
        "TINY_09": "the city hall",
        "TINY_10": "The blaze",
        "TINY_11": "the city",
    }
    # Global id 6 (sentence 0's ".") is in no window: one gap mark between the two sentences.
    assert page.count('<p class="gap">…</p>') == 1
    assert "texts of this dataset are not shared" in page
    assert "13 tokens" in page  # 6 + 7 tokens from the windows


def test_view_command_without_a_document_table(tmp_path: Path) -> None:
    folder = write_tiny_dataset(tmp_path / "tiny")
    (folder / "all_documents.parquet").unlink()
    out = tmp_path / "page.html"
    result = CliRunner().invoke(app, ["view", str(folder), "1/s3/d4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())  # the console wraps long lines at its width
    assert "the page shows the mentions' context windows" in said
    assert 'id="m-TINY_12"' in out.read_text(encoding="utf-8")


def test_export_conll_says_where_it_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # like `view` and `report`, `export conll` writes into the current folder by default: it names the absolute paths
    folder = write_tiny_dataset(tmp_path / "tiny")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["export", "conll", str(folder), "--split", "test"])
    assert result.exit_code == 0, result.output
    written = tmp_path / "conll" / "tiny_test_document.conll"
    assert written.is_file() and result.output.startswith(f"wrote {written}: ")
