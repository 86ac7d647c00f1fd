"""CoNLL-2012 coreference files: ``#begin document`` / ``#end document`` blocks and the bracket coreference column.

The one reader and the one writer of the format. :func:`read_blocks` reads the blocks of any file in it (the
scorer's files, CEREC's e-mail threads, GVC's ``verbose.conll``); :class:`BracketPairer` pairs a document's bracket
labels into mentions (the scorer and CEREC); :func:`read_conll` reads a whole file as the reference scorer v8.01
does (``ucdcr score``, CoNLL responses of ``ucdcr evaluate``); :func:`bracket_labels` writes the coreference column
(the build's ``reference`` column, ``ucdcr export conll``, :func:`write_conll`).

Blocks, as v8.01 reads them:

- A document starts at a line ``#begin document NAME`` (``^#\\s*begin document (.*)$``; NAME is the whole rest of
  the line, e.g. ``(bc/cctv/00/cctv_0000); part 000``, so every part is a document) and ends at the first line
  containing ``#end document``.
- Every non-blank line inside a document is a token (other ``#`` lines are tokens too). Blank and
  whitespace-only lines are sentence breaks and are not counted; the token index is a 0-based counter over the
  whole document, so mentions may cross sentence breaks. v8.01 ignores lines outside documents (so does
  :func:`read_conll`); the corpus readers refuse them.
- Refused with :class:`~ucdcr.errors.FormatError` (file, line, problem): a document never closed (end of file or a
  new ``#begin document``), ``#end document`` outside a document, and a file without any ``#begin document`` line
  (empty, random text).

The coreference column (the last column in :func:`read_conll`):

- ``-``, ``_`` or an empty column carry no mention. Otherwise it holds ``(ID)`` (one-token mention), ``(ID``
  (open), ``ID)`` (close), usually joined by ``|`` (the separator may be left out: ``(1(2`` is two opens). ``ID``
  is any string without ``( ) |`` or whitespace; ``(05)`` and ``(5)`` are different chains.
- On one token, one-token mentions are taken first, then opens, then closes; a close pairs with the most recent
  open of its chain (LIFO), so nested and crossing mentions of one chain pair as in v8.01.
- Refused: a close with no open, a mention still open at ``#end document``, an annotation that cannot be parsed.

:func:`read_conll`, the whole file as v8.01 reads it:

- Columns are TAB-separated (trailing empty fields ignored) or, in a line without TAB, whitespace-separated; the
  coreference annotation is the last column. ``(N+D)`` (double antecedent, OntoNotes) is discarded with a warning,
  as v8.01 does.
- Chains are ordered by the first appearance of their id, mentions within a chain by the token where they close.
  A mention is its token span ``(start, end)`` (inclusive) within its document; duplicate spans are resolved in
  the scorer's mention identification (:mod:`ucdcr.scoring.mentions`).
- If a document name occurs twice in a file, the last occurrence is used (as v8.01), with a warning.
- The file is UTF-8 text (a UTF-8 byte-order mark is skipped): UTF-16, binary or other non-UTF-8 files are refused
  (:mod:`ucdcr.io.text`), and so is a file without documents, instead of scoring nothing as 0/0. Only the words
  of token lines (the columns between the first ``leading_fields`` ones and the annotation) may hold bytes that are
  not UTF-8, as v8.01 reads any bytes there: they play no part in a score, are read as U+FFFD and noted in
  ``warnings``.

v8.01 differences, on input it handles by accident: it reads non-numeric ids as nothing, searches the whole line
of a TAB-less file for brackets, and re-scans concatenated annotations after removing ``(N)`` (``(1(2)3)`` gives
chain 13 there), and keeps the ``\\r`` of CRLF token lines (so a trailing TAB before it hides the annotation);
ucdcr reads the last column, each bracket once, and treats CRLF as a line end. v8.01 also scores a file without
documents as 0/0 and reads any bytes; ucdcr refuses the first, and takes bytes that are not UTF-8 only
in the words (above).

The writer (:func:`bracket_labels`): a token's labels are those of the mentions it opens, is or closes, ordered by
the mention's last token (descending), then its length (ascending), first token and chain id, so opens come first
(the longer mention first), then one-token mentions, then closes (the shorter mention first), joined by ``|``;
``-`` for none. Nested mentions of one chain read back as written; mentions of one chain that cross or touch
cannot be expressed (checked, with the chain ids and token ranges, when asked).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import IO, Literal, Protocol, TypeVar

from ucdcr.errors import FormatError
from ucdcr.io.text import decode_text, read_bytes

Span = tuple[int, int]
"""A mention's first and last token (inclusive)."""
Mention = tuple[int, int, str]
"""A mention to write: first token, last token (inclusive) and chain id."""

