"""NP4E dataset module: structure from a tiny MMAX2 tree, and the cross-document merge rule on hand-made records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fixtures.raw.np4e import write_np4e_raw_folder, write_project
from tests.fixtures.unified import mention_record

from ucdcr.datasets import np4e
from ucdcr.datasets._chains import chain_entity_type
from ucdcr.errors import FormatError, MissingRawData
from ucdcr.formats.split_file import read_split_map
from ucdcr.records import MentionRecord
from ucdcr.registry import ReadOptions, get


def test_registered() -> None:
    spec = get("np4e")
    assert spec.paper_name == "NP4E_cd" and spec.finalize is np4e.merge_within_subtopic


def test_structure(tmp_path: Path) -> None:
    corpus = np4e.read_np4e(write_np4e_raw_folder(tmp_path), ReadOptions())
    # 2 events x 2 projects; subtopics numbered by the release's five events: bukavu 0 (train), peru 3 (test), also
    # when china and israel are absent
    assert [d.doc_key for d in corpus.documents] == ["0/0_bukavu/11", "0/0_bukavu/12", "0/3_peru/11", "0/3_peru/12"]
    assert [d.split for d in corpus.documents] == ["train", "train", "test", "test"]
    assert corpus.documents[0].subtopic == "0_Bukavu_bombing" and corpus.documents[0].topic == "0_bomb_explosion_kidnap"
    # 4 coref markables per project
    assert corpus.counts == {"annotated": 16}
    first = corpus.mentions[0]
    assert first.token_ids == ("word_3", "word_4") and first.chain_id == "0_bukavu_11_set_1" and first.kind == "entity"
    # the discontinuous markable (word_1, word_3) is passed on as annotated (the build drops it, never widens it)
    gaps = [m for m in corpus.mentions if m.source_id == "markable_3"]
    assert len(corpus.mentions) == 16 and corpus.dropped == []
    assert len(gaps) == 4 and all(m.token_ids == ("word_1", "word_3") for m in gaps)


def test_dollar_artefact_removed() -> None:
    assert [np4e.clean_token(t) for t in ["$--", "$-", "$...", "$36", "T$1,000", "$"]] == [
        "--",
        "-",
        "...",
        "$36",
        "T$1,000",
        "$",
    ]


def test_missing_raw(tmp_path: Path) -> None:
    # the manifest's required files, all named at once, before the reader runs
    with pytest.raises(MissingRawData, match=r"raw files missing in .*: mmax2, ucdcr-meta/train_val_test_split\.json"):
        get("np4e").read(tmp_path)


def test_subtopic_without_split(tmp_path: Path) -> None:
    raw = write_np4e_raw_folder(tmp_path)
    (raw / "ucdcr-meta" / "train_val_test_split.json").write_text(json.dumps({"train": ["0"]}))
    with pytest.raises(FormatError, match=r"subtopic 3 \(peru\) is in no split"):
        np4e.read_np4e(raw, ReadOptions())


def test_event_folder_missing_is_named_not_renumbered(tmp_path: Path) -> None:
    raw = write_np4e_raw_folder(tmp_path)
    (raw / "ucdcr-meta" / "train_val_test_split.json").write_text(json.dumps({"train": ["0", "1"], "test": ["3"]}))
    with pytest.raises(
        MissingRawData, match=r"split\.json: subtopics .* listed in the split file but not found: 1 \(china\)\."
    ):
        np4e.read_np4e(raw, ReadOptions())
    corpus = np4e.read_np4e(raw, ReadOptions(partial=True))
    assert {d.subtopic_id for d in corpus.documents} == {"0_bukavu", "3_peru"}
    assert any(note.startswith("partial corpus") and "1" in note for note in corpus.notes)


def test_unknown_event_folder_is_an_error(tmp_path: Path) -> None:
    raw = write_np4e_raw_folder(tmp_path)
    write_project(raw / "mmax2" / "atlantis", name="13newsML")
    with pytest.raises(FormatError, match=r"mmax2/atlantis: unknown event folder 'atlantis'"):
        np4e.read_np4e(raw, ReadOptions())


def test_split_file_errors(tmp_path: Path) -> None:
    path = tmp_path / "split.json"
    path.write_text('{"train": ["0"], "dev": ["1"]}')
    with pytest.raises(FormatError, match="unknown split 'dev'"):
        read_split_map(path)
    path.write_text('{"train": ["0"], "test": ["0"]}')
    with pytest.raises(FormatError, match="id '0' is in both train and test"):
        read_split_map(path)


def record(chain: str, doc: str, text: str, head: str, pos: str = "PROPN", ner: str = "O") -> MentionRecord:
    return mention_record(
        coref_chain=chain,
        conll_doc_key=doc,
        subtopic_id=doc.split("/")[1],
        tokens_str=text,
        mention_head=head,
        mention_head_pos=pos,
        mention_ner=ner,
    )


def test_merge_rule() -> None:
    assert np4e.chains_match({"the rebels", "rebels"}, {"rebels", "the rebels", "they"})  # two shared strings
    assert np4e.chains_match({"Fujimori", "President Fujimori"}, {"Fujimori"})  # one shared proper name
    assert not np4e.chains_match({"the rebels", "rebels"}, {"rebels"})  # one shared common noun
    assert not np4e.chains_match(set(), {"it"})


def test_merge_is_transitive_across_documents_only() -> None:
    records = [
        record("a", "0/0_x/1", "Fujimori", "Fujimori", ner="PERSON"),
        record("b", "0/0_x/2", "President Fujimori", "Fujimori", ner="PERSON"),
        record("b", "0/0_x/2", "Alberto Fujimori", "Fujimori", ner="PERSON"),
        record("c", "0/0_x/3", "Alberto Fujimori", "Fujimori"),  # links to b only (two shared strings)
        record("d", "0/0_x/1", "Fujimori", "Fujimori"),  # same document as a: never linked directly ...
        record("e", "0/0_x/4", "he", "he", pos="PRON"),  # pronoun-only chain: kept on its own
        record("f", "0/1_y/5", "Fujimori", "Fujimori"),  # other subtopic: never merged
    ]
    kept, dropped = np4e.merge_within_subtopic(records)
    assert dropped == [] and len(kept) == 7
    chains = [r.coref_chain for r in kept]
    # ... but a, b, c and d form one connected component (d links to b and c through the shared "Fujimori")
    assert len(set(chains[:5])) == 1
    assert chains[0] == "PER_a"  # majority non-"O" NER of non-pronoun heads (PERSON x3), smallest unit id
    assert (kept[0].mention_full_type, kept[0].mention_type) == ("PERSON", "PER")
    assert kept[0].description == "Alberto Fujimori"  # 2x, ties none; "Fujimori" also 2x -> alphabetical first
    assert chains[5] == "OTH_e"
    assert chains[6] == "OTH_f"
    assert [r.tokens_str for r in kept] == [r.tokens_str for r in records]  # the order given


def test_chain_type_and_description_rules() -> None:
    records = [
        record("a", "0/0_x/1", "Peru", "Peru", ner="GPE"),
        record("a", "0/0_x/1", "it", "it", "PRON", "GPE"),
        record("a", "0/0_x/1", "the country", "country", "NOUN", "O"),
        record("a", "0/0_x/1", "Lima", "Lima", ner="GPE"),
        record("a", "0/0_x/1", "Peru", "Peru", ner="ORG"),
    ]
    assert chain_entity_type(records) == "GPE"  # GPE 2, ORG 1, O ignored, pronoun ignored
    assert np4e.chain_description(records) == "Peru"
    only_pronouns = [record("a", "0/0_x/1", "it", "it", "PRON", "GPE"), record("a", "0/0_x/1", "its", "its", "PRON")]
    assert chain_entity_type(only_pronouns) == "OTHER"
    assert np4e.chain_description(only_pronouns) == "it"
