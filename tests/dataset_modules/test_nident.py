"""NIdent through the reader and the full build pipeline, on a tiny raw dir: NIdent XML + an NP4E MMAX2 skeleton."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fixtures.raw.nident import DOC_2, write_nident_raw

from ucdcr.datasets import nident
from ucdcr.errors import FormatError, MissingRawData
from ucdcr.pipeline.build import build_dataset
from ucdcr.registry import ReadOptions, get


def test_reader_structure_and_relations(tmp_path: Path) -> None:
    corpus = nident.read(write_nident_raw(tmp_path), ReadOptions())
    assert [(d.doc_key, d.split, d.subtopic) for d in corpus.documents] == [
        ("0/0_bukavu/381791", "train", "0_Bukavu_bombing"),
        ("0/0_bukavu/381792", "train", "0_Bukavu_bombing"),
    ]
    by_marker = {(m.doc_key[-1], m.source_id): m for m in corpus.mentions}
    assert by_marker[("1", "m1")].chain_id == by_marker[("1", "m3")].chain_id == "0_bukavu_381791_entity1"
    assert by_marker[("1", "m4")].coref_type == "NEAR_IDENTITY" and by_marker[("1", "m1")].coref_type == "IDENTITY"
    (dropped,) = corpus.dropped
    assert (dropped.source_id, dropped.text) == ("m3", "Tuesday") and "identdegree=1" in dropped.reason
    assert corpus.counts["annotated"] == 7
    assert any("not public" in note for note in corpus.notes)


def test_build_merges_chains_across_documents_by_the_np4e_rule(tmp_path: Path) -> None:
    write_nident_raw(tmp_path / "raw")
    report = build_dataset("nident", raw_dir=tmp_path / "raw", data_dir=tmp_path / "data", jobs=1, progress=False)
    records = json.loads((tmp_path / "data" / "nident" / "train" / "entity_mentions.json").read_text(encoding="utf-8"))
    assert (
        json.loads((tmp_path / "data" / "nident" / "train" / "event_mentions.json").read_text(encoding="utf-8")) == []
    )
    chain = {(r["doc_id"], r["tokens_str"]): r["coref_chain"] for r in records}
    # "Bukavu" is shared by entity2 (doc 1) and entity6 (doc 2): one capitalised shared string -> merged
    assert chain[("381791", "Bukavu")] == chain[("381792", "Bukavu")] == chain[("381791", "the city")]
    # "Kabila" (head of "Laurent Kabila" and the mention "Kabila") links entity1 and entity5
    assert chain[("381791", "Laurent Kabila")] == chain[("381792", "Kabila")] == chain[("381791", "He")]
    assert {r["coref_type"] for r in records if r["tokens_str"] == "the city"} == {"NEAR_IDENTITY"}
    assert not any(r["is_singleton"] for r in records)
    assert report.counts["mentions_written"] == 6 and report.parse_rate == round(100 * 6 / 7, 2)


def test_mapping_file_gives_the_chains(tmp_path: Path) -> None:
    folder = write_nident_raw(tmp_path)
    (folder / "nident_mapping.csv").write_text(
        "subtopic_id,doc_id,coref_chain,unified_id\n"
        "0_bukavu,381791,entity1,kabila\n0_bukavu,381792,entity5,kabila\n0_bukavu,381791,entity2,bukavu\n",
        encoding="utf-8",
    )
    corpus = nident.read(folder, ReadOptions())
    assert {m.chain_id for m in corpus.mentions} == {"map:kabila", "map:bukavu"}
    reasons = sorted(d.reason for d in corpus.dropped)
    assert reasons[0] == "chain entity6 is not in nident_mapping.csv"


def test_missing_corpus_gives_manual_steps(tmp_path: Path) -> None:
    write_nident_raw(tmp_path, with_corpus=False)
    with pytest.raises(MissingRawData) as info:
        build_dataset("nident", raw_dir=tmp_path, data_dir=tmp_path / "data", jobs=1, progress=False)
    message = str(info.value)
    assert "english-corpus" in message and "http://clic.ub.edu/corpus/en/nident" in message
    assert "3129aa74ce77429667f6e87a3d097a097571c7ac" in message


def test_document_unknown_to_np4e_is_an_error(tmp_path: Path) -> None:
    folder = write_nident_raw(tmp_path)
    (folder / "english-corpus" / "20111107.near2_999999newsML.xml").write_text(DOC_2, encoding="utf-8")
    with pytest.raises(FormatError, match="document 999999 is not in the NP4E tree"):
        nident.read(folder, ReadOptions())


def test_empty_corpus_folder_gives_manual_steps(tmp_path: Path) -> None:
    folder = write_nident_raw(tmp_path, with_corpus=False)
    (folder / "english-corpus").mkdir()
    with pytest.raises(MissingRawData, match=r"english-corpus/\*\.xml"):
        nident.read(folder, ReadOptions())


def test_subtopic_without_nident_documents_is_named(tmp_path: Path) -> None:
    folder = write_nident_raw(tmp_path)
    (folder / "ucdcr-meta" / "train_val_test_split.json").write_text(json.dumps({"train": ["0"], "test": ["4"]}))
    with pytest.raises(
        MissingRawData, match=r"subtopics .* not found: 4 \(tajikistan\) \(split\(s\) test would be empty\)"
    ):
        nident.read(folder, ReadOptions())
    corpus = get("nident").read(folder, {"partial": "true"})
    assert len(corpus.documents) == 2 and any("partial corpus" in note for note in corpus.notes)
