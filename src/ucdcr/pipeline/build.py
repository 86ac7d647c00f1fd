"""Build one dataset: read -> detokenize -> parse -> align -> enrich -> finalize -> validate -> write.

:func:`build_dataset` is the one entry point every dataset shares. The dataset's required raw files (its manifest) are
checked first, all at once; then the output folder is reserved, before the input is read: an unwritable data dir, or
another build of the same dataset, fails before any work. The reader of the dataset (its
:class:`~ucdcr.registry.DatasetSpec`) gives a :class:`~ucdcr.records.SourceCorpus`; the per-document stages
(:mod:`ucdcr.pipeline.document`) run in batches on the executor the caller made (:func:`executor_for`: this process, a
local process pool or Ray, :mod:`ucdcr.pipeline.executor`) and give typed :class:`~ucdcr.records.MentionRecord` s; the
dataset's ``finalize`` hook (if any) takes and returns them; ``is_singleton`` is set per split; the invariants
(docs/build-pipeline.md#invariants) are checked; the folder is written crash-safely (:mod:`ucdcr.pipeline.write`). The
returned :class:`BuildReport` is the content of ``build_report.json`` (plus the wall time, the output folder and, for
a build with the default options, the differences from the dataset's declared counts, which stay out of the files so
rebuilds are byte-identical). Progress goes to a callback (:data:`ProgressCallback`: description, documents done,
documents in all -- known before the first document is parsed), never to a terminal of the library's choosing.
"""

from __future__ import annotations

import gc
import platform
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

from ucdcr.errors import FormatError
from ucdcr.io.output_folder import OutputFolder
from ucdcr.pipeline import nlp as spacy_nlp
from ucdcr.pipeline.document import DocumentTask, StageConfig, TokenColumns
from ucdcr.pipeline.executor import Executor, ExecutorKind, ExecutorOptions, LocalExecutor, batched
from ucdcr.pipeline.spill import RECORD_FIELDS, PackedDocument, ResultSpill, context, pack_results, record_values
from ucdcr.pipeline.validate import check_rows, check_unique_ids
from ucdcr.pipeline.write import KIND_FILES, document_columns, write_dataset
from ucdcr.records import (
    ROW_FIELDS,
    SPLITS,
    DroppedMention,
    MentionKey,
    MentionKind,
    MentionRecord,
    SourceCorpus,
    SourceDocument,
    Split,
    mention_type_of,
)
from ucdcr.registry import DatasetSpec, ReadOptions, get
from ucdcr.sources.download import file_sha256
from ucdcr.version import __version__

DOCUMENTS_PER_BATCH = 64
"""Documents per batch of the per-document stages, whose sentences go through one ``nlp.pipe`` call: ECB+ has about
1.9 parsed sentences a document, so 64 documents fill spaCy's batches of 64 where 16 left one batch part-empty
(0.9 s of a 15 s ECB+ build); a batch's documents are the memory a worker holds."""


