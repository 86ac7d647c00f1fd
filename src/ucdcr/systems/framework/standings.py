"""Systems side by side: the numbers of a leaderboard, with their intervals, tests and signature, and the reference
runs a system is set beside.

A *standing* (:func:`standing`) is what a leaderboard holds before it is formatted: per system its CoNLL F1 (joint)
on each dataset (the mean over its seeds, with the interval of that mean), the unweighted mean over the datasets
of the leaderboard, and that mean against the best one (a paired test on the same resampled units: the difference,
its interval, the p-value with its resolution). A system without a number on a dataset some other system has (a
reference measured on fewer datasets, an older version's runs) is left out of the means and the test rather than
shrinking every system's mean to the datasets it has; only when no system has them all is the mean over those every
system has. ``ucdcr benchmark``, ``ucdcr evaluate`` and ``ucdcr report`` make
their leaderboards with it; :mod:`ucdcr.report.benchmark_tables` only formats it.

Reference runs (:func:`reference_runs`): the stored runs a system is compared with, from one of
:data:`REFERENCE_SOURCES`:

- ``shipped`` (the default): the reference systems' runs that ship inside ucdcr (``ucdcr/data/reference-runs.json``,
  the results file whose tables the docs show, :mod:`ucdcr.report.results_file`): scores, per-unit counts, dataset
  fingerprints, machine and signature of every dataset and protocol measured; nothing is trained;
- ``local``: the runs ``ucdcr benchmark`` stored in the cache dir (computed here, on this machine and these data);
- ``none``: no reference.

A reference run stands beside a result only when their signatures agree (:meth:`ucdcr.analysis.signature.
Signature.key`: the same dataset content, split, protocol, topics, singletons, mentions and scorer): other runs are
left out, and one note per dataset says why and names the command that computes the references here.

Predictions scored by ``ucdcr evaluate`` become runs of their own (:func:`evaluation_runs`), so a file of
predictions and a system run by the benchmark are placed by the same function (:func:`place`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from statistics import fmean, stdev
from typing import Any, Literal

from ucdcr.analysis.protocol import (
    DatasetMean,
    Protocol,
    ProtocolResult,
    column_comparisons,
    column_intervals,
    ucdcr_means,
)
from ucdcr.analysis.signature import Signature, Units, combined, unit_kind
from ucdcr.errors import UcdcrError
from ucdcr.scoring.bootstrap import (
    RESAMPLES,
    Comparison,
    Estimate,
    Method,
    SeedMean,
    UnitCounts,
    UnitData,
    UnitValues,
)
from ucdcr.systems.framework.store import RESULTS_FILE, StoredRun, machine, read_entries, read_runs, run_from_json

ReferenceSource = Literal["shipped", "local", "none"]
REFERENCE_SOURCES: tuple[ReferenceSource, ...] = ("shipped", "local", "none")
SHIPPED_FILE = "reference-runs.json"
"""The shipped reference runs, in ``ucdcr/data`` (the results file format, :mod:`ucdcr.report.results_file`)."""
IN_DOMAIN = ("in-domain", "fallback")
CONLL_COLUMN = "F1_CONLL"


# --- runs --------------------------------------------------------------------------------------------------------


def in_domain(runs: Sequence[StoredRun]) -> list[StoredRun]:
    """The leaderboard's runs: in-domain or fallback."""
    return [run for run in runs if run.setting in IN_DOMAIN]


def fitted_on_own_train(run: StoredRun) -> bool:
    """Whether a run's model was fitted on its own dataset's train split (not a fallback's)."""
    return run.fit_on == f"{run.dataset} train"


def _own_train_or_unknown(run: StoredRun) -> bool:
    """Fitted on its own train split, or a run of predictions whose training is not known (neither split given)."""
    return fitted_on_own_train(run) or not (run.fit_on or run.tune_on)


def by_seed(runs: Sequence[StoredRun]) -> dict[tuple[str, str, str], list[StoredRun]]:
    """(system, fitted on, dataset) -> its runs, one per seed, in seed order."""
    grouped: dict[tuple[str, str, str], list[StoredRun]] = {}
    for run in sorted(runs, key=lambda item: item.seed):
        grouped.setdefault((run.system, run.source, run.dataset), []).append(run)
    return grouped


