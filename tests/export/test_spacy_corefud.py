"""spaCy DocBin (ucdcr.export.spacy_docs) and CorefUD CoNLL-U (ucdcr.export.corefud) exports of the tiny dataset of
tests/fixtures/tiny_dataset.py, read back with spaCy and with udapi."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin
from tests.conftest import require_module
from tests.fixtures import tiny_dataset as tiny

from ucdcr.errors import UcdcrError
from ucdcr.export.corefud import export_corefud
from ucdcr.export.spacy_docs import export_spacy, mentions_from_docs, to_spacy_docs

SRC = Path(__file__).resolve().parents[2] / "src"


def _expected(split: str) -> list[tuple]:
    """(doc key, mention id, chain, sent_id, tokens) of tiny_dataset.MENTIONS in a split."""
    return sorted(
        (doc_key, tiny.mention_id(i), chain, sent, list(range(first, last + 1)))
        for i, (doc_key, sent, first, last, chain, _) in enumerate(tiny.MENTIONS)
        if tiny.DOCS[doc_key][0] == split
    )


def _as_tuples(mentions: list[dict]) -> list[tuple]:
    return sorted(
        (m["conll_doc_key"], m["mention_id"], m["coref_chain"], m["sent_id"], m["tokens_number"]) for m in mentions
    )


def test_spacy_docs_hold_sentences_and_chains(tmp_path: Path) -> None:
    folder = tiny.write_tiny_dataset(tmp_path / "tiny")
    converted = to_spacy_docs(folder, split="train")
    docs = {doc.user_data["conll_doc_key"]: doc for doc in converted.docs}
    d1 = docs["0/s1/d1"]
    assert [sent.text for sent in d1.sents] == ["Obama ended the visit to Paris .", "He flew home ."]
    assert [span.text for span in d1.spans["OBAMA"]] == ["Obama", "He"]
    visit = d1.spans["VISIT"][0]
    assert (visit.text, visit.id_, visit.kb_id_, visit.label_) == ("the visit to Paris", "TINY_01", "VISIT", "event")
    assert _as_tuples(mentions_from_docs(converted.docs)) == _expected("train")


def test_docbin_round_trip(tmp_path: Path) -> None:
    folder = tiny.write_tiny_dataset(tmp_path / "tiny")
    export = export_spacy(folder, tmp_path / "tiny.spacy", split="test")
    assert (export.documents, export.mentions, export.chains, export.left_out) == (2, 5, 2, [])
    docs = list(DocBin().from_disk(tmp_path / "tiny.spacy").get_docs(spacy.blank("en").vocab))
    assert _as_tuples(mentions_from_docs(docs)) == _expected("test")


def test_spacy_refuses_a_dataset_without_texts(tmp_path: Path) -> None:
    folder = tiny.write_tiny_dataset(tmp_path / "tiny")
    (folder / "all_documents.parquet").unlink()
    with pytest.raises(UcdcrError, match="not redistributed"):
        to_spacy_docs(folder)


def test_corefud_read_back_by_udapi(tmp_path: Path) -> None:
    udapi = require_module("udapi", "corefud")
    folder = tiny.write_tiny_dataset(tmp_path / "tiny")
    export = export_corefud(folder, tmp_path / "cud", split="test")
    summary = export.splits["test"]
    assert summary is not None and (summary.documents, summary.mentions, summary.entities) == (2, 5, 2)
    doc = udapi.Document(str(summary.path))
    assert (len(doc.coref_mentions), len(doc.coref_entities)) == (5, 2)
    mapping = json.loads(summary.mapping_path.read_text(encoding="utf-8"))["entities"]
    by_chain = {mapping[entity.eid]: entity for entity in doc.coref_entities}
    # FIRE: "fire" (d3), "The blaze" (d3), "fire" (d4): one entity over two newdoc documents
    fire = by_chain["FIRE"]
    assert [" ".join(word.form for word in mention.words) for mention in fire.mentions] == ["fire", "The blaze", "fire"]
    assert fire.etype == "event" and by_chain["CITY"].etype == "entity"
    newdocs = [tree.newdoc for tree in doc.trees if tree.newdoc]
    assert newdocs == ["0/s2/d3", "1/s3/d4"]
    assert export_corefud(folder, tmp_path / "cud", split="val").splits["val"] is None  # no val documents


def test_cli_exports(tmp_path: Path) -> None:
    folder = tiny.write_tiny_dataset(tmp_path / "tiny")
    env = {**os.environ, "PYTHONPATH": str(SRC)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "ucdcr", "export", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, check=False)

    spacy_run = run("spacy", str(folder), "--split", "train", "--out", str(tmp_path / "t.spacy"))
    assert spacy_run.returncode == 0, spacy_run.stderr
    assert "2 documents, 8 mentions, 5 chains" in spacy_run.stdout
    corefud_run = run("corefud", str(folder), "--split", "train", "--out", str(tmp_path / "cud"))
    assert corefud_run.returncode == 0, corefud_run.stderr
    assert "train: 2 documents, 4 sentences, 8 mentions, 5 entities" in corefud_run.stdout
    bad = run("spacy", str(folder), "--split", "dev", "--out", str(tmp_path / "x.spacy"))
    assert bad.returncode == 2 and "unknown split 'dev'" in bad.stderr and "Traceback" not in bad.stderr
