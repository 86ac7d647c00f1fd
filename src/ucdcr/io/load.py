"""Read any folder in the uCDCR layout into one Arrow table of mentions (the input of every analysis).

A dataset folder (docs/unified-format.md#dataset-folder) holds ``{train,val,test}/{event,entity}_mentions.json`` (a JSON
list of mention records with the 29 fields of :data:`ucdcr.schema.MENTION_SCHEMA`), ``all_mentions.parquet`` (the same
records; ours stores list fields as Arrow lists, the authors' as Python repr strings such as ``"['the', 'war']"``,
parsed here with :func:`ast.literal_eval`) and, where texts may be shared, ``all_documents.parquet``.

The mention table has the 29 fields plus ``type`` ("event"/"entity": the FILE the mention came from, which is not
always its ``mention_type``; docs/unified-format.md#event-and-entity-files). Rows are in the authors' load order
(docs/unified-format.md#reading-released-folders): event files of train, val, test, then entity files of train, val,
test, each in file order. The order matters for
the uCDCR MTLD, which reads the tokens of a chain in this order. Duplicate records stay separate rows (the
authors append random characters to ``mention_id`` to force this).

Where JSON files are missing (the authors' release here lacks some of its larger files), the rows of that split
come from ``all_mentions.parquet``. Their ``type`` is then taken from the split's other JSON file when present
(every parquet row not in it is of the other type), else from the rule the authors' parsers used to pick the file,
as the dataset declares it (:class:`~ucdcr.registry.DatasetSpec`): a dataset with one mention kind has everything
in one file; where the authors chose the file by the chain id (``authors_event_chains``), that rule applies to
their parquet (repr-string lists). The inferred types must form one block per type within each split, as the
authors' parquet is written file by file; otherwise the folder is rejected with a message asking for the JSON files.

Every value is checked, never coerced: a JSON file must be UTF-8 (:mod:`ucdcr.io.text`) and hold a list of
objects; each record needs every requested field with a value of its schema type (a string, an integer, a
boolean, or a list of strings / integers; ``null``, a missing field, ``1.5`` or ``"first"`` for an integer, or a
string where a list belongs are errors naming the file, the record and the field). A Parquet file must be
readable (not empty or truncated) and have each requested column with values of that kind (any integer width,
``large_string`` and ``large_list`` are accepted) and no nulls. Every problem is one
:class:`~ucdcr.errors.FormatError` naming the file.

One build at a time: every reader here reads its folder through :func:`~ucdcr.io.one_build.consistent`, so a
rebuild that swaps the folder meanwhile makes it read again.

Which folder a dataset name means is :mod:`ucdcr.sources.discover`'s; this module is given folders.
"""

from __future__ import annotations

import ast
import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ucdcr.errors import FormatError, UcdcrError
from ucdcr.io.arrow_paths import arrow_source
from ucdcr.io.one_build import consistent
from ucdcr.io.text import check_regular, decode_text, parse_json, read_bytes
from ucdcr.io.text import describe_json as describe
from ucdcr.paths import existing_folder
from ucdcr.records import SPLITS, MentionKind
from ucdcr.registry import dataset_of_name
from ucdcr.schema import (
    DOC_KEY_COLUMN,
    DOCUMENT_SCHEMA,
    DOCUMENTS_PARQUET,
    ENTITY_FILE,
    EVENT_FILE,
    LIST_FIELDS,
    MENTION_SCHEMA,
    MENTIONS_PARQUET,
    PROVENANCE_FILE,
)


def _orjson_loads() -> Callable[[bytes], Any] | None:
    """orjson's parser when installed (optional: it parses the mention files several times faster)."""
    try:
        from orjson import loads
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    return loads


_fast_json_loads = _orjson_loads()

TableKind = Literal["mentions", "documents"]
MentionFile = Literal["event", "entity"]
KIND_COLUMN = "type"
KINDS: tuple[MentionKind, ...] = ("event", "entity")
KIND_FILES: dict[MentionKind, str] = {"event": EVENT_FILE, "entity": ENTITY_FILE}
ANALYSIS_SCHEMA = MENTION_SCHEMA.append(pa.field(KIND_COLUMN, pa.string()))


def dataset_id(folder: str | Path) -> str | None:
    """Our dataset id for a folder (or a table's ``<id>@release``) named by our id or by the authors' folder name
    (:func:`~ucdcr.registry.dataset_of_name`)."""
    spec = dataset_of_name(Path(folder).name.removesuffix("@release"))
    return spec.id if spec else None


