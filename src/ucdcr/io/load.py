"""Read any folder in the uCDCR layout into one Arrow table of mentions (the input of every analysis).

A dataset folder (REFERENCE.md §1.1) holds ``{train,val,test}/{event,entity}_mentions.json`` (a JSON list of
mention records with the 29 fields of :data:`ucdcr.schema.MENTION_SCHEMA`), ``all_mentions.parquet`` (the same
records; ours stores list fields as Arrow lists, the authors' as Python repr strings such as ``"['the', 'war']"``,
parsed here with :func:`ast.literal_eval`) and, where texts may be shared, ``all_documents.parquet``.

The mention table has the 29 fields plus ``type`` ("event"/"entity": the FILE the mention came from, which is not
always its ``mention_type``; REFERENCE.md §1.4). Rows are in the authors' load order (REFERENCE.md §4.0): event
files of train, val, test, then entity files of train, val, test, each in file order. The order matters for
the uCDCR MTLD, which reads the tokens of a chain in this order. Duplicate records stay separate rows (the
authors append random characters to ``mention_id`` to force this).

Where JSON files are missing (the authors' release here lacks some of its larger files), the rows of that split
come from ``all_mentions.parquet``. Their ``type`` is then taken from the split's other JSON file when present
(every parquet row not in it is of the other type), else from the rule the authors' parsers used to pick the file:
single-type datasets put everything in one file; ECB+ and ECB+METAm put a mention in the event file iff its
chain id starts with ACT/NEG (regenerated "…-regener-…" chains and Singleton_… chains went to the entity file).
The inferred types must form one block per type within each split, as the authors' parquet is written file by
file; otherwise the folder is rejected with a message asking for the JSON files.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ucdcr.errors import FormatError, UcdcrError
from ucdcr.records import SPLITS, MentionKind
from ucdcr.registry import normalize_id
from ucdcr.schema import (
    DOC_KEY_COLUMN,
    DOCUMENTS_PARQUET,
    ENTITY_FILE,
    EVENT_FILE,
    LIST_FIELDS,
    MENTION_SCHEMA,
    MENTIONS_PARQUET,
)

try:  # optional: orjson parses the mention files several times faster than the standard library
    from orjson import loads as _fast_json_loads
except ImportError:  # pragma: no cover - depends on the environment
    _fast_json_loads = None

KIND_COLUMN = "type"
KINDS: tuple[MentionKind, ...] = ("event", "entity")
KIND_FILES: dict[MentionKind, str] = {"event": EVENT_FILE, "entity": ENTITY_FILE}
ANALYSIS_SCHEMA = MENTION_SCHEMA.append(pa.field(KIND_COLUMN, pa.string()))

# The authors' dataset folder names (REFERENCE.md, top) and our dataset ids.
REFERENCE_NAMES: dict[str, str] = {
    "CD2CR": "cd2cr",
    "CEREC": "cerec",
    "ECBplus": "ecbplus",
    "ECBplusMETAm": "ecbplus_metam",
    "FCC": "fcct",
    "GVC": "gvc",
    "HyperCoref": "hypercoref",
    "MEANTIME": "meantime",
    "NewsWCL50": "newswcl50r",
    "NIdent": "nident",
    "NP4E": "np4e",
    "WECEng": "wec_eng",
}
_SINGLE_KIND: dict[str, MentionKind] = {
    "cd2cr": "entity",
    "cerec": "entity",
    "nident": "entity",
    "np4e": "entity",
    "fcct": "event",
    "gvc": "event",
    "wec_eng": "event",
}
_ECB_EVENT_CHAIN = re.compile(r"^(ACT|NEG)(?!.*regener)")


def dataset_id(folder: str | Path) -> str | None:
    """Our dataset id for a folder named by our id (``ecbplus``) or the authors' name (``ECBplus``, ``NP4E-prep``)."""
    name = Path(folder).name.removesuffix("-prep")
    if name in REFERENCE_NAMES:
        return REFERENCE_NAMES[name]
    key = normalize_id(name)
    return key if key in REFERENCE_NAMES.values() else None


def is_dataset_folder(folder: Path) -> bool:
    """A folder in the uCDCR layout: it has all_mentions.parquet or at least one split mention file."""
    if (folder / MENTIONS_PARQUET).is_file():
        return True
    return any((folder / split / name).is_file() for split in SPLITS for name in KIND_FILES.values())


