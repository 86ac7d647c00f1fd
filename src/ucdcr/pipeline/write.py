"""Writer of the unified uCDCR format (docs/unified-format.md#dataset-folder).

One folder per dataset::

    <data-dir>/<dataset>/train|val|test/{entity,event}_mentions.json   JSON list of the 29 fields, in field order
    <data-dir>/<dataset>/all_mentions.parquet                          same rows (train, val, test; events first)
    <data-dir>/<dataset>/all_documents.parquet                         one row per token (if texts may be shared)
    <data-dir>/<dataset>/build_report.json

Every split folder has both JSON files (``[]`` when empty). The ``reference`` column is the CoNLL coreference
column of each sentence's mentions, written by :func:`ucdcr.formats.conll2012.bracket_labels` (labels ``(C)``,
``(C``, ``C)`` joined by ``|``, "-" for none).

Crash safety (:mod:`ucdcr.io.output_folder`): the files are written into a hidden staging folder next to the
dataset folder, fsynced, and swapped in atomically; killed at any moment, ``<data-dir>/<dataset>`` is the complete
previous build or the complete new one, and whatever else a killed build left is hidden and removed by the next
build of that dataset. A build holds the dataset's lock from before it reads its input (so an unwritable data dir
fails before any work) until the swap; a second build of the same dataset meanwhile fails naming the other process.
An error while writing (a full disk, an I/O or pyarrow error) is one :class:`~ucdcr.errors.UcdcrError` naming the
file; the staging folder is removed and the previous build stays. Folders and files get the usual permissions
(0777 / 0666 minus the umask). Outputs are byte-identical for identical inputs (no timestamps; sorted keys in the
report).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

from ucdcr.formats.conll2012 import bracket_labels
from ucdcr.io.arrow_paths import arrow_sink
from ucdcr.io.atomic import write_errors
from ucdcr.io.output_folder import OutputFolder
from ucdcr.pipeline.processes import can_run_beside, run_beside
from ucdcr.records import SPLITS
from ucdcr.schema import (
    BUILD_REPORT,
    DOC_KEY_COLUMN,
    DOCUMENT_SCHEMA,
    DOCUMENTS_PARQUET,
    ENTITY_FILE,
    EVENT_FILE,
    MENTION_FIELDS,
    MENTION_SCHEMA,
    MENTIONS_PARQUET,
)

KIND_FILES = (("event", EVENT_FILE), ("entity", ENTITY_FILE))
ROW_GROUP_ROWS = 1024 * 1024  # pyarrow's default maximum rows per row group
# A row group also closes once its rows take this much memory as Arrow (checked every ARROW_CHUNK_ROWS rows). Above
# the largest table of the datasets built here (ECB+: 24.9 MB of tokens, 23.2 MB of mentions), so those keep one row
# group and their bytes; a larger corpus (mention rows with ~200-token contexts) gets groups of about this size.
ROW_GROUP_BYTES = 32 * 1024 * 1024
ARROW_CHUNK_ROWS = 4096  # rows converted to Arrow at a time
JSON_LINES_PER_WRITE = 256  # rows of a JSON file encoded, joined and written at a time
_JSON = json.JSONEncoder(ensure_ascii=False)  # json.dumps(row, ensure_ascii=False), without an encoder per row


def write_dataset(
    output: OutputFolder | Path,
    mentions: Callable[[str, str], Iterable[Mapping[str, Any]]],
    documents: Iterable[Mapping[str, Sequence[Any]]] | None,
    report: Mapping[str, Any],
    documents_beside: bool = False,
) -> None:
    """Write one dataset folder crash-safely, streaming. ``output``: the entered :class:`OutputFolder` of a build
    (held since before the build read its input), or the folder's path (then it is reserved here).
    ``mentions(split, kind)``: the rows (MENTION_FIELDS at least) of that split's JSON file ("event"/"entity"),
    in order; called once per split and kind, in parquet order. ``documents``: token rows as column batches
    (DOCUMENT_SCHEMA columns, e.g. one :func:`document_columns` per document) or None when texts may not be
    redistributed. Memory is bounded by one row group, not the dataset.

    documents_beside: the caller has a spare core: write the token table in a forked process while this one writes
    the mentions, where that is safe (:func:`~ucdcr.pipeline.processes.can_run_beside`: Linux, and no other Python
    thread runs; else here, after the mentions). The ``documents`` iterable must then be safe to read in a forked
    copy of this process. The files are the same either way."""
    if not isinstance(output, OutputFolder):
        with OutputFolder(Path(output)) as folder:
            write_dataset(folder, mentions, documents, report, documents_beside)
        return
    staging = output.staging
    beside = None
    if documents is not None and documents_beside and can_run_beside():
        beside = run_beside(partial(_write_documents, staging, documents))
        documents = None
    try:
        _write_mentions(staging, mentions)
        if documents is not None:
            _write_documents(staging, documents)
    except BaseException:
        if beside is not None:
            beside.kill()
        raise
    if beside is not None:
        beside.join()
    write_json(staging / BUILD_REPORT, report, sort_keys=True)
    output.commit()


def _write_mentions(staging: Path, mentions: Callable[[str, str], Iterable[Mapping[str, Any]]]) -> None:
    with ParquetStream(staging / MENTIONS_PARQUET, MENTION_SCHEMA) as parquet:
        for split in SPLITS:
            with write_errors(staging / split):
                (staging / split).mkdir()
            for kind, file_name in KIND_FILES:
                with JsonListStream(staging / split / file_name) as json_file:
                    for row in mentions(split, kind):
                        in_order = type(row) is dict and tuple(row) == MENTION_FIELDS  # else ordered here
                        ordered = row if in_order else {name: row[name] for name in MENTION_FIELDS}
                        json_file.write(ordered)
                        parquet.write(ordered)


def _write_documents(staging: Path, documents: Iterable[Mapping[str, Sequence[Any]]]) -> None:
    with ParquetStream(staging / DOCUMENTS_PARQUET, DOCUMENT_SCHEMA) as parquet:
        for columns in documents:
            parquet.write_columns(columns)


class JsonListStream:
    """A JSON list written one row at a time, one row per line (what :func:`write_json` writes for a list); the
    lines go to the file :data:`JSON_LINES_PER_WRITE` at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with write_errors(path):
            self._file = path.open("wb")
        self._rows = 0
        self._lines: list[str] = []

    def write(self, row: Mapping[str, Any]) -> None:
        self._lines.append(_JSON.encode(row))
        if len(self._lines) >= JSON_LINES_PER_WRITE:
            self._write_lines()

    def _write_lines(self) -> None:
        if self._lines:
            with write_errors(self.path):
                self._file.write(((",\n" if self._rows else "[\n") + ",\n".join(self._lines)).encode())
            self._rows += len(self._lines)
            self._lines.clear()

    def __enter__(self) -> JsonListStream:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        with write_errors(self.path):
            try:
                if kind is None:
                    self._write_lines()
                    self._file.write(b"\n]\n" if self._rows else b"[\n]\n")
            finally:
                self._file.close()


