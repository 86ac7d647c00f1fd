"""HyperCoref_exp dataset module: sampling rules, structure, finalize hook, a full build on fixture parquet files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from tests.fixtures.raw.hypercoref import FINAL, FOOT, MERKEL, NEWS, write_hypercoref_raw

from ucdcr.datasets.hypercoref import (
    HypercorefOptions,
    downsample,
    filter_lonely,
    outlet_names,
    read_hypercoref,
    type_chains,
)
from ucdcr.errors import MissingRawData
from ucdcr.formats.hypercoref_parquet import Hyperlink
from ucdcr.formats.shortuuid import name_shortuuid
from ucdcr.records import MentionKey
from ucdcr.registry import get


def link(row: int, url: str, target: str) -> Hyperlink:
    return Hyperlink(row, url, target, 0, 0, 1, 0, 1)


def test_filter_lonely_rules() -> None:
    links = [
        link(0, FOOT + "1", "a"),
        link(1, FOOT + "2", "b"),
        link(2, NEWS + "3", "c"),
        link(3, NEWS + "4", "c"),
        link(4, "bbc.com/weather/5", "d"),
    ]
    # train/val: only the weather mention is alone in both its chain and its subtopic
    assert [kept.row for kept in filter_lonely(links, "train")] == [0, 1, 2, 3]
    # test: every subtopic needs two mentions; weather has one
    assert [kept.row for kept in filter_lonely(links, "test")] == [0, 1, 2, 3]
    assert [kept.row for kept in filter_lonely(links[:1] + links[2:3], "test")] == []


def test_downsample_keeps_largest_chains_whole() -> None:
    links = [link(i, FOOT + str(i), target) for i, target in enumerate("aaabbbcc" + "d")]
    # sizes a=3, b=3, c=2, d=1; limit 4: a (3) then b (3, crosses the limit, kept whole) -> 6 mentions
    assert Counter(kept.target for kept in downsample(links, 4)) == {"a": 3, "b": 3}
    assert len(downsample(links, 3)) == 3  # a alone reaches the limit
    assert downsample(links, None) == links


def test_structure_and_sampling_counts(tmp_path: Path) -> None:
    corpus = read_hypercoref(write_hypercoref_raw(tmp_path), HypercorefOptions()).materialized()
    assert (
        corpus.counts["annotated"] == 8
        and corpus.counts["sampled_out_train"] == 1
        and corpus.counts["sampled_out_test"] == 1
    )
    docs = {d.doc: d for d in corpus.documents}
    doc = docs["bbc.com_sport_football_40001"]
    assert doc.doc_key == f"Sport/bbc_football/{name_shortuuid('bbc.com_sport_football_40001')}"
    assert (doc.topic, doc.subtopic, doc.split) == ("Sport", "bbc_football", "train")
    assert "bbc.com_weather_40005" not in docs and "bbc.com_news_world-europe-60003" not in docs
    assert {d.split for d in corpus.documents} == {"train", "val", "test"}
    assert [t.space_after for t in doc.tokens[3:7]] == [True, False, True, True]  # "on Sunday. | The"
    mention = next(m for m in corpus.mentions if m.source_id == "bbc.com_13")
    assert mention.chain_id == MERKEL and mention.token_ids == ("0.0", "0.1", "0.2")
    mention_doc = next(d for d in corpus.documents if d.doc_key == mention.doc_key)
    assert [t.text for t in mention_doc.tokens if t.token_id in mention.token_ids] == ["The", "chancellor", "Merkel"]
    sizes = Counter(m.chain_id for m in corpus.mentions)
    assert sizes[FINAL] == 2 and sizes[FOOT + "59998"] == 1  # a singleton chain survives in test


def test_type_chains() -> None:
    def key(chain: str, pos: str, ner: str) -> MentionKey:
        return MentionKey(f"m{chain}{pos}{ner}", chain, "event", pos, ner)

    keys = [
        key("e", "NOUN", "O"),
        key("e", "VERB", "O"),
        key("p", "PROPN", "PERSON"),
        key("p", "PROPN", "PERSON"),
        key("p", "NOUN", "O"),
        key("x", "NOUN", "O"),
        key("t", "PROPN", "GPE"),
        key("t", "NOUN", "O"),
    ]
    # e: one VERB head makes the whole chain an event chain; p: PERSON 2 vs ENTITY 1; x: only O -> OTHER;
    # t: GPE 1 vs ENTITY 1 is a tie, won by the alphabetically first (ENTITY), which becomes OTHER
    assert type_chains(keys) == {
        "e": ("EVENT", "event"),
        "p": ("PERSON", "entity"),
        "x": ("OTHER", "entity"),
        "t": ("OTHER", "entity"),
    }


def test_missing_outlet_gives_the_manual_steps(tmp_path: Path) -> None:
    raw = write_hypercoref_raw(tmp_path)
    with pytest.raises(MissingRawData) as info:
        get("hypercoref").read(raw, {"outlets": "abcnews.go.com"})
    message = str(info.value)
    assert "abcnews.go.com/6_CreateSplitsStage_create_splits/{train,dev,test}/hyperlinks.parquet" in message
    assert "tudatalib/3390" in message and "emnlp2021-hypercoref-cdcr" in message


def test_full_build_on_fixture(tmp_path: Path) -> None:
    from ucdcr.pipeline.build import build_dataset

    write_hypercoref_raw(tmp_path / "raw")
    report = build_dataset("hypercoref", raw_dir=tmp_path / "raw", data_dir=tmp_path / "data", jobs=1, progress=False)
    assert report.counts["mentions_written"] == 8 and report.parse_rate == 100.0
    out = tmp_path / "data" / "hypercoref"
    assert not (out / "all_documents.parquet").exists()  # texts are not redistributable
    written = [
        m
        for split in ("train", "val", "test")
        for name in ("event_mentions.json", "entity_mentions.json")
        for m in json.loads((out / split / name).read_text())
    ]
    assert len(written) == 8
    by_chain = {m["coref_chain"]: m for m in written}
    assert by_chain[FINAL]["mention_full_type"] == "EVENT"  # "beat" is a verb
    assert by_chain[MERKEL]["mention_full_type"] != "EVENT"  # proper-noun heads only: an entity chain
    # original tokenization kept: "derby win" stays the two original tokens
    derby = next(m for m in written if m["doc"] == "bbc.com_sport_football_40002")
    assert derby["tokens_text"] == ["derby", "win"] and derby["tokens_number"] == [2, 3]


def test_entity_chains_go_to_the_entity_file(tmp_path: Path) -> None:
    from ucdcr.pipeline.build import build_dataset

    write_hypercoref_raw(tmp_path / "raw")
    build_dataset("hypercoref", raw_dir=tmp_path / "raw", data_dir=tmp_path / "data", jobs=1, progress=False)
    entities = json.loads((tmp_path / "data" / "hypercoref" / "train" / "entity_mentions.json").read_text())
    assert {m["coref_chain"] for m in entities} == {MERKEL}


def test_every_outlet_and_every_hyperlink(tmp_path: Path) -> None:
    import shutil

    raw = write_hypercoref_raw(tmp_path)
    shutil.copytree(raw / "bbc.com", raw / "copy.com")  # a second outlet with the same files
    corpus = get("hypercoref").read(raw, {"outlets": "all", "sample": "false"})
    # the fixture writes 5 + 2 + 3 hyperlinks per outlet; sample=false keeps the two the paper's rules filter out
    assert corpus.counts["annotated"] == 20 and corpus.counts["sampled_out_train"] == 0
    assert {m.source_id.split("_")[0] for m in corpus.mentions} == {"bbc.com", "copy.com"}
    assert corpus.notes == [
        "outlets bbc.com, copy.com; every hyperlink kept (sample=false); original tokenization kept"
    ]
    (tmp_path / "empty").mkdir()
    with pytest.raises(MissingRawData, match=r"<outlet>/6_CreateSplitsStage_create_splits"):
        outlet_names(tmp_path / "empty", ("all",))
