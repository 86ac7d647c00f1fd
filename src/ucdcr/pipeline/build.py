"""Build one dataset: read -> detokenize -> parse -> align -> enrich -> finalize -> validate -> write.

:func:`build_dataset` is the one entry point every dataset shares. The dataset's required raw files (its manifest)
are checked first, all at once; then the output folder is reserved, before the input is read: an unwritable data
dir, or another build of the same dataset, fails before any work. The reader of the dataset (its
:class:`~ucdcr.registry.DatasetSpec`) gives a :class:`~ucdcr.records.SourceCorpus`; the per-document stages
(:mod:`ucdcr.pipeline.document`) run in batches over a process pool and give typed
:class:`~ucdcr.records.MentionRecord` s; the dataset's ``finalize`` hook (if any) takes and returns them;
``is_singleton`` is set per split; the invariants of DESIGN.md §4 are checked; the folder is written crash-safely
(:mod:`ucdcr.io.writer`). The returned :class:`BuildReport` is the content of ``build_report.json`` (plus the wall
time, the output folder and, for a build with the default options, the differences from the dataset's declared
counts, which stay out of the files so rebuilds are byte-identical).
"""

from __future__ import annotations

import platform
import time
from collections import Counter, defaultdict
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from ucdcr import __version__
from ucdcr.download import file_sha256
from ucdcr.errors import FormatError
from ucdcr.io.output_folder import OutputFolder
from ucdcr.io.writer import document_rows, write_dataset
from ucdcr.pipeline import nlp as spacy_nlp
from ucdcr.pipeline.document import DocumentResult, DocumentTask, StageConfig, process_documents
from ucdcr.pipeline.executor import batched, map_batches
from ucdcr.pipeline.validate import check_disjoint_splits, check_records, singleton_flags
from ucdcr.records import SPLITS, DroppedMention, MentionRecord, SourceCorpus, SourceDocument, SourceMention
from ucdcr.registry import DatasetSpec, ReadOptions, get

DOCUMENTS_PER_BATCH = 16


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


def build_dataset(
    dataset_id: str,
    raw_dir: str | Path,
    data_dir: str | Path,
    jobs: int = 1,
    progress: bool = True,
    options: ReadOptions | Mapping[str, object] | None = None,
    output_name: str | None = None,
) -> BuildReport:
    """Build ``<data_dir>/<dataset_id>`` from ``<raw_dir>/<raw_folder>``; returns the build report.

    options: the dataset's reader options, or their values by name (checked, see
        :meth:`~ucdcr.registry.DatasetSpec.read_options`).
    output_name: the folder name under ``data_dir`` instead of the dataset id (e.g. ``ecbplus_sample``); such a
        build is not compared with the dataset's declared counts.
    """
    started = time.perf_counter()
    spec = get(dataset_id)
    checked = spec.read_options(options)
    raw = Path(raw_dir) / spec.raw_folder
    spec.check_raw_files(raw, checked)
    with OutputFolder(Path(data_dir) / (output_name or spec.id)) as output, _progress(progress) as bar:
        task = bar.add_task(f"{spec.id}: reading", total=None) if bar else None
        corpus = spec.reader(raw, checked)
        check_disjoint_splits([(d.doc_key, d.split) for d in corpus.documents])
        tasks, orphans = _tasks(corpus)
        if bar:
            bar.update(task, description=f"{spec.id}: parsing", total=len(tasks), completed=0)
        results = _run_document_stages(spec, tasks, jobs, lambda n: bar.advance(task, n) if bar else None)
        if bar:
            bar.update(task, description=f"{spec.id}: validating and writing")
        report = _finish(spec, raw, corpus, results, orphans, output, checked)
    report.seconds = time.perf_counter() - started
    if not checked.given() and output_name is None:  # the dataset itself, not a sample or a partial build
        report.count_differences = spec.count_differences(report.counts, report.splits)
    return report


def _progress(enabled: bool) -> Any:
    if not enabled:
        return nullcontext(None)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())


def _tasks(corpus: SourceCorpus) -> tuple[list[DocumentTask], list[DroppedMention]]:
    first_of: dict[str, SourceDocument] = {}
    for document in corpus.documents:
        _check_document(document)
        first = first_of.setdefault(document.doc_key, document)
        if first is not document:  # two raw documents under one key would silently share their mentions
            raise FormatError(
                document.source_file or document.doc_key,
                f"document key {document.doc_key!r} is also the key of {first.source_file or 'another document'}",
            )
    by_document: dict[str, list[SourceMention]] = defaultdict(list)
    for mention in corpus.mentions:
        by_document[mention.doc_key].append(mention)
    tasks = [DocumentTask(document, by_document.pop(document.doc_key, [])) for document in corpus.documents]
    orphans = [
        DroppedMention(key, m.source_id, ",".join(m.token_ids), "", "document not in the corpus", "read")
        for key, mentions in by_document.items()
        for m in mentions
    ]
    return tasks, orphans


def _check_document(document: SourceDocument) -> None:
    """Token ids unique and each sentence one contiguous run (checked here, not in workers, for clear errors)."""
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


