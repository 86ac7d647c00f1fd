"""``ucdcr benchmark``: fit each system on a train split, tune it on a val split, predict the test split, and score
the predictions with the run's protocol (:class:`~ucdcr.analysis.protocol.Protocol`: ``ucdcr`` at subtopic or topic
level, or ``standard``) through :func:`ucdcr.analysis.evaluate.evaluate` (the code path of ``ucdcr evaluate``,
hence of ``ucdcr baseline``).

Runs (:class:`Run`): a system, the split it is fitted on, the split it is tuned on, and the dataset it is tested on.

- In-domain (the leaderboard): dataset D is fitted on D's train split and tuned on D's val split. Fallback for a
  dataset without a train split (CEREC): the model is fitted on the train split of the *fallback dataset*, the
  selected dataset with the most training mentions (ECB+ when it is selected), and tuned on D's own val split;
  without a val split, it is tuned on the fallback dataset's val split. Every number says which splits it used.
- Transfer (``--transfer``, trainable systems only): for every pair (A, B) of selected datasets, fitted on A's
  train split, tuned on A's val split, tested on B. A source without a train split is fitted on its val split
  (and tuned on it too); one without a val split is tuned on its train split. The diagonal (A = A) is the
  in-domain run where A has both splits, so it is computed once.

Seeds (``seeds``): a trainable system runs once per seed 0 .. seeds-1
(:attr:`~ucdcr.systems.framework.base.System.seed`, set before ``fit``); a system that learns nothing runs with seed 0
only. Every run keeps its seed, and the tables give the mean and standard deviation over seeds beside each seed's
bootstrap interval.

What a system sees (:class:`~ucdcr.systems.framework.base.SplitData`): train and val = every mention of the split with
its gold fields; test = every mention of the split (singletons included) without the fields its dataset declares
gold-derived, without any path to the dataset, and with no sign of which mentions the protocol scores. Units: a system
clusters within the protocol's units (subtopics or topics; with predicted topics, the document clusters of
:mod:`ucdcr.systems.framework.topics`, tuned on the tuning split's gold topics); its cluster ids are made unique per
unit before scoring. Predictions are checked as ``ucdcr evaluate`` checks a file (a cluster id that is not a string or a
number, a prediction for a mention that is not a test mention of the dataset: the same error messages) and must cover
every test mention; the protocol then selects what it scores from the gold and the predictions alike.

Stored results (:mod:`ucdcr.systems.framework.store`): every run is stored under a key made of the system's identity,
the protocol, the datasets' content fingerprints (and the encoder's identity for encoder-based systems); a later run
with the same key reuses the stored scores without loading a model, and ``ucdcr report`` shows them. A system is fitted
once per (fit split, tune split) and predicts only the runs of that fit that are not stored (adding ``--transfer`` or a
dataset to a run that is stored predicts the new runs alone).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from ucdcr.errors import UcdcrError
from ucdcr.extras import extra_of, needs, require
from ucdcr.io.atomic import write_errors
from ucdcr.pipeline.executor import Executor, LocalExecutor, Resources
from ucdcr.records import SPLITS
from ucdcr.systems.framework import adapter
from ucdcr.systems.framework.base import GOLD_TOKEN_COLUMN, SplitData, System
from ucdcr.systems.framework.cache import COMPUTE_CLOCK, default_cache_dir
from ucdcr.systems.framework.names import BUILTIN, SystemSpec, resolve_system
from ucdcr.systems.framework.plan import FitStep, Schedule, estimate_seconds
from ucdcr.systems.framework.runs import Run, SplitRef
from ucdcr.systems.framework.standings import mean_json, run_signature
from ucdcr.systems.framework.store import ResultStore, StoredRun, dataset_fingerprint, machine, machine_label, now
from ucdcr.systems.framework.topics import document_clusters, document_texts, tune_threshold, with_predicted_topics

Progress = Callable[[str, int, int], None]
"""progress(description, done, total): called before each step and once at the end."""
SystemChoice = str | type[System] | Callable[[], System]


@dataclass
class Benchmark:
    """The stored runs of one benchmark, and how long it took (``encoding_seconds``: computing encoder vectors and
    sentence lemmas; ``reused``: runs taken from the results file). Its tables:
    :func:`ucdcr.report.benchmark_tables.benchmark_tables` (``ucdcr.benchmark_tables(result)``)."""

    protocol: adapter.Protocol
    systems: list[str]
    datasets: list[str]
    runs: list[StoredRun] = field(default_factory=list)
    transfer: bool = False
    seconds: float = 0.0
    encoding_seconds: float = 0.0
    reused: int = 0
    results_file: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def level(self) -> adapter.Level:
        return self.protocol.level


@dataclass
class _DatasetSplits:
    """The splits of one dataset, loaded on first use and shared by every system of a run (their memos too)."""

    name: str
    folder: Path
    protocol: adapter.Protocol
    cache_dir: Path
    _tables: dict[str, pa.Table] = field(default_factory=dict)
    _splits: dict[str, SplitData] = field(default_factory=dict)
    _topics: dict[str, dict[str, str]] = field(default_factory=dict)
    _topic_notes: dict[str, str] = field(default_factory=dict)
    fingerprint: str = ""
    _generation: object = None

    def table(self, split: str) -> pa.Table:
        """Every mention of the split with every field (the gold included); all splits and the fingerprint are read
        from one build, also while the dataset is rebuilt (:func:`ucdcr.io.one_build.consistent`)."""
        if not self._tables:
            self._tables, self.fingerprint, self._generation = adapter.consistent([self.folder], self._read)
        return self._tables[split]

    def _read(self) -> tuple[dict[str, pa.Table], str, object]:
        generation = adapter.generation(self.folder)
        tables: dict[str, pa.Table] = {split: adapter.load_split(self.folder, split)[0] for split in SPLITS}
        return tables, dataset_fingerprint(self.folder), generation

    def tokens(self, split: str, gold: bool) -> pa.Table | None:
        """The token table of a split (without the gold column unless ``gold``), from the build the mentions came
        from: a dataset rebuilt since is an error, not a mix."""
        self.table(split)
        table = adapter.load_tokens(self.folder, split)
        if adapter.generation(self.folder) != self._generation:
            raise UcdcrError(f"{self.folder} was rebuilt during the benchmark; run the benchmark again")
        if table is not None and not gold and GOLD_TOKEN_COLUMN in table.column_names:
            table = table.drop_columns([GOLD_TOKEN_COLUMN])
        return table

    def single_document_units(self) -> bool:
        """Whether every unit the protocol clusters within holds one test document: the numbers of such a dataset
        measure within-document coreference."""
        table = self.table("test")
        if self.protocol.topics == "predicted" or not table.num_rows:
            return False
        column = "topic_id" if self.protocol.level == "topic" else "subtopic_id"
        documents: dict[str, set[str]] = {}
        for unit, key in zip(table[column].to_pylist(), table["conll_doc_key"].to_pylist(), strict=True):
            documents.setdefault(unit, set()).add(key)
        return all(len(keys) == 1 for keys in documents.values())

    def has(self, split: str) -> bool:
        return bool(adapter.evaluated_rows(self.table(split), split, self.protocol))

    def size(self, split: str) -> int:
        return self.table(split).num_rows

    def data(self, split: str) -> SplitData:
        """train and val: every mention with gold; test: every mention without the gold-derived fields."""
        if split not in self._splits:
            gold = split != "test"
            table = self.table(split)
            if not gold:
                hidden = set(adapter.gold_fields(self.folder))
                table = table.drop_columns([name for name in table.column_names if name in hidden])
            if split in self._topics:
                table = with_predicted_topics(table, self._topics[split])
            tokens = partial(self.tokens, split, gold)
            self._splits[split] = SplitData(
                self.name, split, self.protocol, table, gold, self.cache_dir, token_loader=tokens
            )
        return self._splits[split]

    def predict_topics(self, tuning: _DatasetSplits, tune_split: str) -> str:
        """Predicted topics (:mod:`ucdcr.systems.framework.topics`) for every split of this dataset, with the threshold
        tuned on ``tuning``'s ``tune_split`` (once per tuning split); what was learned, for the models table."""
        source = f"{tuning.name} {tune_split}"
        if source not in self._topic_notes:
            require("sklearn", "bench", "--topics predicted")  # TF-IDF of the documents
            texts = _texts(tuning, tune_split)
            table = tuning.table(tune_split)
            gold = dict(zip(table["conll_doc_key"].to_pylist(), table["subtopic_id"].to_pylist(), strict=True))
            threshold, agreement = tune_threshold(texts, gold)
            for split in SPLITS:
                self._topics[split] = document_clusters(_texts(self, split), threshold)
                self._splits.pop(split, None)
            count = len(set(self._topics["test"].values()))
            self._topic_notes = {
                source: f"{count} predicted topics (threshold {threshold:g}, ARI {agreement:.2f} on {source})"
            }
        return self._topic_notes[source]


