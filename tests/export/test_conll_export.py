"""CoNLL-2012 export (ucdcr.export.conll) on the tiny dataset of tests/fixtures/tiny_dataset.py."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from tests.fixtures import tiny_dataset as tiny

from ucdcr.errors import FormatError
from ucdcr.export.conll import export_conll, group_name
from ucdcr.schema import DOCUMENT_SCHEMA, MENTION_SCHEMA


def _tables(split: str, extra: list[dict] | None = None) -> tuple[pa.Table, pa.Table]:
    records = [r for r in tiny.mention_records() if r["split"] == split] + (extra or [])
    rows = [r for r in tiny.document_rows() if r["split"] == split]
    return pa.Table.from_pylist(records, schema=MENTION_SCHEMA), pa.Table.from_pylist(rows, schema=DOCUMENT_SCHEMA)


def _documents(path: Path) -> dict[str, list[str]]:
    """CoNLL document name -> coref column of its token lines."""
    documents: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#begin document"):
            name = line[len("#begin document (") : line.index("); part")]
            documents[name] = []
        elif line and not line.startswith("#end document"):
            documents[name].append(line.split("\t")[-1])
    return documents


def test_group_name() -> None:
    assert group_name("36/36ecb/1", "document") == "36/36ecb/1"
    assert group_name("36/36ecb/1", "subtopic") == "36/36ecb"
    assert group_name("36/36ecb/1", "topic") == "36"


def test_document_level_brackets_and_mapping(tmp_path: Path) -> None:
    mentions, documents = _tables("train")
    summary = export_conll(mentions, documents, "document", tmp_path / "train.conll", chains="id")
    assert (summary.documents, summary.tokens, summary.mentions, summary.chains) == (2, 22, 8, 5)
    docs = _documents(tmp_path / "train.conll")
    assert list(docs) == ["0/s1/d1", "0/s1/d2"]
    # Chain numbers by first appearance: OBAMA 0, VISIT 1, PARIS 2 (d1), MEET 3, SINGLE 4 (d2).
    # d1: "Obama ended the visit to Paris ." / "He flew home ."; VISIT = "the visit to Paris" holds PARIS.
    assert docs["0/s1/d1"] == ["(0)", "-", "(1", "-", "-", "(2)|1)", "-", "(0)", "-", "-", "-"]
    mapping = json.loads((tmp_path / "train.conll.chains.json").read_text(encoding="utf-8"))
    assert mapping["chains"] == {"0": "OBAMA", "1": "VISIT", "2": "PARIS", "3": "MEET", "4": "SINGLE"}
    assert mapping["left_out"] == []


def test_file_layout_has_sentence_breaks_and_tab_columns(tmp_path: Path) -> None:
    mentions, documents = _tables("train")
    export_conll(mentions, documents, "document", tmp_path / "train.conll", chains="id")
    lines = (tmp_path / "train.conll").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "#begin document (0/s1/d1); part 000"
    assert lines[1] == "0/s1/d1\t0\t0\tObama\t(0)"
    assert lines[8] == ""  # after the 7 tokens of sentence 0
    assert lines.count("#end document") == 2


def test_subtopic_and_topic_levels_make_meta_documents(tmp_path: Path) -> None:
    mentions, documents = _tables("test")
    export_conll(mentions, documents, "subtopic", tmp_path / "sub.conll", chains="id")
    export_conll(mentions, documents, "topic", tmp_path / "topic.conll", chains="id")
    subtopics = _documents(tmp_path / "sub.conll")
    assert {name: len(tokens) for name, tokens in subtopics.items()} == {"0/s2": 14, "1/s3": 7}
    train_mentions, train_documents = _tables("train")
    export_conll(train_mentions, train_documents, "subtopic", tmp_path / "train_sub.conll", chains="id")
    meta = _documents(tmp_path / "train_sub.conll")["0/s1"]
    # d1 (11 tokens) then d2: "The president" = OBAMA continues across the document border.
    assert len(meta) == 22 and meta[11] == "(0" and meta[12] == "0)"
    assert list(_documents(tmp_path / "topic.conll")) == ["0", "1"]


def test_repeated_and_crossing_spans_are_left_out_and_listed(tmp_path: Path) -> None:
    first = tiny.mention_records()[1]  # VISIT: d1 sentence 0, tokens 2..5
    repeated = {**first, "mention_id": "REPEAT", "coref_chain": "OTHER"}
    crossing = {**first, "mention_id": "CROSS", "tokens_number": [5, 6], "tokens_text": ["Paris", "."]}
    mentions, documents = _tables("train", [repeated, crossing])
    summary = export_conll(mentions, documents, "document", tmp_path / "x.conll", chains="id")
    assert summary.mentions == 8
    reasons = dict(summary.left_out)
    assert reasons["REPEAT"].startswith("same span as TINY_01 in another chain")
    assert reasons["CROSS"].startswith("crosses TINY_01 of the same chain")
    mapping = json.loads((tmp_path / "x.conll.chains.json").read_text(encoding="utf-8"))
    assert {entry["mention_id"] for entry in mapping["left_out"]} == {"REPEAT", "CROSS"}


def test_unknown_document_or_token_is_an_error(tmp_path: Path) -> None:
    first = tiny.mention_records()[0]
    mentions, documents = _tables("train", [{**first, "mention_id": "LOST", "conll_doc_key": "9/9/9"}])
    with pytest.raises(FormatError, match="mention LOST: document '9/9/9'"):
        export_conll(mentions, documents, "document", tmp_path / "x.conll", chains="id")
    mentions, documents = _tables("train", [{**first, "mention_id": "FAR", "tokens_number": [40]}])
    with pytest.raises(FormatError, match="mention FAR: tokens \\[40\\]"):
        export_conll(mentions, documents, "document", tmp_path / "x.conll", chains="id")


def test_round_trip_export_then_score_gold_against_gold_is_100(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ucdcr.cli.app import app
    from ucdcr.formats.conll2012 import read_conll

    folder = tiny.write_tiny_dataset(tmp_path / "tiny")
    runner = CliRunner()
    result = runner.invoke(
        app, ["export", "conll", str(folder), "--split", "test", "--level", "topic", "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    key = tmp_path / "out" / "tiny_test_topic.conll"
    documents = read_conll(key).documents
    # Topic "0" = d3 (14 tokens); FIRE = "fire" (1) and "The blaze" (7..8); CITY = "the city hall" (3..5), "the city"
    # (11..12). Topic "1" = d4: FIRE = "fire" (3). Chain numbers by first appearance: FIRE 0, CITY 1.
    assert documents["(0); part 000"].chains == {"0": [(1, 1), (7, 8)], "1": [(3, 5), (11, 12)]}
    assert documents["(1); part 000"].chains == {"0": [(3, 3)]}
    scored = runner.invoke(app, ["score", "--json", str(key), str(key)])
    assert scored.exit_code == 0, scored.output
    metrics = json.loads(scored.output)["metrics"]
    assert {name: metrics[name]["f1"] for name in ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")} == {
        "muc": 1.0,
        "bcub": 1.0,
        "ceafm": 1.0,
        "ceafe": 1.0,
        "blanc": 1.0,
        "lea": 1.0,
    }


def test_export_dataset_writes_each_split_with_documents(tmp_path: Path) -> None:
    from ucdcr.export.conll import export_dataset

    folder = tiny.write_tiny_dataset(tmp_path / "Tiny")
    export = export_dataset(folder, tmp_path / "out", level="subtopic", mentions="event")
    # the tiny dataset has train and test documents, none in val (tests/fixtures/tiny_dataset.py)
    assert export.dataset == "tiny" and list(export.splits) == ["train", "val", "test"]
    assert export.splits["val"] is None
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [
        ".ucdcr-export.json",  # the files exports wrote here (ucdcr.export.target)
        "tiny_test_subtopic_event.conll",
        "tiny_test_subtopic_event.conll.chains.json",
        "tiny_train_subtopic_event.conll",
        "tiny_train_subtopic_event.conll.chains.json",
    ]
    train = export.splits["train"]
    assert train is not None and train.conll_path == tmp_path / "out" / "tiny_train_subtopic_event.conll"


@pytest.mark.parametrize(("option", "value"), [("level", "paragraph"), ("mentions", "events")])
def test_export_dataset_refuses_an_unknown_level_or_mention_type(tmp_path: Path, option: str, value: str) -> None:
    from ucdcr.errors import UcdcrError
    from ucdcr.export.conll import export_dataset

    folder = tiny.write_tiny_dataset(tmp_path / "tiny")
    with pytest.raises(UcdcrError, match=f"unknown {option} '{value}'; valid: "):
        export_dataset(folder, tmp_path / "out", **{option: value})
    assert not (tmp_path / "out").exists()


def test_remove_singletons_leaves_out_one_mention_chains_as_the_scorer_does(tmp_path: Path) -> None:
    from ucdcr.scoring.scores import score_files

    mentions, documents = _tables("test")
    full = export_conll(mentions, documents, "topic", tmp_path / "full.conll", chains="id")
    summary = export_conll(mentions, documents, "topic", tmp_path / "kept.conll", remove_singletons=True, chains="id")
    # topic 0: FIRE x2 and CITY x2 (d3); topic 1: FIRE once (d4, mention 12): a singleton in its CoNLL document
    assert summary.removed_singletons == ["TINY_12"]
    assert (full.mentions, summary.mentions, full.chains, summary.chains) == (5, 4, 2, 2)
    mapping = json.loads((tmp_path / "kept.conll.chains.json").read_text(encoding="utf-8"))
    assert mapping["removed_singletons"] == ["TINY_12"]
    assert _documents(tmp_path / "kept.conll")["1"] == ["-"] * 7
    # scoring the file written without them = scoring the full file with the scorer's removal
    removed = score_files(tmp_path / "full.conll", tmp_path / "full.conll", remove_singletons=True)
    written = score_files(tmp_path / "kept.conll", tmp_path / "kept.conll")
    assert removed.removed_singletons == (1, 1)
    assert removed.mentions == written.mentions and dict(removed.metrics) == dict(written.metrics)
    assert "removed_singletons" not in json.loads((tmp_path / "full.conll.chains.json").read_text(encoding="utf-8"))
