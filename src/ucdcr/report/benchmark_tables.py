"""The tables of ``ucdcr benchmark`` (and of the benchmark section of ``ucdcr report``) from stored runs.

- Scores: per dataset, system and type (joint / event / entity) the F1 of MUC, B3, CEAFe and the CoNLL F1 of the
  in-domain run (or its fallback) at the benchmark's level, then a mean row per system and type: the protocol's
  unweighted mean over datasets (:func:`ucdcr.analysis.protocol.ucdcr_means`), over every dataset and, when some
  dataset has no train split (CEREC), over the datasets fitted on their own train split.
- Models: per system and dataset, the split the model was fitted on, the split it was tuned on and what it learned.
- Transfer: per trainable system, the CoNLL F1 (joint) of the model fitted and tuned on the row's dataset and
  tested on the column's dataset; the diagonal is in-domain.
- Leaderboard (last in ``ucdcr benchmark``, first in the report): CoNLL F1 (joint) per system and dataset, with the
  mean over the same datasets for every system (those every system has a number for; the others are named in the
  note) and, when some of them have no train split, the mean over those that have one. Each system's mean is
  compared with the best mean by a paired test on the same resampled units (:mod:`ucdcr.scoring.bootstrap`): the
  difference with its interval, the p-value, and whether it is tied for first (not significantly below the best).
  In the report, a note says where its rows came from (:func:`provenance_note`): the results file, which systems
  are reference systems and, per user system, what it was run as and when, with the command that removes it.

Uncertainty: every score carries its 95% bootstrap interval (``resamples`` 0: none), resampled from the units its
run stored; a system run with several seeds shows the mean over its seeds (the interval of that mean) and the
standard deviation over seeds of the CoNLL F1. The transfer matrix marks with ``≈`` the cells not significantly
different from the in-domain score of their column.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from statistics import fmean, stdev

from ucdcr.analysis.protocol import DatasetMean, Protocol, column_comparisons, column_intervals, ucdcr_means
from ucdcr.report.tables import Estimate, PValue, ResultTable
from ucdcr.scoring.bootstrap import LEVEL, RESAMPLES, Method, SeedMean, UnitData
from ucdcr.systems.framework.names import BUILTIN
from ucdcr.systems.framework.runner import Benchmark
from ucdcr.systems.framework.store import StoredRun, forget_command

F1_COLUMNS = {"MUC": "F1_MUC", "B3": "F1_B3", "CEAFe": "F1_CEAF_E", "CoNLL": "F1_CONLL"}
TYPES = ("joint", "event", "entity")
IN_DOMAIN = ("in-domain", "fallback")


def in_domain(runs: Sequence[StoredRun]) -> list[StoredRun]:
    """The leaderboard's runs: in-domain or fallback."""
    return [run for run in runs if run.setting in IN_DOMAIN]


def fitted_on_own_train(run: StoredRun) -> bool:
    """Whether a run's model was fitted on its own dataset's train split (not a fallback's)."""
    return run.fit_on == f"{run.dataset} train"


def by_seed(runs: Sequence[StoredRun]) -> dict[tuple[str, str, str], list[StoredRun]]:
    """(system, fitted on, dataset) -> its runs, one per seed, in seed order."""
    grouped: dict[tuple[str, str, str], list[StoredRun]] = {}
    for run in sorted(runs, key=lambda item: item.seed):
        grouped.setdefault((run.system, run.source, run.dataset), []).append(run)
    return grouped


def seed_units(runs: Sequence[StoredRun], kind: str = "joint") -> UnitData | None:
    """What the interval of the runs' mean over seeds resamples (None when a run has no units)."""
    parts = [run.units(kind) for run in runs]
    plain = [part for part in parts if part is not None and not isinstance(part, SeedMean)]
    if not plain or len(plain) != len(parts):
        return None
    if len(plain) == 1:
        return plain[0]
    try:
        return SeedMean(tuple(plain))
    except ValueError:  # seeds scored on different units (predicted topics): no interval rather than a wrong one
        return None