def _texts(splits: _DatasetSplits, split: str) -> dict[str, str]:
    table = splits.table(split).select(["conll_doc_key", "mention_context"])
    tokens = partial(splits.tokens, split, False)
    return document_texts(SplitData(splits.name, split, splits.protocol, table, False, token_loader=tokens))


def benchmark(
    systems: Sequence[SystemChoice],
    folders: Mapping[str, Path],
    protocol: adapter.Protocol | None = None,
    transfer: bool = False,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    recompute: bool = False,
    seeds: int = 1,
    predictions: bool = False,
    test: bool = True,
    on_plan: Callable[[Schedule], None] | None = None,
    executor: Executor | None = None,
) -> Benchmark:
    """Run the benchmark (module docstring) of ``systems`` on the dataset folders (name -> folder) with
    ``protocol`` (default: the ucdcr protocol at subtopic level), each trainable system with ``seeds`` seeds.
    Every computed run keeps its test predictions in the cache dir; with ``predictions``, a stored run without them
    runs again (:func:`save_predictions` then writes them out). ``test=False`` (development, which compares
    configurations on val alone): every system is fitted and tuned and describes what it learned (with its val
    score), nothing is predicted or scored on the test split and nothing is stored: each run of the result has
    its model and no means. ``on_plan`` is called with the schedule before any work: what will be reused and
    computed, and the estimated time (:class:`~ucdcr.systems.framework.plan.Schedule`). ``executor`` runs the
    fits (:func:`run_step`): this process (the default), a local process pool (``-j N``) or Ray, whose workers
    store their runs in the same results file; the numbers are the same whichever ran them."""
    protocol = protocol or adapter.Protocol()
    if not folders:
        raise UcdcrError("no dataset to benchmark: build one first (`ucdcr build`) or check --data-dir")
    if not systems:
        raise UcdcrError("no system to benchmark: name at least one (e.g. --systems head-lemma)")
    if seeds < 1:
        raise UcdcrError(f"--seeds must be at least 1, not {seeds}")
    specs = _unique([resolve_system(system) for system in systems])
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    started, encoding_before = time.perf_counter(), COMPUTE_CLOCK.seconds
    data = {name: _DatasetSplits(name, Path(folder), protocol, cache) for name, folder in folders.items()}
    store = ResultStore(cache)
    plans = _plan(specs, data, transfer, seeds)
    result = Benchmark(protocol, [spec.name for spec in specs], list(folders), transfer=transfer)
    result.results_file = store.path
    result.notes = [
        f"{name}: every {protocol.level} of its test split is one document, so its numbers at this level measure "
        "within-document coreference (see --level topic)"
        for name, splits in data.items()
        if splits.single_document_units()
    ]
    fingerprints = {name: _fingerprint(splits) for name, splits in data.items()}
    total = sum(len(runs) for _, runs in plans)
    done = 0
    say = progress or (lambda description, done, total: None)
    if not test:
        return _val_only(result, plans, data, fingerprints, say, started, encoding_before)
    schedule = _schedule(plans, data, store, protocol, fingerprints, recompute, predictions)
    if on_plan is not None:
        on_plan(schedule)
    choices = {spec.name: choice for spec, choice in zip(specs, systems, strict=True)}
    gpus = {spec.name: spec.uses_gpu for spec in specs}
    context = _Context(
        tuple((name, str(folder)) for name, folder in folders.items()), protocol, str(cache), seeds, predictions
    )
    _WORKER_DATA[context] = data  # the steps that run in this process share the splits loaded here
    for step in schedule.steps:
        reused = [item for item in step.stored if item is not None]
        result.runs += reused
        result.reused += len(reused)
        done += len(reused)
    failures: list[str] = []
    counted = [done]  # runs done so far, as the steps' announcements see it

    def announced(tasks: Sequence[_Step]) -> Iterator[_Step]:
        """The steps as the executor takes them, each said when it starts (this process: one after another)."""
        for task in tasks:
            say(task.describe(), counted[0], total)
            yield task

    for wave in _waves([step for step in schedule.steps if step.to_compute], specs):
        tasks = [
            _Step(
                context,
                choices[step.system],
                _identity(specs, step.system),
                tuple(step.runs),
                tuple(step.keys),
                tuple(item is None for item in step.stored),
                gpus[step.system],
            )
            for step in wave
        ]
        outcomes = _safe(executor).map(run_step, announced(tasks), warm_up, _lost, _resources)
        for task, outcome in zip(tasks, outcomes, strict=True):
            result.runs += outcome.runs
            counted[0] += len(outcome.runs)
            if outcome.error is not None:
                failures.append(outcome.error)
                say(f"{task.describe()}: failed", counted[0], total)
    done = counted[0]
    if len(failures) == 1 and sum(step.to_compute > 0 for step in schedule.steps) == 1:
        raise UcdcrError(failures[0].split(": ", 1)[1])  # the one fit: its own message
    if failures:
        raise UcdcrError(
            f"{len(failures)} fit(s) failed, the other runs finished and are stored: " + "; ".join(failures)
        )
    say("done", total, total)
    result.runs.sort(key=lambda item: _order(item, result))
    result.seconds = time.perf_counter() - started
    result.encoding_seconds = COMPUTE_CLOCK.seconds - encoding_before
    return result


