"""Mention ids do not depend on the chain annotation (docs/unified-format.md#mention-ids).

The tiny ECB+ raw folder (tests/fixtures/raw/ecbplus.py) is built twice, the second time with every chain renamed
and the chains regrouped (half of them merged into one chain, some mentions moved to chains of their own): every
mention keeps its id.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from tests.fixtures.raw.ecbplus import write_ecbplus_raw

from ucdcr.pipeline import build as build_module
from ucdcr.pipeline.build import build_dataset
from ucdcr.pipeline.document import mention_id
from ucdcr.records import SourceCorpus, SourceMention
from ucdcr.registry import get

Span = tuple[str, int, tuple[int, ...], str]  # document key, sentence, token numbers, kind


def rechained(corpus: SourceCorpus) -> SourceCorpus:
    """The corpus with its chains renamed and regrouped: every other chain merged into one, every third mention
    moved to a chain of its own."""
    chains = sorted({m.chain_id for m in corpus.mentions})
    renamed = {chain: "MERGED" if k % 2 else f"RENAMED_{len(chains) - k}" for k, chain in enumerate(chains)}
    for k, mention in enumerate(corpus.mentions):
        mention.chain_id = f"ALONE_{k}" if k % 3 == 0 else renamed[mention.chain_id]
    return corpus


def built_ids(data: Path) -> dict[Span, tuple[str, str]]:
    """Every written mention: its span -> (mention id, chain)."""
    ids: dict[Span, tuple[str, str]] = {}
    for path in sorted((data / "ecbplus").glob("*/*_mentions.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            span = (record["conll_doc_key"], record["sent_id"], tuple(record["tokens_number"]), path.stem)
            ids[span] = (record["mention_id"], record["coref_chain"])
    return ids


def test_ids_are_the_same_with_chains_renamed_and_regrouped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = write_ecbplus_raw(tmp_path / "raw")
    build_dataset("ecbplus", raw_dir=raw, data_dir=tmp_path / "gold", progress=False)
    real_read = get("ecbplus").reader

    def read(folder: Path, options: Any) -> SourceCorpus:
        return rechained(real_read(folder, options).materialized())  # the ECB+ reader streams

    spec = dataclasses.replace(get("ecbplus"), reader=read)
    monkeypatch.setattr(build_module, "get", lambda _: spec)
    build_dataset("ecbplus", raw_dir=raw, data_dir=tmp_path / "rechained", progress=False)
    gold, other = built_ids(tmp_path / "gold"), built_ids(tmp_path / "rechained")
    assert len(gold) == 13 and gold.keys() == other.keys()  # the fixture's 13 mentions, on the same spans
    assert {span: chain for span, (_, chain) in gold.items()} != {span: chain for span, (_, chain) in other.items()}
    assert {span: mention for span, (mention, _) in gold.items()} == {
        span: mention for span, (mention, _) in other.items()
    }


def test_the_id_hashes_document_source_id_and_tokens_only() -> None:
    mention = SourceMention("1/1a/7", ("0.0", "0.1"), "C1", "entity", "PERSON", "d", "m1")
    same = [
        dataclasses.replace(mention, chain_id="C2"),
        dataclasses.replace(mention, kind="event", full_type="EVENT", description="other", coref_type="NEAR"),
    ]
    assert all(mention_id("P_", other, 0) == mention_id("P_", mention, 0) for other in same)
    assert mention_id("P_", mention, 0).startswith("P_1_1a_7_0_0.0_")
    different = [
        dataclasses.replace(mention, source_id="m2"),
        dataclasses.replace(mention, token_ids=("0.0",)),
        dataclasses.replace(mention, doc_key="1/1a/8"),
    ]
    assert len({mention_id("P_", m, 0) for m in [mention, *different]}) == 4