def check_split(split: str) -> None:
    if split not in SPLITS:
        raise UcdcrError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")


def read_table(
    folder: Path,
    split: str | None = None,
    kind: TableKind = "mentions",
    mention_type: MentionFile | None = None,
    columns: Sequence[str] | None = None,
) -> pa.Table:
    """One dataset folder as the table :func:`ucdcr.load` returns (its arguments but the dataset, already found):
    the mentions (the 29 fields, or ``columns``; of one ``mention_type`` file) or the tokens, of one split or all."""
    if split is not None:
        check_split(split)
    if kind == "documents":
        if mention_type is not None:
            raise UcdcrError("mention_type applies to kind='mentions' only")
        return consistent([folder], lambda: load_tokens(folder, split))
    if kind != "mentions":
        raise UcdcrError(f"unknown kind {kind!r}; valid kinds: mentions, documents")
    if mention_type not in (None, *KINDS):
        raise UcdcrError(f"unknown mention_type {mention_type!r}; valid: {', '.join(KINDS)}")
    table = load_mentions(folder, splits=[split] if split else SPLITS, columns=columns)  # reads one build
    if mention_type is not None:
        table = table.filter(pc.equal(table[KIND_COLUMN], mention_type))
    return table.select(list(columns) if columns is not None else MENTION_SCHEMA.names)


Columns = dict[str, list[Any]]
"""Mention fields as Python value lists (one entry per mention), already checked against MENTION_SCHEMA."""
Block = tuple[Path, Columns]
"""The mentions of one (kind, split): the file they were read from and their columns."""


def load_mentions(
    folder: str | Path,
    splits: Sequence[str] = SPLITS,
    columns: Sequence[str] | None = None,
) -> pa.Table:
    """All mentions of the given splits of one dataset folder, as one table in load order.

    columns: the mention fields to keep (default all 29); ``type`` is always added. Choosing few columns saves
    parsing the authors' repr-string lists.
    """
    return consistent([folder], lambda: _load_mentions(Path(folder), splits, columns))


def _load_mentions(folder: Path, splits: Sequence[str], columns: Sequence[str] | None) -> pa.Table:
    folder = existing_folder(folder, "dataset folder")
    wanted = list(MENTION_SCHEMA.names if columns is None else columns)
    unknown = [name for name in wanted if name not in MENTION_SCHEMA.names]
    if unknown:
        raise UcdcrError(f"unknown mention fields: {', '.join(unknown)}")
    if "split" not in wanted:
        wanted.append("split")
    parquet_rows: dict[str, list[dict[str, Any]]] | None = None
    blocks: dict[tuple[MentionKind, str], Block] = {}
    for split in splits:
        if split not in SPLITS:
            raise UcdcrError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")
        paths = {kind: folder / split / KIND_FILES[kind] for kind in KINDS}
        if all(path.is_file() for path in paths.values()):
            for kind, path in paths.items():
                blocks[(kind, split)] = (path, _checked_columns(_read_json_records(path, split), wanted, path))
            continue
        if parquet_rows is None:
            parquet_rows = _read_parquet_by_split(folder, paths, wanted)
        typed = _type_parquet_rows(folder, split, parquet_rows.get(split, []), paths)
        for kind in KINDS:
            rows = [row for row, row_kind in typed if row_kind == kind]
            blocks[(kind, split)] = (folder / MENTIONS_PARQUET, {name: [row[name] for row in rows] for name in wanted})
    return _to_table(blocks, splits, wanted)


def _read_json_records(path: Path, split: str) -> list[dict[str, Any]]:
    """The records of a mention file (a JSON list of objects); a record without ``split`` gets the folder's."""
    records = _parse_json(path)
    if not isinstance(records, list):
        raise FormatError(path, f"expected a JSON list of mention records, got {describe(records)}")
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise FormatError(path, f"record {index} must be a JSON object (a mention record), got {describe(record)}")
        record.setdefault("split", split)  # the authors keep a record's own split when it has one
    return records


def _parse_json(path: Path) -> Any:
    data = read_bytes(path)
    if _fast_json_loads is not None:
        try:
            return _fast_json_loads(data)
        except ValueError:
            pass  # diagnosed below, with the encoding rule and the standard library's line numbers
    text = decode_text(data, path)
    if not text.strip():
        raise FormatError(path, "the file is empty; expected a JSON list of mention records")
    return parse_json(text, path)


