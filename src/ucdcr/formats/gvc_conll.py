"""Gun Violence Corpus (GVC) files: ``verbose.conll`` and the UKP split / document-to-incident CSVs.

``verbose.conll`` (cltl/GunViolenceCorpus; its README + the uCDCR parser):

* ``#begin document (<doc_id>);`` opens a document, ``#end document`` closes it; blank lines are ignored (the
  blocks are read by :func:`ucdcr.formats.conll2012.read_blocks`: its rules and errors, lines outside documents
  refused).
* every other line has 5 TAB-separated columns::

      <doc_id>.<sentence_id>[.<token_id>]  token  DCT|TITLE|BODY  INCIDENT_ID.EVENTTYPE.PARTICIPANT_INFO  chain

  e.g. ``a212….t1.3	For	TITLE	-	-``. The first line of a document is its creation time
  (``a212….DCT	2017-01-14	DCT	-	-``, a key with two parts).
* the chain column is ``-`` (no mention), ``(123)`` (one-token mention), ``(123`` (first token), ``123``
  (inside), ``123)`` (last token). Mentions do not nest. Chain ``0`` means "annotated but not linked": the
  mention becomes a singleton (as in uCDCR). This is not CoNLL-2012's bracket column (which has no inside marker
  and lets mentions nest), so it is read here, not by the bracket reader.
* line breaks of the article are tokens with the text ``NEWLINE``.

How ucdcr maps it: a document's sentences are the runs of tokens with the same ``<sentence_id>`` (so the DCT
line is sentence 0, as in uCDCR), numbered 0.. in file order. ``NEWLINE`` tokens are not kept as tokens: they
end the current sentence (the next token starts a new sentence even inside the same ``<sentence_id>``), unless
a mention is open across them. uCDCR instead keeps them as the token ``//n`` inside the sentence, which spaCy
then has to parse as a word.

``gvc_doc_to_event.csv``: header ``doc-id,event-id``; document -> GVC incident (= the uCDCR subtopic).
``train.csv`` / ``dev.csv`` / ``test.csv``: no header, ``<row>,<event-id>``: the incidents of each split
(``dev`` is uCDCR's ``val``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ucdcr.errors import FormatError
from ucdcr.formats.conll2012 import read_blocks
from ucdcr.formats.inputs import csv_rows, read_text, text_lines
from ucdcr.records import Split

NEWLINE_TOKEN = "NEWLINE"
UNLINKED_CHAIN = "0"
TEXT_PARTS = frozenset({"DCT", "TITLE", "BODY"})
SPLIT_FILES: dict[Split, str] = {"train": "train.csv", "val": "dev.csv", "test": "test.csv"}
DOC_TO_EVENT_FILE = "gvc_doc_to_event.csv"

_DOCUMENT_NAME = re.compile(r"^\((?P<doc>[^)]+)\);?\s*$")
_CHAIN = re.compile(r"^(?:-|\((?P<single>\d+)\)|\((?P<open>\d+)|(?P<close>\d+)\)|(?P<inside>\d+))$")


@dataclass(frozen=True, slots=True)
class GvcToken:
    key: str  # the first column, unique in the document
    text: str
    sent_index: int  # 0-based sentence number after the NEWLINE rule
    part: str  # DCT | TITLE | BODY


@dataclass(frozen=True, slots=True)
class GvcMention:
    token_keys: tuple[str, ...]
    chain: str  # the original cluster id ("0" = unlinked)
    description: str  # the verbose column of the first token
    line: int  # line of the first token


@dataclass(slots=True)
class GvcDocument:
    doc_id: str
    line: int  # line of "#begin document"
    tokens: list[GvcToken] = field(default_factory=list)
    mentions: list[GvcMention] = field(default_factory=list)

    @property
    def title(self) -> str:
        """uCDCR's document name: the TITLE tokens joined by "_"."""
        return "_".join(t.text for t in self.tokens if t.part == "TITLE")


