"""ECB+ reader rules (ucdcr.datasets.ecbplus) on a tiny raw folder in the original formats."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from tests.fixtures.raw.ecbplus import Doc, write_ecbplus_raw

from ucdcr.errors import FormatError, MissingRawData
from ucdcr.registry import get


def read(raw_dir: Path, **options: object):
    return get("ecbplus").read(raw_dir / "ECBplus", options)


@pytest.fixture
def raw(tmp_path: Path) -> Path:
    return write_ecbplus_raw(tmp_path / "raw")


def by_source(corpus, doc_key: str) -> dict:
    return {m.source_id: m for m in corpus.mentions if m.doc_key == doc_key}


def test_structure_and_splits(raw: Path) -> None:
    corpus = read(raw)
    documents = {d.doc_key: d for d in corpus.documents}
    assert list(documents) == ["1/1ecb/1", "1/1ecb/2", "1/1ecbplus/1", "2/2ecb/1", "36/36ecb/1"]
    first = documents["1/1ecb/1"]
    assert (first.topic_id, first.topic, first.subtopic_id, first.subtopic, first.doc_id, first.doc, first.split) == (
        "1",
        "1",
        "1ecb",
        "subtopic 1ecb",
        "1",
        "1_1ecb",
        "train",
    )
    assert documents["2/2ecb/1"].split == "val" and documents["36/36ecb/1"].split == "test"
    assert len(first.tokens) == 17  # both sentences are kept as text: 8 + 9 tokens
    assert any("15" in note for note in corpus.notes)  # topic 15 is in the split file but not in the corpus


def test_only_validated_sentences_by_default(raw: Path) -> None:
    corpus = read(raw)
    # 1_1ecb: 3 of its 4 mentions are in validated sentence 0; then 4 + 2 + 2 + 2 (fixture)
    assert corpus.counts["annotated"] == len(corpus.mentions) == 13
    assert "21" not in by_source(corpus, "1/1ecb/1")
    everything = read(raw, all_sentences=True)
    assert len(everything.mentions) == 14 and by_source(everything, "1/1ecb/1")["21"].chain_id == "HUM1"


def test_chain_rules(raw: Path) -> None:
    corpus = read(raw)
    first, second = by_source(corpus, "1/1ecb/1"), by_source(corpus, "1/1ecb/2")
    assert (first["20"].chain_id, first["20"].description) == ("HUM1", "t1b_tara_reid")  # instance_id
    assert second["20"].chain_id == "HUM1" and second["31"].chain_id == first["32"].chain_id == "ACT1"
    assert (first["30"].chain_id, first["30"].description) == ("Singleton_TIM_1_1ecb_30", "on Tuesday")  # unlinked
    assert second["36"].chain_id == "UNK_1_2ecb_50"  # UNKNOWN_INSTANCE_TAG target: a chain of this document only
    assert by_source(corpus, "2/2ecb/1")["1"].chain_id == "HUM_2_1ecb_9"  # instance without instance_id


def test_types_and_gap_filling(raw: Path) -> None:
    corpus = read(raw)
    first, plus = by_source(corpus, "1/1ecb/1"), by_source(corpus, "1/1ecbplus/1")
    assert (first["32"].kind, first["32"].full_type) == ("event", "ACTION_OCCURRENCE")
    assert (plus["6"].kind, plus["6"].full_type) == ("event", "NEG_ACTION_OCCURRENCE")  # NEG_* is an event
    assert first["20"].kind == "entity"
    assert by_source(corpus, "36/36ecb/1")["2"].kind == "event"  # ACTION_REPORTING
    # anchors t_id 12 and 14 of "... actress 's rep ..." are filled to 12..14
    assert by_source(corpus, "1/1ecb/2")["36"].token_ids == ("12", "13", "14")


def test_zip_instead_of_tree(raw: Path) -> None:
    tree = raw / "ECBplus" / "ECB+_LREC2014" / "ECB+"
    with zipfile.ZipFile(tree.parent / "ECB+.zip", "w") as bundle:
        for file in sorted(tree.rglob("*.xml")):
            bundle.write(file, f"ECB+/{file.relative_to(tree).as_posix()}")
        bundle.writestr("__MACOSX/ECB+/1/._1_1ecb.xml", b"\x00\x05")
    expected = read(raw)
    shutil.rmtree(tree)
    from_zip = read(raw)
    assert [d.doc_key for d in from_zip.documents] == [d.doc_key for d in expected.documents]
    assert [(m.doc_key, m.token_ids, m.chain_id) for m in from_zip.mentions] == [
        (m.doc_key, m.token_ids, m.chain_id) for m in expected.mentions
    ]


def test_unknown_topic_in_split_file(tmp_path: Path) -> None:
    raw = write_ecbplus_raw(tmp_path, splits={"train": [1], "val": [2], "test": [37]})
    with pytest.raises(FormatError, match=r"train_val_test_split.json: unknown topic 36 \(of 36_1ecb.xml\)"):
        read(raw)


def test_topic_in_two_splits(tmp_path: Path) -> None:
    raw = write_ecbplus_raw(tmp_path, splits={"train": [1, 2], "val": [2], "test": [36]})
    with pytest.raises(FormatError, match="topic 2 is in two splits"):
        read(raw)


def test_markable_pointing_at_missing_token(tmp_path: Path) -> None:
    raw = write_ecbplus_raw(tmp_path)
    path = raw / "ECBplus" / "ECB+_LREC2014" / "ECB+" / "2" / "2_1ecb.xml"
    path.write_text(path.read_text().replace('<token_anchor t_id="4"/>', '<token_anchor t_id="400"/>'))
    with pytest.raises(FormatError, match=r"2_1ecb.xml:\d+: markable 2 <ACTION_OCCURRENCE> points at missing token"):
        read(raw)


def test_truncated_xml(tmp_path: Path) -> None:
    raw = write_ecbplus_raw(tmp_path)
    path = raw / "ECBplus" / "ECB+_LREC2014" / "ECB+" / "36" / "36_1ecb.xml"
    path.write_text(path.read_text()[:300])
    with pytest.raises(FormatError, match=r"36_1ecb.xml:\d+: malformed XML"):
        read(raw)


def test_bad_sentence_csv_row(tmp_path: Path) -> None:
    raw = write_ecbplus_raw(tmp_path, validated=["1,1ecb,0", "1,1ecb"])
    with pytest.raises(FormatError, match=r"ECBplus_coreference_sentences.csv:3: bad row"):
        read(raw)


def test_missing_files(tmp_path: Path) -> None:
    raw = write_ecbplus_raw(tmp_path)
    (raw / "ECBplus" / "ucdcr-meta" / "subtopic_names.json").unlink()
    with pytest.raises(MissingRawData, match=r"subtopic_names.json"):
        read(raw)
    shutil.rmtree(raw / "ECBplus" / "ECB+_LREC2014")
    (raw / "ECBplus" / "ucdcr-meta" / "subtopic_names.json").write_text("{}")
    with pytest.raises(MissingRawData, match=r"ECBplus_coreference_sentences.csv"):
        read(raw)


def test_mention_spanning_two_sentences_is_dropped_with_reason(tmp_path: Path) -> None:
    docs = [Doc("1", "1_1ecb", ["A B .", "C D ."], mentions=[("1", "LOC_GEO", [(0, 1), (1, 0)])])]
    raw = write_ecbplus_raw(tmp_path, docs=docs, splits={"train": [1]}, validated=["1,1ecb,0"])
    corpus = read(raw)
    assert corpus.mentions == [] and corpus.counts["annotated"] == 1
    assert [(d.source_id, d.reason, d.stage) for d in corpus.dropped] == [
        ("1", "mention spans sentences [0, 1]", "read")
    ]