def _checked_columns(records: list[dict[str, Any]], names: Sequence[str], path: Path) -> Columns:
    """The given fields of JSON records, each checked against its schema type (errors name the record)."""
    columns: Columns = {}
    for name in names:
        values = [record.get(name) for record in records]
        check_values(values, name, path, lambda index: _record_label(records[index], index))
        columns[name] = values
    return columns


def _record_label(record: dict[str, Any], index: int) -> str:
    mention_id = record.get("mention_id")
    return f"record {index} (mention_id {mention_id!r})" if isinstance(mention_id, str) else f"record {index}"


_INT64_RANGE = (-(2**63), 2**63 - 1)
_SCALARS: dict[str, tuple[type, str]] = {
    "string": (str, "a string"),
    "int64": (int, "an integer"),
    "bool": (bool, "a boolean (true or false)"),
}


def check_values(values: list[Any], name: str, path: Path, label: Callable[[int], str]) -> None:
    """Raise a FormatError unless every value of field ``name`` has its MENTION_SCHEMA type (no null, no coercion).

    label(i): how the error names the i-th value's record or row.
    """
    arrow_type = MENTION_SCHEMA.field(name).type
    if _all_of_type(values, arrow_type):
        return
    for index, value in enumerate(values):
        problem = _value_problem(value, arrow_type)
        if problem is not None:
            raise FormatError(path, f"{label(index)}: field {name!r} {problem}")


def _all_of_type(values: list[Any], arrow_type: pa.DataType) -> bool:
    """The fast check: every value of the type (one pass over the type set; the slow path finds the culprit)."""
    if pa.types.is_list(arrow_type):
        return set(map(type, values)) <= {list} and _all_of_type(
            list(itertools.chain.from_iterable(values)), arrow_type.value_type
        )
    expected = _SCALARS[str(arrow_type)][0]
    if not set(map(type, values)) <= {expected}:
        return False
    return expected is not int or not values or (min(values) >= _INT64_RANGE[0] and max(values) <= _INT64_RANGE[1])


def _value_problem(value: Any, arrow_type: pa.DataType) -> str | None:
    if value is None:
        return "is missing or null"
    if pa.types.is_list(arrow_type):
        noun = _SCALARS[str(arrow_type.value_type)][1]
        if type(value) is not list:
            return f"must be a list of items that are each {noun}, got {describe(value)}"
        for position, item in enumerate(value):
            if _value_problem(item, arrow_type.value_type) is not None:
                return f"must be a list of items that are each {noun}, but item {position} is {describe(item)}"
        return None
    expected, noun = _SCALARS[str(arrow_type)]
    if type(value) is not expected:
        return f"must be {noun}, got {describe(value)}"
    if isinstance(value, int) and not _INT64_RANGE[0] <= value <= _INT64_RANGE[1]:
        return f"holds {value}, beyond the 64-bit integer range"
    return None


def read_parquet(path: Path, columns: Sequence[str] | None = None) -> pa.Table:
    """A Parquet file (or some of its columns); an empty, truncated or corrupt file, or a path that is no regular
    file (a device, a pipe), is a FormatError naming it."""
    check_regular(path, "a Parquet file")
    try:
        with arrow_source(path) as source:
            return pq.read_table(source, columns=list(columns) if columns is not None else None)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(path, _unreadable_parquet(exc)) from None


def parquet_columns(path: Path) -> list[str]:
    """The column names of a Parquet file, read from its footer (errors as :func:`read_parquet`)."""
    check_regular(path, "a Parquet file")
    try:
        with arrow_source(path) as source:
            return list(pq.read_schema(source).names)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(path, _unreadable_parquet(exc)) from None


def _unreadable_parquet(exc: BaseException) -> str:
    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    return f"not a readable Parquet file ({reason}); it may be empty, truncated or corrupt: rebuild the dataset"