@dataclass
class BuildReport:
    """What a build did: counts per stage, drops with reasons, parse rate, versions and input hashes."""

    dataset: str
    paper_name: str
    counts: dict[str, int]
    parse_rate: float
    splits: dict[str, dict[str, int]]
    dropped: list[dict[str, str]]
    unavailable_splits: dict[str, str]
    notes: list[str]
    versions: dict[str, str]
    inputs: dict[str, str]
    options: dict[str, Any]
    output_dir: str = ""
    seconds: float = field(default=0.0, compare=False)
    count_differences: list[str] = field(default_factory=list, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The build_report.json content (no wall time, output path or count differences: rebuilds stay
        byte-identical)."""
        data = asdict(self)
        for key in ("seconds", "output_dir", "count_differences"):
            data.pop(key)
        return data


ProgressCallback = Callable[[str, int, int | None], None]
"""``progress(description, documents done, documents in all or None when unknown)``: called as a build goes on (the
CLI draws its bars from it)."""


def executor_for(options: ExecutorOptions) -> Executor:
    """The executor the options describe, made once by the caller (the CLI, the API) and handed to every build:
    for Ray this checks that Ray imports and that the cluster answers (an :class:`ExecutorError` if not)."""
    if options.kind is ExecutorKind.RAY:
        from ucdcr.pipeline.ray_executor import RayExecutor

        return RayExecutor(options.jobs, options.ray_address)
    return LocalExecutor(options.jobs)


def build_dataset(
    dataset_id: str,
    raw_dir: str | Path,
    data_dir: str | Path,
    jobs: int = 1,
    progress: ProgressCallback | bool | None = None,
    options: ReadOptions | Mapping[str, object] | None = None,
    output_name: str | None = None,
    executor: Executor | None = None,
) -> BuildReport:
    """Build ``<data_dir>/<dataset_id>`` from ``<raw_dir>/<raw_folder>``; returns the build report.

    jobs: worker processes of the local executor (a shorthand when ``executor`` is not given).
    progress: a :data:`ProgressCallback`; ``True``: a line per stage on stderr; None or False: nothing.
    options: the dataset's reader options, or their values by name (checked, see
        :meth:`~ucdcr.registry.DatasetSpec.read_options`).
    output_name: the folder name under ``data_dir`` instead of the dataset id (e.g. ``ecbplus_sample``); such a
        build is not compared with the dataset's declared counts.
    executor: where the per-document stages run (:func:`executor_for`; default ``LocalExecutor(jobs)``); the output
        is the same whatever it is.
    """
    started = time.perf_counter()
    if executor is None:
        executor = executor_for(ExecutorOptions(ExecutorKind.LOCAL, jobs))
    elif jobs != 1:
        raise ValueError("give the number of workers in the executor, not also as jobs")
    show = stage_lines if progress is True else (progress or None)
    spec = get(dataset_id)
    checked = spec.read_options(options)
    raw = Path(raw_dir) / spec.raw_folder
    spec.check_raw_files(raw, checked)
    with OutputFolder(Path(data_dir) / (output_name or spec.id)) as output:
        corpus = spec.reader(raw, checked)
        total = corpus.document_count if corpus.stream is not None else len(corpus.documents)
        reading = f"{spec.id}: reading and parsing"
        if show:
            show(reading, 0, total)
        built = _Built()
        with ResultSpill(output.scratch(SPILL_FILE)) as spill, _collector_eased(executor):
            config = StageConfig(spec.context_rule, spec.reparse, spec.mention_id_prefix)
            batches = batched(_tasks(corpus, built), DOCUMENTS_PER_BATCH)
            for packed_batch in executor.map(partial(pack_results, config=config), batches, load_frozen):
                for packed in packed_batch:
                    spill.add(packed)
                    built.results.append(packed)
                if show:
                    show(reading, len(built.results), total)
            if show:
                show(f"{spec.id}: validating and writing", len(built.results), len(built.results))
            beside = isinstance(executor, LocalExecutor) and executor.jobs > 1
            report = _finish(spec, raw, corpus, built, spill, output, checked, beside=beside)
    report.seconds = time.perf_counter() - started
    if not checked.given() and output_name is None:  # the dataset itself, not a sample or a partial build
        report.count_differences = spec.count_differences(report.counts, report.splits)
    return report


YOUNG_OBJECTS = 100_000
"""The garbage collector's first threshold while a build runs (Python's default is 700). The stages make many
objects and drop nearly all of them by reference counting (an ECB+ build leaves some 2,000 in cycles): a young
collection every 700 objects only promoted a batch's live objects to the older generations, which full collections
then scanned again; at 100,000 an ECB+ build collects once or twice."""


def load_frozen() -> None:
    """A worker's warm-up: load spaCy, then leave everything the worker holds so far (the pipeline: some 240,000
    objects) out of the garbage collector's scans for good (``gc.freeze``), and collect young objects less often
    (:data:`YOUNG_OBJECTS`), as :func:`_collector_eased` does in the building process."""
    spacy_nlp.load_nlp()
    gc.freeze()
    gc.set_threshold(max(gc.get_threshold()[0], YOUNG_OBJECTS), *gc.get_threshold()[1:])


@contextmanager
def _collector_eased(executor: Executor) -> Iterator[None]:
    """While the build runs, the garbage collector works less, and as before after: the objects that exist before
    the build -- with the stages in this process (``-j 1``), the loaded spaCy pipeline: some 240,000 objects -- are
    left out of its scans (``gc.freeze``; not if the caller froze objects itself), and young objects are collected
    every :data:`YOUNG_OBJECTS` instead of 700. With Python's defaults, collecting took 3-4 s of a 15 s ``-j 1``
    ECB+ build (full collections scanned the pipeline again and again); now a few hundredths of a second."""
    if isinstance(executor, LocalExecutor) and executor.jobs == 1:
        spacy_nlp.load_nlp()
    thresholds = gc.get_threshold()
    freeze = not gc.get_freeze_count()
    if freeze:
        gc.freeze()
    gc.set_threshold(max(thresholds[0], YOUNG_OBJECTS), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if freeze:
            gc.unfreeze()


def stage_lines(description: str, done: int, total: int | None) -> None:
    """The plain progress of ``progress=True``: a line on stderr when a stage begins and when it is done."""
    if done == 0 or done == total:
        print(f"{description} ({done}/{total if total is not None else '?'} documents)", file=sys.stderr, flush=True)


SPILL_FILE = "results.spill"  # a scratch file of the staging folder, removed before the swap


@dataclass(slots=True)
class _DocumentInfo:
    doc_key: str
    split: Split
    topic_id: str
    subtopic_id: str

    @classmethod
    def of(cls, document: SourceDocument) -> _DocumentInfo:
        """The document's place; topic ids shared between documents (a streamed corpus makes one copy each)."""
        return cls(document.doc_key, document.split, sys.intern(document.topic_id), sys.intern(document.subtopic_id))


