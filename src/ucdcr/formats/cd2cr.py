"""CD2CR corpus files (Ravenscroft et al. 2021, github ravenscroftj/cdcrtool ``CDCR_Corpus/``).

``<split>.conll``: a ``#begin document …`` / ``#end document`` pair around token lines of 8 TAB-separated columns::

    topic  subtopic  doc_id  sentence_id  token_id  token  flag  coref
    0      0_0       0_news_362  0        8         idea   True  -

``token_id`` runs over the whole document (not per sentence); ``flag`` is True/False (kept, not used); ``coref``
is CoNLL bracket notation (``(4422``, ``4422)``, ``(4422)``, ``-``, several joined by ``|``). Blank lines are
allowed and ignored.

``<split>_entities.json``: a JSON list of mentions, the annotation source::

    {"doc_id": "0_news_362", "sentence_id": 0, "tokens_ids": [7, 8], "topic": 0, "subtopic": "0_0",
     "tokens": "the idea", "cluster_id": 4422, "cluster_desc": "something", "singleton": false, …}

``tokens_ids`` are document-level token ids of the CoNLL file. ``news_urls.json`` (``{"<n>": {"url": …}}``) and
``sci_papers.json`` (``{"<n>": {"doi": …}}``) name the documents ``<topic>_news_<n>`` / ``<topic>_science_<n>``.
Malformed lines or records raise :class:`~ucdcr.errors.FormatError` with the file and line (record index).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ucdcr.errors import FormatError
from ucdcr.formats.json_files import read_json

CONLL_COLUMNS = 8


@dataclass(frozen=True, slots=True)
class ConllToken:
    """One token line of a CD2CR CoNLL file."""

    topic: str
    subtopic: str
    doc_id: str
    sentence_id: int
    token_id: int
    text: str
    line: int


@dataclass(frozen=True, slots=True)
class EntityMention:
    """One record of ``<split>_entities.json``."""

    doc_id: str
    sentence_id: int
    token_ids: tuple[int, ...]
    topic: str
    subtopic: str
    text: str
    cluster_id: str
    index: int  # position in the JSON list


def _int(value: str, what: str, path: Path, line: int) -> int:
    try:
        return int(value)
    except ValueError:
        raise FormatError(path, f"{what} {value!r} is not an integer", line) from None


def read_conll(path: Path) -> list[ConllToken]:
    """Token lines of a CD2CR CoNLL file, in file order; token ids must be unique per document."""
    if not path.is_file():
        raise FormatError(path, "file not found")
    tokens: list[ConllToken] = []
    seen: set[tuple[str, int]] = set()
    with path.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            columns = line.split("\t")
            if len(columns) != CONLL_COLUMNS:
                problem = f"expected {CONLL_COLUMNS} tab-separated columns, found {len(columns)}"
                raise FormatError(path, problem, line_number)
            topic, subtopic, doc_id, sentence, token_id, text = columns[:6]
            token = ConllToken(
                topic, subtopic, doc_id, _int(sentence, "sentence id", path, line_number),
                _int(token_id, "token id", path, line_number), text, line_number,
            )
            if (doc_id, token.token_id) in seen:
                raise FormatError(path, f"duplicate token id {token.token_id} in document {doc_id}", line_number)
            seen.add((doc_id, token.token_id))
            tokens.append(token)
    if not tokens:
        raise FormatError(path, "no token lines")
    return tokens


_REQUIRED_KEYS = ("doc_id", "sentence_id", "tokens_ids", "topic", "tokens", "cluster_id")


def read_entities(path: Path) -> list[EntityMention]:
    """The mention records of a ``<split>_entities.json`` file, in file order."""
    data = read_json(path)
    if not isinstance(data, list):
        raise FormatError(path, "expected a JSON list of mention records")
    return [_entity(record, index, path) for index, record in enumerate(data)]


def _entity(record: Any, index: int, path: Path) -> EntityMention:
    where = f"record {index}"
    if not isinstance(record, dict):
        raise FormatError(path, f"{where}: expected an object")
    missing = [key for key in _REQUIRED_KEYS if key not in record]
    if missing:
        raise FormatError(path, f"{where}: missing keys {missing}")
    token_ids = record["tokens_ids"]
    if not isinstance(token_ids, list) or not token_ids or not all(isinstance(t, int) for t in token_ids):
        raise FormatError(path, f"{where}: tokens_ids must be a non-empty list of integers, got {token_ids!r}")
    return EntityMention(
        doc_id=str(record["doc_id"]),
        sentence_id=int(record["sentence_id"]),
        token_ids=tuple(token_ids),
        topic=str(record["topic"]),
        subtopic=str(record.get("subtopic", "")),
        text=str(record["tokens"]),
        cluster_id=str(record["cluster_id"]),
        index=index,
    )