def seed_units(runs: Sequence[StoredRun], kind: str = "joint") -> UnitData | None:
    """What the interval of the runs' mean over seeds resamples (None when a run has no units). Seeds whose
    responses join units differently (predicted topics) are merged to the units none of them crosses."""
    parts = [run.units(kind) for run in runs]
    plain = [part for part in parts if part is not None and not isinstance(part, SeedMean)]
    if not plain or len(plain) != len(parts):
        return None
    if len(plain) == 1:
        return plain[0]
    try:
        return SeedMean(tuple(plain))
    except ValueError:  # units as values over different units: no interval rather than a wrong one
        return None


def estimate(
    runs: Sequence[StoredRun], kind: str = "joint", column: str = CONLL_COLUMN, resamples: int = RESAMPLES
) -> float | None:
    """The mean over the runs' seeds of one score, with its interval when the runs stored their units."""
    values = [run.score(kind, column) for run in runs]
    if not values or any(value is None for value in values):
        return None
    value = fmean(value for value in values if value is not None)
    units = seed_units(runs, kind)
    found = column_intervals(units, resamples).get(column) if units is not None else None
    return Estimate(value, found.low, found.high, units=found.units) if found else value


def seed_sd(runs: Sequence[StoredRun], kind: str = "joint") -> float | None:
    """The standard deviation over seeds of the CoNLL F1 (None with one seed)."""
    values = [value for run in runs if (value := run.score(kind)) is not None]
    return stdev(values) if len(values) > 1 else None


def mean_json(mean: DatasetMean) -> dict[str, Any]:
    """One mean of a protocol result as a stored run holds it (type, settings, scores and the units its interval
    resamples)."""
    units = mean.units.to_json() if isinstance(mean.units, UnitCounts | UnitValues) else None
    return {"type": mean.type or "joint", "settings": mean.settings, "scores": mean.scores, "units": units}


def run_units(run: StoredRun, protocol: Protocol) -> Units | None:
    """The units of a run's joint interval: how many, and what one is."""
    found = run.units("joint")
    return Units(run.dataset, len(found.units), unit_kind(protocol)) if found is not None else None


def run_signature(run: StoredRun, mentions: str = "gold", split: str = "test") -> Signature:
    """The signature of a stored run (its own, or derived from its fields for a run stored without one)."""
    protocol = Protocol.from_label(run.protocol)
    fingerprint = (run.datasets or {}).get(run.dataset, "")
    units = run_units(run, protocol)
    version = str((run.machine or {}).get("ucdcr", "?"))
    return Signature(
        ((run.dataset, fingerprint),), protocol, split, mentions, (units,) if units else (), None, (1,), (version,)
    )


# --- reference runs ----------------------------------------------------------------------------------------------


def shipped_path() -> Path:
    """Where the shipped reference runs are (inside the installed package)."""
    return Path(str(resources.files("ucdcr") / "data" / SHIPPED_FILE))


@cache
def shipped_runs() -> tuple[StoredRun, ...]:
    """The reference runs shipped with ucdcr (module docstring)."""
    path = shipped_path()
    entries = read_entries(path)
    if not entries:
        raise UcdcrError(f"{path}: the shipped reference runs are missing; reinstall ucdcr")
    return tuple(labelled(run_from_json(entry["run"], index) for index, entry in enumerate(entries)))


def labelled(runs: Iterable[StoredRun]) -> list[StoredRun]:
    """The runs, each of a built-in system measured with another version than this code's named ``NAME@vVERSION``
    (``cross-encoder@v3``): a table never sets a run of an older design under the name of the current one."""
    from ucdcr.systems.framework.names import builtin_version

    versions: dict[str, str | None] = {}
    result = []
    for run in runs:
        if run.system not in versions:
            versions[run.system] = builtin_version(run.system)
        older = versions[run.system] not in (None, run.version)
        result.append(replace(run, system=f"{run.system}@v{run.version}") if older else run)
    return result


def reference_runs(source: str, cache_dir: Path | None = None) -> tuple[list[StoredRun], str]:
    """The reference runs of ``source`` (:data:`REFERENCE_SOURCES`) and where they are, for notes."""
    if source not in REFERENCE_SOURCES:
        raise UcdcrError(f"unknown references {source!r}; valid: {', '.join(REFERENCE_SOURCES)}")
    if source == "none":
        return [], ""
    if source == "shipped":
        return list(shipped_runs()), f"shipped with ucdcr ({shipped_path()})"
    from ucdcr.systems.framework.cache import default_cache_dir

    path = (cache_dir or default_cache_dir()) / RESULTS_FILE
    return labelled(read_runs(path).values()), f"computed here ({path})"