def discover_datasets(data_dir: str | Path, names: Iterable[str] | None = None) -> dict[str, Path]:
    """The dataset folders in a data dir, by folder name, sorted; ``data_dir`` itself if it is one.

    names: only these (folder names, our ids or the authors' names); an unknown name is an error listing the
    folders found.
    """
    root = Path(data_dir)
    if not root.is_dir():
        raise UcdcrError(f"data dir {root} does not exist")
    if is_dataset_folder(root):
        found = {root.name: root}
    else:
        found = {p.name: p for p in sorted(root.iterdir()) if p.is_dir() and is_dataset_folder(p)}
    if names is None:
        if not found:
            raise UcdcrError(f"no dataset folders (all_mentions.parquet or */*_mentions.json) in {root}")
        return found
    selected: dict[str, Path] = {}
    for name in names:
        match = _match_folder(name, found)
        if match is None:
            raise UcdcrError(f"no dataset {name!r} in {root}; found: {', '.join(found) or 'none'}")
        selected[match] = found[match]
    return selected


def _match_folder(name: str, found: dict[str, Path]) -> str | None:
    if name in found:
        return name
    wanted = dataset_id(name) or name.lower()
    for folder_name in found:
        if dataset_id(folder_name) == wanted or folder_name.lower() == name.lower():
            return folder_name
    return None


def load_mentions(
    folder: str | Path,
    splits: Sequence[str] = SPLITS,
    columns: Sequence[str] | None = None,
) -> pa.Table:
    """All mentions of the given splits of one dataset folder, as one table in load order.

    columns: the mention fields to keep (default all 29); ``type`` is always added. Choosing few columns saves
    parsing the authors' repr-string lists.
    """
    folder = Path(folder)
    wanted = list(MENTION_SCHEMA.names if columns is None else columns)
    unknown = [name for name in wanted if name not in MENTION_SCHEMA.names]
    if unknown:
        raise UcdcrError(f"unknown mention fields: {', '.join(unknown)}")
    if "split" not in wanted:
        wanted.append("split")
    parquet_rows: dict[str, list[dict[str, Any]]] | None = None
    blocks: dict[tuple[MentionKind, str], list[dict[str, Any]]] = {}
    for split in splits:
        if split not in SPLITS:
            raise UcdcrError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")
        paths = {kind: folder / split / KIND_FILES[kind] for kind in KINDS}
        if all(path.is_file() for path in paths.values()):
            for kind, path in paths.items():
                blocks[(kind, split)] = _read_json_records(path, split)
            continue
        if parquet_rows is None:
            parquet_rows = _read_parquet_by_split(folder, paths, wanted)
        typed = _type_parquet_rows(folder, split, parquet_rows.get(split, []), paths)
        for kind in KINDS:
            blocks[(kind, split)] = [row for row, row_kind in typed if row_kind == kind]
    return _to_table(folder, blocks, splits, wanted)


def _read_json_records(path: Path, split: str) -> list[dict[str, Any]]:
    data = path.read_bytes()
    try:
        records = _fast_json_loads(data) if _fast_json_loads else json.loads(data)
    except ValueError:
        try:  # the standard library names the line of the error
            records = json.loads(data)
        except json.JSONDecodeError as exc:
            raise FormatError(path, f"not valid JSON: {exc.msg}", exc.lineno) from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise FormatError(path, "expected a JSON list of mention objects")
    for record in records:
        record.setdefault("split", split)  # the authors keep a record's own split when it has one
    return records