@dataclass
class _Built:
    """What the build keeps in memory of a corpus: per document its place, per mention its compact key."""

    documents: list[_DocumentInfo] = field(default_factory=list)
    results: list[PackedDocument] = field(default_factory=list)
    orphans: list[DroppedMention] = field(default_factory=list)
    mentions_read: int = 0


def _tasks(corpus: SourceCorpus, built: _Built | None = None) -> Iterator[DocumentTask]:
    """The corpus's documents with their mentions, checked, as they come (a streaming reader's or from the lists).

    Records each document's place in ``built``, and the mentions whose document is not in the corpus."""
    built = built if built is not None else _Built()
    source_of: dict[str, str] = {}  # doc key -> its source file (not the document: its tokens would stay in memory)
    for document, mentions in corpus.parts():
        if document.doc_key in source_of:  # two raw documents under one key would silently share their mentions
            raise FormatError(
                document.source_file or document.doc_key,
                f"document key {document.doc_key!r} is also the key of "
                f"{source_of[document.doc_key] or 'another document'}",
            )
        source_of[document.doc_key] = document.source_file or ""
        _check_document(document)
        built.documents.append(_DocumentInfo.of(document))
        built.mentions_read += len(mentions)
        yield DocumentTask(document, mentions)
    built.orphans = [
        DroppedMention(m.doc_key, m.source_id, ",".join(m.token_ids), "", "document not in the corpus", "read")
        for m in corpus.orphan_mentions(source_of)
    ]
    built.mentions_read += len(built.orphans)


def _check_document(document: SourceDocument) -> None:
    """Token ids unique and each sentence one contiguous run (checked here, not in workers, for clear errors)."""
    ids = list(map(itemgetter(0), document.tokens))  # SourceToken: token_id, text, sent_id, space_after
    runs = [sent_id for sent_id, _ in groupby(map(itemgetter(2), document.tokens))]
    if len(set(ids)) == len(ids) and len(set(runs)) == len(runs):
        return
    seen_tokens: set[str] = set()
    finished_sentences: set[int] = set()
    current: int | None = None
    for token in document.tokens:
        if token.token_id in seen_tokens:
            raise FormatError(document.source_file or document.doc_key, f"duplicate token id {token.token_id!r}")
        seen_tokens.add(token.token_id)
        if token.sent_id != current:
            if token.sent_id in finished_sentences:
                raise FormatError(
                    document.source_file or document.doc_key,
                    f"sentence {token.sent_id} is not contiguous "
                    f"(token {token.token_id!r} comes after another sentence)",
                )
            if current is not None:
                finished_sentences.add(current)
            current = token.sent_id