BEGIN_RE = re.compile(r"^#\s*begin document (.*)$")
END_RE = re.compile(r"#\s*end document")
CHAIN_ID = r"[^()|\s]+"
CHAIN_ID_RE = re.compile(CHAIN_ID)
BRACKET_RE = re.compile(rf"\(({CHAIN_ID})\)|\(({CHAIN_ID})|({CHAIN_ID})\)")
DOUBLE_ANTECEDENT_RE = re.compile(r"\(\d+\+\d\)")
STANDARD_NAME_RE = re.compile(r"^\((.*)\); part (\d+)$")
EMPTY_ANNOTATIONS = frozenset({"", "-", "_"})

Document_co = TypeVar("Document_co", covariant=True)
Document = TypeVar("Document")


class DocumentReader(Protocol[Document_co]):
    """Reads the token lines of one block (see :func:`read_blocks`) into a document."""

    def add(self, line: str, number: int, sentence: int, /) -> None:
        """One token line: its text, its line number (1-based) and its sentence number in the document (0-based)."""

    def finish(self, number: int, /) -> Document_co:
        """The document, at its ``#end document`` line."""
        ...


def read_blocks(
    lines: Iterable[str],
    where: str | Path,
    open_document: Callable[[str, int], DocumentReader[Document]],
    lines_outside: Literal["ignore", "refuse"],
) -> list[Document]:
    """The documents of a file's ``lines`` (without line breaks): ``open_document(name, line)`` starts a reader at
    every ``#begin document NAME`` line, which gets the block's token lines and finishes at ``#end document``.

    lines_outside: non-blank lines outside documents are ignored (as v8.01) or refused. ``where`` names the file in
    errors; see the module docstring for what is refused.
    """
    documents: list[Document] = []
    reader: DocumentReader[Document] | None = None
    name, begun, sentence, sentence_has_tokens, has_text, number = "", 0, 0, False, False, 0
    for number, line in enumerate(lines, start=1):
        if not line or line.isspace():
            if sentence_has_tokens:
                sentence, sentence_has_tokens = sentence + 1, False
            continue
        has_text = True
        if reader is None:
            begin = BEGIN_RE.match(line) if line.startswith("#") else None
            if begin:
                name, begun, sentence, sentence_has_tokens = begin.group(1), number, 0, False
                reader = open_document(name, number)
            elif "#" in line and END_RE.search(line):
                raise FormatError(where, "#end document without a matching #begin document", number)
            elif lines_outside == "refuse":
                raise FormatError(where, "token line outside #begin/#end document", number)
        elif "#" in line and END_RE.search(line):
            documents.append(reader.finish(number))
            reader, sentence_has_tokens = None, False
        elif line.startswith("#") and BEGIN_RE.match(line):
            raise FormatError(
                where,
                f"document {name!r} (begun at line {begun}) is never closed: new #begin document before #end document",
                number,
            )
        else:
            reader.add(line, number, sentence)
            sentence_has_tokens = True
    if reader is not None:
        problem = f"document {name!r} (begun at line {begun}) is never closed: end of file reached"
        raise FormatError(where, problem + "; it has no #end document (file truncated?)", number)
    if not documents:
        what = "no line '#begin document NAME'" if has_text else "the file is empty"
        raise FormatError(where, f"{what}: not a CoNLL-2012 coreference file (no documents)")
    return documents