def matching_references(
    references: Sequence[StoredRun],
    fingerprints: Mapping[str, str],
    protocol: Protocol,
    skip: Sequence[str] = (),
    mentions: str = "gold",
    split: str = "test",
) -> tuple[list[StoredRun], dict[str, str]]:
    """The in-domain reference runs whose signature agrees with data of these fingerprints (dataset -> fingerprint)
    under ``protocol``, but those of the systems in ``skip``, each named as the dataset it stands beside; and per
    dataset without one, why: the nearest reference run's differences (a release copy, ``ID@release``, is compared
    with the runs of ``ID``), or that there is none."""
    from ucdcr.sources.discover import strip_suffix

    named = {strip_suffix(name)[0]: name for name in fingerprints}
    chosen: list[StoredRun] = []
    nearest: dict[str, tuple[int, str]] = {}  # dataset -> the fewest differences of a run found, and which
    for run in in_domain(references):
        name = named.get(run.dataset)
        if name is None or run.system in skip:
            continue
        mine = Signature(((run.dataset, fingerprints[name]),), protocol, split, mentions)
        differences = mine.differences(run_signature(run))
        if not differences:
            chosen.append(replace(run, dataset=name) if name != run.dataset else run)
        elif name not in nearest or len(differences) < nearest[name][0]:
            nearest[name] = (len(differences), "; ".join(differences))
    found = {run.dataset for run in chosen}
    reasons = {
        name: nearest[name][1] if name in nearest else "no reference run of this dataset"
        for name in fingerprints
        if name not in found
    }
    return chosen, reasons


def references_note(reasons: Mapping[str, str], protocol: Protocol, source: str) -> str:
    """One line for the datasets without references: why, and the command that computes them here."""
    options = protocol_options(protocol)
    listed = "; ".join(f"{name} ({reason})" for name, reason in reasons.items())
    datasets = ",".join(reasons)
    return (
        f"no {source} reference run agrees with these data and this setting (yours vs the nearest reference's), so "
        f"the leaderboard leaves out: {listed}. "
        f"Compute the references here with `ucdcr benchmark {options}--datasets {datasets}`, then add "
        "`--references local`"
    )


def protocol_options(protocol: Protocol) -> str:
    """The command-line options that name ``protocol`` (with a trailing space, or empty for the default)."""
    if not protocol.standard:
        return "" if protocol.level == "subtopic" else "--level topic "
    options = "--protocol standard "
    if protocol.topics == "predicted":
        options += "--topics predicted "
    return options + ("" if protocol.singletons else "--remove-singletons ")


def evaluation_runs(
    results: Sequence[ProtocolResult],
    name: str,
    origin: str,
    fingerprints: Mapping[str, str],
    protocol: Protocol,
    stored: str | None = None,
) -> list[StoredRun]:
    """Scored predictions (one protocol result per dataset) as runs of a system named ``name``, so that they are
    placed beside stored runs like any system's (``origin``: where the predictions came from)."""
    runs = []
    for result in results:
        means = [mean_json(mean) for mean in result.means if mean.level == protocol.level]
        fingerprint = {result.dataset: fingerprints[result.dataset]}
        run = StoredRun(
            "",
            name,
            "",
            result.dataset,
            protocol.level,
            "in-domain",
            "",
            "",
            f"predictions from {origin}",
            means,
            fingerprint,
            protocol.label,
            0,
            machine(),
            origin,
            stored,
        )
        runs.append(run)
    return runs


# --- standings ----------------------------------------------------------------------------------------------------


@dataclass
class StandingRow:
    """One system's row (:func:`standing`): its score per dataset (None: no number), the mean over the common
    datasets (``n`` of them), that mean against the best (``delta``: None for the best or without a test), whether
    it is tied for first (not significantly below the best; None without a test), the means over the datasets
    fitted on their own train split and over all its own numbers, how many seeds each of its numbers averages and
    where its runs came from."""

    system: str
    scores: dict[str, float | None]
    mean: float | None
    n: int
    delta: Comparison | None = None
    best: bool = False
    tied: bool | None = None
    trained_mean: float | None = None
    trained_n: int = 0
    own_mean: float | None = None
    own_n: int = 0
    seeds: int = 1
    source: str = ""