@dataclass(frozen=True)
class _Context:
    """What every step of one benchmark shares (picklable, so that a worker process or a Ray actor can run steps):
    the dataset folders, the protocol, the cache dir, the seeds and whether predictions are kept."""

    folders: tuple[tuple[str, str], ...]
    protocol: adapter.Protocol
    cache_dir: str
    seeds: int
    predictions: bool


@dataclass(frozen=True)
class _Step:
    """One unit of a benchmark's work: a system's fit (``runs[0]`` says on which splits and with which seed) and its
    test runs to compute (``compute``), with their keys in the results file. ``choice``: the system as it was given
    (a name, ``module:attribute``, a class or function: resolved again where the step runs) and ``identity``: what it
    must resolve to there (the same code and configuration); ``gpu``: whether the system trains on a GPU where it
    finds one (a cluster gives its fit one)."""

    context: _Context
    choice: SystemChoice
    identity: str
    runs: tuple[Run, ...]
    keys: tuple[str, ...]
    compute: tuple[bool, ...]
    gpu: bool = False

    def describe(self) -> str:
        first = self.runs[0]
        seed = f", seed {first.seed}" if self.context.seeds > 1 else ""
        return f"{first.system}: fit on {first.fit_on or '-'}, tune on {first.tune_on or '-'}{seed}"


