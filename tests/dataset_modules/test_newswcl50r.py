"""NewsWCL50r dataset module on a tiny raw folder laid out like ../shared/raw/NewsWCL50r."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from tests.fixtures.raw.newswcl50r import maxqda_row, write_maxqda, write_newswcl50r_raw
from tests.fixtures.unified import mention_record

from ucdcr.datasets.newswcl50r import NewsWCL50rOptions, chain_id, drop_duplicate_heads, read_newswcl50r
from ucdcr.errors import FormatError, MissingRawData
from ucdcr.records import MentionRecord
from ucdcr.registry import get


def test_structure_splits_and_types(tmp_path: Path) -> None:
    corpus = read_newswcl50r(write_newswcl50r_raw(tmp_path), NewsWCL50rOptions())
    docs = {doc.doc_key: doc for doc in corpus.documents}
    assert set(docs) == {"0/0/0_L", "0/0/0_R", "4/4/4_M"}
    assert docs["0/0/0_L"].subtopic == "0_PompeoTrip" and docs["0/0/0_L"].split == "val"
    assert docs["4/4/4_M"].split == "test"
    assert corpus.unavailable_splits.keys() == {"train"}
    kinds = {m.chain_id: m.kind for m in corpus.mentions}
    assert kinds["0_Trip_to_PRK_ACTION"] == "event" and kinds["4_Iran_deal_EVENT"] == "event"
    assert kinds["0_USA_Trump_ACTOR"] == "entity" and kinds["0_PRK_COUNTRY"] == "entity"
    # chains are per topic: Trump of topic 0 and of topic 4 differ
    assert "4_USA_Trump_ACTOR" in kinds


def test_mentions_chains_and_singletons(tmp_path: Path) -> None:
    corpus = read_newswcl50r(write_newswcl50r_raw(tmp_path), NewsWCL50rOptions())
    sizes = Counter(m.chain_id for m in corpus.mentions)
    # topic 0 Trump: "President Trump" + 2 x "Trump" in 0_L + "Mr. Trump's" in 0_R = 4 mentions
    assert sizes["0_USA_Trump_ACTOR"] == 4
    assert sizes["0_Trip_to_PRK_ACTION"] == 1  # a singleton chain
    tokens = {doc.doc_key: {t.token_id: t.text for t in doc.tokens} for doc in corpus.documents}
    texts = sorted(
        " ".join(tokens[m.doc_key][t] for t in m.token_ids)
        for m in corpus.mentions
        if m.chain_id == "0_USA_Trump_ACTOR"
    )
    assert texts == ["Mr . Trump ' s", "President Trump", "Trump", "Trump"]
    trip = next(m for m in corpus.mentions if m.chain_id == "0_Trip_to_PRK_ACTION")
    assert all(t.startswith("p2.") for t in trip.token_ids)  # found in paragraph 2, one before the annotated one
    # the two "Trump" codings take the two occurrences of paragraph 3 (sentence 2), not the same one twice
    twice = [
        m.token_ids
        for m in corpus.mentions
        if m.doc_key == "0/0/0_L" and [tokens[m.doc_key][t] for t in m.token_ids] == ["Trump"]
    ]
    assert len(set(twice)) == 2 and all(t[0].startswith("p3.") for t in twice)


def test_every_annotation_is_accounted_for(tmp_path: Path) -> None:
    corpus = read_newswcl50r(write_newswcl50r_raw(tmp_path), NewsWCL50rOptions())
    # 11 rows, 1 Properties code -> 10 annotated = 8 mentions + ACTOR-I + "Pyongyang" (not found)
    assert corpus.counts == {"annotated": 10, "properties_codes": 1}
    assert len(corpus.mentions) == 8
    reasons = sorted(d.reason for d in corpus.dropped)
    assert reasons == ["segment not found in paragraphs 1..7", "type ACTOR-I is excluded (uCDCR rule)"]


def test_tokens_rebuild_the_paragraph(tmp_path: Path) -> None:
    corpus = read_newswcl50r(write_newswcl50r_raw(tmp_path), NewsWCL50rOptions())
    doc = next(d for d in corpus.documents if d.doc_id == "0_L")
    sentence = [t for t in doc.tokens if t.sent_id == 2]
    rebuilt = "".join(t.text + (" " if t.space_after else "") for t in sentence)
    assert rebuilt == "Trump met North Korea officials; Trump smiled."


def test_texts_dir_option(tmp_path: Path) -> None:
    raw = write_newswcl50r_raw(tmp_path / "a", with_texts=False)
    (raw / "NewsWCL50r" / "json_text").rmdir()
    other = write_newswcl50r_raw(tmp_path / "b") / "NewsWCL50r" / "json_text"
    # with texts_dir, the manifest's json_text folder is not needed (its entry's unless_option)
    corpus = get("newswcl50r").read(raw, {"texts_dir": str(other)})
    assert len(corpus.documents) == 3 and corpus.documents[0].source_file.startswith(str(other))
    with pytest.raises(MissingRawData, match=r"raw files missing in .*: NewsWCL50r/json_text\."):
        get("newswcl50r").read(raw)


def test_without_texts_the_message_gives_the_manual_steps(tmp_path: Path) -> None:
    raw = write_newswcl50r_raw(tmp_path, with_texts=False)
    with pytest.raises(MissingRawData) as info:
        get("newswcl50r").read(raw, NewsWCL50rOptions())
    message = str(info.value)
    assert "article texts are not available" in message
    assert "https://github.com/fhamborg/NewsWCL50" in message and "--texts DIR" in message
    assert "NewsWCL50r/NewsWCL50r/json_text" in message and "CC BY-SA 4.0" in message


def test_missing_annotation_folder_is_missing_raw_data(tmp_path: Path) -> None:
    raw = write_newswcl50r_raw(tmp_path)
    for csv in (raw / "NewsWCL50r" / "csv_export").glob("*.csv"):
        csv.unlink()
    with pytest.raises(MissingRawData, match="no annotation CSV in"):
        get("newswcl50r").read(raw)
    (raw / "ucdcr-meta" / "train_val_test_split.json").unlink()
    with pytest.raises(MissingRawData, match=r"raw files missing in .*: ucdcr-meta/train_val_test_split\.json\."):
        get("newswcl50r").read(raw)


def test_document_without_text_and_topic_without_split(tmp_path: Path) -> None:
    raw = write_newswcl50r_raw(tmp_path)
    (raw / "NewsWCL50r" / "json_text" / "4" / "4_M.json").unlink()
    with pytest.raises(MissingRawData, match="no article text for document '4_M'"):
        read_newswcl50r(raw, NewsWCL50rOptions())
    raw = write_newswcl50r_raw(tmp_path / "c")
    (raw / "ucdcr-meta" / "train_val_test_split.json").write_text('{"val": ["0"], "test": []}')
    with pytest.raises(FormatError, match=r"topic 4 \(4_IranDeal.csv\) is in no split"):
        read_newswcl50r(raw, NewsWCL50rOptions())


def test_chain_id_rule() -> None:
    assert chain_id("7", "USA\\Trump admin", "GROUP") == "7_USA_Trump_admin_GROUP"


def test_drop_duplicate_heads_keeps_the_longest() -> None:
    def record(mention_id: str, text: str, head: int, sent: int = 0) -> MentionRecord:
        return mention_record(
            mention_id=mention_id, conll_doc_key="0/0/0_L", sent_id=sent, mention_head_id=head, tokens_str=text
        )

    records = [record("a", "Trump", 1), record("b", "President Trump", 1), record("c", "Trump", 1, sent=1)]
    kept, dropped = drop_duplicate_heads(records)
    assert [r.mention_id for r in kept] == ["b", "c"]
    assert [d.source_id for d in dropped] == ["a"] and dropped[0].stage == "finalize"


def test_full_build_on_fixture(tmp_path: Path) -> None:
    from ucdcr.pipeline.build import build_dataset

    write_newswcl50r_raw(tmp_path / "raw")
    report = build_dataset("newswcl50r", raw_dir=tmp_path / "raw", data_dir=tmp_path / "data", jobs=1, progress=False)
    out = tmp_path / "data" / "newswcl50r"
    assert not (out / "all_documents.parquet").exists()  # article texts are not redistributable
    events = json.loads((out / "val" / "event_mentions.json").read_text())
    entities = json.loads((out / "val" / "entity_mentions.json").read_text())
    assert json.loads((out / "train" / "entity_mentions.json").read_text()) == []
    assert [m["tokens_str"] for m in events] == ["secret trip"] and events[0]["is_singleton"]
    assert {m["coref_chain"] for m in entities} == {"0_USA_Trump_ACTOR", "0_PRK_COUNTRY"}
    trump = sorted(m["tokens_str"] for m in entities if m["coref_chain"] == "0_USA_Trump_ACTOR")
    assert trump == ["Mr. Trump's", "President Trump", "Trump", "Trump"]
    # the context window holds the mention at tokens_number_context
    first = next(m for m in entities if m["tokens_str"] == "President Trump")
    assert first["mention_context"][first["tokens_number_context"][0]] == "President"
    assert report.counts["mentions_written"] == 8 and report.counts["dropped_read"] == 2


def test_segment_inside_a_word_is_covered_exactly(tmp_path: Path) -> None:
    raw = write_newswcl50r_raw(tmp_path)
    write_maxqda(
        raw / "NewsWCL50r" / "csv_export" / "4_IranDeal.csv",
        [
            maxqda_row("4_M", "Iran deal", "the Iran deal", 1),
            maxqda_row("4_M", "USA\\Trump", "Trum", 2),  # ends inside the word "Trump"
        ],
    )
    corpus = read_newswcl50r(raw, NewsWCL50rOptions())
    doc = next(d for d in corpus.documents if d.doc_id == "4_M")
    text = {t.token_id: t.text for t in doc.tokens}
    trum = next(m for m in corpus.mentions if m.doc_key == doc.doc_key and m.description == "USA\\Trump")
    assert [text[t] for t in trum.token_ids] == ["Trum"]  # not widened to "Trump"
    rebuilt = "".join(t.text + (" " if t.space_after else "") for t in doc.tokens if t.sent_id == 1)
    assert rebuilt == "Trump said so."  # the split word still rebuilds the paragraph


def test_topic_listed_without_annotation_file(tmp_path: Path) -> None:
    raw = write_newswcl50r_raw(tmp_path)
    (raw / "ucdcr-meta" / "train_val_test_split.json").write_text(json.dumps({"val": ["0"], "test": ["4", "5"]}))
    with pytest.raises(MissingRawData, match=r"split\.json: topics .* not found: 5\."):
        read_newswcl50r(raw, NewsWCL50rOptions())
    corpus = read_newswcl50r(raw, NewsWCL50rOptions(partial=True))
    assert len(corpus.documents) == 3 and any("not found: 5" in note for note in corpus.notes)
