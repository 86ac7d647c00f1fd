"""Per-document results kept on disk while a build runs, so the build's memory is bounded by a batch, not the corpus.

A worker packs each :class:`~ucdcr.pipeline.document.DocumentResult` (:func:`pack_results`): the compact keys the
whole-dataset steps need stay in memory (:class:`PackedDocument`: per mention its id, chain and output file; the
drops; token and parsed-sentence counts), the records and the output tokens travel and are stored as pickled bytes:
a record as the tuple of its field values (:data:`RECORD_FIELDS`: the 29 output fields, then the kind), which the
writer reads back without making a :class:`~ucdcr.records.MentionRecord` of it, and without its context (None):
that is the document's tokens in the record's window (``context_start_end_global_id``), as the stages made it, so
it is taken from the stored tokens when needed (:func:`context`); the tokens are stored with their CoNLL reference
column (:func:`~ucdcr.pipeline.write.reference_column`), made by the worker.
The building process appends those bytes to one spill file (:class:`ResultSpill`) inside the build's hidden staging
folder -- removed before the swap, and with the staging folder if the build stops -- and reads a document's records
or tokens back when it writes the output, document by document.
"""

from __future__ import annotations

import os
import pickle
import sys
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import IO, Any, NamedTuple

from ucdcr.io.atomic import write_errors
from ucdcr.pipeline.document import (
    DocumentResult,
    DocumentTask,
    StageConfig,
    TokenColumns,
    process_documents,
)
from ucdcr.pipeline.write import reference_column
from ucdcr.records import ROW_FIELDS, DroppedMention, MentionKey, MentionKind, MentionRecord

_PROTOCOL = pickle.HIGHEST_PROTOCOL

RECORD_FIELDS: tuple[str, ...] = (*ROW_FIELDS, "kind")
"""The values of a stored record, in this order: the 29 output fields (in schema order), then the kind."""
record_values: Any = attrgetter(*RECORD_FIELDS)
"""``record_values(record)``: the record's values in :data:`RECORD_FIELDS` order."""
_MENTION_TYPE = RECORD_FIELDS.index("mention_type")  # not an argument of MentionRecord (it follows the full type)
_CONTEXT = RECORD_FIELDS.index("mention_context")
_WINDOW = RECORD_FIELDS.index("context_start_end_global_id")


@dataclass(slots=True)
class PackedDocument:
    """One document's result: compact keys in the open, records and tokens as pickled bytes."""

    doc_key: str
    mentions: list[MentionKey]
    dropped: list[DroppedMention]
    tokens: int
    parsed_sentences: int
    records_blob: bytes = b""
    tokens_blob: bytes = b""


def pack_results(tasks: list[DocumentTask], config: StageConfig) -> list[PackedDocument]:
    """The per-document stages over a batch (:func:`~ucdcr.pipeline.document.process_documents`), packed."""
    return [pack(result) for result in process_documents(tasks, config)]


def pack(result: DocumentResult) -> PackedDocument:
    return PackedDocument(
        result.doc_key,
        [MentionKey.of(record) for record in result.records],
        result.dropped,
        len(result.tokens),
        result.parsed_sentences,
        pickle.dumps([_without_context(record_values(record)) for record in result.records], _PROTOCOL),
        pickle.dumps((result.tokens.as_tuple(), _reference(result)), _PROTOCOL),
    )


def _reference(result: DocumentResult) -> list[str]:
    spans = ((r.sent_id, r.tokens_number[0], r.tokens_number[-1], r.coref_chain) for r in result.records)
    return reference_column(result.tokens.sent_id, spans)


def _without_context(values: tuple[Any, ...]) -> tuple[Any, ...]:
    return (*values[:_CONTEXT], None, *values[_CONTEXT + 1 :])


def context(values: tuple[Any, ...], tokens: TokenColumns) -> list[str]:
    """The mention context of a stored record: the document's tokens in its window."""
    left, right = values[_WINDOW]
    return tokens.token[left : right + 1]


def _shared(key: MentionKey) -> MentionKey:
    """``key`` with its chain, kind, POS and NER strings interned: one copy per value, not per mention."""
    kind: MentionKind = "event" if key.kind == "event" else "entity"
    return MentionKey(
        key.mention_id, sys.intern(key.coref_chain), kind, sys.intern(key.mention_head_pos), sys.intern(key.mention_ner)
    )


class _Place(NamedTuple):
    """Where a document's two blobs are in the spill file (offset and length each)."""

    records_start: int
    records_length: int
    tokens_start: int
    tokens_length: int


@dataclass
class ResultSpill:
    """Append-only file of packed documents; ``records(key)`` / ``tokens(key)`` read one document back."""

    path: Path
    _places: dict[str, _Place] = field(default_factory=dict)
    _file: IO[bytes] | None = None
    _flushed: bool = True

    def __enter__(self) -> ResultSpill:
        with write_errors(self.path):
            self._file = self.path.open("w+b")
        return self

    def __exit__(self, *_: object) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self.path.unlink(missing_ok=True)

    def add(self, packed: PackedDocument) -> None:
        """Store the document's bytes; the blobs are dropped from ``packed`` (its keys stay, their repeated strings
        shared)."""
        packed.mentions = [_shared(key) for key in packed.mentions]
        self._places[packed.doc_key] = _Place(*self._append(packed.records_blob), *self._append(packed.tokens_blob))
        packed.records_blob = packed.tokens_blob = b""

    def records(self, doc_key: str) -> list[MentionRecord]:
        """The document's records, in the order the stages made them."""
        stored, tokens = self.stored(doc_key)
        records = []
        for v in stored:
            args = [*v[:_MENTION_TYPE], *v[_MENTION_TYPE + 1 :]]
            args[_CONTEXT - 1] = context(v, tokens)  # (the context comes after the mention type)
            records.append(MentionRecord(*args))
        return records

    def stored(self, doc_key: str) -> tuple[list[tuple[Any, ...]], TokenColumns]:
        """The values of the document's records as stored (:data:`RECORD_FIELDS`, the context None), in the order
        the stages made them, and the document's tokens."""
        place = self._places[doc_key]
        values: list[tuple[Any, ...]] = pickle.loads(self._read(place.records_start, place.records_length))
        return values, self.tokens(doc_key)

    def tokens(self, doc_key: str) -> TokenColumns:
        return self.token_table(doc_key)[0]

    def token_table(self, doc_key: str) -> tuple[TokenColumns, list[str]]:
        """The document's tokens and their CoNLL reference column (from the records the stages made)."""
        place = self._places[doc_key]
        columns, reference = pickle.loads(self._read(place.tokens_start, place.tokens_length))
        return TokenColumns(*columns), reference

    def flush(self) -> None:
        """Write out what is buffered; call it once every document is added (reads then need no seek, and a forked
        process may read beside this one)."""
        assert self._file is not None, "use `with ResultSpill(path) as spill:`"
        with write_errors(self.path):  # a full disk: one error naming the file
            self._file.flush()
        self._flushed = True

    def _append(self, blob: bytes) -> tuple[int, int]:
        assert self._file is not None, "use `with ResultSpill(path) as spill:`"
        self._flushed = False
        with write_errors(self.path):  # a full disk: one error naming the file
            self._file.seek(0, os.SEEK_END)
            start = self._file.tell()
            self._file.write(blob)
        return start, len(blob)

    def _read(self, start: int, length: int) -> bytes:
        """Positional read (``pread``): no shared file offset, so processes forked after :meth:`flush` read too."""
        assert self._file is not None, "use `with ResultSpill(path) as spill:`"
        if not self._flushed:
            self.flush()
        return os.pread(self._file.fileno(), length, start)
