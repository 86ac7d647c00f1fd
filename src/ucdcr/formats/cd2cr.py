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
from ucdcr.formats.inputs import read_text, text_lines
from ucdcr.formats.json_files import expect, field, list_of, read_json

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
    tokens: list[ConllToken] = []
    seen: set[tuple[str, int]] = set()
    for line_number, line in enumerate(text_lines(read_text(path)), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        columns = line.split("\t")
        if len(columns) != CONLL_COLUMNS:
            problem = f"expected {CONLL_COLUMNS} tab-separated columns, found {len(columns)}"
            raise FormatError(path, problem, line_number)
        topic, subtopic, doc_id, sentence, token_id, text = columns[:6]
        token = ConllToken(
            topic,
            subtopic,
            doc_id,
            _int(sentence, "sentence id", path, line_number),
            _int(token_id, "token id", path, line_number),
            text,
            line_number,
        )
        if (doc_id, token.token_id) in seen:
            raise FormatError(path, f"duplicate token id {token.token_id} in document {doc_id}", line_number)
        seen.add((doc_id, token.token_id))
        tokens.append(token)
    if not tokens:
        raise FormatError(path, "no token lines")
    return tokens


def read_entities(path: Path) -> list[EntityMention]:
    """The mention records of a ``<split>_entities.json`` file, in file order."""
    data = expect(read_json(path), "list", path, "the file", of="of mention records")
    return [_entity(record, index, path) for index, record in enumerate(data)]


def _entity(record: Any, index: int, path: Path) -> EntityMention:
    where = f"record {index}"
    expect(record, "object", path, where)
    token_ids = list_of(field(record, "tokens_ids", "list", path, where), "integer", path, f"{where}: tokens_ids")
    if not token_ids:
        raise FormatError(path, f"{where}: tokens_ids is empty")
    subtopic = record.get("subtopic", "")  # optional; the CoNLL file gives every token's subtopic
    return EntityMention(
        doc_id=str(field(record, "doc_id", "id", path, where)),
        sentence_id=field(record, "sentence_id", "integer", path, where),
        token_ids=tuple(token_ids),
        topic=str(field(record, "topic", "id", path, where)),
        subtopic=str(expect(subtopic, "id", path, f"{where}: field 'subtopic'")),
        text=field(record, "tokens", "string", path, where),
        cluster_id=str(field(record, "cluster_id", "id", path, where)),
        index=index,
    )