def estimate(
    runs: Sequence[StoredRun], kind: str = "joint", column: str = "F1_CONLL", resamples: int = RESAMPLES
) -> float | None:
    """The mean over the runs' seeds of one score, with its interval when the runs stored their units."""
    values = [run.score(kind, column) for run in runs]
    if not values or any(value is None for value in values):
        return None
    value = fmean(value for value in values if value is not None)
    units = seed_units(runs, kind)
    found = column_intervals(units, resamples).get(column) if units is not None else None
    return Estimate(value, found.low, found.high) if found else value


def _seed_sd(runs: Sequence[StoredRun], kind: str) -> float | None:
    values = [value for run in runs if (value := run.score(kind)) is not None]
    return stdev(values) if len(values) > 1 else None


def score_table(
    runs: Sequence[StoredRun],
    systems: Sequence[str],
    datasets: Sequence[str],
    protocol: Protocol,
    resamples: int = RESAMPLES,
) -> ResultTable:
    """Scores of every dataset, system and type, and the mean rows per system (module docstring)."""
    groups = by_seed(in_domain(runs))
    seeded = any(len(group) > 1 for group in groups.values())
    seed_columns = ["Seeds", "CoNLL sd"] if seeded else []
    table = ResultTable(
        f"Benchmark, {protocol.label} protocol (F1)", ["Dataset", "System", "Type", *F1_COLUMNS, *seed_columns]
    )
    for dataset in datasets:
        for system in systems:
            for (name, _, tested), group in groups.items():
                if (name, tested) != (system, dataset):
                    continue
                for kind in TYPES:
                    if group[0].score(kind) is None:
                        continue
                    row: dict[str, object] = {"Dataset": dataset, "System": system, "Type": kind}
                    row.update({n: estimate(group, kind, c, resamples) for n, c in F1_COLUMNS.items()})
                    if seeded:
                        row["Seeds"], row["CoNLL sd"] = len(group), _seed_sd(group, kind)
                    table.add(row)
    own = {key: group for key, group in groups.items() if fitted_on_own_train(group[0])}
    for label, subset in (("mean", groups), ("mean, datasets with a train split", own)):
        if label != "mean" and {key[2] for key in own} == {key[2] for key in groups}:
            continue
        for system in systems:
            for mean in _means([group for key, group in subset.items() if key[0] == system], protocol.level):
                kind = mean.type or "joint"
                found = mean.intervals(resamples)
                scores = {
                    name: Estimate(mean.scores[c], found[c].low, found[c].high) if c in found else mean.scores[c]
                    for name, c in F1_COLUMNS.items()
                }
                table.add({"Dataset": f"{label} ({mean.settings})", "System": system, "Type": kind, **scores})
    table.notes.append(f"Protocol: {protocol.describe()}.")
    table.notes.append(
        "Means: unweighted over datasets (number in brackets). Which splits each number was fitted and tuned on: "
        "see the models table."
    )
    if resamples > 0:
        table.notes.append(interval_note(protocol, resamples))
    if seeded:
        table.notes.append("Seeds: a system run with several seeds shows the mean over its seeds; CoNLL sd: their sd.")
    return table


def interval_note(protocol: Protocol, resamples: int) -> str:
    """What the intervals of a benchmark table resample."""
    units = (
        "gold topics (topics a chain joins count as one)"
        if protocol.standard
        else f"{protocol.level}s (the protocol's settings)"
    )
    return (
        f"[low, high]: {LEVEL:.0%} percentile bootstrap interval over the test {units}, {resamples} resamples, fixed "
        "seed; of a mean over seeds, the mean's; of a mean over datasets, each dataset resampled on its own (a dataset "
        "of one test unit has no interval and enters the means as a constant)."
    )


def _means(groups: Sequence[Sequence[StoredRun]], level: str) -> list[DatasetMean]:
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


