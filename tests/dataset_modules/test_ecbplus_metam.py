"""ECB+METAm reading on a tiny raw dir: an ECB+ CAT XML document (docs/datasets/ecbplus.md#raw-files) + a mention map
(docs/datasets/ecbplus_metam.md#raw-files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fixtures.raw.ecbplus_metam import record, write_ecbplus_metam_raw

from ucdcr.datasets import ecbplus_metam
from ucdcr.errors import MissingRawData
from ucdcr.registry import ReadOptions, get


def test_paraphrased_sentences_replace_the_originals(tmp_path: Path) -> None:
    corpus = ecbplus_metam.read(write_ecbplus_metam_raw(tmp_path), ReadOptions())
    (document,) = corpus.documents
    assert (document.split, document.doc_key) == ("test", "36/36ecb/1")
    sentence = {s: [t.text for t in document.tokens if t.sent_id == s] for s in (0, 1, 2)}
    assert sentence[0] == ["Police", "threw", "a", "net", "over", "the", "gunman", "."]
    assert sentence[1] == ["He", "was", "put", "in", "irons", "that", "day."]
    assert sentence[2] == ["Nobody", "was", "hurt", "."]  # the ECB+ tokens
    spacing = [t.space_after for t in document.tokens if t.sent_id == 0]
    assert spacing == [True, True, True, True, True, True, False, False]  # "...gunman." has no space before "."


def test_mentions_chains_and_drops(tmp_path: Path) -> None:
    corpus = ecbplus_metam.read(write_ecbplus_metam_raw(tmp_path), ReadOptions())
    (document,) = corpus.documents
    text = {t.token_id: t.text for t in document.tokens}
    found = {m.source_id: ([text[t] for t in m.token_ids], m.chain_id, m.kind) for m in corpus.mentions}
    assert found["2"] == (["threw", "a", "net", "over"], "ACT123", "event")
    assert found["5"] == (["put", "in", "irons"], "ACT123", "event")
    assert found["3"] == (["the", "gunman"], "HUM456", "entity")
    assert found["1"][0] == ["Police"] and found["7"][0] == ["hurt"]
    assert found["7"][2] == "event"  # NEG_* is an event
    assert "4" not in found  # not in the mention map
    (dropped,) = corpus.dropped
    assert dropped.source_id == "6" and "entity mention text no longer occurs" in dropped.reason
    assert corpus.counts["annotated"] == 6 and corpus.counts["paraphrased_sentences"] == 2
    assert "train" in corpus.unavailable_splits


def test_locate_prefers_nearest_occurrence() -> None:
    rec = ecbplus_metam.MetamRecord("k", "d.xml", "36", "1", 0, "the cat saw the dog", "the", 12, 15)
    assert ecbplus_metam.locate(rec, "the cat and the dog") == (12, 15)
    assert ecbplus_metam.locate(rec, "THE CAT") == (0, 3)
    assert ecbplus_metam.locate(rec, "a cat") is None


def test_missing_mention_map_gives_manual_steps(tmp_path: Path) -> None:
    folder = write_ecbplus_metam_raw(tmp_path, with_map=False)
    with pytest.raises(MissingRawData) as info:
        get("ecbplus_metam").read(folder)
    message = str(info.value)
    assert "ecbplus_metam.json" in message and "8b766eb3c26ede6322bcdec434f88ad8d211ebe3" in message


def test_build_through_the_pipeline(tmp_path: Path) -> None:
    from ucdcr.pipeline.build import build_dataset

    write_ecbplus_metam_raw(tmp_path)
    report = build_dataset("ecbplus_metam", raw_dir=tmp_path, data_dir=tmp_path / "data", jobs=1, progress=False)
    out = tmp_path / "data" / "ecbplus_metam"
    events = json.loads((out / "test" / "event_mentions.json").read_text(encoding="utf-8"))
    entities = json.loads((out / "test" / "entity_mentions.json").read_text(encoding="utf-8"))
    assert json.loads((out / "train" / "event_mentions.json").read_text(encoding="utf-8")) == []
    assert [m["tokens_str"] for m in events] == ["threw a net over", "put in irons", "hurt"]
    assert [m["tokens_text"] for m in events][:2] == [["threw", "a", "net", "over"], ["put", "in", "irons"]]
    assert {m["coref_chain"] for m in events[:2]} == {"ACT123"} and not events[0]["is_singleton"]
    assert [m["tokens_str"] for m in entities] == ["Police", "the gunman"]
    assert all(m["mention_id"].startswith("ECBPlusMETAm_") for m in events + entities)
    assert report.counts["mentions_written"] == 5 and report.parse_rate == round(100 * 5 / 6, 2)
    assert "train" in report.unavailable_splits
    (dropped,) = report.dropped
    assert dropped["text"] == "on Tuesday" and "no longer occurs in the paraphrased sentence" in dropped["reason"]


def test_records_of_train_topics_are_dropped_and_unknown_topics_are_errors(tmp_path: Path) -> None:
    from ucdcr.errors import FormatError

    folder = write_ecbplus_metam_raw(tmp_path)
    split = json.dumps({"train": [5], "val": [], "test": [36]})
    (folder / "ucdcr-meta/train_val_test_split.json").write_text(split, encoding="utf-8")
    records = json.loads((folder / "ecbplus_metam.json").read_text(encoding="utf-8"))
    train = {**record("9", 0, "It rained .", "rained"), "topic": "5", "doc_id": "5_1ecb.xml"}
    (folder / "ecbplus_metam.json").write_text(json.dumps({**records, "5_1ecb.xml_9": train}), encoding="utf-8")
    corpus = ecbplus_metam.read(folder, ReadOptions())
    assert [d.reason for d in corpus.dropped if d.source_id == "9"] == [
        "topic 5 is a train topic; ECB+METAm has val/test only"
    ]
    assert corpus.counts["annotated"] == 7  # every record of the file, the dropped one included
    (folder / "ucdcr-meta/train_val_test_split.json").write_text(json.dumps({"test": [36]}), encoding="utf-8")
    with pytest.raises(FormatError, match=r"ecbplus_metam\.json: record '5_1ecb.xml_9': topic 5 is in no split"):
        get("ecbplus_metam").read(folder)
