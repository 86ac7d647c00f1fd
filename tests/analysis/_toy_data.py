"""Helpers writing tiny uCDCR-layout dataset folders for the tests (the authors' JSON format, REFERENCE.md §1.1-1.2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ucdcr.schema import MENTION_FIELDS


def mention(
    chain: str,
    tokens: list[str],
    head: str | None = None,
    lemma: str | None = None,
    *,
    topic: str = "1",
    subtopic: str = "1a",
    doc: str = "d1",
    split: str = "test",
    singleton: bool = False,
    mention_id: str | None = None,
    context_len: int = 10,
    pos: str = "NOUN",
    ner: str = "O",
    full_type: str = "HUMAN_PART_PER",
) -> dict[str, Any]:
    """One mention record with all 29 fields; the head defaults to the last token, the lemma to the head."""
    head = tokens[-1] if head is None else head
    record = dict.fromkeys(MENTION_FIELDS)
    record.update(
        coref_chain=chain,
        mention_id=mention_id or f"{chain}_{doc}_{'_'.join(tokens)}",
        tokens_str=" ".join(tokens),
        description="",
        coref_type="IDENTITY",
        mention_type=full_type[:3],
        mention_full_type=full_type,
        tokens_text=tokens,
        tokens_number=list(range(len(tokens))),
        mention_head=head,
        mention_head_id=tokens.index(head) if head in tokens else 0,
        mention_head_pos=pos,
        mention_head_lemma=head if lemma is None else lemma,
        mention_ner=ner,
        sent_id=0,
        topic=topic,
        topic_id=topic,
        subtopic_id=subtopic,
        subtopic=subtopic,
        doc_id=doc,
        doc=doc,
        mention_context=["w"] * context_len,
        context_start_end_global_id=[0, context_len - 1],
        mention_sentence_start_end=[0, context_len],
        tokens_number_context=list(range(len(tokens))),
        mention_head_id_context=0,
        is_singleton=singleton,
        conll_doc_key=f"{topic}/{subtopic}/{doc}",
        split=split,
    )
    return record


def write_dataset(folder: Path, files: dict[tuple[str, str], list[dict[str, Any]]]) -> Path:
    """Write {(split, "event"|"entity"): records} as the six JSON files (missing ones as empty lists)."""
    for split in ("train", "val", "test"):
        (folder / split).mkdir(parents=True, exist_ok=True)
        for kind in ("event", "entity"):
            records = files.get((split, kind), [])
            (folder / split / f"{kind}_mentions.json").write_text(json.dumps(records), encoding="utf-8")
    return folder
