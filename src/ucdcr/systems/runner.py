"""``ucdcr benchmark``: fit each system on a train split, tune it on a val split, predict the test split, and score
the predictions with the uCDCR protocol through :func:`ucdcr.analysis.evaluate.evaluate` (the code path of
``ucdcr evaluate``, hence of ``ucdcr baseline``).

Runs (:class:`Run`): a system, the split it is fitted on, the split it is tuned on, and the dataset it is tested on.

- In-domain (the leaderboard): dataset D is fitted on D's train split and tuned on D's val split. Fallback for a
  dataset without a train split (CEREC): the model is fitted on the train split of the *fallback dataset*, the
  selected dataset with the most training mentions (ECB+ when it is selected), and tuned on D's own val split;
  without a val split, it is tuned on the fallback dataset's val split. Every number says which splits it used.
- Transfer (``--transfer``, trainable systems only): for every pair (A, B) of selected datasets, fitted on A's
  train split, tuned on A's val split, tested on B. A source without a train split is fitted on its val split
  (and tuned on it too); one without a val split is tuned on its train split. The diagonal (A = A) is the
  in-domain run where A has both splits, so it is computed once.

What a system sees (:class:`~ucdcr.systems.base.SplitData`): train = every mention of the split with its gold
fields; val = the mentions the protocol evaluates, with gold; test = the evaluated mentions without the gold fields.
Predictions are checked as ``ucdcr evaluate`` checks a file (a cluster id that is not a string or a number, a
prediction for a mention that is not a test mention of the dataset, a missing prediction: the same error
messages), then scored by the same function, at the level asked (``subtopic``: the system clusters each subtopic
and only subtopic settings are scored; ``topic``: each topic, and topic settings are scored too).

Stored results (:mod:`ucdcr.systems.store`): every run is stored under a key made of the system's name and version,
the level, the datasets' content fingerprints (and the encoder's id for encoder-based systems); a later run with
the same key reuses the stored scores without loading a model, and ``ucdcr report`` shows them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ucdcr.errors import UcdcrError
from ucdcr.systems import adapter
from ucdcr.systems.base import GOLD_FIELDS, SplitData, System
from ucdcr.systems.cache import COMPUTE_CLOCK, default_cache_dir
from ucdcr.systems.registry import SystemSpec, resolve_system
from ucdcr.systems.store import ResultStore, StoredRun, dataset_fingerprint

if TYPE_CHECKING:
    from ucdcr.report.tables import ResultTable

Progress = Callable[[str, int, int], None]
"""progress(description, done, total): called before each step and once at the end."""
SystemChoice = str | type[System] | Callable[[], System]


@dataclass(frozen=True)
class SplitRef:
    """A split of a dataset: ``dataset`` and ``split`` ("train" or "val")."""

    dataset: str
    split: str

    def __str__(self) -> str:
        return f"{self.dataset} {self.split}"


@dataclass(frozen=True)
class Run:
    """One fitted system tested on one dataset; ``setting`` is "in-domain", "fallback" or "transfer"."""

    system: str
    fit_on: SplitRef | None
    tune_on: SplitRef | None
    dataset: str
    setting: str


@dataclass
class Benchmark:
    """The stored runs of one benchmark, and how long it took (``encoding_seconds``: computing encoder vectors and
    sentence lemmas; ``reused``: runs taken from the results file)."""

    level: adapter.Level
    systems: list[str]
    datasets: list[str]
    runs: list[StoredRun] = field(default_factory=list)
    transfer: bool = False
    seconds: float = 0.0
    encoding_seconds: float = 0.0
    reused: int = 0
    results_file: Path | None = None

    def tables(self) -> list[ResultTable]:
        """The tables ``ucdcr benchmark`` prints (:mod:`ucdcr.report.benchmark_tables`)."""
        from ucdcr.report.benchmark_tables import benchmark_tables

        return benchmark_tables(self.runs, self.systems, self.datasets, self.level)


@dataclass
class _DatasetSplits:
    """The splits of one dataset, loaded on first use and shared by every system of a run (their memos too)."""

    name: str
    folder: Path
    level: adapter.Level
    cache_dir: Path
    _tables: dict[str, pa.Table] = field(default_factory=dict)
    _splits: dict[str, SplitData] = field(default_factory=dict)

    def table(self, split: str) -> pa.Table:
        if split not in self._tables:
            self._tables[split] = adapter.load_split(self.folder, split)[0]
        return self._tables[split]

    def has(self, split: str) -> bool:
        return bool(adapter.evaluated_rows(self.table(split), split))

    def size(self, split: str) -> int:
        return self.table(split).num_rows

    def data(self, split: str) -> SplitData:
        """train: every mention; val: the evaluated mentions; test: the evaluated mentions without gold fields."""
        if split not in self._splits:
            table = self.table(split)
            if split != "train":
                table = table.take(pa.array(adapter.evaluated_rows(table, split), type=pa.int64()))
            gold = split != "test"
            if not gold:
                table = table.drop_columns([name for name in GOLD_FIELDS if name in table.column_names])
            self._splits[split] = SplitData(self.name, split, self.level, table, self.folder, gold, self.cache_dir)
        return self._splits[split]


def benchmark(
    systems: Sequence[SystemChoice],
    folders: Mapping[str, Path],
    level: adapter.Level = "subtopic",
    transfer: bool = False,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    recompute: bool = False,
) -> Benchmark:
    """Run the benchmark (module docstring) of ``systems`` on the dataset folders (name -> folder)."""
    if level not in adapter.LEVELS:
        raise UcdcrError(f"unknown level {level!r}; valid levels: {', '.join(adapter.LEVELS)}")
    if not folders:
        raise UcdcrError("no dataset to benchmark: build one first (`ucdcr build`) or check --data-dir")
    specs = _unique([resolve_system(system) for system in systems])
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    started, encoding_before = time.perf_counter(), COMPUTE_CLOCK.seconds
    data = {name: _DatasetSplits(name, Path(folder), level, cache) for name, folder in folders.items()}
    store = ResultStore(cache)
    plans = _plan(specs, data, transfer)
    result = Benchmark(level, [spec.name for spec in specs], list(folders), transfer=transfer, results_file=store.path)
    fingerprints = {name: dataset_fingerprint(Path(folder)) for name, folder in folders.items()}
    total = sum(len(runs) for _, runs in plans)
    done = 0
    say = progress or (lambda description, done, total: None)
    for spec, runs in _by_fit(plans):
        keys = [store.key(spec, run, level, fingerprints) for run in runs]
        stored = [None if recompute else store.get(key) for key in keys]
        if all(item is not None for item in stored):
            result.runs += [item for item in stored if item is not None]
            result.reused += len(runs)
            done += len(runs)
            continue
        first = runs[0]
        say(f"{spec.name}: fit on {first.fit_on or '-'}, tune on {first.tune_on or '-'}", done, total)
        system = _fitted(spec, first, data)
        for run, key in zip(runs, keys, strict=True):
            say(f"{spec.name}: predict {run.dataset}", done, total)
            means, model = _test(spec, system, run, data[run.dataset], level)
            involved = {ref.dataset for ref in (run.fit_on, run.tune_on) if ref} | {run.dataset}
            stored_run = StoredRun(
                key,
                spec.name,
                spec.version,
                run.dataset,
                level,
                run.setting,
                str(run.fit_on or ""),
                str(run.tune_on or ""),
                model,
                means,
                {name: fingerprints[name] for name in sorted(involved)},
            )
            store.put(stored_run)
            result.runs.append(stored_run)
            done += 1
    say("done", total, total)
    result.runs.sort(key=lambda item: _order(item, result))
    result.seconds = time.perf_counter() - started
    result.encoding_seconds = COMPUTE_CLOCK.seconds - encoding_before
    return result


def _unique(specs: Sequence[SystemSpec]) -> list[SystemSpec]:
    seen: dict[str, SystemSpec] = {}
    for spec in specs:
        if spec.name in seen:
            raise UcdcrError(f"the system {spec.name!r} is given twice")
        seen[spec.name] = spec
    return list(seen.values())


def _order(run: StoredRun, result: Benchmark) -> tuple[int, int, str, str]:
    return (result.systems.index(run.system), int(run.setting == "transfer"), run.fit_on, run.dataset)


def _plan(
    specs: Sequence[SystemSpec], data: Mapping[str, _DatasetSplits], transfer: bool
) -> list[tuple[SystemSpec, list[Run]]]:
    """Every run of every system (in-domain first, then transfer), without duplicates."""
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
        plans.append((spec, list(runs.values())))
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
            by_source.setdefault((run.fit_on, run.tune_on), []).append(run)
        groups += [(spec, group) for group in by_source.values()]
    return groups


def _fitted(spec: SystemSpec, run: Run, data: Mapping[str, _DatasetSplits]) -> System:
    system = spec.make()
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
    except Exception as exc:
        raise UcdcrError(f"system {spec.name} failed in {call}: {type(exc).__name__}: {exc}") from exc


def _as_val(splits: _DatasetSplits, split: str) -> SplitData:
    """The tuning split as a system sees a val split (the evaluated mentions, with gold)."""
    if split == "val":
        return splits.data("val")
    table = splits.table(split)
    return SplitData(
        splits.name,
        split,
        splits.level,
        table.take(pa.array(adapter.evaluated_rows(table, split), type=pa.int64())),
        splits.folder,
        True,
        splits.cache_dir,
    )


def _test(
    spec: SystemSpec, system: System, run: Run, splits: _DatasetSplits, level: adapter.Level
) -> tuple[list[dict[str, Any]], str]:
    """Predict the test split and score it as ``ucdcr evaluate`` does; the means by type and the model's
    description."""
    from ucdcr.analysis.evaluate import Predictions, evaluate, resolve

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
    result = evaluate(known, {run.dataset: gold}, {run.dataset: level == "topic"}, "test", source)[0]
    means = [
        {"type": mean.type or "joint", "settings": mean.settings, "scores": mean.scores}
        for mean in result.means
        if mean.level == level
    ]
    return means, system.describe()