def _finish(
    spec: DatasetSpec,
    raw: Path,
    corpus: SourceCorpus,
    built: _Built,
    spill: ResultSpill,
    output: OutputFolder,
    options: ReadOptions,
    beside: bool,
) -> BuildReport:
    """The whole-dataset steps on the compact keys, then the output written document by document (``beside``: the
    token table in a forked process beside the mentions; not where Ray runs in this process, whose threads a fork
    would not carry)."""
    dropped = list(corpus.dropped) + built.orphans + [d for result in built.results for d in result.dropped]
    aligned = sum(len(result.mentions) for result in built.results)
    finalized: dict[str, list[MentionRecord]] | None = None
    if spec.finalize is not None:  # chain rules need the chains' records
        records, finalize_dropped = spec.finalize([r for d in built.documents for r in spill.records(d.doc_key)])
        dropped.extend(finalize_dropped)
        finalized = defaultdict(list)
        for record in records:
            finalized[record.conll_doc_key].append(record)
        for result in built.results:
            result.mentions = [MentionKey.of(record) for record in finalized[result.doc_key]]
    chain_types: Mapping[str, tuple[str, MentionKind]] | None = None
    if spec.chain_types is not None:  # chain rules over the compact keys
        chain_types = spec.chain_types(key for result in built.results for key in result.mentions)
        for result in built.results:
            result.mentions = [replace(key, kind=chain_types[key.coref_chain][1]) for key in result.mentions]
    check_unique_ids(key.mention_id for result in built.results for key in result.mentions)
    chain_sizes = Counter((split, chain) for split, chain, _ in _mention_keys(built))
    report = _report(spec, raw, corpus, built, chain_sizes, dropped, aligned, options)
    writer = _DatasetWriter(built, spill, finalized, chain_types, chain_sizes)
    documents = writer.document_table() if spec.texts_redistributable else None
    spill.flush()
    write_dataset(output, writer.mentions, documents, report.to_json(), documents_beside=beside)
    report.output_dir = str(output.path)
    return report


def _mention_keys(built: _Built) -> Iterator[tuple[str, str, str]]:
    """(split, chain, kind) of every written mention."""
    for document, result in zip(built.documents, built.results, strict=True):
        for key in result.mentions:
            yield document.split, key.coref_chain, key.kind


HELD_ROWS = 8192
"""Rows of a split's second file (entities) the writer keeps while it writes the first (events), so as not to read
their documents from the spill again (some 3 KB each, their contexts mostly: at most ~25 MB)."""


