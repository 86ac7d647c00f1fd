"""HyperCoref pipeline output (UKPLab/emnlp2021-hypercoref-cdcr), stage ``CreateSplitsStage``: one folder per split.

``<outlet>/6_CreateSplitsStage_create_splits/<split>/`` (``7_…`` in newer pipeline versions) holds pandas DataFrames
written with pyarrow (``write_dataframe``), so index levels are stored as ordinary columns:

* ``tokens.parquet``: index ``(url-normalized, sentence-idx, token-idx)``, column ``token`` (CoreNLP tokens,
  ``ptb3Escaping=false``; sentence and token indices 0-based);
* ``sentences.parquet``: index ``(url-normalized, sentence-idx)``, column ``sentence`` (the sentence string);
* ``hyperlinks.parquet``: one row per anchor = mention, columns ``url-normalized`` (the document),
  ``to-url`` / ``to-url-normalized`` (the link target = the event = the chain), ``sentence-idx``,
  ``chars-start`` / ``chars-end`` (anchor span in the sentence string), ``token-idx-from`` / ``token-idx-to``
  (token span, end exclusive); the DataFrame index (an integer, stored as ``__index_level_0__`` or as a range
  in the pandas metadata) identifies the hyperlink;
* ``page_infos.parquet`` (index ``url-normalized``; title, publish date …) is not needed.

Tokens and sentence strings are read per split as Arrow tables (document URLs dictionary-encoded), sorted by
(document, sentence, token) and handed out one document at a time in URL order (:func:`document_tokens`,
:func:`document_sentences`), so Python objects exist for one document at a time, not for the split.

:func:`url_structure` derives topic and subtopic from a document URL (paper §7.1.7).

Errors: a file pyarrow cannot read (empty, truncated, not Parquet, unreadable), a missing column, a column of the
wrong type (indices must be integers, URLs / tokens / sentences strings), a null or empty value, or a token position
given twice is a :class:`~ucdcr.errors.FormatError` naming the file (and the hyperlink or token).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ucdcr.errors import FormatError
from ucdcr.io.arrow_paths import arrow_source

URL = "url-normalized"
TARGET = "to-url-normalized"
HYPERLINK_COLUMNS = (URL, TARGET, "sentence-idx", "chars-start", "chars-end", "token-idx-from", "token-idx-to")
TOKEN_COLUMNS = (URL, "sentence-idx", "token-idx", "token")
SENTENCE_COLUMNS = (URL, "sentence-idx", "sentence")
INTEGER_COLUMNS = frozenset({"sentence-idx", "token-idx", "chars-start", "chars-end", "token-idx-from", "token-idx-to"})


@dataclass(frozen=True, slots=True)
class Hyperlink:
    """One anchor: tokens ``token_from`` .. ``token_to - 1`` of sentence ``sentence`` of document ``url``."""

    row: int
    url: str
    target: str
    sentence: int
    chars_start: int
    chars_end: int
    token_from: int
    token_to: int


@contextmanager
def _arrow_errors(path: Path) -> Iterator[None]:
    """Whatever pyarrow raises while reading ``path`` becomes one FormatError naming it."""
    try:
        yield
    except (pa.ArrowException, OSError) as exc:
        raise FormatError(path, f"not a readable parquet file ({type(exc).__name__}: {exc})") from None


def _column_type_problem(name: str, kind: pa.DataType) -> str | None:
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if name in INTEGER_COLUMNS:
        return None if pa.types.is_integer(kind) else f"column {name!r} has type {kind}, expected integers"
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return None
    return f"column {name!r} has type {kind}, expected strings"


def _table(path: Path, required: tuple[str, ...], urls: set[str] | None = None) -> pa.Table:
    if not path.exists():
        raise FormatError(path, "file not found")
    if path.is_dir():
        raise FormatError(path, "is a folder, expected a Parquet file")
    with _arrow_errors(path):
        schema = _read_schema(path)
    missing = [name for name in required if name not in schema.names]
    if missing:
        raise FormatError(path, f"missing column(s) {', '.join(missing)}; columns are {', '.join(schema.names)}")
    for name in required:
        problem = _column_type_problem(name, schema.field(name).type)
        if problem:
            raise FormatError(path, problem)
    filters = [(URL, "in", sorted(urls))] if urls is not None else None
    columns = [*required, *(["__index_level_0__"] if "__index_level_0__" in schema.names else [])]
    with _arrow_errors(path), arrow_source(path) as source:
        return pq.read_table(source, columns=columns, filters=filters, read_dictionary=[URL])


def _row_ids(path: Path, table: pa.Table) -> list[int]:
    """The DataFrame index of each row: a stored index column, else the pandas range index, else 0..n-1."""
    if "__index_level_0__" in table.column_names:
        return [int(v) for v in table.column("__index_level_0__").to_pylist()]
    with _arrow_errors(path):
        metadata = (_read_schema(path).metadata or {}).get(b"pandas")
    if metadata:
        try:
            for index in json.loads(metadata).get("index_columns", []):
                if isinstance(index, dict) and index.get("kind") == "range":
                    return list(range(index["start"], index["start"] + index["step"] * table.num_rows, index["step"]))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise FormatError(path, f"unreadable pandas metadata ({type(exc).__name__}: {exc})") from None
    return list(range(table.num_rows))


def _columns(path: Path, table: pa.Table, names: tuple[str, ...]) -> list[list[Any]]:
    with _arrow_errors(path):
        return [table.column(name).to_pylist() for name in names]


def read_hyperlinks(path: Path) -> list[Hyperlink]:
    """``hyperlinks.parquet``; an empty or inverted span is an error naming the hyperlink."""
    table = _table(path, HYPERLINK_COLUMNS)
    columns = dict(zip(HYPERLINK_COLUMNS, _columns(path, table, HYPERLINK_COLUMNS), strict=True))
    links = []
    for i, row_id in enumerate(_row_ids(path, table)):
        values = {name: column[i] for name, column in columns.items()}
        if any(value is None for value in values.values()):
            raise FormatError(path, f"hyperlink {row_id}: empty field(s) {[k for k, v in values.items() if v is None]}")
        link = Hyperlink(
            row_id,
            str(values[URL]),
            str(values[TARGET]),
            int(values["sentence-idx"]),
            int(values["chars-start"]),
            int(values["chars-end"]),
            int(values["token-idx-from"]),
            int(values["token-idx-to"]),
        )
        if link.token_to <= link.token_from or link.token_from < 0:
            raise FormatError(
                path, f"hyperlink {row_id}: bad token span {link.token_from}..{link.token_to} (end exclusive)"
            )
        links.append(link)
    return links


@dataclass
class DocumentRows:
    """The rows of a tokens or sentences table grouped by document: ``urls`` (sorted) are the documents present;
    iterating gives ``(url, columns)`` per document in that order, the rows sorted by their position columns."""

    path: Path
    urls: list[str]
    _table: pa.Table
    _ranks: pa.Array

    def __iter__(self) -> Iterator[tuple[str, list[list[Any]]]]:
        with _arrow_errors(self.path):
            runs = pc.run_end_encode(self._ranks) if len(self._ranks) else None
        start = 0
        for end, rank in zip(runs.run_ends.to_pylist(), runs.values.to_pylist(), strict=True) if runs else ():
            rows = self._table.slice(start, end - start)
            yield self.urls[rank], [rows.column(i).to_pylist() for i in range(rows.num_columns)]
            start = end


def _document_rows(path: Path, table: pa.Table, positions: tuple[str, ...], values: tuple[str, ...]) -> DocumentRows:
    """``table`` sorted by (document URL, ``positions``), its ``positions`` and ``values`` columns kept."""
    with _arrow_errors(path):
        column = table.column(URL)
        if column.null_count:
            raise FormatError(path, f"{column.null_count} row(s) with an empty {URL!r}")
        chunks = [
            chunk if pa.types.is_dictionary(chunk.type) else pc.dictionary_encode(chunk) for chunk in column.chunks
        ]
        urls = sorted({url for chunk in chunks for url in chunk.dictionary.to_pylist()})
        rank_of = {url: rank for rank, url in enumerate(urls)}
        ranks = pa.chunked_array(
            [
                pc.take(pa.array([rank_of[url] for url in chunk.dictionary.to_pylist()], pa.int32()), chunk.indices)
                for chunk in chunks
            ],
            pa.int32(),
        )
        keys = pa.table({"rank": ranks, **{name: table.column(name) for name in positions}})
        order = pc.sort_indices(keys, sort_keys=[(name, "ascending") for name in keys.column_names])
        sorted_ranks = ranks.take(order).combine_chunks()
        rows = table.select([*positions, *values]).take(order)
    return DocumentRows(path, urls, rows, sorted_ranks)


def document_tokens(path: Path, urls: Iterable[str]) -> DocumentRows:
    """``tokens.parquet`` rows of the documents ``urls``: per document ``[sentence-idx, token-idx, token]``
    columns, sorted by position (check each with :func:`checked_tokens`)."""
    return _document_rows(path, _table(path, TOKEN_COLUMNS, set(urls)), ("sentence-idx", "token-idx"), ("token",))


def checked_tokens(path: Path, url: str, columns: list[list[Any]]) -> list[tuple[int, int, str]]:
    """One document's ``(sentence-idx, token-idx, token)``; a null or empty token, or a position given twice, is an
    error."""
    sentences, indices, texts = columns
    if None in sentences or None in indices or None in texts or "" in texts:
        for sentence, index, token in zip(sentences, indices, texts, strict=True):
            if sentence is None or index is None or not token:
                raise FormatError(
                    path,
                    f"token {index} of sentence {sentence} of {url!r}: "
                    f"{'null' if token is None else 'empty'} value in a row {[url, sentence, index, token]}",
                )
    positions = list(zip(sentences, indices, strict=True))
    if len(set(positions)) < len(positions):
        for previous, current in pairwise(positions):
            if previous == current:
                raise FormatError(path, f"token {current[1]} of sentence {current[0]} of {url!r} is given twice")
    return list(zip(sentences, indices, texts, strict=True))


def read_tokens(path: Path, urls: set[str]) -> dict[str, list[tuple[int, int, str]]]:
    """``(sentence-idx, token-idx, token)`` per document, only for ``urls``, sorted by position (the whole split at
    once; the build reads document by document with :func:`document_tokens`)."""
    return {url: checked_tokens(path, url, columns) for url, columns in document_tokens(path, urls)}


def document_sentences(path: Path, urls: Iterable[str]) -> DocumentRows:
    """``sentences.parquet`` rows of the documents ``urls``: per document ``[sentence-idx, sentence]`` columns."""
    return _document_rows(path, _table(path, SENTENCE_COLUMNS, set(urls)), ("sentence-idx",), ("sentence",))


def sentence_strings(columns: list[list[Any]]) -> dict[int, str]:
    """One document's ``sentence-idx -> sentence string`` (a null index or string is left out)."""
    return {
        int(index): str(text) for index, text in zip(*columns, strict=True) if index is not None and text is not None
    }