@dataclass
class _Outcome:
    """What a step gives back: the runs it stored, or the error that stopped it (naming system, fit and seed)."""

    runs: list[StoredRun]
    error: str | None = None


_WORKER_DATA: dict[_Context, dict[str, _DatasetSplits]] = {}
"""The splits a process has loaded per benchmark (a worker runs many steps of one benchmark: loaded once)."""


def warm_up() -> None:
    """A worker's start: what the systems log (a training's progress) goes to its stderr, as in the CLI."""
    logger = logging.getLogger("ucdcr.systems")
    if not any(getattr(handler, "ucdcr_worker", False) for handler in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler.ucdcr_worker = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


def run_step(step: _Step) -> _Outcome:
    """Fit a system and compute its test runs of ``step``, storing each run (and its predictions) in the cache dir's
    results file as it finishes; runs in this process, a local worker or a Ray actor alike. A failure is returned,
    not raised, so that the other steps go on."""
    context = step.context
    data = _WORKER_DATA.get(context)
    if data is None:
        cache = Path(context.cache_dir)
        data = {name: _DatasetSplits(name, Path(folder), context.protocol, cache) for name, folder in context.folders}
        _WORKER_DATA[context] = data
    try:
        spec = resolve_system(step.choice)
        if spec.identity != step.identity:
            raise UcdcrError(f"system {spec.name} resolves to other code here than where the benchmark was planned")
        return _Outcome(_compute(spec, step, data))
    except UcdcrError as exc:
        first = step.runs[0]
        return _Outcome([], f"{first.system} on {first.dataset} (seed {first.seed}): {exc}")


def _resources(step: _Step) -> Resources:
    """What a step asks of a cluster: a GPU for a system that trains on one."""
    return Resources(gpu=step.gpu)


def _lost(step: _Step, message: str) -> _Outcome:
    """A step whose worker was lost too often (:data:`~ucdcr.pipeline.executor.RESTARTS` retries): a named failure;
    the runs it stored before are in the results file, whole (each is written at once)."""
    first = step.runs[0]
    return _Outcome([], f"{first.system} on {first.dataset} (seed {first.seed}): {message}")


def _compute(spec: SystemSpec, step: _Step, data: Mapping[str, _DatasetSplits]) -> list[StoredRun]:
    """The fit of a step and its runs to compute, each stored as it finishes."""
    context = step.context
    protocol = context.protocol
    store = ResultStore(Path(context.cache_dir))
    fingerprints = {name: _fingerprint(splits) for name, splits in data.items()}
    fit_started = time.perf_counter()
    system = _fitted(spec, step.runs[0], data)
    fit_seconds = time.perf_counter() - fit_started
    stored_runs = []
    for run, key, wanted in zip(step.runs, step.keys, step.compute, strict=True):
        if not wanted:
            continue
        predict_started = time.perf_counter()
        means, model, labels = _test(spec, system, run, data, protocol)
        timing = {
            "fit": fit_seconds,
            "fit_mentions": _fit_mentions(run, data),
            "predict": time.perf_counter() - predict_started,
            "test_mentions": data[run.dataset].size("test"),
        }
        store.put_predictions(key, labels)
        involved = {ref.dataset for ref in (run.fit_on, run.tune_on) if ref} | {run.dataset}
        stored_run = StoredRun(
            key,
            spec.name,
            spec.version,
            run.dataset,
            protocol.level,
            run.setting,
            str(run.fit_on or ""),
            str(run.tune_on or ""),
            model,
            means,
            {name: fingerprints[name] for name in sorted(involved)},
            protocol.label,
            run.seed,
            machine(),
            spec.origin or None,
            now(),
            timing=timing,
        )
        stored_run = replace(stored_run, signature=str(run_signature(stored_run)))
        store.put(stored_run)
        stored_runs.append(stored_run)
    return stored_runs


def _safe(executor: Executor | None) -> Executor:
    """The executor of the fits: a local pool's workers are spawned, not forked (this process may have loaded torch,
    whose threads a forked child can hang on)."""
    if executor is None:
        return LocalExecutor(1)
    if isinstance(executor, LocalExecutor) and executor.jobs > 1 and executor.start_method is None:
        return replace(executor, start_method="spawn")
    return executor


def _identity(specs: Sequence[SystemSpec], name: str) -> str:
    return next(spec.identity for spec in specs if spec.name == name)


def _waves(steps: Sequence[FitStep], specs: Sequence[SystemSpec]) -> list[list[FitStep]]:
    """The steps in waves that run one after another, each wave's steps at once: a system whose registry entry
    names systems it builds on (the ensemble: pairwise and the cross-encoder, whose models it reuses from the cache)
    waits for their steps, so no two workers train one model."""
    names = {spec.name for spec in specs}
    level: dict[str, int] = {}

    def depth(name: str) -> int:
        if name not in level:
            builtin = BUILTIN.get(name) if name in BUILTIN else None
            after = [other for other in (builtin.after if builtin else ()) if other in names]
            level[name] = 1 + max((depth(other) for other in after), default=-1)
        return level[name]

    waves: dict[int, list[FitStep]] = {}
    for step in steps:
        waves.setdefault(depth(step.system), []).append(step)
    return [waves[number] for number in sorted(waves)]


def _schedule(
    plans: Sequence[tuple[SystemSpec, list[Run]]],
    data: Mapping[str, _DatasetSplits],
    store: ResultStore,
    protocol: adapter.Protocol,
    fingerprints: Mapping[str, str],
    recompute: bool,
    predictions: bool,
) -> Schedule:
    """What the benchmark will do (:class:`~ucdcr.systems.framework.plan.Schedule`): every fit with the keys of its
    runs, the stored runs it reuses (none with ``recompute``; with ``predictions``, none stored without its
    predictions) and the estimated time of the rest on this machine."""
    history = list(store.runs().values())
    here = machine_label(machine())
    steps = []
    for spec, runs in _by_fit(plans):
        keys = [store.key(spec, run, protocol.label, fingerprints) for run in runs]
        stored = [None if recompute else store.get(key) for key in keys]
        if predictions:  # a run stored without its predictions runs again, to give them
            stored = [item if item is None or store.predictions_path(item.key).is_file() else None for item in stored]
        tests = [data[run.dataset].size("test") for run, item in zip(runs, stored, strict=True) if item is None]
        estimate = estimate_seconds(history, spec.name, here, _fit_mentions(runs[0], data), tests) if tests else 0.0
        steps.append(FitStep(spec.name, runs, keys, stored, estimate))
    return Schedule(steps)


def _fit_mentions(run: Run, data: Mapping[str, _DatasetSplits]) -> int:
    """The mentions of a run's fit and tune splits (what its fit's time grows with)."""
    refs = {ref for ref in (run.fit_on, run.tune_on) if ref is not None}
    return sum(data[ref.dataset].size(ref.split) for ref in refs)


def _val_only(
    result: Benchmark,
    plans: Sequence[tuple[SystemSpec, list[Run]]],
    data: Mapping[str, _DatasetSplits],
    fingerprints: Mapping[str, str],
    say: Progress,
    started: float,
    encoding_before: float,
) -> Benchmark:
    """:func:`benchmark` with ``test=False``: every fit and its description, no test split read for scores."""
    groups = _by_fit(plans)
    for done, (spec, runs) in enumerate(groups):
        first = runs[0]
        say(f"{spec.name}: fit on {first.fit_on or '-'}, tune on {first.tune_on or '-'} (val only)", done, len(groups))
        system = _fitted(spec, first, data)
        with _failures(spec, f"describe() after fit on {first.fit_on or '-'}"):
            model = str(system.describe())
        for run in runs:
            involved = {ref.dataset for ref in (run.fit_on, run.tune_on) if ref} | {run.dataset}
            result.runs.append(
                StoredRun(
                    "",
                    spec.name,
                    spec.version,
                    run.dataset,
                    result.protocol.level,
                    run.setting,
                    str(run.fit_on or ""),
                    str(run.tune_on or ""),
                    model,
                    [],
                    {name: fingerprints[name] for name in sorted(involved)},
                    result.protocol.label,
                    run.seed,
                    machine(),
                    spec.origin or None,
                )
            )
    say("done", len(groups), len(groups))
    result.runs.sort(key=lambda item: _order(item, result))
    result.seconds = time.perf_counter() - started
    result.encoding_seconds = COMPUTE_CLOCK.seconds - encoding_before
    return result


def _fingerprint(splits: _DatasetSplits) -> str:
    splits.table("test")
    return splits.fingerprint


def _unique(specs: Sequence[SystemSpec]) -> list[SystemSpec]:
    seen: dict[str, SystemSpec] = {}
    for spec in specs:
        if spec.name in seen:
            raise UcdcrError(f"the system {spec.name!r} is given twice")
        seen[spec.name] = spec
    return list(seen.values())


def _order(run: StoredRun, result: Benchmark) -> tuple[int, int, str, str, int]:
    return (result.systems.index(run.system), int(run.setting == "transfer"), run.fit_on, run.dataset, run.seed)


def _plan(
    specs: Sequence[SystemSpec], data: Mapping[str, _DatasetSplits], transfer: bool, seeds: int = 1
) -> list[tuple[SystemSpec, list[Run]]]:
    """Every run of every system (in-domain first, then transfer), without duplicates, for each seed of a
    trainable system."""
    with_train = [name for name in data if data[name].has("train")]
    fallback = max(with_train, key=lambda name: data[name].size("train")) if with_train else None
    plans = []
    for spec in specs:
        runs: dict[tuple[Any, ...], Run] = {}
        for name, splits in data.items():
            run = _in_domain(spec, name, splits, data[fallback] if fallback and fallback != name else None)
            runs.setdefault((run.fit_on, run.tune_on, run.dataset), run)
        if transfer and spec.trainable:
            for splits in data.values():
                fit_on, tune_on = _source_splits(splits)
                for target in data:
                    runs.setdefault((fit_on, tune_on, target), Run(spec.name, fit_on, tune_on, target, "transfer"))
        seeded = range(seeds) if spec.trainable and not spec.deterministic else range(1)
        plans.append((spec, [replace(run, seed=seed) for seed in seeded for run in runs.values()]))
    return plans


def _in_domain(spec: SystemSpec, name: str, splits: _DatasetSplits, fallback: _DatasetSplits | None) -> Run:
    """The leaderboard's run of a system on a dataset (fallbacks in the module docstring)."""
    own_train = SplitRef(name, "train") if splits.has("train") else None
    own_val = SplitRef(name, "val") if splits.has("val") else None
    if not spec.trainable:
        return Run(spec.name, own_train, own_val or own_train, name, "in-domain")
    if own_train and own_val:
        return Run(spec.name, own_train, own_val, name, "in-domain")
    if fallback is None:
        fit_on, tune_on = _source_splits(splits)
        return Run(spec.name, fit_on, tune_on, name, "fallback")
    fit_on = own_train or SplitRef(fallback.name, "train")
    tune_on = own_val or (SplitRef(fallback.name, "val") if fallback.has("val") else fit_on)
    return Run(spec.name, fit_on, tune_on, name, "fallback")


def _source_splits(splits: _DatasetSplits) -> tuple[SplitRef | None, SplitRef | None]:
    """A transfer source's fit and tune splits: train and val, each standing in for the other when missing."""
    train = SplitRef(splits.name, "train") if splits.has("train") else None
    val = SplitRef(splits.name, "val") if splits.has("val") else None
    return train or val, val or train


def _by_fit(plans: Sequence[tuple[SystemSpec, list[Run]]]) -> list[tuple[SystemSpec, list[Run]]]:
    """The runs grouped by what is fitted (system, fit split, tune split): one fit serves several test sets."""
    groups: list[tuple[SystemSpec, list[Run]]] = []
    for spec, runs in plans:
        by_source: dict[tuple[Any, ...], list[Run]] = {}
        for run in runs:
            by_source.setdefault((run.fit_on, run.tune_on, run.seed), []).append(run)
        groups += [(spec, group) for group in by_source.values()]
    return groups


def _fitted(spec: SystemSpec, run: Run, data: Mapping[str, _DatasetSplits]) -> System:
    system = spec.make()
    system.seed = run.seed
    if run.tune_on is not None and data[run.tune_on.dataset].protocol.topics == "predicted":
        tuning = data[run.tune_on.dataset]
        tuning.predict_topics(tuning, run.tune_on.split)
    train = [data[run.fit_on.dataset].data(run.fit_on.split)] if run.fit_on else []
    if run.tune_on is None:
        if spec.trainable:
            raise UcdcrError(f"{run.dataset}: no train or val split to fit {spec.name} on")
        return system
    with _failures(spec, f"fit() on {run.fit_on or '-'} / {run.tune_on}"):
        system.fit(train, _as_val(data[run.tune_on.dataset], run.tune_on.split))
    return system


@contextmanager
def _failures(spec: SystemSpec, call: str) -> Iterator[None]:
    """An exception raised by a system (not a UcdcrError) becomes one error naming the system and the call; the
    original stays chained (``ucdcr --debug`` prints it)."""
    try:
        yield
    except UcdcrError:
        raise
    except (Exception, SystemExit) as exc:  # SystemExit: a system that calls sys.exit
        if isinstance(exc, ModuleNotFoundError) and (extra := extra_of(exc.name, ("bench", "embed"))):
            raise UcdcrError(f"system {spec.name} {needs(extra)}") from exc  # e.g. scikit-learn, torch
        raise UcdcrError(
            f"system {spec.name} failed in {call}: {type(exc).__name__}: {exc} (the fault is in the system's code)"
        ) from exc


def _as_val(splits: _DatasetSplits, split: str) -> SplitData:
    """The tuning split as a system sees a val split (every mention, with gold)."""
    if split == "val":
        return splits.data("val")
    return SplitData(
        splits.name,
        split,
        splits.protocol,
        splits.table(split),
        True,
        splits.cache_dir,
        token_loader=partial(splits.tokens, split, True),
    )


def _test(
    spec: SystemSpec, system: System, run: Run, data: Mapping[str, _DatasetSplits], protocol: adapter.Protocol
) -> tuple[list[dict[str, Any]], str, dict[str, str]]:
    """Predict the test split and score it as ``ucdcr evaluate`` does; the means by type, the model's description
    (with the predicted topics, when the protocol predicts them) and the predictions scored (each cluster made
    unique per unit: ``<unit>\x1f<cluster>``)."""
    from ucdcr.analysis.evaluate import Predictions, evaluate, resolve

    splits = data[run.dataset]
    topics = ""
    if protocol.topics == "predicted":
        if run.tune_on is None:  # tuning the document clustering on the test split's gold would leak it
            raise UcdcrError(
                f"{run.dataset}: predicted topics are tuned on a train or val split, and this run has none; use "
                "--topics gold, or select a dataset with a val split"
            )
        topics = splits.predict_topics(data[run.tune_on.dataset], run.tune_on.split)
    test = splits.data("test")
    with _failures(spec, f"predict() on {run.dataset}"):
        predicted = system.predict(test)
    source = f"system {spec.name} on {run.dataset}"
    if not isinstance(predicted, Mapping):
        raise UcdcrError(
            f"{source}: predict() returned {type(predicted).__name__}, not a mapping mention_id -> cluster"
        )
    labels = {
        str(key): adapter.cluster_label(value, Path(source), f"mention {key!r}") for key, value in predicted.items()
    }
    gold = splits.table("test")
    known, _ = resolve(Predictions(Path(source), by_id=labels), {run.dataset: gold})
    unknown = [mention_id for mention_id in labels if mention_id not in known]
    if unknown:
        raise UcdcrError(
            f"{source}: {len(unknown)} prediction(s) are not for test mentions of {run.dataset}: "
            f"{', '.join(unknown[:5])}{', …' if len(unknown) > 5 else ''} (predict the rows of test.mentions only)"
        )
    ids = test.column("mention_id")
    missing = [mention_id for mention_id in ids if mention_id not in known]
    if missing:
        raise UcdcrError(
            f"{source}: {len(missing)} test mention(s) have no prediction: {', '.join(missing[:5])}"
            f"{', …' if len(missing) > 5 else ''} (predict every row of test.mentions)"
        )
    units = dict(zip(ids, test.column(test.unit_column), strict=True))
    scoped = {mention_id: f"{units[mention_id]}\x1f{label}" for mention_id, label in known.items()}
    topic_level = {run.dataset: protocol.level == "topic"}
    result = evaluate(scoped, {run.dataset: gold}, topic_level, "test", source, protocol)[0]
    means = [mean_json(mean) for mean in result.means if mean.level == protocol.level]
    with _failures(spec, f"describe() after {run.dataset}"):
        model = str(system.describe())
    return means, f"{model}; {topics}" if model and topics else model or topics, scoped


def save_predictions(result: Benchmark, folder: Path) -> list[Path]:
    """Write the test predictions of every run of ``result`` into ``folder`` as ``ucdcr evaluate`` reads them
    (a JSON object mention id -> cluster, each cluster made unique per unit, so that ``ucdcr evaluate`` with the
    run's protocol gives the run's scores): ``<folder>/<protocol>/<system>/<dataset>[.from-<source>].seed<N>.json``
    (the protocol label with ``_`` for ``/``; ``from-<source>`` for a transfer run). The written paths."""
    if result.results_file is None:
        raise UcdcrError("this benchmark has no cache dir, so no predictions were kept")
    store = ResultStore(result.results_file.parent)
    written = []
    for run in result.runs:
        labels = store.predictions(run.key)
        if labels is None:
            raise UcdcrError(
                f"{store.predictions_path(run.key)}: the predictions of {run.system} on {run.dataset} (seed "
                f"{run.seed}) are missing; run the benchmark with --save-predictions to compute them"
            )
        source = f".from-{run.source}" if run.setting == "transfer" else ""
        path = folder / run.protocol.replace("/", "_") / run.system / f"{run.dataset}{source}.seed{run.seed}.json"
        with write_errors(path):
            path.parent.mkdir(parents=True, exist_ok=True)
        adapter.write_json(path, labels)
        written.append(path)
    return written
