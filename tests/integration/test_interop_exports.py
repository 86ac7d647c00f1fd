"""The exports users open in their own tools, on the real ECB+ and NP4E builds: Hugging Face ``load_dataset`` and
the card (huggingface_hub, offline), the spaCy DocBin round trip and udapi reading the CorefUD export."""

from __future__ import annotations

from pathlib import Path

import spacy
from spacy.tokens import DocBin
from tests.conftest import require_module

from ucdcr.api import load
from ucdcr.export.corefud import export_corefud
from ucdcr.export.huggingface import HF_SPLIT_NAMES, export_hf
from ucdcr.export.spacy_docs import export_spacy, mentions_from_docs

# the optional extras: a missing one skips this module, but fails it under CI (the test extra carries both)
datasets = require_module("datasets", "hf")
udapi = require_module("udapi", "corefud")

from huggingface_hub import DatasetCard  # noqa: E402 -- installed with datasets

FIELDS = ["conll_doc_key", "mention_id", "coref_chain", "sent_id", "tokens_number"]


def test_ecbplus_hugging_face_folder(built, tmp_path: Path) -> None:
    folder = built("ecbplus")
    splits = _report_splits(folder)
    export_hf(folder, tmp_path / "hf")
    mentions = datasets.load_dataset(str(tmp_path / "hf"), cache_dir=str(tmp_path / "cache"))
    assert isinstance(mentions, datasets.DatasetDict)
    assert {name: ds.num_rows for name, ds in mentions.items()} == {
        HF_SPLIT_NAMES[split]: counts["mentions"] for split, counts in splits.items()
    }
    tokens = datasets.load_dataset(str(tmp_path / "hf"), "documents", cache_dir=str(tmp_path / "cache"))
    assert {name: ds.num_rows for name, ds in tokens.items()} == {
        HF_SPLIT_NAMES[split]: counts["tokens"] for split, counts in splits.items()
    }
    card = DatasetCard.load(tmp_path / "hf" / "README.md")
    assert card.data.license == "cc-by-3.0"  # ECB+'s manifest: CC BY 3.0
    assert [config["config_name"] for config in card.data.configs] == ["mentions", "documents"]


def _report_splits(folder: Path) -> dict[str, dict[str, int]]:
    import json

    return json.loads((folder / "build_report.json").read_text(encoding="utf-8"))["splits"]


def _expected(folder: Path) -> list[tuple]:
    table = load(folder, split="test", columns=FIELDS)
    return sorted(tuple(row[name] for name in FIELDS) for row in table.to_pylist())


def test_spacy_round_trip_and_udapi_on_ecbplus_and_np4e_test(built, tmp_path: Path) -> None:
    for dataset in ("ecbplus", "np4e"):
        folder = built(dataset)
        expected = _expected(folder)
        export = export_spacy(folder, tmp_path / f"{dataset}.spacy", split="test")
        assert export.left_out == []
        docs = list(DocBin().from_disk(tmp_path / f"{dataset}.spacy").get_docs(spacy.blank("en").vocab))
        back = sorted(tuple(mention[name] for name in FIELDS) for mention in mentions_from_docs(docs))
        assert back == expected, dataset  # same document, sentence, tokens and chain for every mention

        summary = export_corefud(folder, tmp_path / "cud", split="test").splits["test"]
        assert summary is not None
        assert summary.mentions + len(summary.left_out) == len(expected)
        read = udapi.Document(str(summary.path))
        assert (len(read.coref_mentions), len(read.coref_entities)) == (summary.mentions, summary.entities)
        assert summary.entities == _report_splits(folder)["test"]["chains"]