def parse_brackets(annotation: str, where: str | Path, line: int) -> tuple[list[str], list[str], list[str]]:
    """The chain ids of one coreference annotation's one-token mentions, opens and closes, each in column order."""
    parsed = _brackets(annotation)
    if parsed is not None:
        singles, opens, closes = parsed
        return list(singles), list(opens), list(closes)
    leftover = BRACKET_RE.sub("", annotation).replace("|", "").strip()
    raise FormatError(
        where,
        f"cannot parse coreference annotation {annotation!r} (left over: {leftover!r}); "
        "expected (ID), (ID or ID) joined by |, or -",
        line,
    )


@lru_cache(maxsize=4096)
def _brackets(annotation: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None:
    """:func:`parse_brackets` of an annotation, None if it does not parse; kept for the next token with the same
    annotation (a file repeats its chains' annotations: parsing each once makes reading it about twice as fast)."""
    singles: list[str] = []
    opens: list[str] = []
    closes: list[str] = []
    for match in BRACKET_RE.finditer(annotation):
        single, opened, closed = match.groups()
        (singles if single else opens if opened else closes).append(single or opened or closed)
    if BRACKET_RE.sub("", annotation).replace("|", "").strip():
        return None
    return tuple(singles), tuple(opens), tuple(closes)


class BracketPairer:
    """Pairs the bracket annotations of one document's tokens into mentions (rules in the module docstring)."""

    def __init__(self, where: str | Path, document: str) -> None:
        self.where, self.document = where, document
        self.chains: dict[str, list[Span]] = {}
        """Chain id -> its mentions so far, chains by first appearance, mentions in the order they close."""
        self._open: dict[str, list[tuple[int, int]]] = {}  # chain id -> stack of (first token, line)

    def add(self, token: int, annotation: str, line: int) -> None:
        """The annotation of token ``token`` (0-based in the document), read at line ``line``."""
        if annotation in EMPTY_ANNOTATIONS:
            return
        parsed = _brackets(annotation)
        singles, opens, closes = parsed if parsed is not None else parse_brackets(annotation, self.where, line)
        for chain in singles:
            self.chains.setdefault(chain, []).append((token, token))
        for chain in opens:
            self.chains.setdefault(chain, [])
            self._open.setdefault(chain, []).append((token, line))
        for chain in closes:
            stack = self._open.get(chain)
            if not stack:
                raise FormatError(
                    self.where,
                    f"closing bracket '{chain})' in document {self.document!r} has no open mention of chain {chain!r}",
                    line,
                )
            self.chains[chain].append((stack.pop()[0], token))

    def finish(self, line: int) -> dict[str, list[Span]]:
        """The document's chains, at its ``#end document`` line (``line``); a mention still open is an error."""
        unclosed = [(chain, opened) for chain, stack in self._open.items() for _, opened in stack]
        if unclosed:
            listed = ", ".join(f"'({chain}' at line {opened}" for chain, opened in unclosed)
            raise FormatError(
                self.where, f"document {self.document!r} ends with mention(s) never closed: {listed}", line
            )
        return self.chains


# --- reading a file as v8.01 does ----------------------------------------------------------------------------


@dataclass
class ConllDocument:
    """One document: its name, token count and chains ``{chain id: [(start, end), ...]}`` in v8.01 order."""

    name: str
    n_tokens: int = 0
    chains: dict[str, list[Span]] = field(default_factory=dict)
    line: int = 0
    """Line number of the ``#begin document`` line (1-based)."""
    token_fields: list[tuple[tuple[str, ...], int]] = field(default_factory=list)
    """Per token, its first columns and its line number (only when read with ``leading_fields``)."""

    @property
    def clusters(self) -> list[list[Span]]:
        return list(self.chains.values())


@dataclass
class ConllFile:
    """The documents of one file by name (last occurrence wins) and notes about what was discarded."""

    path: Path
    documents: dict[str, ConllDocument]
    warnings: list[str] = field(default_factory=list)


def read_conll(path: str | Path, leading_fields: int = 0) -> ConllFile:
    """Read every document of a CoNLL-2012 file as v8.01 does (see the module docstring for the exact rules).

    leading_fields: keep this many first columns of every token line in ``ConllDocument.token_fields`` (the
    scorer needs none; ``ucdcr evaluate`` reads the document key, sentence and token number of a response).
    """
    path = Path(path)
    result = ConllFile(path=path, documents={})
    text = _conll_text(path, leading_fields, result.warnings)
    lines = text.split("\n")
    if lines[-1] == "":  # the line break ending the last line
        lines.pop()
    if "\r" in text:  # a CRLF line end; a lone CR stays inside its line, as in v8.01
        lines = [line.removesuffix("\r") for line in lines]

    def open_document(name: str, line: int) -> _ScorerDocument:
        return _ScorerDocument(result, ConllDocument(name=name, line=line), leading_fields)

    read_blocks(lines, path, open_document, lines_outside="ignore")
    return result


def _conll_text(path: Path, leading_fields: int, warnings: list[str]) -> str:
    """The file as text (:mod:`ucdcr.io.text`'s rule), except that bytes that are not UTF-8 are accepted in the
    columns a score never reads -- a token line's words, not its first ``leading_fields`` columns nor its last
    (the coreference annotation) -- as v8.01 accepts any bytes there; they are read as U+FFFD and noted once."""
    data = read_bytes(path)
    try:
        return decode_text(data, path)
    except FormatError as refused:
        if b"\x00" in data:  # UTF-16 / UTF-32 text or a binary file: refused as decode_text says
            raise
        lines = data.removeprefix(codecs.BOM_UTF8).split(b"\n")
        accepted: list[int] = []
        for number, line in enumerate(lines, 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                if not _only_words_are_not_utf8(line, leading_fields):
                    raise refused from None  # names the line and column, as before
                accepted.append(number)
        warnings.append(
            f"{path}:{accepted[0]}: {len(accepted)} token line(s) hold bytes that are not UTF-8 in their words "
            "(read as U+FFFD; words play no part in scoring, as in v8.01)"
        )
        return "\n".join(line.decode("utf-8", "replace") for line in lines)


def _only_words_are_not_utf8(line: bytes, leading_fields: int) -> bool:
    """A token line whose annotation column and first ``leading_fields`` columns are UTF-8."""
    if line.lstrip().startswith(b"#"):
        return False
    fields = line.rstrip(b"\r").split(b"\t") if b"\t" in line else line.split()
    while fields and not fields[-1].strip():
        fields.pop()
    needed = [*fields[:leading_fields], *fields[-1:]]
    try:
        for field_bytes in needed:
            field_bytes.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class _ScorerDocument:
    """Reads one document's tokens: the last column's brackets, and the first columns if asked."""

    def __init__(self, result: ConllFile, doc: ConllDocument, leading_fields: int) -> None:
        self.result, self.doc, self.leading_fields = result, doc, leading_fields
        self.brackets = BracketPairer(result.path, doc.name)

    def add(self, line: str, number: int, sentence: int) -> None:
        if self.leading_fields:
            fields = line.split("\t") if "\t" in line else line.split()
            self.doc.token_fields.append((tuple(fields[: self.leading_fields]), number))
        annotation = coref_column(line)
        if "+" in annotation and DOUBLE_ANTECEDENT_RE.search(annotation):
            self.result.warnings.append(
                f"{self.result.path}:{number}: double antecedent {annotation!r} discarded (as v8.01)"
            )
            annotation = DOUBLE_ANTECEDENT_RE.sub("", annotation)
        self.brackets.add(self.doc.n_tokens, annotation, number)
        self.doc.n_tokens += 1

    def finish(self, number: int) -> ConllDocument:
        self.doc.chains = self.brackets.finish(number)
        documents = self.result.documents
        if self.doc.name in documents:
            previous = documents.pop(self.doc.name)
            self.result.warnings.append(
                f"{self.result.path}:{self.doc.line}: document {self.doc.name!r} occurs again (first at line "
                f"{previous.line}); the last occurrence is used, as the reference scorer does"
            )
        documents[self.doc.name] = self.doc
        return self.doc


def coref_column(line: str) -> str:
    """The last column: TAB-separated (trailing empty fields dropped) or whitespace-separated."""
    if "\t" in line:
        if not line.endswith("\t"):  # the last field is the annotation
            return line.rpartition("\t")[2].strip()
        fields = line.split("\t")
        while fields and not fields[-1]:
            fields.pop()
        return fields[-1].strip() if fields else ""
    fields = line.split()
    return fields[-1] if fields else ""


# --- writing -------------------------------------------------------------------------------------------------


def bracket_labels(n_tokens: int, mentions: Iterable[Mention], check: bool = False) -> list[str]:
    """The coreference column of ``n_tokens`` tokens holding ``mentions`` (order rule in the module docstring).

    check: refuse (ValueError) a chain id that the reader would not read back, a span outside the tokens, and
    mentions of one chain that cross or touch (they would read back as other spans).
    """
    mentions = list(mentions)
    if check:
        _check_writable(n_tokens, mentions)
    if not mentions:
        return ["-"] * n_tokens
    labels: list[list[str]] = [[] for _ in range(n_tokens)]
    for first, last, chain in sorted(mentions, key=lambda m: (-m[1], m[1] - m[0], m[0], m[2])):
        if first == last:
            labels[first].append(f"({chain})")
            continue
        labels[first].append(f"({chain}")
        labels[last].append(f"{chain})")
    column = ["|".join(tags) if tags else "-" for tags in labels]
    if check:
        _check_read_back(column, mentions)
    return column


def _check_writable(n_tokens: int, mentions: list[Mention]) -> None:
    for first, last, chain in mentions:
        if not CHAIN_ID_RE.fullmatch(chain):
            raise ValueError(f"chain id {chain!r} cannot be written: it must be non-empty, without ( ) | or spaces")
        if not 0 <= first <= last < n_tokens:
            raise ValueError(f"span ({first}, {last}) of chain {chain!r} is outside 0..{n_tokens - 1}")


def _check_read_back(column: list[str], mentions: list[Mention]) -> None:
    """Read the written column back with the reader's pairing rule; every chain must keep its spans."""
    pairer = BracketPairer("<written column>", "")
    for token, annotation in enumerate(column):
        pairer.add(token, annotation, token + 1)
    read = pairer.finish(len(column))
    written: dict[str, list[Span]] = {}
    for first, last, chain in mentions:
        written.setdefault(chain, []).append((first, last))
    for chain, spans in written.items():
        if sorted(read.get(chain, [])) != sorted(spans):
            raise ValueError(
                f"chain {chain!r} has crossing or touching mentions that CoNLL brackets cannot express: "
                f"{sorted(spans)} would read back as {sorted(read.get(chain, []))}"
            )


def write_conll(
    path: str | Path,
    documents: Iterable[tuple[str, Sequence[Sequence[str]], Mapping[str, Iterable[Span]]]],
) -> None:
    """Write documents ``(name, sentences of token strings, {chain id: spans})`` atomically.

    Lines are ``DOC_ID<TAB>PART<TAB>TOKEN_INDEX<TAB>WORD<TAB>COREF`` (a name ``(DOC_ID); part NNN`` gives its id and
    part, any other name is the id with part 0); a blank line separates sentences; spans index the tokens of the
    whole document. What brackets cannot express is refused (ValueError, see :func:`bracket_labels`).
    """
    from ucdcr.io.atomic import atomic_path  # only writing needs it (hashlib, secrets): not imported to read

    with atomic_path(path) as temporary, open(temporary, "w", encoding="utf-8") as handle:
        for name, sentences, clusters in documents:
            _write_document(handle, name, sentences, clusters)


def _write_document(
    handle: IO[str], name: str, sentences: Sequence[Sequence[str]], clusters: Mapping[str, Iterable[Span]]
) -> None:
    n_tokens = sum(len(sentence) for sentence in sentences)
    mentions = [(start, end, chain) for chain, spans in clusters.items() for start, end in spans]
    annotations = iter(bracket_labels(n_tokens, mentions, check=True))
    handle.write(f"#begin document {name}\n")
    standard = STANDARD_NAME_RE.match(name)
    doc_id, part = (standard.group(1), int(standard.group(2))) if standard else (name, 0)
    token = 0
    for sentence in sentences:
        for word in sentence:
            column = " ".join(word.split()) or "_"
            handle.write(f"{doc_id}\t{part}\t{token}\t{column}\t{next(annotations)}\n")
            token += 1
        handle.write("\n")
    handle.write("#end document\n")
