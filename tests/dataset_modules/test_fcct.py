"""FCC-T dataset module on a tiny raw folder laid out like the FCC recipe's output (``<raw-dir>/FCC``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from tests.fixtures.raw.fcct import ACTION_HEADER, FINAL, SEMI, TOKEN_HEADER, write_csv, write_fcct_raw

from ucdcr.datasets.fcct import read_fcct
from ucdcr.errors import FormatError, MissingRawData
from ucdcr.formats.shortuuid import name_shortuuid
from ucdcr.registry import ReadOptions, get


def test_structure_and_splits(tmp_path: Path) -> None:
    corpus = read_fcct(write_fcct_raw(tmp_path), ReadOptions())
    docs = {doc.doc_id: doc for doc in corpus.documents}
    assert {d: doc.split for d, doc in docs.items()} == {
        "t1": "train",
        "t2": "train",
        "t3": "train",
        "v1": "val",
        "s1": "test",
    }
    assert docs["t1"].doc_key == f"0/{name_shortuuid(FINAL)}/t1" and docs["t1"].subtopic == FINAL
    assert docs["t1"].subtopic_id == docs["t2"].subtopic_id == docs["v1"].subtopic_id
    # no seminal event: a subtopic of its own
    assert docs["t3"].subtopic == "singleton_subtopic_t3"
    assert {doc.topic_id for doc in corpus.documents} == {"0"}
    assert [t.token_id for t in docs["t1"].tokens][:3] == ["0.0", "0.1", "0.2"] and docs["t1"].tokens[7].sent_id == 1


def test_chains_span_subtopics_and_splits(tmp_path: Path) -> None:
    corpus = read_fcct(write_fcct_raw(tmp_path), ReadOptions())
    assert corpus.counts["annotated"] == 9 and len(corpus.mentions) == 9 and not corpus.dropped
    sizes = Counter(m.chain_id for m in corpus.mentions)
    final = "EVE" + name_shortuuid(FINAL)
    assert sizes[final] == 4  # t1 x2, t2, v1: one chain across documents and splits
    assert sizes["EVE" + name_shortuuid(SEMI)] == 3  # mentioned outside its own subtopic (cross-subtopic)
    assert sizes["EVE" + name_shortuuid("other_event")] == 1  # a singleton chain
    assert all(m.kind == "event" and m.full_type == "EVENT" for m in corpus.mentions)
    stacked = [m for m in corpus.mentions if m.doc_key.endswith("/t3") and m.token_ids == ("0.1",)]
    assert sorted(m.description for m in stacked) == sorted(["other_event", SEMI])
    semi = next(m for m in corpus.mentions if m.source_id == "t2/1")
    assert semi.token_ids == ("1.1", "1.2")  # token-idx-to is exclusive


def test_empty_token_cell_is_left_out(tmp_path: Path) -> None:
    raw = write_fcct_raw(tmp_path)
    tokens = raw / "2020-10-05_FCC_cleaned" / "test" / "tokens.csv"
    write_csv(tokens, TOKEN_HEADER, [["s1", 0, 0, "Portugal"], ["s1", 0, 1, ""], ["s1", 0, 2, "won"]])
    corpus = read_fcct(raw, ReadOptions())
    s1 = next(d for d in corpus.documents if d.doc_id == "s1")
    assert [t.text for t in s1.tokens] == ["Portugal", "won"]
    dropped = [d for d in corpus.dropped if d.source_id == "s1/0"]
    assert len(dropped) == 1 and dropped[0].reason == "the span holds only empty token cells"


def test_malformed_mentions(tmp_path: Path) -> None:
    raw = write_fcct_raw(tmp_path)
    actions = raw / "2020-10-05_FCC-T" / "test" / "with_stacked_actions" / "cross_subtopic_mentions_action.csv"
    write_csv(actions, ACTION_HEADER, [["s1", 0, 0, 3, 9, "x"]])
    with pytest.raises(
        FormatError, match=r"cross_subtopic_mentions_action.csv:2: span 3..8 is outside sentence 0 \(5 tokens\)"
    ):
        read_fcct(raw, ReadOptions())
    write_csv(actions, ACTION_HEADER, [["nope", 0, 0, 0, 1, "x"]])
    with pytest.raises(FormatError, match=r":2: mention of unknown document 'nope'"):
        read_fcct(raw, ReadOptions())
    write_csv(actions, ACTION_HEADER, [["s1", 0, 4, 0, 1, "x"]])
    with pytest.raises(FormatError, match=r":2: sentence 4 does not exist in document s1"):
        read_fcct(raw, ReadOptions())


def test_missing_files_give_the_manual_steps(tmp_path: Path) -> None:
    raw = write_fcct_raw(tmp_path)
    (raw / "2020-10-05_FCC_cleaned" / "dev" / "tokens.csv").unlink()
    with pytest.raises(MissingRawData) as info:
        get("fcct").read(raw, ReadOptions())
    message = str(info.value)
    assert "2020-10-05_FCC_cleaned/dev/tokens.csv" in message
    assert "tudatalib.ulb.tu-darmstadt.de/handle/tudatalib/2305" in message and "mbugert/fcc" in message
    assert "CC BY-SA 4.0" in message


def test_full_build_on_fixture(tmp_path: Path) -> None:
    import json

    from ucdcr.pipeline.build import build_dataset

    write_fcct_raw(tmp_path / "raw")
    report = build_dataset("fcct", raw_dir=tmp_path / "raw", data_dir=tmp_path / "data", jobs=1, progress=False)
    out = tmp_path / "data" / "fcct"
    assert report.counts["mentions_written"] == 9 and report.parse_rate == 100.0
    assert not (out / "all_documents.parquet").exists()  # article texts are not redistributable
    train = json.loads((out / "train" / "event_mentions.json").read_text())
    assert json.loads((out / "train" / "entity_mentions.json").read_text()) == []
    assert len(train) == 7 and {m["conll_doc_key"].split("/")[0] for m in train} == {"0"}
    semi = next(m for m in train if m["tokens_str"] == "semi-final win")
    assert semi["coref_chain"] == "EVE" + name_shortuuid(SEMI) and semi["subtopic"] == FINAL
    # singleton flags are per split: the final has 3 mentions in train, 1 in val
    val = json.loads((out / "val" / "event_mentions.json").read_text())
    assert [m["is_singleton"] for m in val] == [True]
    assert not any(m["is_singleton"] for m in train if m["coref_chain"] == "EVE" + name_shortuuid(FINAL))


def test_token_gap_and_document_without_tokens(tmp_path: Path) -> None:
    raw = write_fcct_raw(tmp_path)
    tokens = raw / "2020-10-05_FCC_cleaned" / "test" / "tokens.csv"
    write_csv(tokens, TOKEN_HEADER, [["s1", 0, 0, "Portugal"], ["s1", 0, 2, "won"]])  # token 1 is missing
    with pytest.raises(
        FormatError,
        match=r"tokens\.csv: document s1, sentence 0: token-idx values \[0, 2\] do not run "
        r"0\.\.1 once each",
    ):
        read_fcct(raw, ReadOptions())
    write_csv(tokens, TOKEN_HEADER, [])  # s1 has no tokens at all
    with pytest.raises(FormatError, match=r"tokens\.csv: documents of documents\.csv without tokens here: s1"):
        read_fcct(raw, ReadOptions())
    corpus = read_fcct(raw, ReadOptions(partial=True))
    assert "s1" not in {d.doc_id for d in corpus.documents}
    assert [d.reason for d in corpus.dropped] == ["document has no tokens in tokens.csv"]
    assert any("partial corpus" in note and "s1" in note for note in corpus.notes)