@dataclass
class Standing:
    """A leaderboard's numbers (module docstring). ``partial``: the systems left out of the means and the test, for
    a number missing on a dataset others have; ``common``: the datasets every other system has a number for (those
    of the means); ``trained``: those of them every system was fitted on its own train split for; ``covered``: those
    some system has; ``signature``: of every number of it. Runs whose signatures disagree (another content of a
    dataset, another setting) are never set side by side: the standing then has no row, no signature and a note
    saying how they differ."""

    protocol: Protocol
    systems: list[str]
    datasets: list[str]
    rows: list[StandingRow]
    partial: list[str]
    common: list[str]
    trained: list[str]
    covered: list[str]
    resamples: int
    method: Method
    tested: bool
    signature: Signature | None
    notes: list[str] = field(default_factory=list)

    def row(self, system: str) -> StandingRow:
        return next(row for row in self.rows if row.system == system)


def standing(
    runs: Sequence[StoredRun],
    systems: Sequence[str],
    datasets: Sequence[str],
    protocol: Protocol,
    resamples: int = RESAMPLES,
    method: Method = "randomization",
    sources: Mapping[str, str] | None = None,
) -> Standing:
    """The leaderboard's numbers of ``runs`` (module docstring): rows in ``systems`` order, columns ``datasets``;
    ``sources``: where each system's runs came from (shown beside them)."""
    groups: dict[tuple[str, str], list[StoredRun]] = {}
    for (system, _, dataset), group in by_seed(in_domain(runs)).items():
        groups.setdefault((system, dataset), group)
    scores = {
        system: {
            dataset: estimate(found, resamples=resamples) if (found := groups.get((system, dataset))) else None
            for dataset in datasets
        }
        for system in systems
    }
    covered = [dataset for dataset in datasets if any(scores[system][dataset] is not None for system in systems)]
    ranked = [system for system in systems if all(scores[system][dataset] is not None for dataset in covered)]
    ranked = ranked or list(systems)  # no system has every dataset: the mean is over those all of them have
    common = [dataset for dataset in datasets if all(scores[system][dataset] is not None for system in ranked)]
    trained = [
        dataset for dataset in common if all(_own_train_or_unknown(groups[(system, dataset)][0]) for system in ranked)
    ]
    units = {system: [seed_units(groups[(system, dataset)]) for dataset in common] for system in ranked}
    comparisons = _against_best(ranked, scores, common, units, resamples, method)
    rows = []
    for system in systems:
        if system not in ranked:  # a number missing on a dataset of the mean: left out of it (module docstring)
            row = StandingRow(system, scores[system], None, 0)
        else:
            row = StandingRow(system, scores[system], *_mean_of(scores[system], common, units[system], resamples))
        if comparisons and system in ranked:
            row.delta, row.best = comparisons[system], comparisons[system] is None
            row.tied = row.best or (row.delta is not None and not row.delta.significant())
        if trained != common and system in ranked:
            trained_units = [seed_units(groups[(system, dataset)]) for dataset in trained]
            row.trained_mean, row.trained_n = _mean_of(scores[system], trained, trained_units, resamples)
        row.own_mean, row.own_n = _mean_of(scores[system], covered, [], 0)
        row.seeds = max(
            (len(groups[(system, dataset)]) for dataset in covered if (system, dataset) in groups), default=1
        )
        row.source = (sources or {}).get(system, "")
        rows.append(row)
    chosen = [run for group in groups.values() for run in group if run.dataset in covered]
    signature, notes = _signature(chosen, groups, resamples)
    if notes:  # numbers of two signatures are never set side by side: the note alone
        rows, comparisons = [], {}
    result = Standing(
        protocol,
        list(systems),
        list(datasets),
        rows,
        [system for system in systems if system not in ranked],
        common,
        trained,
        covered,
        resamples,
        method,
        bool(comparisons),
        signature,
        notes,
    )
    return result


