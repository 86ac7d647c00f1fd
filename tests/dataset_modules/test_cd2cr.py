"""CD2CR dataset module on a tiny corpus written by the tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fixtures.raw.cd2cr import entity, write_cd2cr_raw_folder
from tests.fixtures.unified import mention_record

from ucdcr.datasets import cd2cr
from ucdcr.errors import MissingRawData
from ucdcr.pipeline import build
from ucdcr.pipeline.document import DocumentTask, StageConfig, process_documents
from ucdcr.registry import ReadOptions, get


def test_registered() -> None:
    assert get("cd2cr").finalize is cd2cr.finalize_chains


def test_structure_and_subtopic_numbering(tmp_path: Path) -> None:
    corpus = cd2cr.read_cd2cr(write_cd2cr_raw_folder(tmp_path), ReadOptions())
    # val first (subtopic 0), then train (1), then test (2, 3): unique across splits as in the release
    assert [(d.doc_key, d.split, d.subtopic) for d in corpus.documents] == [
        ("0/0/0_news_9", "val", "val_0"),
        ("0/1/0_news_7", "train", "train_0"),
        ("0/1/0_science_3", "train", "train_0"),
        ("0/2/0_news_5", "test", "test_0"),
        ("0/3/1_news_6", "test", "test_1"),
    ]
    assert corpus.documents[1].doc == "health-1" and corpus.documents[2].doc == "10.1/abc"
    assert corpus.documents[0].doc == "0_news_9"  # no name known: the id


def test_mentions_dropped_and_joined_sentences(tmp_path: Path) -> None:
    corpus = cd2cr.read_cd2cr(write_cd2cr_raw_folder(tmp_path), ReadOptions())
    assert corpus.counts == {"annotated": 7, "sentence_boundaries_joined": 1}
    assert len(corpus.mentions) == 6
    (dropped,) = corpus.dropped
    assert dropped.source_id == "train:3" and "token ids [7]" in dropped.reason and dropped.stage == "read"
    news = corpus.documents[1]
    # sentences 1 and 2 joined into sentence 1 because "[ SD ]" crosses them
    assert [t.sent_id for t in news.tokens] == [0, 0, 0, 1, 1, 1]
    crossing = corpus.mentions[2]
    assert crossing.token_ids == ("3", "4", "5") and crossing.chain_id == "6"


def test_missing_files(tmp_path: Path) -> None:
    write_cd2cr_raw_folder(tmp_path)
    (tmp_path / "CDCR_Corpus" / "dev.conll").unlink()
    (tmp_path / "CDCR_Corpus" / "test_entities.json").unlink()
    # every missing required file of the manifest at once, before the reader runs
    with pytest.raises(MissingRawData, match=r": CDCR_Corpus/dev\.conll, CDCR_Corpus/test_entities\.json\."):
        get("cd2cr").read(tmp_path)


def test_finalize_majority_type_and_description() -> None:
    records = [
        mention_record(coref_chain="5", mention_ner=ner, mention_head=head)
        for ner, head in (("ORG", "NASA"), ("O", "agency"), ("O", "it"), ("ORG", "NASA"))
    ]
    kept, dropped = cd2cr.finalize_chains(records)
    assert dropped == []
    # ORG 2 vs OTHER 2: tie -> alphabetically first ("ORG")
    assert {r.mention_full_type for r in kept} == {"ORG"} and kept[0].mention_type == "ORG"
    assert kept[0].description == "NASA_agency_it"


def test_mention_with_a_gap_is_dropped_by_the_build_not_widened(tmp_path: Path) -> None:
    raw = write_cd2cr_raw_folder(tmp_path)
    path = raw / "CDCR_Corpus" / "dev_entities.json"
    path.write_text(json.dumps([entity("0_news_9", 0, [0], 0, "Mice", 1)]))
    train = raw / "CDCR_Corpus" / "train_entities.json"
    records = json.loads(train.read_text())
    records[0]["tokens_ids"] = [0, 2]  # "A ... study": before, the reader built "A new study"
    train.write_text(json.dumps(records))
    corpus = cd2cr.read_cd2cr(raw, ReadOptions())
    [gap] = [m for m in corpus.mentions if m.source_id == "train:0"]
    assert gap.token_ids[0] != gap.token_ids[-1] and len(gap.token_ids) == 2  # passed on as annotated, not filled
    [task] = [t for t in build._tasks(corpus) if t.document.doc_key == gap.doc_key]
    [result] = process_documents([DocumentTask(task.document, [gap])], StageConfig())
    assert result.records == [] and result.dropped[0].reason.startswith("discontinuous markable")
    assert result.dropped[0].text == "A study"
