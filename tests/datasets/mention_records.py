"""Enriched mention records for the unit tests of the datasets' finalize hooks (only the fields a test sets
matter; the others get neutral values)."""

from __future__ import annotations

from typing import Any

from ucdcr.records import MentionRecord

DEFAULTS: dict[str, Any] = {
    "coref_chain": "c",
    "mention_id": "m",
    "tokens_str": "x",
    "description": "",
    "coref_type": "IDENTITY",
    "mention_full_type": "OTHER",
    "tokens_text": ["x"],
    "tokens_number": [0],
    "mention_head": "x",
    "mention_head_id": 0,
    "mention_head_pos": "NOUN",
    "mention_head_lemma": "x",
    "mention_ner": "O",
    "sent_id": 0,
    "topic": "0",
    "topic_id": "0",
    "subtopic_id": "0",
    "subtopic": "0",
    "doc_id": "d",
    "doc": "d",
    "mention_context": ["x"],
    "context_start_end_global_id": [0, 0],
    "mention_sentence_start_end": [0, 1],
    "tokens_number_context": [0],
    "mention_head_id_context": 0,
    "is_singleton": False,
    "conll_doc_key": "0/0/d",
    "split": "train",
    "kind": "entity",
}


def mention_record(**fields: Any) -> MentionRecord:
    """A record with the given fields, the others neutral."""
    return MentionRecord(**(DEFAULTS | fields))
