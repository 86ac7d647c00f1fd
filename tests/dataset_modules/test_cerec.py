"""CEREC dataset module: final names vs manifest stand-ins, documents per message, SYSTEM tokens, chain finalize."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.fixtures.raw.cerec import THREAD, line, write_zip  # the 7-column thread of tests/formats
from tests.fixtures.unified import mention_record

from ucdcr.datasets import cerec
from ucdcr.errors import MissingRawData
from ucdcr.records import MentionRecord
from ucdcr.registry import ReadOptions, get

SYSTEM_ONLY = "\n".join(
    ["#begin document b_2.txt", line("Subject", speaker="SYSTEM", coref="(1)"), line("hi"), "#end document", ""]
)


def test_registered() -> None:
    assert get("cerec").paper_name == "CEREC_exp" and get("cerec").finalize is cerec.finalize_chains


def test_manifest_names_the_release_members() -> None:
    # uCDCR's choice (paper appendix 7.1.2): seed.conll / cerec.validation.20.conll / cerec.validation.14.conll
    assert cerec.split_file_names(get("cerec").manifest) == {
        "train": "seed.conll",
        "val": "cerec.validation.20.conll",
        "test": "cerec.validation.14.conll",
    }


def test_final_zip_preferred_and_missing_split_reported(tmp_path: Path) -> None:
    write_zip(
        tmp_path / "data/COLING/cerec.zip",
        {"cerec/cerec.validation.20.conll": THREAD, "cerec/cerec.validation.14.conll": SYSTEM_ONLY},
    )
    write_zip(tmp_path / "_superseded/data/COLING/dev.zip", {"dev.20.conll": SYSTEM_ONLY, "dev.14.conll": SYSTEM_ONLY})
    corpus = cerec.read_cerec(tmp_path, ReadOptions())
    assert set(corpus.unavailable_splits) == {"train"} and "seed.conll" in corpus.unavailable_splits["train"]
    assert corpus.notes == []  # no stand-in used
    val = [d for d in corpus.documents if d.split == "val"]
    # THREAD: message 1 (Rita; its SYSTEM token excluded) and message 2 (Phillip)
    assert [d.doc_key for d in val] == ["0/allen-p_inbox_1/1_Rita", "0/allen-p_inbox_1/2_Phillip"]
    assert [t.text for t in val[0].tokens] == ["rita", "wynne", "wrote"]
    assert [t.sent_id for t in val[1].tokens] == [0, 0, 0]  # sentences renumbered per document
    assert [(m.doc_key.split("/")[-1], m.token_ids, m.chain_id) for m in corpus.mentions[:2]] == [
        ("1_Rita", ("1", "2"), "allen-p_inbox_1_16"),
        ("2_Phillip", ("4",), "allen-p_inbox_1_3"),
    ]


def test_stand_ins_through_the_manifest(tmp_path: Path) -> None:
    write_zip(tmp_path / "_superseded/data/COLING/dev.zip", {"dev.20.conll": THREAD, "dev.14.conll": SYSTEM_ONLY})
    corpus = cerec.read_cerec(tmp_path, ReadOptions())
    assert corpus.notes == [
        "val: cerec.validation.20.conll read from the stand-in _superseded/data/COLING/dev.zip:dev.20.conll",
        "test: cerec.validation.14.conll read from the stand-in _superseded/data/COLING/dev.zip:dev.14.conll",
    ]
    # the test thread's only mention lies on a SYSTEM token: dropped with its reason, still counted as annotated
    (dropped,) = corpus.dropped
    assert "SYSTEM" in dropped.reason and dropped.text == "Subject" and dropped.stage == "read"
    assert corpus.counts["annotated"] == 6 and len(corpus.mentions) == 5  # THREAD has 5 mentions
    assert corpus.counts["system_tokens"] == 2


def test_extracted_final_file_first(tmp_path: Path) -> None:
    (tmp_path / "data/COLING").mkdir(parents=True)
    (tmp_path / "data/COLING/seed.conll").write_text(THREAD)
    corpus = cerec.read_cerec(tmp_path, ReadOptions())
    assert {d.split for d in corpus.documents} == {"train"}
    assert set(corpus.unavailable_splits) == {"val", "test"}


def test_nothing_found(tmp_path: Path) -> None:
    # checked before the reader runs: the final zip, or one of the files that stand in for it
    with pytest.raises(MissingRawData, match=r"raw files missing in .*: data/COLING/cerec\.zip\."):
        get("cerec").read(tmp_path)
    # a zip without the split members: only the reader can tell
    write_zip(tmp_path / "_superseded/data/COLING/dev.zip", {"other.conll": THREAD})
    with pytest.raises(MissingRawData, match="no CEREC split file found"):
        get("cerec").read(tmp_path)


def record(chain: str, head: str, pos: str, ner: str) -> MentionRecord:
    return mention_record(coref_chain=chain, mention_head=head, mention_head_pos=pos, mention_ner=ner)


def test_finalize_chain_id_type_description() -> None:
    records = [
        record("t_16", "Rita", "PROPN", "PERSON"),
        record("t_16", "I", "PRON", "O"),
        record("t_16", "Rita", "PROPN", "O"),
        record("t_3", "we", "PRON", "O"),
    ]
    kept, dropped = cerec.finalize_chains(records)
    assert dropped == []
    assert [r.coref_chain for r in kept] == ["t_16_PER", "t_16_PER", "t_16_PER", "t_3_OTH"]
    assert (kept[0].mention_full_type, kept[0].mention_type, kept[0].description) == ("PERSON", "PER", "Rita")
    assert kept[3].description == "we"  # only pronouns: the most frequent head


def test_mention_partly_on_system_tokens_is_dropped_not_shortened(tmp_path: Path) -> None:
    partly = "\n".join(
        [
            "#begin document c_3.txt",
            line("Subject", speaker="SYSTEM", coref="(1"),
            line("hi", coref="1)"),
            "#end document",
            "",
        ]
    )
    (tmp_path / "data/COLING").mkdir(parents=True)
    (tmp_path / "data/COLING/seed.conll").write_text(partly)
    corpus = cerec.read_cerec(tmp_path, ReadOptions())
    (dropped,) = corpus.dropped
    assert dropped.text == "Subject hi" and "it would be shortened" in dropped.reason
    assert corpus.mentions == []
