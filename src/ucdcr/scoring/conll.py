"""CoNLL-2012 coreference files: reader and writer (the file layer of the scorer).

Format, as the reference scorer v8.01 reads it:

- A document starts at a line ``#begin document NAME`` (``^#\\s*begin document (.*)$``; NAME is the whole rest of
  the line, e.g. ``(bc/cctv/00/cctv_0000); part 000``, so every part is a document) and ends at the first line
  containing ``#end document``.
- Every non-blank line inside a document is a token (blank and whitespace-only lines are sentence breaks and are
  not counted; other ``#`` lines are tokens). Token index = 0-based counter over the whole document, so mentions
  may cross sentence breaks. Lines outside documents are ignored.
- Columns are TAB-separated (trailing empty fields ignored) or, in a line without TAB, whitespace-separated; the
  coreference annotation is the last column. ``-``, ``_`` or an empty column carry no mention.
- The annotation holds ``(ID)`` (one-token mention), ``(ID`` (open), ``ID)`` (close), usually joined by ``|``
  (the separator may be left out: ``(1(2`` is two opens). ``ID`` is any string without ``( ) |`` or whitespace;
  ``(05)`` and ``(5)`` are different chains. ``(N+D)`` (double antecedent, OntoNotes) is discarded, as v8.01 does.
- On one token, one-token mentions are taken first, then opens, then closes; a close pairs with the most recent
  open of its chain (LIFO), so nested and crossing mentions of one chain pair as in v8.01.
- Chains are ordered by the first appearance of their id, mentions within a chain by the token where they close.
- A mention is its token span ``(start, end)`` (inclusive) within its document; duplicate spans are resolved in
  mention identification (``mentions.py``).
- If a document name occurs twice in a file, the last occurrence is used (as v8.01), with a warning.

The file is UTF-8 text (a UTF-8 byte-order mark is skipped): UTF-16, binary or other non-UTF-8 files are refused
(:mod:`ucdcr.io.text`), and so is a file without any ``#begin document`` line (empty, random text), instead of
scoring nothing as 0/0.

Refused with :class:`~ucdcr.errors.FormatError` (file, line, problem): a close with no open, a mention still open
at ``#end document``, a document never closed (end of file or a new ``#begin document``), ``#end document``
outside a document, an annotation that cannot be parsed, and (when scoring) key and response documents whose
token counts differ.

v8.01 differences, on input it handles by accident: it reads non-numeric ids as nothing, searches the whole line
of a TAB-less file for brackets, and re-scans concatenated annotations after removing ``(N)`` (``(1(2)3)`` gives
chain 13 there), and keeps the ``\r`` of CRLF token lines (so a trailing TAB before it hides the annotation);
ucdcr reads the last column, each bracket once, and treats CRLF as a line end. v8.01 also scores a file without
documents as 0/0 and reads any bytes; ucdcr refuses both (above).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ucdcr.errors import FormatError
from ucdcr.io.atomic import atomic_path
from ucdcr.io.text import read_text

Span = tuple[int, int]

BEGIN_RE = re.compile(r"^#\s*begin document (.*)$")
END_RE = re.compile(r"#\s*end document")
DOUBLE_ANTECEDENT_RE = re.compile(r"\(\d+\+\d\)")
BRACKET_RE = re.compile(r"\(([^()|\s]+)\)|\(([^()|\s]+)|([^()|\s]+)\)")
STANDARD_NAME_RE = re.compile(r"^\((.*)\); part (\d+)$")
EMPTY_ANNOTATIONS = frozenset({"", "-", "_"})


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
    """Read every document of a CoNLL-2012 file (see the module docstring for the exact rules).

    leading_fields: keep this many first columns of every token line in ``ConllDocument.token_fields`` (the
    scorer needs none; ``ucdcr evaluate`` reads the document key, sentence and token number of a response).
    """
    path = Path(path)
    result = ConllFile(path=path, documents={})
    current: _DocumentBuilder | None = None
    text = read_text(path)
    lines = text.split("\n")
    if lines[-1] == "":  # the line break ending the last line
        lines.pop()
    number = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.removesuffix("\r")
        if current is None:
            current = _outside_line(path, number, line, result, leading_fields)
            continue
        if not line.strip():
            continue
        if END_RE.search(line):
            _store(result, current.finish(number))
            current = None
        elif BEGIN_RE.match(line):
            raise FormatError(
                path,
                f"document {current.doc.name!r} (begun at line {current.doc.line}) is never closed: "
                "new #begin document before #end document",
                number,
            )
        else:
            current.add_token(line, number)
    if current is not None:
        raise FormatError(
            path,
            f"document {current.doc.name!r} (begun at line {current.doc.line}) is never closed: "
            "end of file before #end document",
            number,
        )
    if not result.documents:
        what = "the file is empty" if not text.strip() else "no line '#begin document NAME'"
        raise FormatError(path, f"{what}: not a CoNLL-2012 coreference file (nothing to score)")
    return result


def _outside_line(
    path: Path, number: int, line: str, result: ConllFile, leading_fields: int = 0
) -> _DocumentBuilder | None:
    begin = BEGIN_RE.match(line)
    if begin:
        doc = ConllDocument(name=begin.group(1), line=number)
        return _DocumentBuilder(path, doc, result.warnings, leading_fields)
    if END_RE.search(line):
        raise FormatError(path, "#end document without a matching #begin document", number)
    return None


def _store(result: ConllFile, doc: ConllDocument) -> None:
    if doc.name in result.documents:
        previous = result.documents.pop(doc.name)
        result.warnings.append(
            f"{result.path}:{doc.line}: document {doc.name!r} occurs again (first at line {previous.line}); "
            "the last occurrence is used, as the reference scorer does"
        )
    result.documents[doc.name] = doc


class _DocumentBuilder:
    """Collects the tokens and bracket annotations of one document."""

    def __init__(self, path: Path, doc: ConllDocument, warnings: list[str], leading_fields: int = 0) -> None:
        self.path, self.doc, self.warnings = path, doc, warnings
        self.leading_fields = leading_fields
        self.open: dict[str, list[tuple[int, int]]] = {}  # chain id -> stack of (start token, line)

    def add_token(self, line: str, number: int) -> None:
        if self.leading_fields:
            fields = line.split("\t") if "\t" in line else line.split()
            self.doc.token_fields.append((tuple(fields[: self.leading_fields]), number))
        annotation = coref_column(line)
        if annotation not in EMPTY_ANNOTATIONS:
            singles, opens, closes = self._parse(annotation, number)
            token = self.doc.n_tokens
            for chain in singles:
                self.doc.chains.setdefault(chain, []).append((token, token))
            for chain in opens:
                self.doc.chains.setdefault(chain, [])
                self.open.setdefault(chain, []).append((token, number))
            for chain in closes:
                self._close(chain, token, number)
        self.doc.n_tokens += 1

    def _parse(self, annotation: str, number: int) -> tuple[list[str], list[str], list[str]]:
        if DOUBLE_ANTECEDENT_RE.search(annotation):
            self.warnings.append(f"{self.path}:{number}: double antecedent {annotation!r} discarded (as v8.01)")
            annotation = DOUBLE_ANTECEDENT_RE.sub("", annotation)
        singles: list[str] = []
        opens: list[str] = []
        closes: list[str] = []
        for match in BRACKET_RE.finditer(annotation):
            single, opened, closed = match.groups()
            (singles if single else opens if opened else closes).append(single or opened or closed)
        leftover = BRACKET_RE.sub("", annotation).replace("|", "").strip()
        if leftover:
            raise FormatError(
                self.path,
                f"cannot parse coreference annotation {annotation!r} (left over: {leftover!r}); "
                "expected (ID), (ID or ID) joined by |, or -",
                number,
            )
        return singles, opens, closes

    def _close(self, chain: str, token: int, number: int) -> None:
        stack = self.open.get(chain)
        if not stack:
            raise FormatError(
                self.path,
                f"closing bracket '{chain})' in document {self.doc.name!r} has no open mention of chain {chain!r}",
                number,
            )
        start, _ = stack.pop()
        self.doc.chains.setdefault(chain, []).append((start, token))

    def finish(self, number: int) -> ConllDocument:
        unclosed = [(chain, line) for chain, stack in self.open.items() for _, line in stack]
        if unclosed:
            listed = ", ".join(f"'({chain}' at line {line}" for chain, line in unclosed)
            raise FormatError(
                self.path, f"document {self.doc.name!r} ends with mention(s) never closed: {listed}", number
            )
        return self.doc


def coref_column(line: str) -> str:
    """The last column: TAB-separated (trailing empty fields dropped) or whitespace-separated."""
    if "\t" in line:
        fields = line.split("\t")
        while fields and not fields[-1]:
            fields.pop()
        return fields[-1].strip() if fields else ""
    fields = line.split()
    return fields[-1] if fields else ""


def check_token_counts(key: ConllFile, response: ConllFile) -> None:
    """Raise if a document present in both files has different token counts."""
    for name, key_doc in key.documents.items():
        response_doc = response.documents.get(name)
        if response_doc is not None and response_doc.n_tokens != key_doc.n_tokens:
            raise FormatError(
                response.path,
                f"document {name!r} has {response_doc.n_tokens} tokens in the response but {key_doc.n_tokens} "
                f"in the key ({key.path}:{key_doc.line}); key and response must have the same tokens",
                response_doc.line,
            )


def coref_annotations(n_tokens: int, clusters: Mapping[str, Iterable[Span]]) -> list[str]:
    """The last-column annotation of each token (``-`` when none): opens, one-token mentions, closes, joined by |.

    Longer mentions open first and close last, so nested mentions of one chain read back as written.
    """
    opens: list[list[tuple[int, str]]] = [[] for _ in range(n_tokens)]
    singles: list[list[str]] = [[] for _ in range(n_tokens)]
    closes: list[list[tuple[int, str]]] = [[] for _ in range(n_tokens)]
    clusters = {chain: list(spans) for chain, spans in clusters.items()}
    for chain, spans in clusters.items():
        if not chain or set(chain) & set("()| \t\n"):
            raise ValueError(f"chain id {chain!r} cannot be written: it must be non-empty, without ( ) | or spaces")
        for start, end in spans:
            if not 0 <= start <= end < n_tokens:
                raise ValueError(f"span ({start}, {end}) of chain {chain!r} is outside 0..{n_tokens - 1}")
            if start == end:
                singles[start].append(chain)
            else:
                opens[start].append((end, chain))
                closes[end].append((start, chain))
    columns = []
    for token in range(n_tokens):
        parts = [f"({chain}" for _, chain in sorted(opens[token], key=lambda item: -item[0])]
        parts += [f"({chain})" for chain in singles[token]]
        parts += [f"{chain})" for _, chain in sorted(closes[token], key=lambda item: -item[0])]
        columns.append("|".join(parts) or "-")
    _check_readable(opens, singles, closes, clusters)
    return columns


def _check_readable(opens, singles, closes, clusters: Mapping[str, Iterable[Span]]) -> None:
    """Replay the reader's pairing rule; crossing or touching mentions of one chain cannot be written."""
    stacks: dict[str, list[int]] = {}
    read: dict[str, list[Span]] = {chain: [] for chain in clusters}
    for token, (token_opens, token_singles, token_closes) in enumerate(zip(opens, singles, closes, strict=True)):
        for chain in token_singles:
            read[chain].append((token, token))
        for _, chain in sorted(token_opens, key=lambda item: -item[0]):
            stacks.setdefault(chain, []).append(token)
        for _, chain in sorted(token_closes, key=lambda item: -item[0]):
            read[chain].append((stacks[chain].pop(), token))
    for chain, spans in clusters.items():
        if sorted(read[chain]) != sorted(spans):
            raise ValueError(
                f"chain {chain!r} has crossing or touching mentions that CoNLL brackets cannot express: "
                f"{sorted(spans)} would read back as {sorted(read[chain])}"
            )