def _read_parquet_by_split(
    folder: Path, paths: dict[MentionKind, Path], columns: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    path = folder / MENTIONS_PARQUET
    if not path.is_file():
        missing = ", ".join(str(p) for p in paths.values() if not p.is_file())
        raise FormatError(folder, f"missing mention files ({missing}) and no {MENTIONS_PARQUET} to read instead")
    available = pq.read_schema(path).names
    needed = [name for name in dict.fromkeys([*columns, "mention_id", "coref_chain"]) if name in available]
    missing_fields = [name for name in columns if name not in available]
    if missing_fields:
        raise FormatError(path, f"missing columns: {', '.join(missing_fields)}")
    table = pq.read_table(path, columns=needed)
    for name in needed:
        if name in LIST_FIELDS and pa.types.is_string(table.schema.field(name).type):
            parsed = [_parse_repr_list(value, path, name, row) for row, value in enumerate(table[name].to_pylist())]
            table = table.set_column(needed.index(name), name, pa.array(parsed, MENTION_SCHEMA.field(name).type))
    by_split: dict[str, list[dict[str, Any]]] = {}
    for row in table.to_pylist():
        by_split.setdefault(row["split"], []).append(row)
    return by_split


def _parse_repr_list(value: str | None, path: Path, field_name: str, row: int) -> list[Any] | None:
    if value is None:
        return None
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise FormatError(path, f"row {row}: field {field_name!r} holds {value[:60]!r}, not a list") from None
    if not isinstance(parsed, list | tuple):
        raise FormatError(path, f"row {row}: field {field_name!r} holds {value[:60]!r}, not a list")
    return list(parsed)


def _type_parquet_rows(
    folder: Path, split: str, rows: list[dict[str, Any]], paths: dict[MentionKind, Path]
) -> list[tuple[dict[str, Any], MentionKind]]:
    """Each parquet row of a split with the file it belongs to (see the module docstring)."""
    present = [kind for kind in KINDS if paths[kind].is_file()]
    if present:
        known = present[0]
        other: MentionKind = "entity" if known == "event" else "event"
        ids = Counter(record["mention_id"] for record in _read_json_records(paths[known], split))
        typed = []
        for row in rows:
            if ids[row["mention_id"]] > 0:
                ids[row["mention_id"]] -= 1
                typed.append((row, known))
            else:
                typed.append((row, other))
        left = +ids
        if left:
            raise FormatError(
                paths[known], f"{sum(left.values())} mentions are not in {MENTIONS_PARQUET}, e.g. {next(iter(left))}"
            )
        return typed
    rule = _kind_rule(folder)
    typed = [(row, rule(row)) for row in rows]
    runs = sum(1 for i, (_, kind) in enumerate(typed) if i == 0 or kind != typed[i - 1][1])
    if runs > 2:
        raise FormatError(
            folder / MENTIONS_PARQUET,
            f"cannot tell event from entity mentions of split {split!r}: provide {split}/{EVENT_FILE} and "
            f"{split}/{ENTITY_FILE}",
        )
    return typed


def _kind_rule(folder: Path) -> Callable[[dict[str, Any]], MentionKind]:
    key = dataset_id(folder)
    if key in _SINGLE_KIND:
        kind = _SINGLE_KIND[key]
        return lambda row: kind
    # The chain-prefix rule is how the AUTHORS' ECB+ parsers chose the file; our builds choose by annotation type
    # and always write the JSON files, so it applies to the authors' parquet (repr-string lists) only.
    if key in ("ecbplus", "ecbplus_metam") and _is_authors_parquet(folder / MENTIONS_PARQUET):
        return lambda row: "event" if _ECB_EVENT_CHAIN.match(row["coref_chain"]) else "entity"
    raise FormatError(
        folder,
        "mention files are missing and the event/entity file of a mention cannot be inferred for this dataset: "
        f"provide the {EVENT_FILE} and {ENTITY_FILE} files of every split",
    )


def _is_authors_parquet(path: Path) -> bool:
    return pa.types.is_string(pq.read_schema(path).field("tokens_text").type)


def _to_table(
    folder: Path,
    blocks: dict[tuple[MentionKind, str], list[dict[str, Any]]],
    splits: Sequence[str],
    columns: Sequence[str],
) -> pa.Table:
    schema = pa.schema([MENTION_SCHEMA.field(name) for name in columns]).append(ANALYSIS_SCHEMA.field(KIND_COLUMN))
    data: dict[str, list[Any]] = {name: [] for name in schema.names}
    for kind in KINDS:
        for split in splits:
            records = blocks.get((kind, split), [])
            for name in columns:
                data[name].extend(record.get(name) for record in records)
            data[KIND_COLUMN].extend([kind] * len(records))
    arrays = []
    for schema_field in schema:
        try:
            arrays.append(pa.array(data[schema_field.name], schema_field.type))
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise FormatError(
                folder, f"field {schema_field.name!r} does not hold {schema_field.type} values: {exc}"
            ) from None
    return pa.Table.from_arrays(arrays, schema=schema)


def load_documents(folder: str | Path) -> pa.Table | None:
    """The token table (all_documents.parquet) of a dataset folder, or None where texts are not shared.

    Only the columns the statistics need are read: the document key and, where the file has it, the split label
    (older releases have none; the statistics then take a document's split from its mentions).
    """
    path = Path(folder) / DOCUMENTS_PARQUET
    if not path.is_file():
        return None
    names = pq.read_schema(path).names
    if DOC_KEY_COLUMN not in names:
        raise FormatError(path, f"missing column {DOC_KEY_COLUMN!r}")
    return pq.read_table(path, columns=[name for name in (DOC_KEY_COLUMN, "split") if name in names])


def load_columns(folder: str | Path, columns: Sequence[str]) -> pa.Table:
    """Scalar mention fields of every split, without the event/entity type: read from all_mentions.parquet when
    there is one (cheap, any layout), else from the JSON files."""
    folder = Path(folder)
    path = folder / MENTIONS_PARQUET
    if path.is_file():
        missing = [name for name in columns if name not in pq.read_schema(path).names]
        if missing:
            raise FormatError(path, f"missing columns: {', '.join(missing)}")
        return pq.read_table(path, columns=list(columns))
    present = [split for split in SPLITS if any((folder / split / name).is_file() for name in KIND_FILES.values())]
    return load_mentions(folder, splits=present, columns=columns).select(list(columns))
