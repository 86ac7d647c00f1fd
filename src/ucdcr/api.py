"""The Python API: build datasets, load them as Arrow tables, compute the analysis tables, evaluate, score.

``import ucdcr`` exposes these functions lazily (:mod:`ucdcr`); this module holds them. It composes the layers
below and sits above them all: finding and loading a built dataset live in :mod:`ucdcr.sources.discover`
(re-exported here: :func:`list_datasets`, :func:`dataset_dir`, :func:`load`), so that no lower module imports this one.

Building: ``build(datasets, raw_dir, data_dir, jobs, progress, options)`` runs
:func:`ucdcr.pipeline.build.build_dataset` for one dataset id or several, one after the other, and returns the
:class:`~ucdcr.pipeline.build.BuildReport` (a list of them for several ids). ``options`` is a mapping of reader
options, the ``extra`` of :class:`~ucdcr.registry.ReadOptions` (``{"all_sentences": True}`` for ECB+,
``{"texts_dir": path}`` for NewsWCL50r, ``{"outlets": [...]}`` for HyperCoref), given to every dataset's reader,
which decides what it accepts.

Loading: ``load(dataset, split=None, kind="mentions")`` reads ``<data-dir>/<dataset>/all_mentions.parquet`` (one
row per mention, the 29 fields of :data:`ucdcr.schema.MENTION_SCHEMA`) or, with ``kind="documents"``,
``all_documents.parquet`` (one row per token, :data:`ucdcr.schema.DOCUMENT_SCHEMA`). The result is a
``pyarrow.Table`` with exactly that schema, so ``table.to_pandas()`` and ``polars.from_arrow(table)`` work, and the
Parquet files themselves load unchanged with ``datasets.Dataset.from_parquet``.

``dataset`` is a dataset id (``"ecbplus"``) looked up in the data dir, or the path of any folder in the uCDCR
layout, including the authors' released folders, whose list fields are Python repr strings: mentions are read
by :func:`ucdcr.io.load.load_mentions` (the analysis loader), which parses those into real lists, so every
folder loads with the same schema. ``mention_type="event"|"entity"`` keeps the mentions of the
``event_mentions.json`` / ``entity_mentions.json`` files, because the file a mention sits in (not its
``mention_type``) is what makes it an event or an entity.

Benchmark: ``benchmark`` fits, tunes and tests CDCR systems on the built datasets (``ucdcr benchmark``);
``forget_benchmark_runs`` removes a system's stored runs (``ucdcr benchmark --forget NAME``).

Tables: ``stats_tables``, ``diversity_tables``, ``baseline_tables`` and ``evaluate`` return the tables the
``ucdcr stats``, ``diversity``, ``baseline`` and ``evaluate`` commands print
(:class:`~ucdcr.report.tables.ResultTable`: title, columns, rows as dicts, notes), for the datasets chosen as the
commands' ``--data-dir`` / ``--datasets`` choose them: every dataset folder of the data dir by default, else the
given names (our ids or the authors' folder names, looked up in the data dir) or folder paths.

Bad data never ends in a traceback: a file that is not UTF-8, not JSON, of the wrong JSON shape, with a value of
the wrong type or null, or a Parquet file that is empty, truncated or has a column of the wrong type, is one
:class:`~ucdcr.errors.FormatError` naming the file (and record or row, and field); a data dir that is a file or
does not exist is a :class:`~ucdcr.errors.UcdcrError` saying so. Folders whose name starts with ``.`` (a build's
staging or retired output) are never datasets. A table is read from one build even while the dataset is rebuilt
(:func:`ucdcr.io.one_build.consistent`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from ucdcr.errors import UcdcrError
from ucdcr.io.load import check_split
from ucdcr.paths import resolve_data_dir, resolve_raw_dir
from ucdcr.sources.discover import DatasetChoice, dataset_dir, dataset_folders, list_datasets, load

if TYPE_CHECKING:
    from ucdcr.analysis.protocol import Protocol
    from ucdcr.pipeline.build import BuildReport
    from ucdcr.report.tables import ResultTable
    from ucdcr.systems.framework.runner import Benchmark

__all__ = [
    "baseline_tables",
    "benchmark",
    "benchmark_tables",
    "build",
    "dataset_dir",
    "diversity_tables",
    "evaluate",
    "forget_benchmark_runs",
    "list_datasets",
    "load",
    "stats_tables",
]


# --- building ------------------------------------------------------------------------------------------------


@overload
def build(
    datasets: str,
    raw_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    jobs: int = 1,
    progress: bool = True,
    options: Mapping[str, Any] | None = None,
    executor: str = "local",
    ray_address: str | None = None,
) -> BuildReport: ...
@overload
def build(
    datasets: list[str] | tuple[str, ...],
    raw_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    jobs: int = 1,
    progress: bool = True,
    options: Mapping[str, Any] | None = None,
    executor: str = "local",
    ray_address: str | None = None,
) -> list[BuildReport]: ...
def build(
    datasets: str | list[str] | tuple[str, ...],
    raw_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    jobs: int = 1,
    progress: bool = True,
    options: Mapping[str, Any] | None = None,
    executor: str = "local",
    ray_address: str | None = None,
) -> BuildReport | list[BuildReport]:
    """Build datasets from their raw files into ``<data_dir>/<id>``; the build report, or a list for several ids.

    datasets: a dataset id (see :func:`list_datasets`) or a list of them; the first error (e.g.
        :class:`~ucdcr.errors.MissingRawData` naming the missing files) is raised once every build has ended.
    raw_dir: where the raw files are (default: env ``UCDCR_RAW_DIR`` or the user data dir; see ``ucdcr download``).
    data_dir: where built datasets go (default: env ``UCDCR_DATA_DIR`` or the user data dir).
    jobs: worker processes: several datasets are built at once (at most ``jobs``, the largest first), and the rest of
        the workers share each dataset's per-document stages (:mod:`ucdcr.pipeline.several`).
    progress: a line on stderr as each stage begins and ends (the default, as ``ucdcr build``); False: silent.
    executor: "local" (process pool) or "ray" (Ray actors, the ``dist`` extra; on the cluster at ``ray_address`` or a
        local Ray; datasets one after another); the output is the same.
    options: reader options by name, given to every dataset's reader, e.g. ``{"all_sentences": True}`` (ECB+);
        an option the dataset does not declare is an error naming the valid ones.

    Example::

        report = ucdcr.build("ecbplus", raw_dir="raw", data_dir="data", jobs=4)
        report.counts["mentions_written"], report.dropped
    """
    from ucdcr.pipeline.build import build_dataset, executor_for, stage_lines
    from ucdcr.pipeline.executor import ExecutorOptions
    from ucdcr.pipeline.several import BuildRequest, build_datasets

    ids = [datasets] if isinstance(datasets, str) else list(datasets)
    raw, data = resolve_raw_dir(raw_dir), resolve_data_dir(data_dir)
    run = executor_for(ExecutorOptions(executor, jobs, ray_address))  # type: ignore[arg-type]  # checked there
    if len(ids) == 1:  # in this process: an error raised as it happens
        reports = [build_dataset(ids[0], raw, data, progress=progress, options=dict(options or {}), executor=run)]
    else:
        requests = [BuildRequest(dataset_id, dict(options or {})) for dataset_id in ids]
        show = (lambda _: stage_lines) if progress else None
        outcomes = {outcome.dataset_id: outcome for outcome in build_datasets(requests, raw, data, run, show)}
        first_error = next((outcomes[i].error for i in ids if outcomes[i].error is not None), None)
        if first_error is not None:
            raise first_error
        reports = [outcomes[dataset_id].report for dataset_id in ids]  # type: ignore[misc]  # no error: all built
    return reports[0] if isinstance(datasets, str) else reports


# --- the analysis tables -------------------------------------------------------------------------------------


def stats_tables(
    datasets: DatasetChoice = None, data_dir: str | Path | None = None, tables: Sequence[str] | None = None
) -> list[ResultTable]:
    """The statistics tables of ``ucdcr stats``: paper Tables 2, 3, 4, 12 and 9-11 by default.

    datasets: see :data:`DatasetChoice`. tables: their names, e.g. ``["2", "summary"]`` (valid:
    :data:`ucdcr.report.paper_tables.STATS_TABLES`; "summary" is every value).
    """
    from ucdcr.report import paper_tables

    wanted = paper_tables.DEFAULT_STATS_TABLES if tables is None else paper_tables.parse_stats_tables(",".join(tables))
    folders = dataset_folders(datasets, data_dir)
    return paper_tables.stats_tables(folders, wanted)


def diversity_tables(
    datasets: DatasetChoice = None,
    data_dir: str | Path | None = None,
    per_split: bool = False,
    histograms: bool = False,
) -> list[ResultTable]:
    """Paper Table 5 (lexical ambiguity and diversity), as ``ucdcr diversity`` prints it; ``per_split`` adds a table
    per split, ``histograms`` the PD and MTLD histograms (paper Figures 5-6). datasets: see :data:`DatasetChoice`."""
    from ucdcr.report import paper_tables

    folders = dataset_folders(datasets, data_dir)
    return paper_tables.diversity_tables(folders, per_split, histograms)


def baseline_tables(
    datasets: DatasetChoice = None, data_dir: str | Path | None = None, per_setting: bool = False
) -> list[ResultTable]:
    """Paper Tables 6, 7 and 13: the same-head-lemma baseline scored with the uCDCR protocol, as ``ucdcr baseline``
    prints them; ``per_setting`` adds every setting's scores. datasets: see :data:`DatasetChoice`."""
    from ucdcr.report import paper_tables

    folders = dataset_folders(datasets, data_dir)
    return paper_tables.baseline_tables(folders, per_setting)


