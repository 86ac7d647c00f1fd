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
mention of the same chain. (The README calls the format eight-column; the files have seven.) Blocks and brackets
are read by :mod:`ucdcr.formats.conll2012` (its rules and errors), with lines outside documents refused.

:func:`read_cerec_conll` returns threads with their tokens (numbered per thread, with the sentence number in the
thread: blank lines end sentences) and mentions as token index ranges; the mentions of one span (annotated in
several chains, ``(11)|(12)``) are numbered in the order of their labels in the column, not by chain. A wrong column
count, a closing bracket without an opening one, a mention left open at ``#end document``, or tokens outside a
document raise :class:`~ucdcr.errors.FormatError` with the file (or ``zip:member``) and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ucdcr.errors import FormatError
from ucdcr.formats.conll2012 import EMPTY_ANNOTATIONS, BracketPairer, parse_brackets, read_blocks
from ucdcr.formats.inputs import text_lines

COLUMN_SEPARATOR = "\t\t"
COLUMNS = 7


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
    number: int = 0
    """Its position among the thread's mentions of the same span, in the order their labels stand in the
    coreference column of the first token: 0 unless the span is annotated in several chains (``(11)|(12)``)."""


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


class _ThreadReader:
    """Reads the token lines of one thread (a :class:`~ucdcr.formats.conll2012.DocumentReader`)."""

    def __init__(self, where: str, name: str, line: int) -> None:
        self.where = where
        self.thread = CerecThread(name.strip(), line)
        self.brackets = BracketPairer(where, name)
        self.openers: dict[int, list[str]] = {}  # token index -> chains of the mentions it starts, in column order

    def add(self, line: str, number: int, sentence: int) -> None:
        columns = line.split(COLUMN_SEPARATOR)
        if len(columns) != COLUMNS:
            raise FormatError(
                self.where, f"expected {COLUMNS} columns separated by double tabs, found {len(columns)}", number
            )
        text, message_id, section_id, speaker, entity_type, _mention, coref = columns
        index = len(self.thread.tokens)
        self.thread.tokens.append(
            CerecToken(index, text, message_id, section_id, speaker, entity_type, sentence, number)
        )
        self.brackets.add(index, coref.strip(), number)
        if coref.strip() not in EMPTY_ANNOTATIONS:
            singles, opens, _ = parse_brackets(coref.strip(), self.where, number)
            self.openers[index] = singles + opens

    def finish(self, number: int) -> CerecThread:
        tokens = self.thread.tokens
        spans = [(chain, first, last) for chain, found in self.brackets.finish(number).items() for first, last in found]
        spans.sort(key=lambda s: (s[1], -s[2], self.openers[s[1]].index(s[0])))  # one span's mentions: column order
        mentions: list[CerecMention] = []
        for chain, first, last in spans:
            same_span = bool(mentions) and (mentions[-1].first, mentions[-1].last) == (first, last)
            number_in_span = mentions[-1].number + 1 if same_span else 0
            mentions.append(CerecMention(chain, first, last, tokens[first].line, number_in_span))
        self.thread.mentions = sorted(mentions, key=lambda m: (m.first, -m.last, m.chain))
        return self.thread


def read_cerec_conll(text: str, where: str) -> list[CerecThread]:
    """Threads of one CEREC CoNLL file given as text (``where`` names the file in errors)."""
    return read_blocks(
        text_lines(text), where, lambda name, line: _ThreadReader(where, name, line), lines_outside="refuse"
    )