class _DatasetWriter:
    """The output rows, document by document from the spill: records typed by the chain rule (if any), ordered,
    flagged and checked. A record is the tuple of its values (:data:`~ucdcr.pipeline.spill.RECORD_FIELDS`) and a row
    the dict of its 29 fields. Writing a split's first file (events) makes the rows of all its records, the second
    file's (entities) kept for it up to :data:`HELD_ROWS` rows; the second file takes those and makes the others
    again."""

    def __init__(
        self,
        built: _Built,
        spill: ResultSpill,
        finalized: dict[str, list[MentionRecord]] | None,
        chain_types: Mapping[str, tuple[str, MentionKind]] | None,
        chain_sizes: Counter[tuple[str, str]],
    ) -> None:
        self.built = built
        self.spill = spill
        self.finalized = finalized
        self.chain_types = chain_types
        self.chain_sizes = chain_sizes
        self.held: dict[str, list[dict[str, Any]]] = {}  # doc key -> its rows of the split's second file

    def mentions(self, split: str, kind: str) -> Iterator[dict[str, Any]]:
        """The rows of one split's JSON file; the invariants are checked on the first file of each split."""
        if kind == KIND_FILES[0][0]:
            yield from self._first_file(split, kind)
            return
        for document in self._documents(split):
            held = self.held.pop(document.doc_key, None)
            if held is not None:
                yield from held
                continue
            records, tokens = self._document(document)
            yield from (self._row(split, values, tokens) for values in records if values[_KIND] == kind)

    def _first_file(self, split: str, kind: str) -> Iterator[dict[str, Any]]:
        """The rows of the split's first file; every row of its documents checked, the others kept (up to
        :data:`HELD_ROWS`)."""
        self.held.clear()
        room = HELD_ROWS
        for document in self._documents(split):
            records, tokens = self._document(document)
            rows = [self._row(split, values, tokens) for values in records]
            self._check(document, rows, tokens)
            others = [row for row, values in zip(rows, records, strict=True) if values[_KIND] != kind]
            if len(others) <= room:
                self.held[document.doc_key] = others
                room -= len(others)
            yield from (row for row, values in zip(rows, records, strict=True) if values[_KIND] == kind)

    def document_table(self) -> Iterator[dict[str, list[Any]]]:
        """The token table, one column batch per document (its reference column as the workers made it, unless
        the dataset's finalize hook changed the records)."""
        for split in SPLITS:
            for document in self._documents(split):
                if self.finalized is None:
                    tokens, reference = self.spill.token_table(document.doc_key)
                    yield document_columns(document.doc_key, split, tokens, reference=reference)
                    continue
                records, tokens = self._document(document)
                spans = [
                    {"sent_id": r[_SENT_ID], "tokens_number": r[_TOKENS_NUMBER], "coref_chain": r[_CHAIN]}
                    for r in records
                ]
                yield document_columns(document.doc_key, split, tokens, spans)

    def _documents(self, split: str) -> Iterator[_DocumentInfo]:
        return (document for document in self.built.documents if document.split == split)

    def _document(self, document: _DocumentInfo) -> tuple[list[tuple[Any, ...]], TokenColumns]:
        """The values of the document's records in output order, typed by the chain rule if there is one (from the
        spill, their context None), and the document's tokens."""
        key = document.doc_key
        if self.finalized is not None:
            records, tokens = [record_values(record) for record in self.finalized[key]], self.spill.tokens(key)
        else:
            records, tokens = self.spill.stored(key)
        if self.chain_types is not None:
            records = [_typed(values, *self.chain_types[values[_CHAIN]]) for values in records]
        return sorted(records, key=_output_order), tokens

    def _row(self, split: str, values: tuple[Any, ...], tokens: TokenColumns) -> dict[str, Any]:
        """The row of a record, with is_singleton set (its chain has one mention in the split) and the context
        taken from the tokens if the record has none."""
        row = dict(zip(ROW_FIELDS, values, strict=False))  # the 29 fields; the kind, last, stays out
        row["is_singleton"] = self.chain_sizes[(split, values[_CHAIN])] == 1
        if row["mention_context"] is None:
            row["mention_context"] = context(values, tokens)
        return row

    def _check(self, document: _DocumentInfo, rows: list[dict[str, Any]], columns: TokenColumns) -> None:
        key = document.doc_key
        tokens = list(zip(columns.sent_id, columns.token_id, columns.token, strict=True))
        check_rows(rows, {key: tokens}, {key: document.split}, self.chain_sizes)


_SENT_ID, _TOKENS_NUMBER, _MENTION_ID, _CHAIN, _KIND, _FULL_TYPE, _TYPE = (
    RECORD_FIELDS.index(name)
    for name in ("sent_id", "tokens_number", "mention_id", "coref_chain", "kind", "mention_full_type", "mention_type")
)