def models_table(runs: Sequence[StoredRun], systems: Sequence[str], datasets: Sequence[str]) -> ResultTable:
    """Per system and dataset: fitted on, tuned on, what was learned (a line per seed when there are several)."""
    table = ResultTable("Benchmark: models", ["System", "Dataset", "Setting", "Fitted on", "Tuned on", "Model"])
    chosen = in_domain(runs)
    for system in systems:
        for dataset in datasets:
            found = sorted((r for r in chosen if r.dataset == dataset and r.system == system), key=lambda r: r.seed)
            for run in found:
                seed = f"seed {run.seed}: " if len(found) > 1 else ""
                table.add(
                    {
                        "System": system,
                        "Dataset": dataset,
                        "Setting": run.setting,
                        "Fitted on": run.fit_on or "–",
                        "Tuned on": run.tune_on or "–",
                        "Model": seed + run.model,
                    }
                )
    return table


def transfer_tables(
    runs: Sequence[StoredRun],
    systems: Sequence[str],
    datasets: Sequence[str],
    resamples: int = RESAMPLES,
    method: Method = "bootstrap",
) -> list[ResultTable]:
    """One matrix per system with transfer runs: rows = fitted and tuned on, columns = tested on (CoNLL F1)."""
    tables = []
    for system in systems:
        matrix = transfer_matrix(runs, system, datasets, resamples)
        if not matrix:
            continue
        groups = _transfer_groups(runs, system)
        marked = _marked_cells(groups, matrix, resamples, method)
        table = ResultTable(
            f"Transfer: {system}, CoNLL F1 (joint); rows: fitted and tuned on, columns: tested on",
            ["Fitted on", *datasets, "mean"],
        )
        for source in datasets:
            row = {target: marked.get((source, target), matrix.get((source, target))) for target in datasets}
            values = [float(value) for value in row.values() if value is not None]
            table.add({"Fitted on": source, **row, "mean": sum(values) / len(values) if values else None})
        sources = {
            run.source: f"{run.fit_on} / {run.tune_on}"
            for run in runs
            if run.system == system and run.setting != "fallback"
        }
        table.notes.append(
            "Splits fitted / tuned on: " + "; ".join(f"{name}: {sources[name]}" for name in datasets if name in sources)
        )
        if resamples > 0:
            table.notes.append(
                f"≈: not significantly different from the in-domain score of its column (paired {method} over the "
                f"column's test units, {resamples} resamples, p ≥ {1 - LEVEL:.2f})."
            )
        tables.append(table)
    return tables


def _transfer_groups(runs: Sequence[StoredRun], system: str) -> dict[tuple[str, str], list[StoredRun]]:
    chosen = [run for run in runs if run.system == system and run.setting in ("transfer", "in-domain")]
    return {(source, dataset): group for (_, source, dataset), group in by_seed(chosen).items()}


def _marked_cells(
    groups: dict[tuple[str, str], list[StoredRun]],
    matrix: dict[tuple[str, str], float],
    resamples: int,
    method: Method,
) -> dict[tuple[str, str], float]:
    """The off-diagonal cells not significantly different from their column's in-domain score, marked ``≈``."""
    marked: dict[tuple[str, str], float] = {}
    for (source, target), value in matrix.items():
        diagonal = groups.get((target, target))
        if source == target or diagonal is None or resamples <= 0:
            continue
        cell, own = seed_units(groups[(source, target)]), seed_units(diagonal)
        if cell is None or own is None:
            continue
        comparison = column_comparisons(cell, own, resamples, method).get("F1_CONLL")
        if comparison is not None and not comparison.significant() and isinstance(value, Estimate):
            marked[(source, target)] = Estimate(float(value), value.low, value.high, " ≈")
    return marked


def transfer_matrix(
    runs: Sequence[StoredRun], system: str, datasets: Sequence[str], resamples: int = RESAMPLES
) -> dict[tuple[str, str], float]:
    """(source, target) -> CoNLL F1 of the transfer runs of a system, with its interval (empty when it has none)."""
    if not any(run.system == system and run.setting == "transfer" for run in runs):
        return {}
    matrix: dict[tuple[str, str], float] = {}
    for (source, dataset), group in _transfer_groups(runs, system).items():
        value = estimate(group, resamples=resamples)
        if source in datasets and dataset in datasets and value is not None:
            matrix[(source, dataset)] = value
    return matrix


