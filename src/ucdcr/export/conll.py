"""Export unified mentions as CoNLL-2012 coreference files that the reference scorer v8.01 reads.

:func:`export_dataset` writes a built dataset, one file per split: ``<out>/<name>_<split>_<level>[_<type>].conll``
(``name`` the dataset folder's name in lower case; ``_event`` / ``_entity`` when only those mentions are exported)
and its mapping file ``<file>.chains.json``; a split without documents writes nothing. ``<out>`` is a new or empty
folder or one an export wrote; the files it writes are new or an export's (the marker ``.ucdcr-export.json``
lists them); never a data dir, raw dir or dataset folder (:mod:`ucdcr.export.target`). :func:`export_conll` writes
one file from mention and token tables.

Format written::

    #begin document (<name>); part 000
    <doc_key>\t<sent_id>\t<token_id>\t<token>\t<coref>
    ...                                   (a blank line after every sentence)
    #end document

The coref column is the last TAB field, as v8.01 reads it, written by :func:`ucdcr.formats.conll2012.bracket_labels`
(checked: what it writes reads back as written): ``-`` for no mention, else labels joined by ``|``: ``(N)`` a
one-token mention, ``(N`` the first and ``N)`` the last token of a longer one. ``N`` is an
integer chain id (v8.01 ignores non-numeric ids); the JSON mapping file written beside the CoNLL file gives the
original ``coref_chain`` of every integer (and with ``chains="kind"`` its kind, under ``kinds``).

Chains (``chains``), as the evaluation protocols key them (:func:`ucdcr.analysis.chains.chain_ids`, ``/`` read as
``-``): ``kind`` (the default) writes one chain per kind and chain id, so that an event and an entity never share a
chain even where a chain id holds both (ECB+'s ``UNK_`` chains of unknown instances: 2 in its test split); that is
the standard protocol's key, and what v8.01 or any scorer should be given. ``id`` writes one chain per chain id,
the key of the ucdcr protocol (the authors' code reads a chain id alone). The two differ only for a chain id that
holds both kinds: gold exported with the key of a protocol scores 100 in every row of that protocol.

Token text has its whitespace replaced by ``_`` so that one token is one line.

Levels: ``document`` writes one CoNLL document per uCDCR document (``<name>`` = conll_doc_key), so chains are cut
at document borders; ``subtopic`` and ``topic`` concatenate all documents of a subtopic (``topic_id/subtopic_id``)
or topic (``topic_id``), in doc-key order, into ONE meta document, so cross-document links are scored.

Mention spans are placed by ``(conll_doc_key, sent_id, tokens_number)`` on the token rows of
``all_documents.parquet``. Brackets cannot express two mentions of the same chain that overlap without nesting
(v8.01 pairs closes with the most recent open of the chain), nor one span twice (v8.01 merges repeated spans);
such a mention is left out and listed in :attr:`ExportSummary.left_out` (and the mapping file) with its reason.

``remove_singletons``: after that, every chain with one mention in its CoNLL document is left out, by the scorer's
rule (:func:`ucdcr.scoring.scores.drop_singletons`, coval's ``remove_singletons``), so ``ucdcr score`` gives the same
scores on the file written with it as with ``--remove-singletons`` on the file written without it. Its mentions
are listed in :attr:`ExportSummary.removed_singletons` and under ``removed_singletons`` in the mapping file.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

import pyarrow as pa
import pyarrow.compute as pc

from ucdcr.analysis.chains import KIND_SEPARATOR, chain_ids
from ucdcr.errors import FormatError, UcdcrError
from ucdcr.formats.conll2012 import bracket_labels
from ucdcr.io.atomic import write_json, write_text
from ucdcr.io.load import KIND_COLUMN, load_mentions, read_table
from ucdcr.records import SPLITS
from ucdcr.schema import DOC_KEY_COLUMN, DOCUMENTS_PARQUET
from ucdcr.scoring.scores import drop_singletons
from ucdcr.sources.discover import dataset_dir

Level = Literal["document", "subtopic", "topic"]
LEVELS: tuple[Level, ...] = ("document", "subtopic", "topic")
EXPORT_FIELDS: tuple[str, ...] = ("mention_id", "coref_chain", "conll_doc_key", "sent_id", "tokens_number", "split")
ChainKey = Literal["kind", "id"]
CHAIN_KEYS: tuple[ChainKey, ...] = ("kind", "id")
MentionSelection = Literal["all", "event", "entity"]
MENTION_SELECTIONS: tuple[MentionSelection, ...] = ("all", "event", "entity")


@dataclass(frozen=True, slots=True)
class Span:
    """One mention on the tokens of its CoNLL document (inclusive token indices)."""

    start: int
    end: int
    chain: int
    mention_id: str


@dataclass
class ExportSummary:
    """What one export wrote and what it had to leave out (never silently)."""

    conll_path: Path
    mapping_path: Path
    documents: int = 0
    tokens: int = 0
    mentions: int = 0
    chains: int = 0
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (mention_id, reason)
    removed_singletons: list[str] | None = None
    """The mention ids of the singleton chains removed (``remove_singletons``), else None."""


@dataclass
class DatasetExport:
    """What :func:`export_dataset` wrote: per split, its summary, or None when the split has no documents."""

    dataset: str
    splits: dict[str, ExportSummary | None] = field(default_factory=dict)


def export_dataset(
    dataset: str | Path,
    out: Path,
    split: str | None = None,
    level: str = "document",
    mentions: str = "all",
    data_dir: str | Path | None = None,
    remove_singletons: bool = False,
    chains: str = "kind",
) -> DatasetExport:
    """Export a built dataset (an id in the data dir or a folder path) as CoNLL key files into ``out``: every split,
    or only ``split``; ``mentions``: all, or only the event or entity mentions (file names in the module docstring);
    ``remove_singletons``: leave out the chains with one mention in their CoNLL document; ``chains``: the key of
    the standard protocol (``kind``) or of the ucdcr protocol (``id``) (module docstring).
    """
    chosen_level = _choice(level, LEVELS, "level")
    selection = _choice(mentions, MENTION_SELECTIONS, "mentions")
    chain_key = _choice(chains, CHAIN_KEYS, "chains")
    from ucdcr.export import target
    from ucdcr.io.one_build import consistent

    folder = dataset_dir(dataset, data_dir)
    result = DatasetExport(folder.name.lower())
    chosen = [split] if split else list(SPLITS)
    names = [export_file_name(result.dataset, one, chosen_level, selection) for one in chosen]
    names += [f"{name}.chains.json" for name in names]
    listed = target.check_folder(out, folder, data_dir)
    target.check_files(Path(out), names, listed)
    documents, table = consistent(  # both from one build, also while the dataset is rebuilt
        [folder],
        lambda: (
            read_table(folder, kind="documents"),
            load_mentions(folder, columns=EXPORT_FIELDS),
        ),
    )
    if selection != "all":
        table = table.filter(pc.equal(table[KIND_COLUMN], selection))
    # every file is made before the first is written: a dataset that cannot be exported leaves --out as it was
    made: list[tuple[ExportSummary, str, dict[str, object]]] = []
    for one_split in chosen:
        split_documents = documents.filter(documents["split"].to_numpy(zero_copy_only=False) == one_split)
        if split_documents.num_rows == 0:
            result.splits[one_split] = None
            continue
        split_mentions = table.filter(table["split"].to_numpy(zero_copy_only=False) == one_split)
        path = Path(out) / export_file_name(result.dataset, one_split, chosen_level, selection)
        summary, text, mapping = _conll_file(
            split_mentions, split_documents, chosen_level, path, None, remove_singletons, folder, chain_key
        )
        result.splits[one_split] = summary
        made.append((summary, text, mapping))
    _write_files(Path(out), made, listed)
    return result


def _write_files(out: Path, made: list[tuple[ExportSummary, str, dict[str, object]]], listed: set[str]) -> None:
    """Mark ``out`` with the files about to be written (:func:`ucdcr.export.target.mark`), then write them; when a
    write fails the marker lists only what was written, and a folder this export created is removed again when
    nothing was written into it."""
    from ucdcr.export import target

    if not made:
        return
    created = not out.exists()
    names = [name for summary, _, _ in made for name in (summary.conll_path.name, summary.mapping_path.name)]
    target.mark(out, names, listed)
    written: list[str] = []
    try:
        for summary, text, mapping in made:
            write_text(summary.conll_path, text)
            written.append(summary.conll_path.name)
            write_json(summary.mapping_path, mapping)
            written.append(summary.mapping_path.name)
    except BaseException:
        with contextlib.suppress(OSError, UcdcrError):
            if created and not written:
                (out / target.MARKER).unlink()
                out.rmdir()
            else:
                target.mark(out, written, listed)
        raise


Choice = TypeVar("Choice", bound=str)


def _choice(value: str, valid: tuple[Choice, ...], what: str) -> Choice:
    """``value`` as one of ``valid``; anything else is an error listing them."""
    for choice in valid:
        if value == choice:
            return choice
    raise UcdcrError(f"unknown {what} {value!r}; valid: {', '.join(valid)}")


def export_file_name(dataset: str, split: str, level: Level, mentions: MentionSelection) -> str:
    """``<dataset>_<split>_<level>.conll``, with ``_event`` or ``_entity`` before ``.conll`` for one type only."""
    suffix = "" if mentions == "all" else f"_{mentions}"
    return f"{dataset}_{split}_{level}{suffix}.conll"


def group_name(doc_key: str, level: Level) -> str:
    """The CoNLL document a uCDCR document belongs to at a level."""
    if level == "document":
        return doc_key
    parts = doc_key.split("/")
    return "/".join(parts[:2]) if level == "subtopic" else parts[0]


def export_conll(
    mentions: pa.Table,
    documents: pa.Table,
    level: Level,
    conll_path: Path,
    mapping_path: Path | None = None,
    remove_singletons: bool = False,
    source: Path | None = None,
    chains: str = "kind",
) -> ExportSummary:
    """Write ``mentions`` (MENTION_SCHEMA rows) on the tokens of ``documents`` (DOCUMENT_SCHEMA rows) as CoNLL.

    Every document of ``documents`` is written (documents without mentions too). The mapping file (default
    ``<conll_path>.chains.json``) maps each integer chain id to the original coref_chain. ``remove_singletons`` and
    ``chains``: see the module docstring (``kind`` needs the ``type`` column that :func:`ucdcr.io.load.
    load_mentions` adds). ``source``: the dataset folder the tables come from, named by the error for a mention
    outside the document table (else ``<input>``); nothing is written then.
    """
    summary, text, mapping = _conll_file(
        mentions, documents, level, conll_path, mapping_path, remove_singletons, source, chains
    )
    write_text(summary.conll_path, text)
    write_json(summary.mapping_path, mapping)
    return summary


def _conll_file(
    mentions: pa.Table,
    documents: pa.Table,
    level: str,
    conll_path: Path,
    mapping_path: Path | None,
    remove_singletons: bool,
    source: Path | None,
    chains: str = "kind",
) -> tuple[ExportSummary, str, dict[str, object]]:
    """What :func:`export_conll` writes: its summary, the CoNLL text and the mapping."""
    level = _choice(level, LEVELS, "level")
    chain_key = _choice(chains, CHAIN_KEYS, "chains")
    if chain_key == "kind" and KIND_COLUMN not in mentions.column_names:
        raise UcdcrError(
            f"chains='kind' keys each chain by its kind, and these mentions have no {KIND_COLUMN!r} column (read "
            "them with ucdcr.io.load.load_mentions, or give chains='id')"
        )
    mapping_path = mapping_path or conll_path.with_name(conll_path.name + ".chains.json")
    summary = ExportSummary(conll_path, mapping_path, removed_singletons=[] if remove_singletons else None)
    tokens_by_doc = _tokens_by_document(documents)
    keys = chain_ids(mentions, by_kind=chain_key == "kind")
    numbers = _chain_numbers(mentions, keys)
    spans = _place_mentions(mentions, tokens_by_doc, [numbers[key] for key in keys], level, source)
    groups: dict[str, list[str]] = defaultdict(list)
    for doc_key in sorted(tokens_by_doc):
        groups[group_name(doc_key, level)].append(doc_key)
    lines: list[str] = []
    written_chains: set[int] = set()
    for name in sorted(groups):
        kept = representable(spans.get(name, []), summary.left_out)
        if summary.removed_singletons is not None:
            kept = _without_singletons(kept, summary.removed_singletons)
        lines.extend(_document_lines(name, groups[name], tokens_by_doc, kept))
        summary.mentions += len(kept)
        written_chains.update(span.chain for span in kept)
    summary.documents = len(groups)
    summary.tokens = sum(len(tokens) for tokens in tokens_by_doc.values())
    summary.chains = len(written_chains) if remove_singletons else len(numbers)
    originals = dict(zip(keys, mentions["coref_chain"].to_pylist(), strict=True))
    mapping: dict[str, object] = {
        "level": level,
        "chains_keyed_by": chain_key,
        "chains": {str(number): originals[key] for key, number in numbers.items()},
        "left_out": [{"mention_id": mention_id, "reason": reason} for mention_id, reason in summary.left_out],
    }
    if chain_key == "kind":
        mapping["kinds"] = {str(number): key.split(KIND_SEPARATOR, 1)[0] for key, number in numbers.items()}
    if summary.removed_singletons is not None:
        mapping["removed_singletons"] = summary.removed_singletons
    return summary, "\n".join(lines) + "\n", mapping


# One token row: (sent_id, token_id, token text).
TokenRow = tuple[int, int, str]


def _tokens_by_document(documents: pa.Table) -> dict[str, list[TokenRow]]:
    ordered = documents.sort_by([(DOC_KEY_COLUMN, "ascending"), ("token_id_global", "ascending")])
    by_doc: dict[str, list[TokenRow]] = defaultdict(list)
    for key, sent, token_id, text in zip(
        ordered[DOC_KEY_COLUMN].to_pylist(),
        ordered["sent_id"].to_pylist(),
        ordered["token_id"].to_pylist(),
        ordered["token"].to_pylist(),
        strict=True,
    ):
        by_doc[key].append((sent, token_id, text))
    return dict(by_doc)


def _chain_numbers(mentions: pa.Table, keys: Sequence[str]) -> dict[str, int]:
    """Integer ids of the chain keys (one per row of ``mentions``) by order of first appearance in doc-key order
    (deterministic)."""
    order = pc.sort_indices(
        mentions, [("conll_doc_key", "ascending"), ("sent_id", "ascending"), ("mention_id", "ascending")]
    )
    numbers: dict[str, int] = {}
    for row in order.to_pylist():
        numbers.setdefault(keys[row], len(numbers))
    return numbers


def _place_mentions(
    mentions: pa.Table,
    tokens_by_doc: dict[str, list[TokenRow]],
    chain_numbers: Sequence[int],
    level: Level,
    source: Path | None = None,
) -> dict[str, list[Span]]:
    """Spans per CoNLL document, as token indices counted over the whole (meta) document; a mention outside the
    document table is an error naming ``source`` (the dataset folder) and its token table."""
    table = DOCUMENTS_PARQUET if source is not None else "the document table"
    position: dict[tuple[str, int, int], int] = {}
    offsets: dict[str, int] = {}
    running: dict[str, int] = defaultdict(int)
    for doc_key in sorted(tokens_by_doc):
        name = group_name(doc_key, level)
        offsets[doc_key] = running[name]
        for index, (sent, token_id, _) in enumerate(tokens_by_doc[doc_key]):
            position[(doc_key, sent, token_id)] = running[name] + index
        running[name] += len(tokens_by_doc[doc_key])
    spans: dict[str, list[Span]] = defaultdict(list)
    columns = ("mention_id", "conll_doc_key", "sent_id", "tokens_number")
    rows = zip(*(mentions[c].to_pylist() for c in columns), chain_numbers, strict=True)
    for mention_id, doc_key, sent, numbers, chain in rows:
        if doc_key not in offsets:
            raise FormatError(source, f"mention {mention_id}: document {doc_key!r} is not in {table}")
        try:
            start, end = position[(doc_key, sent, min(numbers))], position[(doc_key, sent, max(numbers))]
        except (KeyError, ValueError):
            raise FormatError(
                source,
                f"mention {mention_id}: tokens {numbers} of sentence {sent} are not in document {doc_key!r} of {table}",
            ) from None
        spans[group_name(doc_key, level)].append(Span(start, end, chain, mention_id))
    return spans


def representable(spans: list[Span], left_out: list[tuple[str, str]]) -> list[Span]:
    """Drop (and record) repeated spans and same-chain spans that cross another one.

    v8.01 gives a repeated key span one identity (docs/scorer.md#mention-identification-and-duplicates), so a span in
    two chains cannot be scored as two mentions; the first in (start, -end, chain) order is kept."""
    kept: list[Span] = []
    seen: dict[tuple[int, int], Span] = {}
    open_by_chain: dict[int, list[Span]] = defaultdict(list)
    for span in sorted(spans, key=lambda s: (s.start, -s.end, s.chain, s.mention_id)):
        first = seen.get((span.start, span.end))
        if first is not None:
            relation = "and chain" if first.chain == span.chain else f"in another chain ({first.chain})"
            left_out.append((span.mention_id, f"same span as {first.mention_id} {relation}"))
            continue
        stack = open_by_chain[span.chain]
        while stack and stack[-1].end < span.start:
            stack.pop()
        if stack and stack[-1].end < span.end:
            left_out.append(
                (span.mention_id, f"crosses {stack[-1].mention_id} of the same chain; brackets cannot express it")
            )
            continue
        stack.append(span)
        seen[(span.start, span.end)] = span
        kept.append(span)
    return kept


def _without_singletons(spans: list[Span], removed: list[str]) -> list[Span]:
    """The spans of the chains that keep more than one mention in this CoNLL document; the others' mention ids go
    to ``removed``."""
    by_chain: dict[int, list[Span]] = defaultdict(list)
    for span in spans:
        by_chain[span.chain].append(span)
    kept_chains, _ = drop_singletons(by_chain.values())
    kept = {span.mention_id for chain in kept_chains for span in chain}
    removed.extend(span.mention_id for span in spans if span.mention_id not in kept)
    return [span for span in spans if span.mention_id in kept]


def _document_lines(
    name: str, doc_keys: list[str], tokens_by_doc: dict[str, list[TokenRow]], spans: list[Span]
) -> list[str]:
    n_tokens = sum(len(tokens_by_doc[key]) for key in doc_keys)
    labels = iter(bracket_labels(n_tokens, [(span.start, span.end, str(span.chain)) for span in spans], check=True))
    lines = [f"#begin document ({name}); part 000"]
    for doc_key in doc_keys:
        previous_sent = None
        for sent, token_id, text in tokens_by_doc[doc_key]:
            if previous_sent is not None and sent != previous_sent:
                lines.append("")
            previous_sent = sent
            lines.append(f"{doc_key}\t{sent}\t{token_id}\t{token_field(text)}\t{next(labels)}")
        lines.append("")
    lines.append("#end document")
    return lines


def token_field(text: str) -> str:
    """A token as one field: whitespace inside it becomes ``_``; an empty or whitespace-only token is ``_``."""
    return "_".join(text.split()) or "_"
