"""CD2CR dataset module on a tiny corpus written by the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.datasets.mention_records import mention_record

from ucdcr.datasets import cd2cr
from ucdcr.errors import MissingRawData
from ucdcr.pipeline import build
from ucdcr.pipeline.document import DocumentTask, StageConfig, process_documents
from ucdcr.registry import ReadOptions, get


def conll(rows: list[tuple[str, str, int, int, str]]) -> str:
    lines = [f"{topic}\t{topic}_0\t{doc}\t{sent}\t{tok}\t{text}\tTrue\t-" for topic, doc, sent, tok, text in rows]
    return "#begin document x_entities\n" + "\n".join(lines) + "\n#end document\n"


def entity(doc: str, sent: int, ids: list[int], topic: int, text: str, cluster: int) -> dict[str, Any]:
    return {
        "doc_id": doc,
        "sentence_id": sent,
        "tokens_ids": ids,
        "topic": topic,
        "subtopic": f"{topic}_0",
        "tokens": text,
        "cluster_id": cluster,
        "cluster_desc": "something",
        "singleton": False,
    }


def write_corpus(raw: Path) -> Path:
    folder = raw / "CDCR_Corpus"
    folder.mkdir(parents=True)
    news = [
        ("0", "0_news_7", 0, 0, "A"),
        ("0", "0_news_7", 0, 1, "new"),
        ("0", "0_news_7", 0, 2, "study"),
        ("0", "0_news_7", 1, 3, "["),
        ("0", "0_news_7", 2, 4, "SD"),
        ("0", "0_news_7", 2, 5, "]"),
    ]
    science = [("0", "0_science_3", 0, 0, "Abstract"), ("0", "0_science_3", 0, 1, "studies")]
    for stem, topic_rows in (
        ("train", news + science),
        ("dev", [("0", "0_news_9", 0, 0, "Mice")]),
        ("test", [("0", "0_news_5", 0, 0, "Bats"), ("1", "1_news_6", 0, 0, "Rats")]),
    ):
        (folder / f"{stem}.conll").write_text(conll(topic_rows))
    (folder / "train_entities.json").write_text(
        json.dumps(
            [
                entity("0_news_7", 0, [0, 1, 2], 0, "A new study", 5),
                entity(
                    "0_news_7", 1, [3, 4, 5], 0, "[ SD ]", 6
                ),  # crosses the automatic boundary between sentences 1 and 2
                entity("0_science_3", 0, [1], 0, "studies", 5),
                entity("0_science_3", 0, [7], 0, "ghost", 8),  # token 7 is not in the document
            ]
        )
    )
    (folder / "dev_entities.json").write_text(json.dumps([entity("0_news_9", 0, [0], 0, "Mice", 1)]))
    (folder / "test_entities.json").write_text(
        json.dumps([entity("0_news_5", 0, [0], 0, "Bats", 2), entity("1_news_6", 0, [0], 1, "Rats", 3)])
    )
    (folder / "news_urls.json").write_text(json.dumps({"7": {"url": "http://x.org/news/health-1"}}))
    (folder / "sci_papers.json").write_text(json.dumps({"3": {"doi": "10.1/abc"}}))
    return raw


def test_registered() -> None:
    assert get("cd2cr").finalize is cd2cr.finalize_chains


def test_structure_and_subtopic_numbering(tmp_path: Path) -> None:
    corpus = cd2cr.read_cd2cr(write_corpus(tmp_path), ReadOptions())
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
    corpus = cd2cr.read_cd2cr(write_corpus(tmp_path), ReadOptions())
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
    write_corpus(tmp_path)
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
    raw = write_corpus(tmp_path)
    path = raw / "CDCR_Corpus" / "dev_entities.json"
    path.write_text(json.dumps([entity("0_news_9", 0, [0], 0, "Mice", 1)]))
    train = raw / "CDCR_Corpus" / "train_entities.json"
    records = json.loads(train.read_text())
    records[0]["tokens_ids"] = [0, 2]  # "A ... study": before, the reader built "A new study"
    train.write_text(json.dumps(records))
    corpus = cd2cr.read_cd2cr(raw, ReadOptions())
    [gap] = [m for m in corpus.mentions if m.source_id == "train:0"]
    assert gap.token_ids[0] != gap.token_ids[-1] and len(gap.token_ids) == 2  # passed on as annotated, not filled
    [task] = [t for t in build._tasks(corpus)[0] if t.document.doc_key == gap.doc_key]
    [result] = process_documents([DocumentTask(task.document, [gap])], StageConfig())
    assert result.records == [] and result.dropped[0].reason.startswith("discontinuous markable")
    assert result.dropped[0].text == "A study"
