"""ECB+METAm reading on a tiny raw dir: an ECB+ CAT XML document (MANIFEST.md §1) + a mention map (§2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ucdcr.datasets import ecbplus_metam
from ucdcr.errors import MissingRawData
from ucdcr.registry import ReadOptions, get

CAT_XML = """<?xml version="1.0" encoding="UTF-8"?>
<Document doc_name="36_1ecb.xml" doc_id="DOC15645013218003290">
<token t_id="1" sentence="0" number="0">Police</token>
<token t_id="2" sentence="0" number="1">captured</token>
<token t_id="3" sentence="0" number="2">the</token>
<token t_id="4" sentence="0" number="3">gunman</token>
<token t_id="5" sentence="0" number="4">.</token>
<token t_id="6" sentence="1" number="0">He</token>
<token t_id="7" sentence="1" number="1">was</token>
<token t_id="8" sentence="1" number="2">arrested</token>
<token t_id="9" sentence="1" number="3">on</token>
<token t_id="10" sentence="1" number="4">Tuesday</token>
<token t_id="11" sentence="1" number="5">.</token>
<token t_id="12" sentence="2" number="0">Nobody</token>
<token t_id="13" sentence="2" number="1">was</token>
<token t_id="14" sentence="2" number="2">hurt</token>
<token t_id="15" sentence="2" number="3">.</token>
<Markables>
<HUMAN_PART_ORG m_id="1"><token_anchor t_id="1"/></HUMAN_PART_ORG>
<ACTION_OCCURRENCE m_id="2"><token_anchor t_id="2"/></ACTION_OCCURRENCE>
<HUMAN_PART_PER m_id="3"><token_anchor t_id="3"/><token_anchor t_id="4"/></HUMAN_PART_PER>
<HUMAN_PART_PER m_id="4"><token_anchor t_id="6"/></HUMAN_PART_PER>
<ACTION_OCCURRENCE m_id="5"><token_anchor t_id="8"/></ACTION_OCCURRENCE>
<TIME_DATE m_id="6"><token_anchor t_id="9"/><token_anchor t_id="10"/></TIME_DATE>
<NEG_ACTION_OCCURRENCE m_id="7"><token_anchor t_id="14"/></NEG_ACTION_OCCURRENCE>
<ACTION_OCCURRENCE m_id="20" TAG_DESCRIPTOR="t36_capture" instance_id="ACT123"/>
<HUMAN_PART_PER m_id="21" TAG_DESCRIPTOR="t36_gunman" instance_id="HUM456"/>
</Markables>
<Relations>
<CROSS_DOC_COREF r_id="1" note="ACT123"><source m_id="2"/><source m_id="5"/><target m_id="20"/></CROSS_DOC_COREF>
<CROSS_DOC_COREF r_id="2" note="HUM456"><source m_id="3"/><source m_id="4"/><target m_id="21"/></CROSS_DOC_COREF>
</Relations>
</Document>
"""

ORIGINAL = ["Police captured the gunman .", "He was arrested on Tuesday .", "Nobody was hurt ."]
PARAPHRASE_0 = "Police threw a net over the gunman."
PARAPHRASE_1 = "He was put in irons that day."


def record(m_id: str, sentence_id: int, sentence: str, text: str) -> dict[str, object]:
    start = sentence.index(text)
    return {
        "mention_id": f"36_1ecb.xml_{m_id}",
        "topic": "36",
        "doc_id": "36_1ecb.xml",
        "m_id": m_id,
        "sentence_id": str(sentence_id),
        "sentence": sentence,
        "marked_sentence": sentence[:start] + "<m> " + text + " </m>" + sentence[start + len(text) :],
        "mention_text": text,
        "token_start": 0,
        "token_end": 0,
        "start_char": start,
        "end_char": start + len(text),
        "gold_cluster": "x",
        "men_type": "evt",
    }


def write_raw(raw: Path, with_map: bool = True) -> Path:
    """<raw>/ECBplus (one test-topic document) and <raw>/ECBplusMETAm laid out like ../shared/raw."""
    ecb = raw / "ECBplus"
    (ecb / "ECB+_LREC2014/ECB+/36").mkdir(parents=True)
    (ecb / "ECB+_LREC2014/ECB+/36/36_1ecb.xml").write_text(CAT_XML, encoding="utf-8")
    (ecb / "ECB+_LREC2014/ECBplus_coreference_sentences.csv").write_text(
        "Topic,File,Sentence Number\n36,1ecb,0\n36,1ecb,1\n", encoding="utf-8"
    )
    (ecb / "ucdcr-meta").mkdir()
    split = json.dumps({"train": [], "val": [], "test": [36]})  # the fixture's one topic
    (ecb / "ucdcr-meta/train_val_test_split.json").write_text(split, encoding="utf-8")
    (ecb / "ucdcr-meta/subtopic_names.json").write_text(json.dumps({"36ecb": "arrest"}), encoding="utf-8")
    metam = raw / "ECBplusMETAm"
    (metam / "ucdcr-meta").mkdir(parents=True)
    (metam / "ucdcr-meta/train_val_test_split.json").write_text(split, encoding="utf-8")
    if with_map:
        records = [
            record("1", 0, ORIGINAL[0], "Police"),
            record("2", 0, PARAPHRASE_0, "threw a net over"),  # paraphrased trigger
            record("3", 0, ORIGINAL[0], "the gunman"),
            record("5", 1, PARAPHRASE_1, "put in irons"),
            record("6", 1, ORIGINAL[1], "on Tuesday"),  # entity rewritten away by the paraphrase
            record("7", 2, ORIGINAL[2], "hurt"),  # unchanged sentence
        ]  # m_id 4 ("He") is not in the map: not part of the dataset
        (metam / "ecbplus_metam.json").write_text(json.dumps({r["mention_id"]: r for r in records}), encoding="utf-8")
    return metam


def test_paraphrased_sentences_replace_the_originals(tmp_path: Path) -> None:
    corpus = ecbplus_metam.read(write_raw(tmp_path), ReadOptions())
    (document,) = corpus.documents
    assert (document.split, document.doc_key) == ("test", "36/36ecb/1")
    sentence = {s: [t.text for t in document.tokens if t.sent_id == s] for s in (0, 1, 2)}
    assert sentence[0] == ["Police", "threw", "a", "net", "over", "the", "gunman", "."]
    assert sentence[1] == ["He", "was", "put", "in", "irons", "that", "day."]
    assert sentence[2] == ["Nobody", "was", "hurt", "."]  # the ECB+ tokens
    spacing = [t.space_after for t in document.tokens if t.sent_id == 0]
    assert spacing == [True, True, True, True, True, True, False, False]  # "...gunman." has no space before "."


def test_mentions_chains_and_drops(tmp_path: Path) -> None:
    corpus = ecbplus_metam.read(write_raw(tmp_path), ReadOptions())
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
    folder = write_raw(tmp_path, with_map=False)
    with pytest.raises(MissingRawData) as info:
        get("ecbplus_metam").read(folder)
    message = str(info.value)
    assert "ecbplus_metam.json" in message and "8b766eb3c26ede6322bcdec434f88ad8d211ebe3" in message


def test_build_through_the_pipeline(tmp_path: Path) -> None:
    from ucdcr.pipeline.build import build_dataset

    write_raw(tmp_path)
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

    folder = write_raw(tmp_path)
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
