"""Checks every reader runs before it hands its corpus on: nothing missing unnoticed, no mention silently changed.

Missing parts. A dataset declares what its corpus consists of (the ids of its split file, its topic or event
folders, the documents an index lists). When a listed part is absent from the raw files, the reader stops with
one error naming every missing part (:class:`~ucdcr.errors.MissingRawData` when the user can fetch it again,
:class:`~ucdcr.errors.FormatError` when the raw files contradict each other), instead of renumbering what is
left, moving it to another split, or leaving a split empty. Absences that are facts of a dataset (ECB+'s split
file lists topics 15 and 17, which the corpus does not have) are declared in its module and are not errors.

The reader option ``partial`` (``ucdcr build <id> -o partial=true``, ``ReadOptions(extra={"partial": True})``)
accepts a partial corpus: the build goes on with what is there, ids and splits unchanged, and the corpus notes
(hence the build report) name what is missing.

Every reader returns ``finish_corpus(corpus)``: document keys must be unique (two raw documents under one key
would silently share their mentions), and unfaithful mention spans are dropped (next paragraph).

Mention spans. :func:`drop_unfaithful_mentions` moves every mention whose original tokens are not one
contiguous run of its document (in document order, each token once) or whose tokens hold no text to
``corpus.dropped`` with the reason: the unified format stores a mention as a contiguous token range, and a
range that is not what was annotated would widen or shorten the mention. A dataset whose rule fills the gaps
of discontinuous annotations (ECB+, MEANTIME) fills them in its reader, explicitly and counted.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Literal

from ucdcr.errors import FormatError, MissingRawData, UcdcrError
from ucdcr.records import SPLITS, DroppedMention, SourceCorpus, SourceDocument, SourceMention
from ucdcr.registry import ReadOptions

PARTIAL_OPTION = "partial"
PARTIAL_HINT = "To build what is there anyway, pass -o partial=true (the build report then lists what is missing)."
_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off", ""}


def flag_option(options: ReadOptions | None, name: str) -> bool:
    """A true/false reader option (``-o name=true``; also yes/no, 1/0, on/off); absent means false."""
    value = (options.extra if options else {}).get(name, False)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise UcdcrError(f"reader option {name}={value!r}: expected true or false")


def list_option(options: ReadOptions | None, name: str) -> list[str]:
    """A list reader option: a list, or one comma-separated string (``-o outlets=a,b``), never read letter by
    letter; absent means empty."""
    value = (options.extra if options else {}).get(name) or []
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)):
        raise UcdcrError(f"reader option {name}={value!r}: expected a list or a comma-separated string")
    return [str(item).strip() for item in value if str(item).strip()]


def partial_allowed(options: ReadOptions | None) -> bool:
    """Whether the user accepts a partial corpus (reader option ``partial``)."""
    return flag_option(options, PARTIAL_OPTION)


def natural_order(names: Iterable[str]) -> list[str]:
    """Names sorted with numbers by value ("2" before "10")."""
    return sorted(names, key=lambda name: (0, int(name), "") if name.isdigit() else (1, 0, name))


def report_missing(
    corpus: SourceCorpus,
    options: ReadOptions | None,
    where: str | Path,
    problem: str,
    hint: str,
    kind: Literal["missing", "format"] = "missing",
) -> None:
    """Raise the error for a missing part (``where``: the file or folder that names it), or, with
    ``partial=true``, note it in the corpus and go on."""
    if partial_allowed(options):
        corpus.notes.append(f"partial corpus (option partial=true): {where}: {problem}")
        return
    if kind == "format":
        raise FormatError(where, f"{problem}. {hint} {PARTIAL_HINT}".strip())
    raise MissingRawData(f"{where}: {problem}. {hint} {PARTIAL_HINT}".strip())


def require_listed_ids(
    corpus: SourceCorpus,
    options: ReadOptions | None,
    split_of: Mapping[str, str],
    found: Iterable[str],
    *,
    what: str,
    listed_in: str | Path,
    hint: str,
    known_absent: Collection[str] = (),
    names: Mapping[str, str] | None = None,
    kind: Literal["missing", "format"] = "missing",
) -> None:
    """Every id the split file lists (``split_of``) must have been found, except the dataset's known absences.

    ``what`` names the parts (e.g. "topic folders"); the error names the missing ids (with their ``names``, e.g.
    ``1 (china)``) and the splits they would leave empty.
    """
    partial_allowed(options)  # a bad option value is an error also when nothing is missing
    found_ids = set(found)
    missing = natural_order(set(split_of) - found_ids - set(known_absent))
    if not missing:
        return
    emptied = [
        split
        for split in SPLITS
        if any(s == split for s in split_of.values())
        and not any(s == split and i in found_ids for i, s in split_of.items())
    ]
    shown = [f"{i} ({names[i]})" if names and i in names else i for i in missing]
    problem = f"{what} listed in the split file but not found: {', '.join(shown)}"
    if emptied:
        problem += f" (split(s) {', '.join(emptied)} would be empty)"
    report_missing(corpus, options, listed_in, problem, hint, kind)


def finish_corpus(corpus: SourceCorpus) -> SourceCorpus:
    """The checks every reader runs on its corpus before returning it (module docstring)."""
    seen: dict[str, SourceDocument] = {}
    for document in corpus.documents:
        first = seen.setdefault(document.doc_key, document)
        if first is not document:
            raise FormatError(
                document.source_file or document.doc_key,
                f"document key {document.doc_key!r} is also the key of {first.source_file or 'another document'}",
            )
    return drop_unfaithful_mentions(corpus)


def mention_span_problem(mention: SourceMention, position: Mapping[str, int], texts: list[str]) -> str | None:
    """Why ``mention`` is not a faithful contiguous span of its document's tokens (None if it is)."""
    if not mention.token_ids:
        return "mention has no tokens"
    unknown = [token_id for token_id in mention.token_ids if token_id not in position]
    if unknown:
        return f"token id(s) {unknown[:5]} are not in the document"
    positions = [position[token_id] for token_id in mention.token_ids]
    expected = list(range(positions[0], positions[0] + len(positions)))
    if positions != expected:
        gap = next(i for i, (got, want) in enumerate(zip(positions, expected)) if got != want)
        return (
            f"token ids are not a contiguous run of the document (break after token "
            f"{mention.token_ids[gap - 1]!r}); building it as a range would widen it"
        )
    if not "".join(texts[p] for p in positions).strip():
        return "mention text is empty (its tokens hold no characters)"
    return None


def drop_unfaithful_mentions(corpus: SourceCorpus) -> SourceCorpus:
    """Move mentions that are not faithful contiguous spans to ``corpus.dropped`` (stage "read"), with the reason.

    Mentions of documents that are not in the corpus are left for the pipeline, which reports them.
    """
    documents: dict[str, SourceDocument] = {document.doc_key: document for document in corpus.documents}
    indexed: dict[str, tuple[dict[str, int], list[str]]] = {}
    kept: list[SourceMention] = []
    for mention in corpus.mentions:
        document = documents.get(mention.doc_key)
        if document is None:
            kept.append(mention)
            continue
        if mention.doc_key not in indexed:
            indexed[mention.doc_key] = (
                {token.token_id: i for i, token in enumerate(document.tokens)},
                [token.text for token in document.tokens],
            )
        position, texts = indexed[mention.doc_key]
        reason = mention_span_problem(mention, position, texts)
        if reason is None:
            kept.append(mention)
            continue
        text = " ".join(texts[position[t]] for t in mention.token_ids if t in position)
        span = ",".join(mention.token_ids) or "(no tokens)"
        corpus.dropped.append(DroppedMention(mention.doc_key, mention.source_id, span, text, reason, "read"))
    corpus.mentions = kept
    return corpus