def read_sentences(path: Path, urls: set[str]) -> dict[tuple[str, int], str]:
    """``(url, sentence-idx) -> sentence string`` for ``urls`` (a null sentence string is left out)."""
    return {
        (url, index): text
        for url, columns in document_sentences(path, urls)
        for index, text in sentence_strings(columns).items()
    }


def url_structure(url: str) -> tuple[str, str]:
    """``(topic, subtopic)`` of a document URL (paper §7.1.7, uCDCR's rules).

    Topic: the first path component, first letter upper-cased. BBC subtopic: ``bbc_`` + the second component up to
    its first ``-`` (if the second component is ``0``, the third; if it is numeric, the topic). ABC News: the
    components are used only when capitalised (topic ``Misc`` otherwise). Missing components fall back to the
    topic; the subtopic is lower-cased.
    """
    parts = list(url.split("/"))
    outlet = "abcnews" if "abcnews.go.com" in parts[0] else parts[0].split(".")[0]
    first = parts[1] if len(parts) > 1 and parts[1] else "misc"
    second = parts[2] if len(parts) > 2 else ""
    if outlet == "abcnews":
        topic = first if first[0].isupper() else "Misc"
        subtopic = second if second[:1].isupper() else topic
    else:
        topic = first
        if second == "0":
            second = parts[3] if len(parts) > 3 else ""
        subtopic = second.split("-")[0] if second and not second[0].isdigit() else topic
    return topic[0].upper() + topic[1:], f"{outlet}_{subtopic}".lower()


def space_after_flags(tokens: list[str], sentence: str) -> list[bool | None]:
    """Whether whitespace follows each token in the sentence string (None where a token is not found in order)."""
    flags: list[bool | None] = []
    append, find, length = flags.append, sentence.find, len(sentence)
    cursor = 0
    for token in tokens:
        start = find(token, cursor) if token else -1
        if start < 0:
            append(None)
            continue
        cursor = start + len(token)
        append(cursor < length and sentence[cursor].isspace())
    return flags


def _read_schema(path: Path) -> pa.Schema:
    with arrow_source(path) as source:
        return pq.read_schema(source)