class ParquetStream:
    """Rows appended one at a time (:meth:`write`) or as column batches (:meth:`write_columns`) into a zstd parquet
    file with the declared schema, holding at most one row group in memory (as Arrow, not Python objects).

    Row groups: a group closes at :data:`ROW_GROUP_ROWS` rows (pyarrow's default), or earlier, at the first multiple
    of :data:`ARROW_CHUNK_ROWS` rows where the group's Arrow data reaches :data:`ROW_GROUP_BYTES`. A table below both
    is one row group, the same bytes as ``pq.write_table`` of all the rows at once. Rows and batches give the same
    file."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        self.path = path
        self.schema = schema
        self._pending: dict[str, list[Any]] = {name: [] for name in schema.names}
        self._pending_rows = 0
        self._chunks: list[pa.Table] = []
        self._buffered = 0
        self._buffered_bytes = 0
        self._writer: pq.ParquetWriter | None = None
        self._sink: BinaryIO | None = None
        self._written = 0

    def write(self, row: Mapping[str, Any]) -> None:
        for name, column in self._pending.items():
            column.append(row[name])
        self._pending_rows += 1
        if self._pending_rows >= ARROW_CHUNK_ROWS:
            self._convert_chunks()

    def write_columns(self, columns: Mapping[str, Sequence[Any]]) -> None:
        """Append rows given as one sequence per column (every schema column, of equal lengths)."""
        rows = {len(columns[name]) for name in self._pending}
        if len(rows) != 1:
            raise ValueError(f"columns of unequal lengths {sorted(rows)} written to {self.path}")
        for name, column in self._pending.items():
            column.extend(columns[name])
        self._pending_rows += rows.pop()
        if self._pending_rows >= ARROW_CHUNK_ROWS:
            self._convert_chunks()

    def _convert_chunks(self) -> None:
        """Convert the pending rows ARROW_CHUNK_ROWS at a time, closing row groups where due."""
        while self._pending_rows >= ARROW_CHUNK_ROWS:
            self._convert(ARROW_CHUNK_ROWS)
            if self._buffered >= ROW_GROUP_ROWS or self._buffered_bytes >= ROW_GROUP_BYTES:
                self._flush(min(self._buffered, ROW_GROUP_ROWS))

    def __enter__(self) -> ParquetStream:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        try:
            if kind is None:
                self._convert()
                while self._buffered or not self._written:
                    self._flush(min(self._buffered, ROW_GROUP_ROWS))
        finally:
            if self._writer is not None:
                with write_errors(self.path, pa.ArrowException):
                    try:
                        self._writer.close()
                    finally:
                        if self._sink is not None:  # a path Arrow cannot take (not UTF-8): the file Python opened
                            self._sink.close()

    def _convert(self, rows: int | None = None) -> None:
        """The first ``rows`` pending rows (all when None) as one Arrow chunk."""
        rows = self._pending_rows if rows is None else rows
        if rows:
            batch = {name: column[:rows] for name, column in self._pending.items()}
            with write_errors(self.path, pa.ArrowException):
                chunk = pa.Table.from_pydict(batch, schema=self.schema)
            self._chunks.append(chunk)
            self._buffered += rows
            self._buffered_bytes += chunk.nbytes
            for column in self._pending.values():
                del column[:rows]
            self._pending_rows -= rows

    def _flush(self, rows: int) -> None:
        """Write the first ``rows`` buffered rows as one row group (one contiguous chunk, as a whole table is)."""
        with write_errors(self.path, pa.ArrowException):
            table = pa.concat_tables(self._chunks) if self._chunks else self.schema.empty_table()
            group, rest = table.slice(0, rows).combine_chunks(), table.slice(rows)
            if self._writer is None:
                sink = arrow_sink(self.path)
                self._sink = None if isinstance(sink, str) else sink
                self._writer = pq.ParquetWriter(sink, self.schema, compression="zstd")
            self._writer.write_table(group)
        self._chunks = [rest] if rest.num_rows else []
        self._buffered -= rows
        self._buffered_bytes = rest.nbytes
        self._written += 1


def write_json(path: Path, data: Any, sort_keys: bool = False) -> None:
    """JSON (UTF-8, one item per line for lists of records). Not atomic by itself: write into a staging folder."""
    if isinstance(data, list) and not sort_keys:
        body = "[\n" + ",\n".join(json.dumps(row, ensure_ascii=False) for row in data) + ("\n]\n" if data else "]\n")
    else:
        body = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=sort_keys) + "\n"
    with write_errors(path):
        path.write_bytes(body.encode("utf-8"))


def document_columns(
    doc_key: str,
    split: str,
    tokens: Any,
    mentions: Sequence[Mapping[str, Any]] = (),
    reference: list[str] | None = None,
) -> dict[str, list[Any]]:
    """Token-table columns of one document (DOCUMENT_SCHEMA) with its reference column. ``tokens``: the document's
    token columns (``sent_id``, ``token_id``, ``token``, ``token_id_global``, ``char_id_start``,
    ``whitespace_after`` attributes, e.g. :class:`~ucdcr.pipeline.document.TokenColumns`). ``reference``: the
    column made already (:func:`reference_column`), else it is made from the ``mentions``' rows."""
    if reference is None:
        spans = ((m["sent_id"], m["tokens_number"][0], m["tokens_number"][-1], m["coref_chain"]) for m in mentions)
        reference = reference_column(tokens.sent_id, spans)
    rows = len(tokens.token)
    return {
        DOC_KEY_COLUMN: [doc_key] * rows,
        "sent_id": tokens.sent_id,
        "token_id": tokens.token_id,
        "token": tokens.token,
        "token_id_global": tokens.token_id_global,
        "char_id_start": tokens.char_id_start,
        "whitespace_after": tokens.whitespace_after,
        "reference": reference,
        "split": [split] * rows,
    }


def reference_column(sent_ids: Sequence[int], mentions: Iterable[tuple[int, int, int, str]]) -> list[str]:
    """The CoNLL coreference column of a document's tokens (their ``sent_id`` s, in order) holding ``mentions``
    (sent_id, first token, last token, chain); the mentions' order does not matter."""
    by_sentence: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for sent_id, first, last, chain in mentions:
        by_sentence[sent_id].append((first, last, chain))
    reference: list[str] = []
    for sent_id, group in groupby(sent_ids):
        reference.extend(bracket_labels(len(list(group)), by_sentence.get(sent_id, [])))
    return reference
