"""One dataset folder read whole, from one build: its record and its tables (what an export writes out).

The record is the build report that ``ucdcr build`` wrote (``build_report.json``) or, for the authors' release
installed by ``ucdcr download --release``, the same per-split counts counted from its files, with its provenance
record (``release.json``) under ``release``. Rule: the record and the tables are read from one build
(:func:`~ucdcr.io.one_build.consistent`), and a folder with neither record is an error naming it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from ucdcr.errors import FormatError, UcdcrError
from ucdcr.io.load import load_mentions, load_tokens
from ucdcr.io.one_build import consistent
from ucdcr.records import SPLITS
from ucdcr.schema import BUILD_REPORT, DOCUMENTS_PARQUET, MENTION_SCHEMA, PROVENANCE_FILE


@dataclass(frozen=True)
class DatasetContents:
    """A dataset folder read whole (:func:`read_contents`)."""

    folder: Path
    report: dict[str, Any]
    """The build report, or an installed release's counts with its provenance record under ``release``."""
    mentions: pa.Table
    """Every mention: the 29 fields of the unified schema, in load order."""
    documents: pa.Table | None
    """Every token (``all_documents.parquet``); None where the folder has no token table."""


def read_contents(folder: Path) -> DatasetContents:
    """The record and the tables of a dataset folder, read from one build (module docstring)."""
    return consistent([folder], lambda: _read_contents(Path(folder)))


def _read_contents(folder: Path) -> DatasetContents:
    report = build_report(folder)
    record = provenance(folder) if report is None else None
    if report is None and record is None:
        raise UcdcrError(f"{folder} has no {BUILD_REPORT}: export needs a folder written by `ucdcr build`")
    mentions = load_mentions(folder)
    documents = load_tokens(folder) if (folder / DOCUMENTS_PARQUET).is_file() else None
    if record is not None:  # the authors' release (docs/release.md): counts from its files
        report = release_counts(record, mentions, documents)
    assert report is not None  # a build report, or the counts of a release
    return DatasetContents(folder, report, mentions.select(MENTION_SCHEMA.names), documents)


def build_report(folder: Path) -> dict[str, Any] | None:
    """A built dataset's ``build_report.json``, or None for a folder without one."""
    path = folder / BUILD_REPORT
    if not path.is_file():
        return None
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise FormatError(path, f"cannot be read as JSON: {exc}") from None
    if not isinstance(report, dict) or not isinstance(report.get("dataset"), str):
        raise FormatError(path, "not a build report: no 'dataset' id")
    return report


def provenance(folder: Path) -> dict[str, Any] | None:
    """The provenance record (``release.json``) of an installed released dataset, or None for a build."""
    path = Path(folder) / PROVENANCE_FILE
    if not path.is_file():
        return None
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise FormatError(path, f"not a readable provenance record: {exc}") from None


def release_counts(record: dict[str, Any], mentions: pa.Table, documents: pa.Table | None) -> dict[str, Any]:
    """What a build report gives, for an installed release: the dataset id, the per-split counts (documents,
    mentions by file, chains, singletons; tokens where there is a token table with splits) and the provenance
    ``record`` (``release``). ``mentions``: with the ``type`` column (the file each came from)."""
    rows_of = mentions.select(["conll_doc_key", "coref_chain", "split", "type"]).to_pylist()
    tokens: dict[str, int] = {}
    if documents is not None and "split" in documents.column_names:
        for split in documents["split"].to_pylist():
            tokens[split] = tokens.get(split, 0) + 1
    splits: dict[str, dict[str, int]] = {}
    for split in SPLITS:
        rows = [row for row in rows_of if row["split"] == split]
        sizes: dict[str, int] = {}
        for row in rows:
            sizes[row["coref_chain"]] = sizes.get(row["coref_chain"], 0) + 1
        splits[split] = {
            "documents": len({row["conll_doc_key"] for row in rows}),
            "mentions": len(rows),
            "event_mentions": sum(row["type"] == "event" for row in rows),
            "entity_mentions": sum(row["type"] == "entity" for row in rows),
            "chains": len(sizes),
            "singletons": sum(size == 1 for size in sizes.values()),
            **({"tokens": tokens[split]} if split in tokens else {}),
        }
    return {"dataset": record.get("dataset"), "splits": splits, "release": record}