def evaluate(
    predictions: str | Path | Sequence[str | Path],
    datasets: DatasetChoice = None,
    data_dir: str | Path | None = None,
    split: str = "test",
    per_setting: bool = False,
    protocol: str = "ucdcr",
    remove_singletons: bool = False,
    mentions: str = "gold",
    against: str | Path | None = None,
    resamples: int = 1000,
    significance: str = "randomization",
    references: str = "shipped",
    cache_dir: str | Path | None = None,
    each: bool = False,
    topics: str = "gold",
) -> list[ResultTable]:
    """A system's predicted clusters scored with a protocol and placed among the reference systems, as ``ucdcr
    evaluate`` prints them: Table 13's layout (every dataset, level and type; each score with its 95% bootstrap
    interval, ``resamples`` 0: none), with ``per_setting`` every setting; with ``against`` (another system's
    predictions) the paired comparison; then the leaderboard beside the reference runs of the same signature
    (``references``: "shipped", the runs shipped with ucdcr; "local", those ``ucdcr benchmark`` stored in
    ``cache_dir``; "none") and with ``each`` the comparison with each reference system. ``significance``: the
    p-value's test, "randomization" (exact where the units allow) or "bootstrap".

    predictions: a file in any format of :mod:`ucdcr.analysis.evaluate` (JSON, CSV or a CoNLL-2012 response), or
    an end-to-end system's CoNLL responses per kind, ``["event:events.conll", "entity:entities.conll"]`` (the kind
    of each file's mentions, for ``mentions="predicted"``).
    split: the evaluated split (val to tune a system). datasets: see :data:`DatasetChoice`.
    protocol: "ucdcr" (the paper's) or "standard" (every gold mention, the split as one meta-document;
    ``remove_singletons``: one-mention chains removed from key and response; ``topics``: "gold" or "predicted", what
    the system clustered within, which changes no score but names the setting and its references); see
    :class:`ucdcr.analysis.protocol.Protocol`. mentions: "gold" (the default) or "predicted" (a CoNLL response's own
    mentions scored as v8.01 scores them).
    What was ignored or filled in (predictions for other datasets, unmarked gold mentions), and why a dataset has
    no reference, is in the first table's ``notes``; every table's last note is the signature of its numbers. A
    score with an interval is an :class:`ucdcr.scoring.bootstrap.Estimate` (a float with ``low``, ``high`` and
    ``units``), a p-value a :class:`ucdcr.scoring.bootstrap.PValue` (a float with its ``floor``).

    Example::

        tables = ucdcr.evaluate("preds.json", datasets=["ecbplus"], protocol="standard")
        leaderboard = tables[-1]                       # the reference systems and preds.json, with Δ best and p
        row = leaderboard.rows[-1]; row["ecbplus"].low  # the interval's lower bound
    """
    from ucdcr.analysis.evaluate import read_prediction_files, read_predictions
    from ucdcr.report import paper_tables
    from ucdcr.scoring.bootstrap import METHODS
    from ucdcr.systems.framework.placement import place_predictions

    check_split(split)
    chosen = make_protocol(protocol, topics=topics, singletons=not remove_singletons)
    if significance not in METHODS:
        raise ValueError(f"unknown significance test {significance!r}; valid: {', '.join(METHODS)}")
    files = [predictions] if isinstance(predictions, str | Path) else list(predictions)
    predicted = read_prediction_files(files, mentions)  # type: ignore[arg-type]
    folders = dataset_folders(datasets, data_dir)
    other = read_predictions(against, mentions) if against is not None else None  # type: ignore[arg-type]
    method: Any = significance
    cache = Path(cache_dir) if cache_dir is not None else None
    placed = place_predictions(predicted, folders, split, chosen, references, cache, resamples, method, other, each)
    title = f"evaluation of {predicted.path.name}, {chosen.label} protocol" + (
        "" if split == "test" else f" ({split} split)"
    )
    names = None
    if other is not None:
        names = (predicted.path.name, other.path.name)
        if names[0] == names[1]:
            names = (str(predicted.path), str(other.path))
    tables = paper_tables.placement_tables(placed, title, per_setting, resamples, method, names)
    tables[0].notes[:0] = [*placed.evaluation.notes, *placed.placement.notes]
    return tables