def conform(table: pa.Table, schema: pa.Schema, path: Path) -> pa.Table:
    """The ``schema`` columns of a table read from Parquet, cast to the schema.

    Each column must hold values of its field's kind (any integer width for int64, ``large_string`` for string,
    ``large_list`` for list) and no nulls; otherwise a FormatError names the file, column (and row).
    """
    missing = [name for name in schema.names if name not in table.column_names]
    if missing:
        raise FormatError(path, f"missing columns: {', '.join(missing)}")
    arrays = []
    for schema_field in schema:
        column = table[schema_field.name]
        if not _same_kind(column.type, schema_field.type):
            raise FormatError(
                path, f"column {schema_field.name!r} holds {column.type} values, expected {schema_field.type}"
            )
        nulls = pc.is_null(pc.list_flatten(column)) if pa.types.is_list(schema_field.type) else None
        if column.null_count or (nulls is not None and pc.any(nulls).as_py()):
            row = pc.index(pc.is_null(column), True).as_py()
            where = (
                f"row {row}: column {schema_field.name!r} is null"
                if row >= 0
                else (f"column {schema_field.name!r} holds a null list item")
            )
            raise FormatError(path, where)
        try:
            arrays.append(column.cast(schema_field.type))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise FormatError(path, f"column {schema_field.name!r} does not fit {schema_field.type}: {exc}") from None
    return pa.Table.from_arrays(arrays, schema=schema)


def _same_kind(actual: pa.DataType, expected: pa.DataType) -> bool:
    if pa.types.is_list(expected):
        return (pa.types.is_list(actual) or pa.types.is_large_list(actual)) and _same_kind(
            actual.value_type, expected.value_type
        )
    if pa.types.is_string(expected):
        return pa.types.is_string(actual) or pa.types.is_large_string(actual)
    if pa.types.is_integer(expected):
        return pa.types.is_integer(actual)
    return bool(actual == expected)


