"""The Python loader: built uCDCR datasets as Arrow tables.

``load(dataset, split=None, kind="mentions")`` reads ``<data-dir>/<dataset>/all_mentions.parquet`` (one row per
mention, the 29 fields of :data:`ucdcr.schema.MENTION_SCHEMA`) or, with ``kind="documents"``,
``all_documents.parquet`` (one row per token, :data:`ucdcr.schema.DOCUMENT_SCHEMA`). The result is a
``pyarrow.Table`` with exactly that schema, so ``table.to_pandas()`` and ``polars.from_arrow(table)`` work, and the
Parquet files themselves load unchanged with ``datasets.Dataset.from_parquet``.

``dataset`` is a dataset id (``"ecbplus"``) looked up in the data dir, or the path of any folder in the uCDCR
layout, including the authors' released folders, whose list fields are Python repr strings
(REFERENCE.md §1.6): mentions are read by :func:`ucdcr.io.load.load_mentions` (the analysis loader), which
parses those into real lists, so every folder loads with the same schema. ``mention_type="event"|"entity"``
keeps the mentions of the ``event_mentions.json`` / ``entity_mentions.json`` files, because the file a mention
sits in (not its ``mention_type``) is what makes it an event or an entity.

Bad data never ends in a traceback: a file that is not UTF-8, not JSON, of the wrong JSON shape, with a value of
the wrong type or null, or a Parquet file that is empty, truncated or has a column of the wrong type, is one
:class:`~ucdcr.errors.FormatError` naming the file (and record or row, and field); a data dir that is a file or
does not exist is a :class:`~ucdcr.errors.UcdcrError` saying so. Folders whose name starts with ``.`` (a build's
staging or retired output) are never datasets.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pyarrow as pa
import pyarrow.compute as pc

from ucdcr.errors import UcdcrError, UnknownDatasetError
from ucdcr.io.load import (
    KIND_COLUMN,
    KINDS,
    check_folder,
    conform,
    is_dataset_folder,
    load_mentions,
    parquet_columns,
    read_parquet,
)
from ucdcr.paths import resolve_data_dir
from ucdcr.records import SPLITS
from ucdcr.registry import dataset_ids, known_ids, normalize_id
from ucdcr.schema import (
    DOCUMENT_SCHEMA,
    DOCUMENTS_PARQUET,
    MENTION_SCHEMA,
    MENTIONS_PARQUET,
)

TableKind = Literal["mentions", "documents"]
MentionFile = Literal["event", "entity"]

__all__ = ["dataset_dir", "datasets", "load"]


def datasets(data_dir: str | Path | None = None, built_only: bool = False) -> list[str]:
    """The uCDCR dataset ids, in the paper's order; with ``built_only`` only those built in the data dir."""
    if not built_only:
        return dataset_ids()
    root = resolve_data_dir(data_dir)
    if not root.exists():
        return []
    check_folder(root, "data dir")
    return [key for key in dataset_ids() if _is_built(root / key)]


def dataset_dir(dataset: str | Path, data_dir: str | Path | None = None) -> Path:
    """The folder of a built dataset: ``dataset`` is an id in the data dir or a path to a uCDCR folder.

    A folder in the uCDCR layout wins over an id of the same name; any other folder is taken as a path unless its
    name is a dataset id (so a raw-data folder ``ecbplus/`` in the working directory does not hide the built one).
    """
    as_path = Path(dataset)
    key = normalize_id(str(dataset))
    if as_path.is_dir() and (key not in known_ids() or is_dataset_folder(as_path)):
        return as_path
    if key not in known_ids():
        if as_path.exists():
            raise UcdcrError(f"{dataset} is a file, not a dataset folder or a dataset id")
        raise UnknownDatasetError(
            f"{dataset!r} is neither a folder nor a dataset id; valid ids: {', '.join(known_ids())}"
        )
    root = resolve_data_dir(data_dir)
    if root.exists():
        check_folder(root, "data dir")
    folder = root / key
    if not _is_built(folder):
        raise UcdcrError(f"dataset {key!r} is not built in {root} (run `ucdcr build {key}` first)")
    return folder


def _is_built(folder: Path) -> bool:
    try:
        return (folder / MENTIONS_PARQUET).is_file()
    except OSError as exc:
        raise UcdcrError(f"cannot read the folder {folder}: {exc.strerror or exc}") from None


def load(
    dataset: str | Path,
    split: str | None = None,
    kind: TableKind = "mentions",
    data_dir: str | Path | None = None,
    mention_type: MentionFile | None = None,
    columns: Sequence[str] | None = None,
) -> pa.Table:
    """Load one built dataset as a ``pyarrow.Table``.

    dataset: a dataset id (see :func:`datasets`) or a path to a folder in the uCDCR layout.
    split: "train", "val" or "test"; None for every split.
    kind: "mentions" (one row per mention, 29 columns) or "documents" (one row per token).
    data_dir: where built datasets live (default: env ``UCDCR_DATA_DIR`` or the user data dir).
    mention_type: "event" or "entity" to read only the mentions of that file (kind "mentions" only).
    columns: only these mention fields (kind "mentions"; default all 29, in schema order), to save memory.

    Example::

        import ucdcr
        mentions = ucdcr.load("ecbplus", split="test")       # pyarrow.Table
        df = mentions.to_pandas()                            # or polars.from_arrow(mentions)
    """
    if split is not None and split not in SPLITS:
        raise UcdcrError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")
    folder = dataset_dir(dataset, data_dir)
    if kind == "documents":
        if mention_type is not None:
            raise UcdcrError("mention_type applies to kind='mentions' only")
        return _read_documents(folder, split)
    if kind == "mentions":
        return _read_mentions(folder, split, mention_type, columns)
    raise UcdcrError(f"unknown kind {kind!r}; valid kinds: mentions, documents")


def _read_mentions(
    folder: Path, split: str | None, mention_type: MentionFile | None, columns: Sequence[str] | None
) -> pa.Table:
    if mention_type not in (None, *KINDS):
        raise UcdcrError(f"unknown mention_type {mention_type!r}; valid: {', '.join(KINDS)}")
    table = load_mentions(folder, splits=[split] if split else SPLITS, columns=columns)
    if mention_type is not None:
        table = table.filter(pc.equal(table[KIND_COLUMN], mention_type))
    return table.select(list(columns) if columns is not None else MENTION_SCHEMA.names)


def _read_documents(folder: Path, split: str | None) -> pa.Table:
    path = folder / DOCUMENTS_PARQUET
    if not path.is_file():
        raise UcdcrError(
            f"{path} does not exist: this dataset's texts are not redistributed, so it has no document table"
        )
    table = conform(
        read_parquet(path, [name for name in DOCUMENT_SCHEMA.names if name in parquet_columns(path)]),
        DOCUMENT_SCHEMA,
        path,
    )
    return table if split is None else table.filter(pc.equal(table["split"], split))