def make_protocol(
    name: str = "ucdcr", level: str | None = None, topics: str = "gold", singletons: bool = True
) -> Protocol:
    """The protocol named by the options of :func:`benchmark` and :func:`evaluate` (an unknown value or an option of
    the other protocol is an error naming the valid ones)."""
    from ucdcr.analysis.protocol import LEVELS, TOPIC_SOURCES, Protocol, ProtocolName

    names = [str(item) for item in ProtocolName]
    if name not in names:
        raise UcdcrError(f"unknown protocol {name!r}; valid protocols: {', '.join(names)}")
    if name == ProtocolName.STANDARD and level not in (None, "topic"):
        raise UcdcrError("level is an option of the ucdcr protocol; the standard protocol clusters within topics")
    if name == ProtocolName.UCDCR and (topics != "gold" or not singletons):
        raise UcdcrError("topics and singletons are options of the standard protocol")
    if level is not None and level not in LEVELS:
        raise UcdcrError(f"unknown level {level!r}; valid levels: {', '.join(LEVELS)}")
    if topics not in TOPIC_SOURCES:
        raise UcdcrError(f"unknown topics {topics!r}; valid: {', '.join(TOPIC_SOURCES)}")
    return Protocol(ProtocolName(name), level or "subtopic", topics, singletons)


