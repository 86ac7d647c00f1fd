"""The unified uCDCR format: the 29 mention fields and the token-table columns, as explicit Arrow schemas.

Field names, order and meaning follow the authors' release (docs/unified-format.md#mention-records,
docs/unified-format.md#token-table) so their consumers keep working. Differences: list fields are real Arrow lists
(not Python repr strings), and the CoNLL ``reference`` column uses the standard ``|`` separator.
"""

from __future__ import annotations

import pyarrow as pa

MENTION_SCHEMA = pa.schema(
    [
        ("coref_chain", pa.string()),
        ("mention_id", pa.string()),
        ("tokens_str", pa.string()),
        ("description", pa.string()),
        ("coref_type", pa.string()),
        ("mention_type", pa.string()),
        ("mention_full_type", pa.string()),
        ("tokens_text", pa.list_(pa.string())),
        ("tokens_number", pa.list_(pa.int64())),
        ("mention_head", pa.string()),
        ("mention_head_id", pa.int64()),
        ("mention_head_pos", pa.string()),
        ("mention_head_lemma", pa.string()),
        ("mention_ner", pa.string()),
        ("sent_id", pa.int64()),
        ("topic", pa.string()),
        ("topic_id", pa.string()),
        ("subtopic_id", pa.string()),
        ("subtopic", pa.string()),
        ("doc_id", pa.string()),
        ("doc", pa.string()),
        ("mention_context", pa.list_(pa.string())),
        ("context_start_end_global_id", pa.list_(pa.int64())),
        ("mention_sentence_start_end", pa.list_(pa.int64())),
        ("tokens_number_context", pa.list_(pa.int64())),
        ("mention_head_id_context", pa.int64()),
        ("is_singleton", pa.bool_()),
        ("conll_doc_key", pa.string()),
        ("split", pa.string()),
    ]
)
MENTION_FIELDS: tuple[str, ...] = tuple(MENTION_SCHEMA.names)
LIST_FIELDS: tuple[str, ...] = tuple(f.name for f in MENTION_SCHEMA if pa.types.is_list(f.type))
assert len(MENTION_FIELDS) == 29

DOC_KEY_COLUMN = "topic/subtopic_name/doc"
DOCUMENT_SCHEMA = pa.schema(
    [
        (DOC_KEY_COLUMN, pa.string()),
        ("sent_id", pa.int64()),
        ("token_id", pa.int64()),
        ("token", pa.string()),
        ("token_id_global", pa.int64()),
        ("char_id_start", pa.int64()),
        ("whitespace_after", pa.bool_()),
        ("reference", pa.string()),
        ("split", pa.string()),
    ]
)
DOCUMENT_COLUMNS: tuple[str, ...] = tuple(DOCUMENT_SCHEMA.names)

# Files of one built dataset folder.
ENTITY_FILE = "entity_mentions.json"
EVENT_FILE = "event_mentions.json"
MENTIONS_PARQUET = "all_mentions.parquet"
DOCUMENTS_PARQUET = "all_documents.parquet"
BUILD_REPORT = "build_report.json"
PROVENANCE_FILE = "release.json"
"""The record an installed release holds beside its data (a build holds :data:`BUILD_REPORT`)."""