def _run_document_stages(spec: DatasetSpec, tasks: list[DocumentTask], jobs: int, advance: Any) -> list[DocumentResult]:
    config = StageConfig(spec.context_rule, spec.reparse, spec.mention_id_prefix)
    results: list[DocumentResult] = []
    batches = batched(tasks, DOCUMENTS_PER_BATCH)
    for batch_results in map_batches(partial(process_documents, config=config), batches, jobs):
        results.extend(batch_results)
        advance(len(batch_results))
    return results


def _finish(
    spec: DatasetSpec,
    raw: Path,
    corpus: SourceCorpus,
    results: list[DocumentResult],
    orphans: list[DroppedMention],
    output: OutputFolder,
    options: ReadOptions,
) -> BuildReport:
    documents = {d.doc_key: d for d in corpus.documents}
    records = [record for result in results for record in result.records]
    dropped = list(corpus.dropped) + orphans + [d for result in results for d in result.dropped]
    aligned = len(records)
    if spec.finalize is not None:
        records, finalize_dropped = spec.finalize(records)
        dropped.extend(finalize_dropped)
    order = {key: i for i, key in enumerate(documents)}
    records.sort(
        key=lambda r: (
            SPLITS.index(r.split),
            order.get(r.conll_doc_key, -1),
            r.sent_id,
            r.tokens_number[0],
            len(r.tokens_number),
            r.mention_id,
        )
    )
    records = [replace(record, is_singleton=flag) for record, flag in zip(records, singleton_flags(records))]
    tokens = {r.doc_key: r.tokens for r in results}
    check_records(
        records,
        {key: [(t.sent_id, t.token_id, t.token) for t in toks] for key, toks in tokens.items()},
        {key: d.split for key, d in documents.items()},
    )
    rows = [record.as_row() for record in records]
    kinds = [record.kind for record in records]
    report = _report(spec, raw, corpus, results, records, dropped, aligned, options)
    document_table = _document_table(corpus, tokens, rows) if spec.texts_redistributable else None
    write_dataset(output, rows, kinds, document_table, report.to_json())
    report.output_dir = str(output.path)
    return report


def _document_table(
    corpus: SourceCorpus, tokens: dict[str, list[Any]], rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    by_document: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_document[row["conll_doc_key"]].append(row)
    table: list[dict[str, Any]] = []
    for split in SPLITS:
        for document in corpus.documents:
            if document.split == split:
                table.extend(
                    document_rows(document.doc_key, split, tokens[document.doc_key], by_document[document.doc_key])
                )
    return table


def _report(
    spec: DatasetSpec,
    raw: Path,
    corpus: SourceCorpus,
    results: list[DocumentResult],
    records: list[MentionRecord],
    dropped: list[DroppedMention],
    aligned: int,
    options: ReadOptions,
) -> BuildReport:
    stage_drops = Counter(d.stage for d in dropped)
    annotated = corpus.counts.get("annotated", len(corpus.mentions) + stage_drops.get("read", 0))
    counts = {
        **{f"reader_{k}": v for k, v in sorted(corpus.counts.items())},
        "documents": len(corpus.documents),
        "tokens": sum(len(r.tokens) for r in results),
        "sentences_parsed": sum(r.parsed_sentences for r in results),
        "mentions_annotated": annotated,
        "mentions_read": len(corpus.mentions),
        "mentions_aligned": aligned,
        "mentions_written": len(records),
        **{f"dropped_{stage}": n for stage, n in sorted(stage_drops.items())},
    }
    return BuildReport(
        dataset=spec.id,
        paper_name=spec.paper_name,
        counts=counts,
        parse_rate=round(100.0 * len(records) / annotated, 2) if annotated else 0.0,
        splits=_split_counts(corpus, results, records),
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


def _split_counts(
    corpus: SourceCorpus, results: list[DocumentResult], records: list[MentionRecord]
) -> dict[str, dict[str, int]]:
    tokens = {r.doc_key: len(r.tokens) for r in results}
    counts: dict[str, dict[str, int]] = {}
    for split in SPLITS:
        documents = [d for d in corpus.documents if d.split == split]
        mentions = [r for r in records if r.split == split]
        counts[split] = {
            "topics": len({d.topic_id for d in documents}),
            "subtopics": len({d.subtopic_id for d in documents}),
            "documents": len(documents),
            "tokens": sum(tokens.get(d.doc_key, 0) for d in documents),
            "mentions": len(mentions),
            "event_mentions": sum(1 for r in mentions if r.kind == "event"),
            "entity_mentions": sum(1 for r in mentions if r.kind == "entity"),
            "chains": len({r.coref_chain for r in mentions}),
            "singletons": sum(1 for r in mentions if r.is_singleton),
        }
    return counts


def _input_hashes(raw: Path, inputs: list[Path]) -> dict[str, str]:
    hashes = {}
    for path in inputs:
        try:
            name = Path(path).resolve().relative_to(raw.resolve()).as_posix()
        except ValueError:
            name = str(path)
        hashes[name] = file_sha256(path)
    return dict(sorted(hashes.items()))