def benchmark(
    systems: Sequence[Any] | None = None,
    datasets: DatasetChoice = None,
    data_dir: str | Path | None = None,
    level: str | None = None,
    transfer: bool = False,
    cache_dir: str | Path | None = None,
    recompute: bool = False,
    protocol: str = "ucdcr",
    topics: str = "gold",
    singletons: bool = True,
    seeds: int = 1,
    test: bool = True,
    save_predictions: str | Path | None = None,
    jobs: int = 1,
    executor: str = "local",
    ray_address: str | None = None,
) -> Benchmark:
    """Benchmark CDCR systems on built datasets, as ``ucdcr benchmark`` does (:mod:`ucdcr.systems.framework.runner`).

    systems: registered names (default: the reference systems but the opt-in ones,
        :func:`ucdcr.systems.framework.names.default_systems`),
        ``"module:attribute"`` strings, :class:`ucdcr.systems.System` subclasses or functions returning a System.
        datasets: see :data:`DatasetChoice`.
    protocol: "ucdcr" (the paper's; level: "subtopic", the default, or "topic") or "standard" (the published ECB+
        protocol; topics: "gold" or "predicted"; singletons: False removes one-mention chains from key and response).
    transfer: also fit on every dataset and test on every other (trainable systems).
    cache_dir: encodings and the results file (default: env ``UCDCR_CACHE_DIR`` or the user cache dir). Every run
        is stored there and shown by later ``ucdcr report`` leaderboards; :func:`forget_benchmark_runs` removes a
        system's runs.
    recompute: ignore stored results (encodings stay cached).
    seeds: fit every trainable system with seeds 0 .. seeds-1 (the tables show the mean over seeds and their sd).
    test: False fits and tunes every system and predicts nothing on the test split, storing nothing (development:
        each run holds what the system learned and its val score, ``run.model``, and no means).
    save_predictions: a folder to write every run's test predictions into, as ``ucdcr benchmark
        --save-predictions`` does (files ``ucdcr.evaluate`` reads back to the run's scores).
    jobs, executor, ray_address: where the fits run, as for :func:`build`: this process (``jobs`` 1), ``jobs``
        local processes, or Ray (``executor="ray"``, the ``dist`` extra; at ``ray_address``, else a local Ray); the
        numbers are the same.

    Example::

        result = ucdcr.benchmark(["head-lemma", "lemma-pairs"], datasets=["ecbplus"])
        ucdcr.benchmark_tables(result)[0].rows   # per dataset, system and type: MUC, B3, CEAFe, CoNLL F1
    """
    from ucdcr.pipeline.build import executor_for
    from ucdcr.pipeline.executor import ExecutorOptions
    from ucdcr.systems.framework.names import default_systems
    from ucdcr.systems.framework.runner import benchmark as run_benchmark
    from ucdcr.systems.framework.runner import save_predictions as write_predictions

    chosen = default_systems() if systems is None else list(systems)
    runner = executor_for(ExecutorOptions(executor, jobs, ray_address))  # type: ignore[arg-type]  # checked there
    if save_predictions is not None and not test:
        raise UcdcrError("test=False predicts nothing on the test split: give it without save_predictions")
    result = run_benchmark(
        chosen,
        dataset_folders(datasets, data_dir),
        make_protocol(protocol, level, topics, singletons),
        transfer,
        Path(cache_dir) if cache_dir is not None else None,
        recompute=recompute,
        seeds=seeds,
        predictions=save_predictions is not None,
        test=test,
        executor=runner,
    )
    if save_predictions is not None:
        write_predictions(result, Path(save_predictions))
    return result


