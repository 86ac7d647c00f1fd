"""build_dataset end to end on a tiny ECB+ raw folder (real spaCy model), and the DatasetSpec options it honours."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from tests.fixtures.raw.ecbplus import write_ecbplus_raw

from ucdcr.errors import FormatError, InvariantError, MissingRawData
from ucdcr.pipeline import build as build_module
from ucdcr.pipeline.build import build_dataset
from ucdcr.records import DroppedMention, GivenHead, MentionRecord
from ucdcr.registry import ContextRule, get
from ucdcr.schema import MENTION_FIELDS


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_ecbplus_raw(tmp_path_factory.mktemp("raw"))


@pytest.fixture(scope="module")
def built(raw: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    data = tmp_path_factory.mktemp("data")
    report = build_dataset("ecbplus", raw_dir=raw, data_dir=data, jobs=1, progress=False)
    return data / "ecbplus", report


def load(folder: Path, split: str, kind: str) -> list[dict]:
    return json.loads((folder / split / f"{kind}_mentions.json").read_text(encoding="utf-8"))


def files_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_layout_fields_and_counts(built: tuple[Path, Any]) -> None:
    folder, report = built
    names = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert names == ["all_documents.parquet", "all_mentions.parquet", "build_report.json"] + [
        f"{s}/{k}_mentions.json" for s in ("test", "train", "val") for k in ("entity", "event")
    ]
    train_events = load(folder, "train", "event")
    assert all(tuple(r) == MENTION_FIELDS for r in train_events)
    # fixture: 13 mentions in validated sentences (tests/fixtures/raw/ecbplus.py), none lost
    assert report.counts["mentions_annotated"] == report.counts["mentions_written"] == 13
    assert report.parse_rate == 100.0 and report.dropped == []
    assert {s: c["mentions"] for s, c in report.splits.items()} == {"train": 9, "val": 2, "test": 2}
    assert pq.read_table(folder / "all_mentions.parquet").num_rows == 13


def test_mention_records(built: tuple[Path, Any]) -> None:
    folder, _ = built
    events = {r["tokens_str"]: r for r in load(folder, "train", "event")}
    entities = {r["tokens_str"]: r for r in load(folder, "train", "entity")}
    checked = events["checked into"]
    assert checked["coref_chain"] == "ACT1" and checked["mention_head"] == "checked"
    assert checked["mention_head_lemma"] == "check" and checked["mention_head_pos"] == "VERB"
    assert (
        checked["conll_doc_key"] == "1/1ecb/1" and checked["doc"] == "1_1ecb" and checked["subtopic"] == "subtopic 1ecb"
    )
    assert checked["tokens_number"] == [2, 3] and checked["is_singleton"] is False  # ACT1 also in 1_2ecb (train)
    # the validated sentence has 8 tokens, the second sentence 9 (spaCy keeps "was n't" as two tokens)
    assert checked["context_start_end_global_id"] == [0, 16] and checked["mention_sentence_start_end"] == [0, 8]
    assert events["checked"]["mention_full_type"] == "NEG_ACTION_OCCURRENCE"  # 1_1ecbplus: NEG_* is an event
    assert entities["on Tuesday"]["is_singleton"] is True and entities["on Tuesday"]["mention_head"] == "on"
    # "U . S ." is rebuilt as "U.S." (one spaCy token), so the mention starts at token 8, not 11
    assert entities["actress's rep"]["tokens_text"] == ["actress", "'s", "rep"]
    assert (
        entities["actress's rep"]["tokens_number"] == [8, 9, 10] and entities["actress's rep"]["mention_head"] == "rep"
    )
    assert entities["Tara Reid"]["mention_ner"] == "PERSON"
    assert entities["Tara Reid"]["mention_id"].startswith("ECBPlus_1_1ecb_1_0_1_")


def test_documents_table(built: tuple[Path, Any]) -> None:
    folder, _ = built
    rows = pq.read_table(folder / "all_documents.parquet").to_pylist()
    first = [r for r in rows if r["topic/subtopic_name/doc"] == "1/1ecb/1"]
    assert len(first) == 17 and [r["token_id_global"] for r in first] == list(range(17))
    assert [r["reference"] for r in first[:4]] == ["(HUM1", "HUM1)", "(ACT1", "ACT1)"]
    sentence = "".join(r["token"] + (" " if r["whitespace_after"] else "") for r in first if r["sent_id"] == 0)
    assert sentence == "Tara Reid checked into rehab on Tuesday."
    assert {r["split"] for r in rows if r["topic/subtopic_name/doc"].startswith("36/")} == {"test"}


def test_report_file(built: tuple[Path, Any]) -> None:
    folder, report = built
    data = json.loads((folder / "build_report.json").read_text())
    assert data == json.loads(json.dumps(report.to_json()))
    assert "seconds" not in data and data["versions"]["model_version"].startswith("3.8")
    assert "ECB+_LREC2014/ECB+/1/1_1ecb.xml" in data["inputs"] and len(data["inputs"]) == 3 + 5


def test_rebuild_is_byte_identical_and_jobs_do_not_matter(raw: Path, built: tuple[Path, Any], tmp_path: Path) -> None:
    folder, _ = built
    build_dataset("ecbplus", raw_dir=raw, data_dir=tmp_path, jobs=2, progress=False)
    assert files_bytes(tmp_path / "ecbplus") == files_bytes(folder)


def test_interrupted_build_keeps_previous_output(raw: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build_dataset("ecbplus", raw_dir=raw, data_dir=tmp_path, progress=False)
    before = files_bytes(tmp_path / "ecbplus")

    def crash(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("ucdcr.pipeline.write.ParquetStream.write", crash)
    with pytest.raises(KeyboardInterrupt):
        build_dataset("ecbplus", raw_dir=raw, data_dir=tmp_path, progress=False)
    assert files_bytes(tmp_path / "ecbplus") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ecbplus"]  # no staging folder left behind


def test_missing_raw_folder(tmp_path: Path) -> None:
    with pytest.raises(MissingRawData, match="ucdcr download ecbplus"):
        build_dataset("ecbplus", raw_dir=tmp_path, data_dir=tmp_path / "data", progress=False)


def with_spec(monkeypatch: pytest.MonkeyPatch, **changes: Any) -> None:
    spec = dataclasses.replace(get("ecbplus"), **changes)
    monkeypatch.setattr(build_module, "get", lambda _: spec)


def test_options_of_the_spec(raw: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_read = get("ecbplus").reader

    def read(folder: Path, options: Any):
        corpus = real_read(folder, options).materialized()  # the ECB+ reader streams
        corpus.unavailable_splits["val"] = "test of unavailable splits"
        for mention in corpus.mentions:
            if mention.source_id == "32" and mention.doc_key == "1/1ecb/1":
                mention.given_head = GivenHead("into", "GIVEN", "X", "EVENT")
        return corpus

    def finalize(records: list[MentionRecord]) -> tuple[list[MentionRecord], list[DroppedMention]]:
        dropped = [r for r in records if r.tokens_str == "Malibu"]
        kept = [r for r in records if r.tokens_str != "Malibu"]
        return kept, [
            DroppedMention(r.conll_doc_key, "", "", r.tokens_str, "finalize test", "finalize") for r in dropped
        ]

    with_spec(
        monkeypatch,
        reader=read,
        reparse=False,
        texts_redistributable=False,
        finalize=finalize,
        mention_id_prefix="X_",
        context_rule=ContextRule.TO_LAST_TOKEN,
    )
    report = build_dataset("ecbplus", raw_dir=raw, data_dir=tmp_path, progress=False)
    folder = tmp_path / "ecbplus"
    assert not (folder / "all_documents.parquet").exists()
    assert report.unavailable_splits == {"val": "test of unavailable splits"}
    assert [d["reason"] for d in report.dropped] == ["finalize test"] and report.counts["dropped_finalize"] == 1
    records = {r["tokens_str"]: r for s in ("train", "test") for k in ("event", "entity") for r in load(folder, s, k)}
    given = records["checked into"]
    assert (given["mention_head"], given["mention_head_lemma"], given["mention_head_pos"], given["mention_ner"]) == (
        "into",
        "GIVEN",
        "X",
        "EVENT",
    )
    assert given["mention_id"].startswith("X_")
    # reparse=False keeps the original tokens: "U . S ." stays four tokens
    assert records["actress's rep"]["tokens_number"] == [11, 12, 13]
    assert given["mention_sentence_start_end"] == [0, 7]  # last_token rule: inclusive end (8 tokens)


def test_invariant_violation_names_the_mention(raw: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def finalize(records: list[MentionRecord]) -> tuple[list[MentionRecord], list[DroppedMention]]:
        return [dataclasses.replace(records[0], mention_head_id=99), *records[1:]], []

    with_spec(monkeypatch, finalize=finalize)
    with pytest.raises(
        InvariantError, match=r"mention ECBPlus_1_1ecb_1_0_1_\w+ \(1/1ecb/1, sentence 0, 'Tara Reid'\): head id 99"
    ):
        build_dataset("ecbplus", raw_dir=raw, data_dir=tmp_path, progress=False)
    assert not (tmp_path / "ecbplus").exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda tokens: tokens.append(tokens[0]), "duplicate token id '1'"),
        (lambda tokens: tokens.append(tokens[0]._replace(token_id="x")), "sentence 0 is not contiguous"),
    ],
)
def test_bad_documents_from_a_reader(
    raw: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Any, message: str
) -> None:
    real_read = get("ecbplus").reader

    def read(folder: Path, options: Any):
        corpus = real_read(folder, options).materialized()  # the ECB+ reader streams
        change(corpus.documents[0].tokens)
        return corpus

    with_spec(monkeypatch, reader=read)
    with pytest.raises(FormatError, match=rf"1_1ecb.xml: {message}"):
        build_dataset("ecbplus", raw_dir=raw, data_dir=tmp_path, progress=False)


def test_cli_build_continues_after_a_failed_dataset(raw: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ucdcr.cli.app import app

    result = CliRunner().invoke(
        app,
        [
            "build",
            "np4e",
            "ecbplus",
            "--raw-dir",
            str(raw),
            "--data-dir",
            str(tmp_path),
            "-q",
            "--option",
            "partial=yes",
        ],
    )
    assert result.exit_code == 2  # np4e has no raw folder in the fixture
    assert "ecbplus: 5 documents, 13 of 13 mentions (100.00%)" in result.output
    assert (tmp_path / "ecbplus" / "build_report.json").exists()
    report = json.loads((tmp_path / "ecbplus" / "build_report.json").read_text())
    assert report["options"] == {"partial": "True"}  # the options that differ from their defaults


def test_cli_option_syntax() -> None:
    from ucdcr.cli.build import parse_options
    from ucdcr.errors import UcdcrError

    assert parse_options(["all_sentences=true", "texts_dir=/a=b"]) == {"all_sentences": "true", "texts_dir": "/a=b"}
    with pytest.raises(UcdcrError, match="expected KEY=VALUE"):
        parse_options(["oops"])


def test_finalize_can_choose_the_output_file(raw: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def finalize(records: list[MentionRecord]) -> tuple[list[MentionRecord], list[DroppedMention]]:
        return [dataclasses.replace(r, kind="event") if r.tokens_str == "Malibu" else r for r in records], []

    with_spec(monkeypatch, finalize=finalize)
    build_dataset("ecbplus", raw_dir=raw, data_dir=tmp_path, progress=False)
    events = load(tmp_path / "ecbplus", "train", "event")
    malibu = [r for r in events if r["tokens_str"] == "Malibu"]
    assert len(malibu) == 1 and tuple(malibu[0]) == MENTION_FIELDS
    assert all(r["tokens_str"] != "Malibu" for r in load(tmp_path / "ecbplus", "train", "entity"))