def write_conll(
    path: str | Path,
    documents: Iterable[tuple[str, Sequence[Sequence[str]], Mapping[str, Iterable[Span]]]],
) -> None:
    """Write documents ``(name, sentences of token strings, {chain id: spans})`` atomically.

    Lines are ``DOC_ID<TAB>PART<TAB>TOKEN_INDEX<TAB>WORD<TAB>COREF`` (a name ``(DOC_ID); part NNN`` gives its id and
    part, any other name is the id with part 0); a blank line separates sentences; spans index the tokens of the
    whole document.
    """
    with atomic_path(path) as temporary, open(temporary, "w", encoding="utf-8") as handle:
        for name, sentences, clusters in documents:
            _write_document(handle, name, sentences, clusters)


def _write_document(handle, name: str, sentences: Sequence[Sequence[str]], clusters) -> None:
    n_tokens = sum(len(sentence) for sentence in sentences)
    clusters = {chain: list(spans) for chain, spans in clusters.items()}
    annotations = iter(coref_annotations(n_tokens, clusters))
    handle.write(f"#begin document {name}\n")
    standard = STANDARD_NAME_RE.match(name)
    doc_id, part = (standard.group(1), int(standard.group(2))) if standard else (name, 0)
    token = 0
    for sentence in sentences:
        for word in sentence:
            word = " ".join(word.split()) or "_"
            handle.write(f"{doc_id}\t{part}\t{token}\t{word}\t{next(annotations)}\n")
            token += 1
        handle.write("\n")
    handle.write("#end document\n")
