"""Writer of the unified uCDCR format (DESIGN.md §4).

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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ucdcr.formats.conll2012 import bracket_labels
from ucdcr.io.atomic import write_errors
from ucdcr.io.output_folder import OutputFolder
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


def write_dataset(
    output: OutputFolder | Path,
    records: Sequence[Mapping[str, Any]],
    kinds: Sequence[str],
    documents: Sequence[Mapping[str, Any]] | None,
    report: Mapping[str, Any],
) -> None:
    """Write one dataset folder crash-safely. ``output``: the entered :class:`OutputFolder` of a build (held since
    before the build read its input), or the folder's path (then it is reserved here). ``kinds[i]``
    ("event"/"entity") decides the JSON file of records[i]; ``documents``: token rows (DOCUMENT_SCHEMA columns) or
    None when texts may not be redistributed."""
    if not isinstance(output, OutputFolder):
        with OutputFolder(Path(output)) as folder:
            write_dataset(folder, records, kinds, documents, report)
        return
    staging = output.staging
    ordered = _write_mention_files(staging, records, kinds)
    write_parquet(staging / MENTIONS_PARQUET, ordered, MENTION_SCHEMA)
    if documents is not None:
        write_parquet(staging / DOCUMENTS_PARQUET, documents, DOCUMENT_SCHEMA)
    write_json(staging / BUILD_REPORT, report, sort_keys=True)
    output.commit()


def _write_mention_files(folder: Path, records: Sequence[Mapping[str, Any]], kinds: Sequence[str]) -> list[dict]:
    """The per-split JSON files; returns all rows in parquet order (train, val, test; events, then entities)."""
    grouped: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for record, kind in zip(records, kinds, strict=True):
        grouped[(record["split"], kind)].append({name: record[name] for name in MENTION_FIELDS})
    ordered: list[dict] = []
    for split in SPLITS:
        with write_errors(folder / split):
            (folder / split).mkdir()
        for kind, file_name in KIND_FILES:
            rows = grouped.get((split, kind), [])
            write_json(folder / split / file_name, rows)
            ordered.extend(rows)
    return ordered


def write_json(path: Path, data: Any, sort_keys: bool = False) -> None:
    """JSON (UTF-8, one item per line for lists of records). Not atomic by itself: write into a staging folder."""
    if isinstance(data, list) and not sort_keys:
        body = "[\n" + ",\n".join(json.dumps(row, ensure_ascii=False) for row in data) + ("\n]\n" if data else "]\n")
    else:
        body = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=sort_keys) + "\n"
    with write_errors(path):
        path.write_bytes(body.encode("utf-8"))


def write_parquet(path: Path, rows: Sequence[Mapping[str, Any]], schema: pa.Schema) -> None:
    """Rows as a zstd parquet file with the declared schema. Not atomic by itself: write into a staging folder."""
    with write_errors(path, pa.ArrowException):
        table = pa.Table.from_pylist(list(rows), schema=schema)
        pq.write_table(table, path, compression="zstd")


def document_rows(
    doc_key: str, split: str, tokens: Sequence[Any], mentions: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Token-table rows of one document (tokens: OutputToken-like) with its reference column."""
    by_sentence: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for record in mentions:
        numbers = record["tokens_number"]
        by_sentence[record["sent_id"]].append((numbers[0], numbers[-1], record["coref_chain"]))
    sizes: dict[int, int] = defaultdict(int)
    for token in tokens:
        sizes[token.sent_id] += 1
    columns = {sent: bracket_labels(size, by_sentence.get(sent, [])) for sent, size in sizes.items()}
    return [
        {
            DOC_KEY_COLUMN: doc_key,
            "sent_id": token.sent_id,
            "token_id": token.token_id,
            "token": token.token,
            "token_id_global": token.token_id_global,
            "char_id_start": token.char_id_start,
            "whitespace_after": token.whitespace_after,
            "reference": columns[token.sent_id][token.token_id],
            "split": split,
        }
        for token in tokens
    ]