def leaderboard_table(
    runs: Sequence[StoredRun],
    systems: Sequence[str],
    datasets: Sequence[str],
    protocol: Protocol,
    resamples: int = RESAMPLES,
    method: Method = "bootstrap",
) -> ResultTable:
    """CoNLL F1 (joint) per system (rows) and dataset (columns), with the unweighted mean over the same datasets for
    every system: those every system has a number for (their count in the column ``n``). When some of them were
    fitted on another dataset's train split (a fallback: a dataset without one), the column ``mean, with train``
    averages the others (``train n`` of them). When some system has a number for a dataset another lacks, that
    dataset is left out of every mean, the note names it, and the columns ``mean, own datasets`` and ``own n`` give
    each system's mean over all its own numbers. With intervals, each system's mean is compared with the best mean
    on the same resampled units: ``Δ best`` (with its interval), ``p`` and ``tied for first``."""
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
    common = [dataset for dataset in datasets if all(scores[system][dataset] is not None for system in systems)]
    covered = [dataset for dataset in datasets if any(scores[system][dataset] is not None for system in systems)]
    trained = [
        dataset for dataset in common if all(fitted_on_own_train(groups[(system, dataset)][0]) for system in systems)
    ]
    uneven = covered != common
    train_columns = ["mean, with train", "train n"] if trained != common else []
    extra = ["mean, own datasets", "own n"] if uneven else []
    units = {system: [seed_units(groups[(system, dataset)]) for dataset in common] for system in systems}
    comparisons = _against_best(systems, scores, common, units, resamples, method)
    test_columns = ["Δ best", "p", "tied for first"] if comparisons else []
    table = ResultTable(
        f"Leaderboard, {protocol.label} protocol: CoNLL F1 (joint)",
        ["System", *datasets, "mean", "n", *test_columns, *train_columns, *extra],
    )
    for system in systems:
        row: dict[str, object] = {"System": system, **scores[system]}
        row["mean"], row["n"] = _mean_of(scores[system], common, units[system], resamples)
        if comparisons:
            row.update(comparisons[system])
        if train_columns:
            trained_units = [seed_units(groups[(system, dataset)]) for dataset in trained]
            row["mean, with train"], row["train n"] = _mean_of(scores[system], trained, trained_units, resamples)
        if uneven:
            row["mean, own datasets"], row["own n"] = _mean_of(scores[system], covered, [], 0)
        table.add(row)
    table.notes.append(f"Protocol: {protocol.describe()}.")
    if resamples > 0:
        table.notes.append(interval_note(protocol, resamples))
    if comparisons:
        table.notes.append(
            f"Δ best: the system's mean minus the best mean, paired {method} over the same resampled test units of "
            f"every dataset ({resamples} resamples), its {LEVEL:.0%} interval and two-sided p; tied for first: not "
            f"significantly below the best (p ≥ {1 - LEVEL:.2f})."
        )
    if train_columns:
        table.notes.append(
            f"mean, with train: over the datasets fitted on their own train split ({', '.join(trained) or 'none'}); "
            f"the others ({', '.join(d for d in common if d not in trained)}) use a fallback (models table)."
        )
    if not uneven:
        table.notes.append("mean: unweighted over the n datasets, the same for every system.")
        return table
    gaps = "; ".join(
        f"{dataset} (no number for {', '.join(s for s in systems if scores[s][dataset] is None)})"
        for dataset in covered
        if dataset not in common
    )
    table.notes.append(
        f"mean: unweighted over the n datasets every system has a number for ({', '.join(common) or 'none'}), the "
        f"same for every system; left out of every mean: {gaps}. mean, own datasets: over all of a system's own "
        "numbers (own n): not comparable between systems."
    )
    return table