def _signature(
    runs: Sequence[StoredRun], groups: Mapping[tuple[str, str], list[StoredRun]], resamples: int
) -> tuple[Signature | None, list[str]]:
    """The one signature of a standing's numbers (their data, units and seeds joined); or None and a note."""
    if not runs:
        return None, []
    signatures = [group_signature(group) for group in groups.values() if group and group[0] in runs]
    try:
        return combined(signatures, resamples), []
    except ValueError as exc:
        return None, [
            f"the runs of this table were computed on different data or settings ({exc}): they are not like with "
            "like; compare them in separate tables"
        ]


def group_signature(group: Sequence[StoredRun]) -> Signature:
    """The signature of one system's runs on one dataset over its seeds (their number and versions)."""
    first = run_signature(group[0])
    versions = tuple(sorted({str((run.machine or {}).get("ucdcr", "?")) for run in group}))
    return Signature(
        first.data, first.protocol, first.split, first.mentions, first.units, None, (len(group),), versions
    )


def _against_best(
    systems: Sequence[str],
    scores: dict[str, dict[str, float | None]],
    common: Sequence[str],
    units: dict[str, list[UnitData | None]],
    resamples: int,
    method: Method,
) -> dict[str, Comparison | None]:
    """Per system: its mean minus the best mean (paired test; None for the best); {} when a system has no units to
    resample or there is nothing to compare."""
    if resamples <= 0 or not common or len(systems) < 2:
        return {}
    if any(part is None for parts in units.values() for part in parts):
        return {}
    means = {system: fmean(float(scores[system][dataset] or 0.0) for dataset in common) for system in systems}
    best = max(systems, key=lambda system: means[system])
    result: dict[str, Comparison | None] = {best: None}
    for system in systems:
        if system == best:
            continue
        found = column_comparisons(units[system], units[best], resamples, method).get(CONLL_COLUMN)  # type: ignore[arg-type]
        if found is None:
            return {}
        result[system] = found
    return result


def _mean_of(
    scores: dict[str, float | None],
    datasets: Sequence[str],
    units: Sequence[UnitData | None],
    resamples: int,
) -> tuple[float | None, int]:
    """The unweighted mean of a system's numbers on ``datasets`` (None where it has none), with the interval of the
    mean when every dataset has its units, and how many there were."""
    values = [float(value) for dataset in datasets if (value := scores[dataset]) is not None]
    if not values:
        return None, 0
    mean = sum(values) / len(values)
    parts = [part for part in units if part is not None]
    if resamples > 0 and parts and len(parts) == len(values):
        found = column_intervals(parts, resamples).get(CONLL_COLUMN)
        if found is not None:
            return Estimate(mean, found.low, found.high, units=found.units), len(values)
    return mean, len(values)


def means_over_datasets(groups: Sequence[Sequence[StoredRun]], level: str) -> list[DatasetMean]:
    """The protocol's means over datasets of a system's runs (each dataset: the mean over its seeds)."""
    per_dataset = []
    for group in groups:
        for mean in group[0].means:
            kind = mean["type"]
            scores = {column: fmean(run.score(kind, column) or 0.0 for run in group) for column in mean["scores"]}
            units = seed_units(group, kind)
            per_dataset.append(
                DatasetMean(group[0].dataset, level, "" if kind == "joint" else kind, 1, scores, units=units)  # type: ignore[arg-type]
            )
    return [mean for mean in ucdcr_means(per_dataset) if mean.level == level]


def paired_with_each(
    runs: Sequence[StoredRun],
    system: str,
    others: Sequence[str],
    datasets: Sequence[str],
    resamples: int = RESAMPLES,
    method: Method = "randomization",
) -> dict[str, Comparison | None]:
    """``system``'s mean over ``datasets`` against each of ``others`` (paired, on the same resampled units); None
    where a side has no units."""
    groups: dict[tuple[str, str], list[StoredRun]] = {}
    for (name, _, dataset), group in by_seed(in_domain(runs)).items():
        groups.setdefault((name, dataset), group)
    mine = [seed_units(groups[(system, dataset)]) if (system, dataset) in groups else None for dataset in datasets]
    found: dict[str, Comparison | None] = {}
    for other in others:
        theirs = [seed_units(groups[(other, dataset)]) if (other, dataset) in groups else None for dataset in datasets]
        if resamples <= 0 or any(part is None for part in (*mine, *theirs)):
            found[other] = None
            continue
        found[other] = column_comparisons(mine, theirs, resamples, method).get(CONLL_COLUMN)  # type: ignore[arg-type]
    return found
