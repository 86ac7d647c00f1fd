"""Football Coreference Corpus (FCC / FCC-T) CSV tables, as built by the tudatalib release's ``mbugert/fcc`` recipe.

Folders (per split ``train``, ``dev``, ``test``)::

    2020-10-05_FCC_cleaned/<split>/documents.csv       doc-id,publish-date,collection,seminal-event
    2020-10-05_FCC_cleaned/<split>/tokens.csv          doc-id,sentence-idx,token-idx,token
    2020-10-05_FCC-T/<split>/with_stacked_actions/cross_subtopic_mentions_action.csv
                                                       doc-id,mention-id,sentence-idx,token-idx-from,token-idx-to,event

(column names from the FCC README and the readers of UKPLab/cdcr-beyond-corpus-tailored, uCDCR and EasyECR; extra
columns are ignored). ``sentence-idx`` and ``token-idx`` are 0-based; ``token-idx-to`` is exclusive. A document
without a seminal event has an empty ``seminal-event``. ``event`` is the football event the action refers to
(``other_event`` = an event outside the tournament ontology). "Stacked" actions are one span annotated once per
event it refers to, each with its own ``mention-id``. The participant/time/location tables and
``cross_subtopic_semantic_roles.csv`` have no coreference and are not read (uCDCR does not output them either).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ucdcr.errors import FormatError
from ucdcr.formats.inputs import csv_records, read_text

DOCUMENT_COLUMNS = ("doc-id", "collection", "seminal-event")
TOKEN_COLUMNS = ("doc-id", "sentence-idx", "token-idx", "token")
ACTION_COLUMNS = ("doc-id", "mention-id", "sentence-idx", "token-idx-from", "token-idx-to", "event")


@dataclass(frozen=True, slots=True)
class FccDocument:
    doc_id: str
    collection: str
    seminal_event: str  # "" when the document has none


@dataclass(frozen=True, slots=True)
class FccToken:
    doc_id: str
    sentence: int
    index: int
    text: str


@dataclass(frozen=True, slots=True)
class FccAction:
    """One event action mention: tokens ``token_from`` .. ``token_to - 1`` of one sentence."""

    doc_id: str
    mention_id: str
    sentence: int
    token_from: int
    token_to: int
    event: str
    line: int


def _rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    return csv_records(read_text(path), path, required)


def _index(path: Path, line: int, row: dict[str, str], column: str) -> int:
    try:
        value = int(row[column])
    except ValueError:
        raise FormatError(path, f"column {column!r} must be an integer, got {row[column]!r}", line) from None
    if value < 0:
        raise FormatError(path, f"column {column!r} must be >= 0, got {value}", line)
    return value


def read_documents(path: Path) -> list[FccDocument]:
    """``documents.csv``: one row per document; a doc-id twice is an error."""
    documents: dict[str, FccDocument] = {}
    for line, row in _rows(path, DOCUMENT_COLUMNS):
        doc_id = row["doc-id"].strip()
        if not doc_id:
            raise FormatError(path, "empty doc-id", line)
        if doc_id in documents:
            raise FormatError(path, f"doc-id {doc_id!r} appears twice", line)
        documents[doc_id] = FccDocument(doc_id, row["collection"].strip(), row["seminal-event"].strip())
    return list(documents.values())


def read_tokens(path: Path) -> list[FccToken]:
    """``tokens.csv`` in file order (the token text is kept verbatim, also when empty)."""
    return [
        FccToken(
            row["doc-id"].strip(),
            _index(path, line, row, "sentence-idx"),
            _index(path, line, row, "token-idx"),
            row["token"],
        )
        for line, row in _rows(path, TOKEN_COLUMNS)
    ]


def read_actions(path: Path) -> list[FccAction]:
    """``cross_subtopic_mentions_action.csv``; an empty span or event is an error."""
    actions = []
    for line, row in _rows(path, ACTION_COLUMNS):
        token_from, token_to = _index(path, line, row, "token-idx-from"), _index(path, line, row, "token-idx-to")
        if token_to <= token_from:
            raise FormatError(path, f"empty span: token-idx-from {token_from}, token-idx-to {token_to}", line)
        if not row["event"].strip():
            raise FormatError(path, "empty event", line)
        actions.append(
            FccAction(
                row["doc-id"].strip(),
                row["mention-id"].strip(),
                _index(path, line, row, "sentence-idx"),
                token_from,
                token_to,
                row["event"].strip(),
                line,
            )
        )
    return actions
