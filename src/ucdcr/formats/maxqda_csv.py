"""NewsWCL50r inputs: MAXQDA CSV code exports, the concept categorisation table, and news-please article JSON.

MAXQDA CSV export (UTF-8 with BOM, comma-separated, quoted as needed), one file per topic
(``<topic id>_<TopicName>.csv``), header (one line)::

    Color,Document name,Code,Weight score,Segment,Author,Creation date,Comment,Document group,Area,
    Coverage %,Beginning,End

e.g. ``●,1_L,USA\\Trump,0,President Trump,maxku,07-May-18 09:22:49,,,15,0.17,1,1``. ``Document name`` is
``<topic id>_<outlet>``; ``Code`` is the (``\\``-separated, hierarchical) code = the chain; ``Segment`` is the
coded text; ``Beginning``/``End`` are 1-based paragraph numbers of the article as it was imported into MAXQDA
(paragraph 1 = title, 2 = description, then the lines of the body). Codes under ``Properties`` are annotation
properties, not mentions.

``aggr_m_conceptcategorization.csv``: header ``topic_id,Code,type,comments``; the type (ACTOR, ACTION, ...) of
each code of a topic. Rows of the ECB+r topics (``36ecbplus2`` ...) are ignored by the caller.

news-please JSON (one object per article, as ``ucdcr-meta/_sample_doc.json``): ``title``, ``description``,
``text`` (paragraphs separated by ``\\n``) and ``source_domain``, which NewsWCL50r re-uses for the document
name (``1_L``). The article text is ``"\\n".join`` of the non-empty title, description and text, the same text
the annotators coded; its ``\\n``-separated lines are the paragraphs ``Beginning`` counts.

Segments carry no character offsets, so they are located by string search inside their paragraph (see
:func:`find_segment`): quotes are unified and runs of whitespace compared as one space.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from ucdcr.errors import FormatError
from ucdcr.formats.inputs import csv_records, read_text
from ucdcr.formats.json_files import expect, read_json

MAXQDA_COLUMNS = ("Document name", "Code", "Segment", "Beginning", "End")
CONCEPT_COLUMNS = ("topic_id", "Code", "type")
PROPERTIES_CODE = "Properties"
ARTICLE_TEXT_FIELDS = ("title", "description", "text")

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00a0": " ",
    }
)
_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True, slots=True)
class MaxqdaSegment:
    """One coded segment (one CSV row)."""

    file: str
    line: int
    document: str
    code: str
    segment: str
    beginning: int
    end: int

    @property
    def is_property(self) -> bool:
        return self.code.split("\\", 1)[0].strip() == PROPERTIES_CODE


@dataclass(frozen=True, slots=True)
class NewsArticle:
    """A news-please article: its document name and paragraphs (1-based numbering = list index + 1)."""

    name: str
    paragraphs: tuple[str, ...]
    path: str


def _records(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    return csv_records(read_text(path), path, required)


def _paragraph_number(path: Path, line: int, column: str, value: str | None) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise FormatError(path, f"column {column!r} must be a paragraph number, got {value!r}", line) from None
    if number < 1:
        raise FormatError(path, f"column {column!r} must be >= 1, got {number}", line)
    return number


def read_maxqda_csv(path: Path) -> list[MaxqdaSegment]:
    """All coded segments of one MAXQDA CSV export, in file order (Properties codes included)."""
    segments = []
    for line, row in _records(path, MAXQDA_COLUMNS):
        document, code, text = row["Document name"].strip(), row["Code"].strip(), row["Segment"]
        if not document or not code:
            raise FormatError(path, "empty 'Document name' or 'Code'", line)
        if not text.strip():
            raise FormatError(path, f"empty 'Segment' for code {code!r}", line)
        beginning = _paragraph_number(path, line, "Beginning", row["Beginning"])
        end = _paragraph_number(path, line, "End", row["End"])
        if end < beginning:
            raise FormatError(path, f"'End' ({end}) is before 'Beginning' ({beginning})", line)
        segments.append(MaxqdaSegment(path.name, line, document, code, text, beginning, end))
    return segments


def read_concept_types(path: Path) -> dict[tuple[str, str], str]:
    """``(topic_id, code) -> type`` from the concept categorisation CSV; a code typed twice differently is an error."""
    types: dict[tuple[str, str], str] = {}
    for line, row in _records(path, CONCEPT_COLUMNS):
        key = (row["topic_id"].strip(), row["Code"].strip())
        kind = row["type"].strip()
        if not kind:
            raise FormatError(path, f"code {key[1]!r} of topic {key[0]} has no type", line)
        if types.get(key, kind) != kind:
            raise FormatError(path, f"code {key[1]!r} of topic {key[0]} typed both {types[key]} and {kind}", line)
        types[key] = kind
    return types


def read_news_please_json(path: Path) -> NewsArticle:
    """One article. Its name is ``source_domain`` when that holds a document name (NewsWCL50r re-uses the field,
    e.g. ``1_L``); when it is empty or a web domain (as news-please fills it, ``www.nytimes.com``), the file stem."""
    record = expect(read_json(path), "object", path, "a news-please article")
    parts = []
    for name in (*ARTICLE_TEXT_FIELDS, "source_domain"):
        value = record.get(name)  # news-please writes null for a field it could not fill
        if value is not None:
            expect(value, "string", path, f"field {name!r} (a string or null)")
        if value and name in ARTICLE_TEXT_FIELDS:
            parts.append(value)
    if not record.get("text"):
        raise FormatError(path, "field 'text' is missing or empty")
    source_domain = (record.get("source_domain") or "").strip()
    name = source_domain if source_domain and "." not in source_domain else path.stem
    return NewsArticle(name=name, paragraphs=tuple("\n".join(parts).split("\n")), path=str(path))


def _normalise(text: str) -> tuple[str, list[int]]:
    """Unified quotes, whitespace runs -> one space; with the original offset of every normalised character."""
    chars: list[str] = []
    offsets: list[int] = []
    for position, char in enumerate(text.translate(_QUOTES)):
        if char.isspace():
            if chars and chars[-1] == " ":
                continue
            char = " "
        chars.append(char)
        offsets.append(position)
    return "".join(chars), offsets


def find_segment(paragraph: str, segment: str) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of every non-overlapping occurrence of ``segment`` in ``paragraph``."""
    haystack, offsets = _normalise(paragraph)
    needle = _normalise(segment)[0].strip()
    if not needle:
        return []
    spans = []
    start = haystack.find(needle)
    while start >= 0:
        last = start + len(needle) - 1
        spans.append((offsets[start], offsets[last] + 1))
        start = haystack.find(needle, start + len(needle))
    return spans


def tokenize(text: str, cuts: Collection[int] = ()) -> list[tuple[int, int]]:
    """Character spans of word tokens (runs of word characters) and single punctuation characters, a token also
    split at every offset of ``cuts`` inside it (the boundaries of the segments, so that a segment that starts or
    ends inside a word is covered exactly, never widened to the whole word)."""
    spans: list[tuple[int, int]] = []
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        points = sorted({start, end, *(cut for cut in cuts if start < cut < end)})
        spans.extend(pairwise(points))
    return spans