class _DocumentBuilder:
    """Collects the token lines of one document and checks the chain brackets (a
    :class:`~ucdcr.formats.conll2012.DocumentReader`)."""

    def __init__(self, path: Path, doc_id: str, line: int) -> None:
        self.path = path
        self.doc = GvcDocument(doc_id, line)
        self._keys: set[str] = set()
        self._sent_key: str | None = None
        self._sent_index = -1
        self._break_pending = False
        self._open: tuple[str, str, int, list[str]] | None = None  # chain, description, line, keys

    def add(self, line_text: str, line: int, sentence: int) -> None:
        """One token line (``sentence``, the blank-line count, is not used: GVC's sentences are its keys')."""
        columns = line_text.split("\t")
        if len(columns) != 5:
            raise FormatError(self.path, f"expected 5 tab-separated columns, got {len(columns)}", line)
        key, text, part, verbose, chain_value = columns
        doc_part, _, rest = key.partition(".")
        if doc_part != self.doc.doc_id or not rest:
            raise FormatError(self.path, f"token key {key!r} does not belong to document {self.doc.doc_id!r}", line)
        if part not in TEXT_PARTS:
            raise FormatError(self.path, f"third column must be DCT, TITLE or BODY, got {part!r}", line)
        if key in self._keys:
            raise FormatError(self.path, f"token key {key!r} occurs twice in the document", line)
        self._keys.add(key)
        chain = _CHAIN.match(chain_value.strip())
        if chain is None:
            raise FormatError(self.path, f"bad chain column {chain_value!r} (expected -, (N), (N, N or N))", line)
        if text == NEWLINE_TOKEN:
            self._newline(chain_value.strip(), line)
            return
        self._start_sentence_if_needed(rest.partition(".")[0])
        self.doc.tokens.append(GvcToken(key, text, self._sent_index, part))
        self._chain(chain, key, verbose, line)

    def _newline(self, chain_value: str, line: int) -> None:
        """A NEWLINE ends the sentence; inside a mention it is skipped (and may close the mention)."""
        if self._open is None:
            if chain_value != "-":
                raise FormatError(self.path, "a NEWLINE token cannot start or be a mention", line)
            self._break_pending = True
        elif chain_value == f"{self._open[0]})":
            open_chain, description, start_line, keys = self._open
            self.doc.mentions.append(GvcMention(tuple(keys), open_chain, description, start_line))
            self._open = None

    def _start_sentence_if_needed(self, sent_key: str) -> None:
        if sent_key != self._sent_key or self._break_pending:
            self._sent_index += 1
            self._sent_key = sent_key
            self._break_pending = False

    def _chain(self, match: re.Match[str], key: str, verbose: str, line: int) -> None:
        single, opening, closing, inside = match.group("single", "open", "close", "inside")
        if (single or opening) and self._open is not None:
            raise FormatError(self.path, f"mention of chain {self._open[0]} (line {self._open[2]}) is not closed", line)
        if single:
            self.doc.mentions.append(GvcMention((key,), single, verbose, line))
        elif opening:
            self._open = (opening, verbose, line, [key])
        elif closing or inside:
            chain = closing or inside
            if self._open is None or self._open[0] != chain:
                raise FormatError(self.path, f"chain {chain} continues a mention that was never opened", line)
            self._open[3].append(key)
            if closing:
                open_chain, description, start_line, keys = self._open
                self.doc.mentions.append(GvcMention(tuple(keys), open_chain, description, start_line))
                self._open = None

    def finish(self, line: int) -> GvcDocument:
        if self._open is not None:
            raise FormatError(
                self.path, f"mention of chain {self._open[0]} opened on line {self._open[2]} is not closed", line
            )
        if not self.doc.tokens:
            raise FormatError(self.path, f"document {self.doc.doc_id!r} has no tokens", self.doc.line)
        return self.doc


def read_verbose_conll(path: Path) -> list[GvcDocument]:
    """Parse ``verbose.conll`` into documents with their tokens and mentions (raises FormatError)."""
    seen: set[str] = set()

    def open_document(name: str, line: int) -> _DocumentBuilder:
        match = _DOCUMENT_NAME.match(name)
        if match is None:
            raise FormatError(path, f"expected '#begin document (<doc_id>);', the document name is {name!r}", line)
        doc_id = match.group("doc")
        if doc_id in seen:
            raise FormatError(path, f"document {doc_id!r} occurs twice", line)
        seen.add(doc_id)
        return _DocumentBuilder(path, doc_id, line)

    return read_blocks(text_lines(read_text(path)), path, open_document, lines_outside="refuse")


def read_doc_to_event(path: Path) -> dict[str, str]:
    """``gvc_doc_to_event.csv`` -> {doc id: incident id}."""
    rows = csv_rows(read_text(path), path)
    header = next(rows, (1, []))[1]
    if [c.strip() for c in header] != ["doc-id", "event-id"]:
        raise FormatError(path, "expected the header 'doc-id,event-id'", 1)
    mapping: dict[str, str] = {}
    for line_no, row in rows:
        if len(row) != 2 or not row[1].strip().isdigit():
            raise FormatError(path, f"expected '<doc-id>,<numeric event-id>', got {','.join(row)!r}", line_no)
        doc_id, event_id = row[0].strip(), row[1].strip()
        if mapping.get(doc_id, event_id) != event_id:
            raise FormatError(path, f"document {doc_id} is mapped to two incidents", line_no)
        mapping[doc_id] = event_id
    return mapping


def read_split_events(folder: Path) -> dict[str, Split]:
    """The three split CSVs -> {incident id: split}; an incident listed in two splits is an error."""
    event_split: dict[str, Split] = {}
    for split, name in SPLIT_FILES.items():
        path = folder / name
        for line_no, row in csv_rows(read_text(path), path):
            if len(row) != 2 or not row[1].strip().isdigit():
                raise FormatError(path, f"expected '<row>,<numeric event-id>', got {','.join(row)!r}", line_no)
            event_id = row[1].strip()
            if event_split.get(event_id, split) != split:
                raise FormatError(path, f"incident {event_id} is also in split {event_split[event_id]}", line_no)
            event_split[event_id] = split
    return event_split
