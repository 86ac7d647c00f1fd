"""NewsWCL50r on the real annotations in ../shared/raw/NewsWCL50r (the article texts are not public).

Expected numbers and their sources:
- 9,746 CSV rows, 2,715 of them ``Properties`` codes, 312 ACTOR-I segments: counted in the ten csv_export files
  (csv module, by hand: ``grep -c`` agrees on rows).
- 433 chains, 145 in val and 288 in test: paper Table 2 (NewsWCL50r chains 433) and Table 4 (val 2740 / 145,
  test 3791 / 288 after the REFERENCE.md §8 correction of "686" to 288), declared in ucdcr/datasets/newswcl50r.py
  with the 50 documents and 10 topics of paper Table 2.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from tests.conftest import require

from ucdcr.datasets.newswcl50r import NewsWCL50rOptions, load_annotations, read_newswcl50r
from ucdcr.errors import MissingRawData
from ucdcr.registry import get


@pytest.fixture(scope="module")
def raw(raw_dir: Path) -> Path:
    return require(raw_dir / "NewsWCL50r" / "NewsWCL50r" / "csv_export").parent.parent


def test_real_annotations_load(raw: Path) -> None:
    segments, types, _inputs = load_annotations(raw)
    rows = [row for rows in segments.values() for row in rows]
    spec = get("newswcl50r")
    assert len(segments) == spec.expected("topics") and len(rows) == 9746  # CSV rows, counted (see above)
    assert sum(row.is_property for row in rows) == spec.expected("reader_properties_codes")
    typed = [(stem.split("_")[0], row) for stem, rows in segments.items() for row in rows if not row.is_property]
    assert all((topic, row.code) in types for topic, row in typed)  # every code has a type
    assert sum(types[(topic, row.code)] == "ACTOR-I" for topic, row in typed) == 312
    assert len({row.document for row in rows}) == spec.expected("documents")


def test_no_texts_gives_the_manual_steps(raw: Path) -> None:
    with pytest.raises(MissingRawData) as info:
        get("newswcl50r").read(raw)
    message = str(info.value)
    assert "article texts are not available" in message
    assert "urls.tsv" in message and "--texts DIR" in message and "zhukova@gipplab.org" in message


def _synthetic_texts(raw: Path, folder: Path) -> None:
    """Stand-in articles: paragraph p of a document is its distinct segments coded at p, joined by " | "."""
    segments, _, _ = load_annotations(raw)
    paragraphs: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for rows in segments.values():
        for row in rows:
            if row.segment not in paragraphs[row.document][row.beginning]:
                paragraphs[row.document][row.beginning].append(row.segment)
    for name, by_number in paragraphs.items():
        lines = [" | ".join(by_number.get(p, [])) or "-" for p in range(1, max(by_number) + 1)]
        record = {"title": lines[0], "description": "", "text": "\n".join(lines[1:]) or "-", "source_domain": name}
        (folder / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")


def test_real_annotations_through_the_reader(raw: Path, tmp_path: Path) -> None:
    _synthetic_texts(raw, tmp_path)
    spec = get("newswcl50r")
    corpus = read_newswcl50r(raw, NewsWCL50rOptions(texts_dir=tmp_path))
    assert len(corpus.documents) == spec.expected("documents")
    assert len({d.topic_id for d in corpus.documents}) == spec.expected("topics")
    assert corpus.counts["annotated"] == spec.expected("mentions_annotated")
    # nothing lost silently: every annotated segment is a mention or a DroppedMention
    assert len(corpus.mentions) + len(corpus.dropped) == corpus.counts["annotated"]
    assert Counter(d.reason for d in corpus.dropped)["type ACTOR-I is excluded (uCDCR rule)"] == 312
    split_of = {d.doc_key: d.split for d in corpus.documents}
    chains = {split: {m.chain_id for m in corpus.mentions if split_of[m.doc_key] == split} for split in ("val", "test")}
    assert len(chains["val"]) == spec.expected("val.chains") and len(chains["test"]) == spec.expected("test.chains")
    assert Counter(m.kind for m in corpus.mentions).keys() == {"event", "entity"}


def test_build_without_texts_stops_with_the_manual_steps(raw_dir: Path, tmp_path: Path) -> None:
    from ucdcr.pipeline.build import build_dataset

    require(raw_dir / "NewsWCL50r")
    with pytest.raises(MissingRawData, match="article texts are not available") as info:
        build_dataset("newswcl50r", raw_dir=raw_dir, data_dir=tmp_path, jobs=1, progress=False)
    assert "https://github.com/fhamborg/NewsWCL50" in str(info.value)
    assert not (tmp_path / "newswcl50r").exists()  # nothing written
