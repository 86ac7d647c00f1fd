"""A tiny built dataset in the uCDCR layout (our schema), written by tests to tmp dirs.

Structure (topic/subtopic/doc):
    0/s1/d1 (train), 0/s1/d2 (train), 0/s2/d3 (test), 1/s3/d4 (test)
Chains: OBAMA (d1, d2: cross-document), PARIS (d1, nested in "the visit to Paris" of VISIT), VISIT (d1),
MEET (d2, event), SINGLE (d2, singleton), FIRE (d3, d4: cross-topic event chain), CITY (d3).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ucdcr.schema import DOCUMENT_SCHEMA, MENTION_SCHEMA

DOCS: dict[str, tuple[str, list[str]]] = {
    "0/s1/d1": ("train", ["Obama ended the visit to Paris .", "He flew home ."]),
    "0/s1/d2": ("train", ["The president met Merkel .", "Obama smiled at a reporter ."]),
    "0/s2/d3": ("test", ["A fire destroyed the city hall .", "The blaze spread in the city ."]),
    "1/s3/d4": ("test", ["Firefighters fought the fire for hours ."]),
}

# (doc_key, sent, first token, last token, chain, kind)
MENTIONS: list[tuple[str, int, int, int, str, str]] = [
    ("0/s1/d1", 0, 0, 0, "OBAMA", "entity"),
    ("0/s1/d1", 0, 2, 5, "VISIT", "event"),
    ("0/s1/d1", 0, 5, 5, "PARIS", "entity"),
    ("0/s1/d1", 1, 0, 0, "OBAMA", "entity"),
    ("0/s1/d2", 0, 0, 1, "OBAMA", "entity"),
    ("0/s1/d2", 0, 2, 2, "MEET", "event"),
    ("0/s1/d2", 1, 0, 0, "OBAMA", "entity"),
    ("0/s1/d2", 1, 3, 4, "SINGLE", "entity"),
    ("0/s2/d3", 0, 1, 1, "FIRE", "event"),
    ("0/s2/d3", 0, 3, 5, "CITY", "entity"),
    ("0/s2/d3", 1, 0, 1, "FIRE", "event"),
    ("0/s2/d3", 1, 4, 5, "CITY", "entity"),
    ("1/s3/d4", 0, 3, 3, "FIRE", "event"),
]


def sentences(doc_key: str) -> list[list[str]]:
    return [sentence.split() for sentence in DOCS[doc_key][1]]


def mention_id(index: int) -> str:
    return f"TINY_{index:02d}"


def mention_records() -> list[dict]:
    """The 29-field records of MENTIONS, in MENTIONS order."""
    chain_sizes: dict[tuple[str, str], int] = {}
    for doc_key, *_, chain, _ in MENTIONS:
        key = (DOCS[doc_key][0], chain)
        chain_sizes[key] = chain_sizes.get(key, 0) + 1
    records = []
    for index, (doc_key, sent, first, last, chain, kind) in enumerate(MENTIONS):
        split = DOCS[doc_key][0]
        sents = sentences(doc_key)
        context = [token for sentence in sents for token in sentence]
        sent_start = sum(len(s) for s in sents[:sent])
        words = sents[sent][first : last + 1]
        topic_id, subtopic_id, doc_id = doc_key.split("/")
        records.append(
            {
                "coref_chain": chain,
                "mention_id": mention_id(index),
                "tokens_str": " ".join(words),
                "description": chain.lower(),
                "coref_type": "IDENTITY",
                "mention_type": "EVE" if kind == "event" else "ENT",
                "mention_full_type": "EVENT" if kind == "event" else "ENTITY",
                "tokens_text": words,
                "tokens_number": list(range(first, last + 1)),
                "mention_head": words[-1],
                "mention_head_id": last,
                "mention_head_pos": "VERB" if kind == "event" else "NOUN",
                "mention_head_lemma": words[-1].lower(),
                "mention_ner": "O",
                "sent_id": sent,
                "topic": f"topic {topic_id}",
                "topic_id": topic_id,
                "subtopic_id": subtopic_id,
                "subtopic": f"subtopic {subtopic_id}",
                "doc_id": doc_id,
                "doc": doc_id,
                "mention_context": context,
                "context_start_end_global_id": [0, len(context) - 1],
                "mention_sentence_start_end": [sent_start, sent_start + len(sents[sent])],
                "tokens_number_context": list(range(sent_start + first, sent_start + last + 1)),
                "mention_head_id_context": sent_start + last,
                "is_singleton": chain_sizes[(split, chain)] == 1,
                "conll_doc_key": doc_key,
                "split": split,
            }
        )
    return records


def document_rows() -> list[dict]:
    rows = []
    for doc_key, (split, _) in DOCS.items():
        global_id = 0
        for sent_id, sentence in enumerate(sentences(doc_key)):
            char = 0
            for token_id, token in enumerate(sentence):
                rows.append(
                    {
                        "topic/subtopic_name/doc": doc_key,
                        "sent_id": sent_id,
                        "token_id": token_id,
                        "token": token,
                        "token_id_global": global_id,
                        "char_id_start": char,
                        "whitespace_after": token_id < len(sentence) - 1,
                        "reference": "-",
                        "split": split,
                    }
                )
                global_id += 1
                char += len(token) + 1
    return rows


def write_tiny_dataset(folder: Path) -> Path:
    """Write the tiny dataset to ``folder`` (JSON per split and kind, both Parquet files); returns ``folder``."""
    records = mention_records()
    kinds = {mention_id(i): m[5] for i, m in enumerate(MENTIONS)}
    for split in ("train", "val", "test"):
        (folder / split).mkdir(parents=True, exist_ok=True)
        for kind in ("event", "entity"):
            chosen = [r for r in records if r["split"] == split and kinds[r["mention_id"]] == kind]
            (folder / split / f"{kind}_mentions.json").write_text(json.dumps(chosen), encoding="utf-8")
    pq.write_table(pa.Table.from_pylist(records, schema=MENTION_SCHEMA), folder / "all_mentions.parquet")
    pq.write_table(pa.Table.from_pylist(document_rows(), schema=DOCUMENT_SCHEMA), folder / "all_documents.parquet")
    return folder