def _read_parquet_by_split(
    folder: Path, paths: dict[MentionKind, Path], columns: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    path = folder / MENTIONS_PARQUET
    if not path.is_file():
        missing = ", ".join(str(p) for p in paths.values() if not p.is_file())
        raise FormatError(folder, f"missing mention files ({missing}) and no {MENTIONS_PARQUET} to read instead")
    available = parquet_columns(path)
    needed = [name for name in dict.fromkeys([*columns, "mention_id", "coref_chain"]) if name in available]
    missing_fields = [name for name in columns if name not in available]
    if missing_fields:
        raise FormatError(path, f"missing columns: {', '.join(missing_fields)}")
    table = read_parquet(path, needed)
    values: Columns = {}
    for name in needed:
        column = table[name]
        if name in LIST_FIELDS and pa.types.is_string(column.type):
            values[name] = [_parse_repr_list(value, path, name, row) for row, value in enumerate(column.to_pylist())]
        else:
            values[name] = column.to_pylist()
        check_values(values[name], name, path, lambda row: f"row {row}")
    _check_splits(values["split"], path)
    by_split: dict[str, list[dict[str, Any]]] = {}
    for row in zip(*(values[name] for name in needed), strict=True):
        record = dict(zip(needed, row, strict=True))
        by_split.setdefault(record["split"], []).append(record)
    return by_split


def _check_splits(splits: list[str], path: Path) -> None:
    """Every row of a parquet belongs to train, val or test (no row may vanish from every split)."""
    for row, split in enumerate(splits):
        if split not in SPLITS:
            raise FormatError(path, f"row {row}: split {split!r} is not one of {', '.join(SPLITS)}")


def _parse_repr_list(value: str | None, path: Path, field_name: str, row: int) -> list[Any] | None:
    if value is None:
        return None
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
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
        records = _read_json_records(paths[known], split)
        ids = Counter(_checked_columns(records, ["mention_id"], paths[known])["mention_id"])
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
    spec = dataset_of_name(folder.name)
    if spec is not None and len(spec.mention_kinds) == 1:
        kind = spec.mention_kinds[0]
        return lambda row: kind
    # The chain-id rule is how the AUTHORS' parsers chose the file; our builds choose by annotation type and always
    # write the JSON files, so it applies to the authors' parquet (repr-string lists) only.
    events = spec.authors_event_chains if spec is not None else None
    if events is not None and _is_authors_parquet(folder / MENTIONS_PARQUET):
        return lambda row: "event" if events.match(row["coref_chain"]) else "entity"
    raise FormatError(
        folder,
        "mention files are missing and the event/entity file of a mention cannot be inferred for this dataset: "
        f"provide the {EVENT_FILE} and {ENTITY_FILE} files of every split",
    )


def _is_authors_parquet(path: Path) -> bool:
    try:
        with arrow_source(path) as source:
            schema = pq.read_schema(source)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(path, _unreadable_parquet(exc)) from None
    return "tokens_text" in schema.names and pa.types.is_string(schema.field("tokens_text").type)


def _to_table(blocks: dict[tuple[MentionKind, str], Block], splits: Sequence[str], columns: Sequence[str]) -> pa.Table:
    schema = pa.schema([MENTION_SCHEMA.field(name) for name in columns]).append(ANALYSIS_SCHEMA.field(KIND_COLUMN))
    chunks: dict[str, list[pa.Array]] = {name: [] for name in schema.names}
    for kind in KINDS:
        for split in splits:
            if (kind, split) not in blocks:
                continue
            path, block = blocks[(kind, split)]
            for name in columns:
                chunks[name].append(_to_arrow(block[name], name, path, block))
            chunks[KIND_COLUMN].append(pa.array([kind] * len(block[columns[0]]), pa.string()))
    arrays = [pa.chunked_array(chunks[field.name], field.type) for field in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def _to_arrow(values: list[Any], name: str, path: Path, block: Columns) -> pa.Array:
    """Checked values as an Arrow array; what can still fail is text Arrow cannot store (a lone UTF-16 surrogate)."""
    arrow_type = MENTION_SCHEMA.field(name).type
    try:
        return pa.array(values, arrow_type)
    except (pa.ArrowException, UnicodeError, ValueError, TypeError, OverflowError) as exc:
        for index, value in enumerate(values):
            try:
                pa.array([value], arrow_type)
            except (pa.ArrowException, UnicodeError, ValueError, TypeError, OverflowError):
                mention = block["mention_id"][index] if "mention_id" in block else index
                raise FormatError(path, f"mention {mention!r}: field {name!r} cannot be stored: {exc}") from None
        raise FormatError(path, f"field {name!r} cannot be stored: {exc}") from None


def load_documents(folder: str | Path) -> pa.Table | None:
    """The token table (all_documents.parquet) of a dataset folder, or None where texts are not shared.

    Only the columns the statistics need are read: the document key and, where the file has it, the split label
    (older releases have none; the statistics then take a document's split from its mentions).
    """
    return consistent([folder], lambda: _load_documents(Path(folder)))


def _load_documents(folder: Path) -> pa.Table | None:
    path = folder / DOCUMENTS_PARQUET
    if not path.is_file():
        return None
    names = parquet_columns(path)
    if DOC_KEY_COLUMN not in names:
        raise FormatError(path, f"missing column {DOC_KEY_COLUMN!r}")
    wanted = pa.schema([DOCUMENT_SCHEMA.field(name) for name in (DOC_KEY_COLUMN, "split") if name in names])
    return conform(read_parquet(path, wanted.names), wanted, path)


def load_tokens(folder: str | Path, split: str | None = None) -> pa.Table:
    """The token table (all_documents.parquet, every column of the schema it has) of a dataset folder, of one
    split or all; an error where the dataset's texts are not redistributed (no such file)."""
    path = Path(folder) / DOCUMENTS_PARQUET
    if not path.is_file():
        if (Path(folder) / PROVENANCE_FILE).is_file():  # an installed release
            raise UcdcrError(
                f"{path} does not exist: this copy of the authors' release has no texts (token table) of the dataset; "
                "this needs a build from the raw files (`ucdcr build`) or a release copy with all_documents.parquet"
            )
        raise UcdcrError(
            f"{path} does not exist: this dataset's texts are not redistributed, so it has no document table"
        )
    table = conform(
        read_parquet(path, [name for name in DOCUMENT_SCHEMA.names if name in parquet_columns(path)]),
        DOCUMENT_SCHEMA,
        path,
    )
    return table if split is None else table.filter(pc.equal(table["split"], split))


def load_columns(folder: str | Path, columns: Sequence[str]) -> pa.Table:
    """Scalar mention fields of every split, without the event/entity type: read from all_mentions.parquet when
    there is one (cheap, any layout), else from the JSON files."""
    return consistent([folder], lambda: _load_columns(Path(folder), columns))


def _load_columns(folder: Path, columns: Sequence[str]) -> pa.Table:
    folder = existing_folder(folder, "dataset folder")
    path = folder / MENTIONS_PARQUET
    if path.is_file():
        schema = pa.schema([MENTION_SCHEMA.field(name) for name in columns])
        return conform(read_parquet(path, [name for name in columns if name in parquet_columns(path)]), schema, path)
    present = [split for split in SPLITS if any((folder / split / name).is_file() for name in KIND_FILES.values())]
    return load_mentions(folder, splits=present, columns=columns).select(list(columns))
