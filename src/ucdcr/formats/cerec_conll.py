"""CEREC e-mail CoNLL (Dakle & Moldovan 2020, github paragdakle/emailcoref ``data/COLING``).

One file holds e-mail threads::

    #begin document germany-c_bankrupt_bridgeline_33.txt
    From		1		1		Rita		-		-		-
    rita		1		1		Rita		-		(0		(16
    wynne		1		1		Rita		-		0)		16)
                                                          <- a blank line ends a sentence
    #end document

Token lines have 7 columns separated by DOUBLE tabs: ``token``, message id (MI), section id (SI), speaker,
entity type, mention, coref (``-`` = empty). The coref column is the annotation used: CoNLL-2012 brackets, several
labels joined by ``|`` (``(3``, ``3)``, ``(3)``, ``(10|(9)``); a closing bracket closes the most recent open
mention of the same chain. (The README calls the format eight-column; the files have seven.)

:func:`read_cerec_conll` returns threads with their tokens (numbered per thread, with the sentence number in the
thread) and mentions as token index ranges. A wrong column count, a closing bracket without an opening one, a
mention left open at ``#end document``, or tokens outside a document raise :class:`~ucdcr.errors.FormatError`
with the file (or ``zip:member``) and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ucdcr.errors import FormatError
from ucdcr.formats.inputs import text_lines

COLUMN_SEPARATOR = "\t\t"
COLUMNS = 7
EMPTY = "-"
_LABEL = re.compile(r"^(?P<open>\()?(?P<chain>[^()|]+)(?P<close>\))?$")


@dataclass(frozen=True, slots=True)
class CerecToken:
    """One token line; ``index`` counts tokens in the thread, ``sentence`` counts blank-line sentences in it."""

    index: int
    text: str
    message_id: str
    section_id: str
    speaker: str
    entity_type: str
    sentence: int
    line: int


@dataclass(frozen=True, slots=True)
class CerecMention:
    """A bracketed coref span: original chain id and inclusive token index range in the thread."""

    chain: str
    first: int
    last: int
    line: int  # line of the opening bracket


@dataclass(slots=True)
class CerecThread:
    """One ``#begin document`` … ``#end document`` block."""

    name: str
    line: int
    tokens: list[CerecToken] = field(default_factory=list)
    mentions: list[CerecMention] = field(default_factory=list)

    @property
    def stem(self) -> str:
        """The thread name without its ``.txt`` extension."""
        return self.name.removesuffix(".txt")


def parse_labels(value: str, where: str, line: int) -> list[tuple[str, bool, bool]]:
    """``(10|9)|(8)`` -> [(chain, opens, closes), …]; ``-`` -> []."""
    if value == EMPTY:
        return []
    labels = []
    for label in value.split("|"):
        match = _LABEL.match(label.strip())
        if not match or not (match.group("open") or match.group("close")):
            raise FormatError(where, f"malformed coref label {label!r} in {value!r}", line)
        labels.append((match.group("chain"), bool(match.group("open")), bool(match.group("close"))))
    return labels


class _ThreadBuilder:
    def __init__(self, where: str, name: str, line: int) -> None:
        self.where = where
        self.thread = CerecThread(name, line)
        self.sentence = 0
        self.sentence_has_tokens = False
        self.open: dict[str, list[tuple[int, int]]] = {}

    def blank(self) -> None:
        if self.sentence_has_tokens:
            self.sentence += 1
            self.sentence_has_tokens = False

    def add(self, columns: list[str], line: int) -> None:
        text, message_id, section_id, speaker, entity_type, _mention, coref = columns
        index = len(self.thread.tokens)
        self.thread.tokens.append(
            CerecToken(index, text, message_id, section_id, speaker, entity_type, self.sentence, line)
        )
        self.sentence_has_tokens = True
        for chain, opens, closes in parse_labels(coref, self.where, line):
            if opens and closes:
                self.thread.mentions.append(CerecMention(chain, index, index, line))
            elif opens:
                self.open.setdefault(chain, []).append((index, line))
            else:
                stack = self.open.get(chain)
                if not stack:
                    raise FormatError(self.where, f"closing bracket {chain}) without an opening ({chain}", line)
                first, first_line = stack.pop()
                self.thread.mentions.append(CerecMention(chain, first, index, first_line))

    def finish(self, line: int) -> CerecThread:
        left_open = [(chain, first_line) for chain, stack in self.open.items() for _, first_line in stack]
        if left_open:
            chain, first_line = left_open[0]
            raise FormatError(
                self.where, f"mention ({chain} opened on line {first_line} is not closed before #end document", line
            )
        self.thread.mentions.sort(key=lambda m: (m.first, -m.last, m.chain))
        return self.thread


def read_cerec_conll(text: str, where: str) -> list[CerecThread]:
    """Threads of one CEREC CoNLL file given as text (``where`` names the file in errors)."""
    threads: list[CerecThread] = []
    builder: _ThreadBuilder | None = None
    for line_number, line in enumerate(text_lines(text), start=1):
        if line.startswith("#begin document"):
            if builder is not None:
                raise FormatError(where, "#begin document inside an open document", line_number)
            builder = _ThreadBuilder(where, line[len("#begin document") :].strip(), line_number)
        elif line.startswith("#end document"):
            if builder is None:
                raise FormatError(where, "#end document without #begin document", line_number)
            threads.append(builder.finish(line_number))
            builder = None
        elif not line.strip():
            if builder is not None:
                builder.blank()
        else:
            if builder is None:
                raise FormatError(where, "token line outside #begin/#end document", line_number)
            columns = line.split(COLUMN_SEPARATOR)
            if len(columns) != COLUMNS:
                raise FormatError(
                    where, f"expected {COLUMNS} columns separated by double tabs, found {len(columns)}", line_number
                )
            builder.add(columns, line_number)
    if builder is not None:
        raise FormatError(where, f"document {builder.thread.name!r} is not closed by #end document")
    if not threads:
        raise FormatError(where, "no documents (#begin document … #end document)")
    return threads