def forget_benchmark_runs(system: str, cache_dir: str | Path | None = None) -> int:
    """Remove every stored run of the system named ``system`` (each dataset, protocol and seed) from the results
    file of ``cache_dir`` (default: as :func:`benchmark`), as ``ucdcr benchmark --forget NAME`` does, so that
    ``ucdcr report`` no longer shows it; how many runs were removed. A name without a stored run is a
    :class:`~ucdcr.errors.UcdcrError` naming the file and the systems it holds.

    Example::

        ucdcr.forget_benchmark_runs("same-head-in-doc")   # 1: the README's example system on ecbplus
    """
    from ucdcr.systems.framework.cache import default_cache_dir
    from ucdcr.systems.framework.store import ResultStore

    return ResultStore(Path(cache_dir) if cache_dir is not None else default_cache_dir()).forget(system)


def benchmark_tables(
    result: Benchmark,
    resamples: int = 1000,
    significance: str = "randomization",
    references: str = "shipped",
    cache_dir: str | Path | None = None,
    each: bool = False,
) -> list[ResultTable]:
    """The tables ``ucdcr benchmark`` prints for a :func:`benchmark` result: scores (with the protocol in the
    title), models, the transfer matrices when there are transfer runs, and the leaderboard (CoNLL F1 per system
    and dataset with the means, each system's mean against the best) last, beside the reference runs of the same
    signature of systems the benchmark did not run (``references``: "shipped", "local" from ``cache_dir``, or
    "none"; with ``each``, each system's comparison with every reference system too). Scores carry their 95%
    bootstrap interval (``resamples`` 0: none); ``significance``: the p-value's test, "randomization" or
    "bootstrap"."""
    from ucdcr.report.benchmark_tables import benchmark_tables as tables
    from ucdcr.scoring.bootstrap import METHODS
    from ucdcr.systems.framework.placement import place_runs

    if significance not in METHODS:
        raise ValueError(f"unknown significance test {significance!r}; valid: {', '.join(METHODS)}")
    method: Any = significance
    cache = Path(cache_dir) if cache_dir is not None else None
    placement = place_runs(
        result.runs,
        result.systems,
        result.protocol,
        references,
        cache,
        resamples,
        method,
        each,
        datasets=result.datasets,
        label="this benchmark",
    )
    return tables(result, resamples, method, placement)