def provenance_note(runs: Sequence[StoredRun], systems: Sequence[str], results_file: Path) -> str:
    """Where the rows of a table of stored runs came from: the results file; the reference systems (built into
    ucdcr); per user system what it was run as (``StoredRun.origin``) and when its runs were stored (UTC dates), and
    the command that removes its runs from the file."""
    reference = [system for system in systems if system in BUILTIN]
    user = [system for system in systems if system not in BUILTIN]
    parts = [f"Rows from {results_file}"]
    if reference:
        parts.append(f"reference systems (built into ucdcr): {', '.join(reference)}")
    if user:
        described = ", ".join(f"{system} ({_origin([r for r in runs if r.system == system])})" for system in user)
        command = forget_command(user[0] if len(user) == 1 else "NAME", results_file.parent)
        parts += [f"user systems: {described}", f"remove a user system's stored runs with `{command}`"]
    return "; ".join(parts) + "."


def _origin(runs: Sequence[StoredRun]) -> str:
    """What a system's runs were run as and when they were stored ("not recorded" for runs of an older ucdcr)."""
    origins = sorted({run.origin for run in runs if run.origin})
    dates = sorted({run.stored[:10] for run in runs if run.stored})
    found = f"from {', '.join(origins)}" if origins else "origin not recorded"
    if dates:
        found += f", stored {dates[0]}" + (f" to {dates[-1]}" if len(dates) > 1 else "")
    return found


def _against_best(
    systems: Sequence[str],
    scores: dict[str, dict[str, float | None]],
    common: Sequence[str],
    units: dict[str, list[UnitData | None]],
    resamples: int,
    method: Method,
) -> dict[str, dict[str, object]]:
    """Per system: its mean minus the best mean (paired test), p, and whether it is tied for first; {} when a
    system has no units to resample or there is nothing to compare."""
    if resamples <= 0 or not common or len(systems) < 2:
        return {}
    if any(part is None for parts in units.values() for part in parts):
        return {}
    means = {system: fmean(float(scores[system][dataset] or 0.0) for dataset in common) for system in systems}
    best = max(systems, key=lambda system: means[system])
    result: dict[str, dict[str, object]] = {best: {"Δ best": 0.0, "p": None, "tied for first": "best"}}
    for system in systems:
        if system == best:
            continue
        found = column_comparisons(units[system], units[best], resamples, method).get("F1_CONLL")  # type: ignore[arg-type]
        if found is None:
            return {}
        tied = "yes" if not found.significant() else "no"
        result[system] = {
            "Δ best": Estimate(found.difference, found.low, found.high),
            "p": PValue(found.p_value),
            "tied for first": tied,
        }
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
        found = column_intervals(parts, resamples).get("F1_CONLL")
        if found is not None:
            return Estimate(mean, found.low, found.high), len(values)
    return mean, len(values)


def benchmark_tables(result: Benchmark, resamples: int = RESAMPLES, method: Method = "bootstrap") -> list[ResultTable]:
    """What ``ucdcr benchmark`` prints: scores, models, the transfer matrices when there are transfer runs, and the
    leaderboard last (the summary a terminal shows at the end)."""
    tables = run_tables(result.runs, result.systems, result.datasets, result.protocol, resamples, method)
    tables[0].notes.extend(f"{note}." for note in result.notes)
    leaderboard = leaderboard_table(result.runs, result.systems, result.datasets, result.protocol, resamples, method)
    return [*tables, leaderboard]


def run_tables(
    runs: Sequence[StoredRun],
    systems: Sequence[str],
    datasets: Sequence[str],
    protocol: Protocol,
    resamples: int = RESAMPLES,
    method: Method = "bootstrap",
) -> list[ResultTable]:
    """The tables of :func:`benchmark_tables` from stored runs of one protocol."""
    return [
        score_table(runs, systems, datasets, protocol, resamples),
        models_table(runs, systems, datasets),
        *transfer_tables(runs, systems, datasets, resamples, method),
    ]
