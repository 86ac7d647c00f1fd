"""MEANTIME_eng dataset module on a tiny zip of CAT XML articles written by the tests."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from tests.fixtures.raw.meantime import MEANTIME_ROOT, article, write_meantime_raw_folder

from ucdcr.datasets import meantime
from ucdcr.errors import FormatError, MissingRawData
from ucdcr.registry import ReadOptions, get


def test_registered() -> None:
    spec = get("meantime")
    assert spec.paper_name == "MEANTIME_eng" and spec.mention_kinds == ("event", "entity")


def test_structure(tmp_path: Path) -> None:
    corpus = meantime.read_meantime(write_meantime_raw_folder(tmp_path), ReadOptions())
    # intra_cross-doc_annotation only; topics by the release's folder order: airbus 0 (train), gm 2 (test), also
    # when apple (1) is absent
    assert [(d.doc_key, d.split, d.topic, d.subtopic) for d in corpus.documents] == [
        ("0/100/english100", "train", "0_corpus_airbus", "100_Airbus_A380"),
        ("0/101/english101", "train", "0_corpus_airbus", "101_Airbus_again"),
        ("2/200/english200", "test", "2_corpus_gm", "200_GM_sells"),
    ]


def test_mentions_chains_and_types(tmp_path: Path) -> None:
    corpus = meantime.read_meantime(write_meantime_raw_folder(tmp_path), ReadOptions())
    first = [m for m in corpus.mentions if m.doc_key == "0/100/english100"]
    assert [(m.source_id, m.kind, m.chain_id, m.full_type, m.description) for m in first] == [
        ("1", "entity", "ORG123_0", "ORGANIZATION", "Airbus"),
        ("2", "event", "EVE_english100_11", "EVENT", "delivery"),  # instance without instance_id: within-document
        ("3", "entity", "ORG123_0", "ORGANIZATION", "Airbus"),  # first REFERS_TO wins, the second link is counted
        ("4", "entity", "Singleton_ENT_english100_4", "OTHER", ""),  # no REFERS_TO: kept as a singleton
    ]
    gm = [m for m in corpus.mentions if m.doc_key == "2/200/english200"]
    assert gm[0].chain_id == "ORG123_2"  # the same instance id in another topic is another chain
    assert corpus.counts == {
        "annotated": 12,
        "unlinked_singletons": 3,
        "second_refers_to_links": 3,
    }
    assert corpus.notes[0] == "not coreference mentions, not read: 3 TIMEX3"


def test_topic_without_split(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"topic 2 \(corpus_gm\) is in no split"):
        meantime.read_meantime(write_meantime_raw_folder(tmp_path, {"train": [0]}), ReadOptions())


def test_missing_zip(tmp_path: Path) -> None:
    (tmp_path / "ucdcr-meta").mkdir()
    (tmp_path / meantime.SPLIT_FILE).write_text("{}")
    with pytest.raises(MissingRawData, match=r"meantime_newsreader_english_oct15.zip"):
        get("meantime").read(tmp_path)


def test_broken_article_names_the_member(tmp_path: Path) -> None:
    raw = write_meantime_raw_folder(tmp_path)
    with zipfile.ZipFile(raw / meantime.ZIP, "a") as archive:
        archive.writestr(f"{MEANTIME_ROOT}/corpus_gm/201_Broken.xml", article("201")[:300])
    with pytest.raises(FormatError, match=r"corpus_gm/201_Broken\.xml:\d+: malformed XML"):
        meantime.read_meantime(raw, ReadOptions())


def test_topic_folder_missing_from_the_zip_is_named_not_renumbered(tmp_path: Path) -> None:
    raw = write_meantime_raw_folder(
        tmp_path, {"train": [0, 1], "val": [], "test": [2]}
    )  # apple (1) is listed, not in the zip
    with pytest.raises(
        MissingRawData,
        match=r"train_val_test_split\.json: topics .*listed in the split file but not "
        r"found: 1 \(corpus_apple\)",
    ):
        meantime.read_meantime(raw, ReadOptions())
    partial = meantime.read_meantime(raw, ReadOptions(partial=True))
    assert {d.topic for d in partial.documents} == {"0_corpus_airbus", "2_corpus_gm"}  # gm keeps its number 2
    assert any("partial corpus" in note and "1 (corpus_apple)" in note for note in partial.notes)


def test_discontinuous_mention_is_passed_on_as_annotated(tmp_path: Path) -> None:
    raw = write_meantime_raw_folder(tmp_path)
    text = article("102").replace(
        '<token_anchor t_id="1"/></ENTITY_MENTION>', '<token_anchor t_id="1"/><token_anchor t_id="3"/></ENTITY_MENTION>'
    )
    with zipfile.ZipFile(raw / meantime.ZIP, "a") as archive:
        archive.writestr(f"{MEANTIME_ROOT}/corpus_airbus/102_Gap.xml", text)
    corpus = meantime.read_meantime(raw, ReadOptions())
    gap = next(m for m in corpus.mentions if m.doc_key == "0/102/english102" and m.source_id == "1")
    # no fill rule for MEANTIME: the anchored tokens go to the build, which drops the mention instead of widening it
    assert gap.token_ids == ("1", "3") and "discontinuous_filled" not in corpus.counts
