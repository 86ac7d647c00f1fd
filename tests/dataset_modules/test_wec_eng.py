"""WEC-Eng through the reader and the full build pipeline, on a tiny raw dir laid out like ../shared/raw/WEC-Eng."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fixtures.raw.wec_eng import PARA_1, PARA_2, mention, write_wec_eng_raw

from ucdcr.datasets import wec_eng
from ucdcr.errors import FormatError, MissingRawData
from ucdcr.pipeline.build import build_dataset
from ucdcr.records import GivenHead
from ucdcr.registry import ReadOptions


def test_reader_documents_from_paragraphs(tmp_path: Path) -> None:
    corpus = wec_eng.read(write_wec_eng_raw(tmp_path), ReadOptions())
    house = corpus.documents[0]
    # topic ids: index among the sorted names (Awards 0, Concert 1, Festival 2); first listed subtopic wins
    assert (house.topic_id, house.topic, house.subtopic, house.doc) == (
        "1",
        "Concert",
        "Family Values Tour 1998",
        "House of Pain",
    )
    # uCDCR's key: topic index / shortuuid(subtopic) / shortuuid(doc); the two ids were computed with the
    # shortuuid package 1.0.13: shortuuid.uuid("Family Values Tour 1998"), shortuuid.uuid("House of Pain")
    assert house.doc_key == "1/4A4Hs78SQWhihhpMAZt65s/4YwwEM4UiyoNKq8YTFU5hd"
    # two distinct paragraphs -> two sentences, in mention_index order; PARA_1 appears once
    assert [t.text for t in house.tokens if t.sent_id == 0] == PARA_1
    assert [t.text for t in house.tokens if t.sent_id == 1] == PARA_2
    assert len(house.tokens) == len(PARA_1) + len(PARA_2)
    first = corpus.mentions[0]
    assert first.chain_id == "2293469_Family_Values_Tour_1998"
    assert first.given_head == GivenHead("Tour", "Tour", "PROPN", "O")  # NER "UNK" -> "O"
    assert corpus.mentions[1].given_head is not None and corpus.mentions[1].given_head.ner == "EVENT"
    (dropped,) = corpus.dropped
    assert dropped.source_id == "14" and "not in ucdcr-meta/topics/topics_train.csv" in dropped.reason
    assert corpus.counts["annotated"] == 5


def test_chain_id_is_truncated_like_ucdcr() -> None:
    # spaces -> "_" gives "123_The_Big_Event_(2001):_a_very_long_title"; dropping \W gives
    # "123_The_Big_Event_2001_a_very_long_title"; its first 35 characters:
    assert wec_eng.chain_id("123", "The Big Event (2001): a very long title") == "123_The_Big_Event_2001_a_very_long_"


def test_build_keeps_original_tokens_and_heads(tmp_path: Path) -> None:
    write_wec_eng_raw(tmp_path / "raw")
    report = build_dataset("wec_eng", raw_dir=tmp_path / "raw", data_dir=tmp_path / "data", jobs=1, progress=False)
    out = tmp_path / "data" / "wec_eng"
    train = json.loads((out / "train" / "event_mentions.json").read_text(encoding="utf-8"))
    val = json.loads((out / "val" / "event_mentions.json").read_text(encoding="utf-8"))
    assert all(m["mention_id"].startswith("WECEng_") for m in train + val)
    # the pipeline's mention ids are content hashes; find the mentions by their text and split
    by_id = {
        {"Family Values Tour 1998": "11", "the Family Values Tour 1998": "13", "2018 Teen Choice Awards": "12"}[
            m["tokens_str"]
        ]
        if m["split"] == "train"
        else "21": m
        for m in train + val
    }
    tour = by_id["11"]
    assert tour["tokens_text"] == ["Family", "Values", "Tour", "1998"] and tour["tokens_number"] == [9, 10, 11, 12]
    assert (tour["mention_head"], tour["mention_head_id"], tour["mention_ner"]) == ("Tour", 11, "O")
    assert tour["sent_id"] == 0 and tour["description"] == "Family Values Tour 1998"
    # chain 2293469 has 2 mentions in train -> not singletons; the Awards mention is alone
    assert [by_id[k]["is_singleton"] for k in ("11", "13", "12")] == [False, False, True]
    assert by_id["21"]["split"] == "val" and by_id["21"]["is_singleton"] is True
    assert report.counts["mentions_written"] == 4
    assert report.parse_rate == 80.0  # 4 of 5 annotated; the 5th has no topic-map row


def test_missing_json_gives_manual_steps(tmp_path: Path) -> None:
    write_wec_eng_raw(tmp_path, with_mentions=False)
    with pytest.raises(MissingRawData) as info:
        build_dataset("wec_eng", raw_dir=tmp_path, data_dir=tmp_path / "data", jobs=1, progress=False)
    message = str(info.value)
    assert "Train_Event_gold_mentions.json" in message and "huggingface.co/datasets/Intel/WEC-Eng" in message
    assert "CC BY-SA 3.0" in message


def test_head_not_in_mention_is_dropped_and_bad_topic_is_an_error(tmp_path: Path) -> None:
    folder = write_wec_eng_raw(tmp_path)
    bad = [mention("11", 1, 1, "Family Values Tour 1998", "House of Pain", PARA_1, [9, 10], "Tour")]
    (folder / "Train_Event_gold_mentions.json").write_text(json.dumps(bad), encoding="utf-8")
    corpus = wec_eng.read(folder, ReadOptions())
    assert [d.reason for d in corpus.dropped] == ["head 'Tour' is not among the mention tokens"]
    topics = folder / "ucdcr-meta" / "topics" / "topics_val.csv"
    topics.write_text(",doc,subtopic,topic\n0,Ice Cube,Family Values Tour 1998,Music\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"'Music' is not in topics.json"):
        wec_eng.read(folder, ReadOptions())
