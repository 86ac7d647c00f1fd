"""GVC through the reader and the full build pipeline, on a tiny raw dir laid out like ../shared/raw/GVC."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fixtures.raw.gvc import DOC_A, DOC_B, DOC_C, write_gvc_raw

from ucdcr.datasets import gvc
from ucdcr.errors import FormatError, MissingRawData
from ucdcr.pipeline.build import build_dataset
from ucdcr.registry import ReadOptions, get


def test_reader_structure_and_splits(tmp_path: Path) -> None:
    corpus = gvc.read(write_gvc_raw(tmp_path), ReadOptions())
    assert [(d.doc_key, d.split, d.doc) for d in corpus.documents] == [
        (f"0/610379/{DOC_A}", "train", "Shooting_in_Reno"),
        (f"0/693359/{DOC_B}", "val", "Shooting_in_Reno"),
    ]
    assert corpus.counts["annotated"] == 6  # 3 in A, 2 in B, 1 in C
    (dropped,) = corpus.dropped
    assert dropped.text == "happened" and "incident 999999 is in no split" in dropped.reason
    chains = [(m.chain_id, m.kind, m.full_type) for m in corpus.mentions]
    assert chains[:2] == [("123", "event", "EVENT"), ("45", "event", "EVENT")]
    assert chains[2][0] == f"Singleton_{DOC_A}.b1.11"  # cluster 0 -> a chain of its own
    # sentences of A: DCT 0, title 1, body before NEWLINE 2, after NEWLINE 3
    assert sorted({t.sent_id for t in corpus.documents[0].tokens}) == [0, 1, 2, 3]


def test_build_through_the_pipeline(tmp_path: Path) -> None:
    write_gvc_raw(tmp_path / "raw")
    report = build_dataset("gvc", raw_dir=tmp_path / "raw", data_dir=tmp_path / "data", jobs=1, progress=False)
    out = tmp_path / "data" / "gvc"
    train = json.loads((out / "train" / "event_mentions.json").read_text(encoding="utf-8"))
    val = json.loads((out / "val" / "event_mentions.json").read_text(encoding="utf-8"))
    assert json.loads((out / "train" / "entity_mentions.json").read_text(encoding="utf-8")) == []
    assert [m["tokens_str"] for m in train] == ["shot", "killed", "responded"]
    assert [m["tokens_str"] for m in val] == ["wounded", "gun fire"]
    # chain 123 has one mention in train and one in val: a singleton within each split
    # (docs/unified-format.md#singleton-flag)
    assert [m["is_singleton"] for m in train] == [True, True, True]
    assert all(m["mention_type"] == "EVE" and m["topic"] == "0_gun_violence" for m in train + val)
    assert val[1]["coref_chain"] == "88" and val[1]["subtopic_id"] == "693359"
    assert report.counts["mentions_written"] == 5 and report.parse_rate == round(100 * 5 / 6, 2)
    assert any("no split" in d["reason"] for d in report.dropped)
    assert "NEWLINE" not in (out / "all_documents.parquet").read_bytes().decode("latin-1")


def test_missing_conll_gives_manual_steps(tmp_path: Path) -> None:
    write_gvc_raw(tmp_path, with_conll=False)
    with pytest.raises(MissingRawData) as info:
        build_dataset("gvc", raw_dir=tmp_path, data_dir=tmp_path / "data", jobs=1, progress=False)
    message = str(info.value)
    assert "verbose.conll" in message and "576be59c74099813af181d58e54e74709cb0ab35" in message
    assert "https://raw.githubusercontent.com/cltl/GunViolenceCorpus/master/verbose.conll" in message
    assert "CC BY 4.0" in message


def test_document_missing_from_the_incident_map_is_an_error(tmp_path: Path) -> None:
    folder = write_gvc_raw(tmp_path)
    (folder / "gvc_doc_to_event.csv").write_text(f"doc-id,event-id\n{DOC_A},610379\n", encoding="utf-8")
    with pytest.raises(FormatError, match=f"document '{DOC_B}' is not in gvc_doc_to_event.csv"):
        get("gvc").read(folder)


def test_incident_or_document_missing_from_verbose_conll_is_named(tmp_path: Path) -> None:
    folder = write_gvc_raw(tmp_path)
    (folder / "test.csv").write_text("0,577792\n", encoding="utf-8")  # an incident without any document
    (folder / "gvc_doc_to_event.csv").write_text(
        f"doc-id,event-id\n{DOC_A},610379\n{DOC_B},693359\n{DOC_C},999999\nffff0000,610379\n", encoding="utf-8"
    )
    with pytest.raises(MissingRawData) as info:
        get("gvc").read(folder)
    message = str(info.value)
    assert "verbose.conll:" in message and "without any document here: 577792" in message
    assert "1 document(s)" in message and "ffff0000" in message
    corpus = gvc.read(folder, ReadOptions(partial=True))
    assert len(corpus.documents) == 2 and any("577792" in note for note in corpus.notes)