def _output_order(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """A document's mentions are written by sentence, first token, length and id."""
    numbers = values[_TOKENS_NUMBER]
    return values[_SENT_ID], numbers[0], len(numbers), values[_MENTION_ID]


def _typed(values: tuple[Any, ...], full_type: str, kind: MentionKind) -> tuple[Any, ...]:
    """The values of ``record.with_type(full_type, kind)``."""
    typed = list(values)
    typed[_FULL_TYPE], typed[_TYPE], typed[_KIND] = full_type, mention_type_of(full_type), kind
    return tuple(typed)


def _report(
    spec: DatasetSpec,
    raw: Path,
    corpus: SourceCorpus,
    built: _Built,
    chain_sizes: Counter[tuple[str, str]],
    dropped: list[DroppedMention],
    aligned: int,
    options: ReadOptions,
) -> BuildReport:
    stage_drops = Counter(d.stage for d in dropped)
    annotated = corpus.counts.get("annotated", built.mentions_read + stage_drops.get("read", 0))
    written = sum(chain_sizes.values())
    counts = {
        **{f"reader_{k}": v for k, v in sorted(corpus.counts.items())},
        "documents": len(built.documents),
        "tokens": sum(r.tokens for r in built.results),
        "sentences_parsed": sum(r.parsed_sentences for r in built.results),
        "mentions_annotated": annotated,
        "mentions_read": built.mentions_read,
        "mentions_aligned": aligned,
        "mentions_written": written,
        **{f"dropped_{stage}": n for stage, n in sorted(stage_drops.items())},
    }
    return BuildReport(
        dataset=spec.id,
        paper_name=spec.paper_name,
        counts=counts,
        parse_rate=round(100.0 * written / annotated, 2) if annotated else 0.0,
        splits=_split_counts(built, chain_sizes),
        dropped=[asdict(d) for d in dropped],
        unavailable_splits=dict(corpus.unavailable_splits),
        notes=list(corpus.notes),
        versions={"ucdcr": __version__, "python": platform.python_version(), **spacy_nlp.model_info()},
        inputs=_input_hashes(raw, corpus.inputs),
        options={name: _option_text(value) for name, value in sorted(options.given().items())},
    )


def _option_text(value: Any) -> str:
    """An option value as the build report shows it (a tuple of names as a list)."""
    return str(list(value)) if isinstance(value, tuple) else str(value)


def _split_counts(built: _Built, chain_sizes: Counter[tuple[str, str]]) -> dict[str, dict[str, int]]:
    tokens = {r.doc_key: r.tokens for r in built.results}
    kinds: Counter[tuple[str, str]] = Counter()
    for split, _, kind in _mention_keys(built):
        kinds[(split, kind)] += 1
    counts: dict[str, dict[str, int]] = {}
    for split in SPLITS:
        documents = [d for d in built.documents if d.split == split]
        chains = {chain: n for (s, chain), n in chain_sizes.items() if s == split}
        counts[split] = {
            "topics": len({d.topic_id for d in documents}),
            "subtopics": len({d.subtopic_id for d in documents}),
            "documents": len(documents),
            "tokens": sum(tokens.get(d.doc_key, 0) for d in documents),
            "mentions": sum(chains.values()),
            "event_mentions": kinds[(split, "event")],
            "entity_mentions": kinds[(split, "entity")],
            "chains": len(chains),
            "singletons": sum(1 for n in chains.values() if n == 1),
        }
    return counts


def _input_hashes(raw: Path, inputs: list[Path]) -> dict[str, str]:
    """sha256 of each input file, by its resolved path relative to the resolved raw folder (else its path)."""
    hashes = {}
    root = raw.resolve()
    resolve = _Resolver()
    for path in inputs:
        try:
            name = resolve(Path(path)).relative_to(root).as_posix()
        except ValueError:
            name = str(path)
        hashes[name] = file_sha256(path)
    return dict(sorted(hashes.items()))


class _Resolver:
    """``path.resolve()``, each folder resolved once (ECB+ has 982 input files in 43 folders): a file that is not
    a symbolic link resolves to its resolved folder joined with its name."""

    def __init__(self) -> None:
        self.folders: dict[Path, Path] = {}

    def __call__(self, path: Path) -> Path:
        if path.name in ("", ".", "..") or path.is_symlink():
            return path.resolve()
        folder = self.folders.get(path.parent)
        if folder is None:
            folder = self.folders[path.parent] = path.parent.resolve()
        return folder / path.name
