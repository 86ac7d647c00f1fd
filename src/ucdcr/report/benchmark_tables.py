"""The tables of ``ucdcr benchmark`` (and of the benchmark section of ``ucdcr report``) from stored runs.

- Scores: per dataset, system and type (joint / event / entity) the F1 of MUC, B3, CEAFe and the CoNLL F1 of the
  in-domain run (or its fallback) at the benchmark's level, then a mean row per system and type: the protocol's
  unweighted mean over datasets (:func:`ucdcr.analysis.protocol.ucdcr_means`), over every dataset and, when some
  dataset has no train split (CEREC), over the datasets fitted on their own train split.
- Models: per system and dataset, the split the model was fitted on, the split it was tuned on and what it learned.
- Transfer: per trainable system, the CoNLL F1 (joint) of the model fitted and tuned on the row's dataset and
  tested on the column's dataset; the diagonal is in-domain.
- Leaderboard (last in ``ucdcr benchmark``, first in the report): CoNLL F1 (joint) per system and dataset, with the
  mean over the same datasets for every system (a system without a number on one of them is left out of the mean
  and the test, and named in the note; only when no system has every dataset, the mean is over those every system
  has, and the others are named) and, when some of them have no train split, the mean over those that have one.
  Each system's mean is compared with the best mean by a paired test on the same resampled units
  (:mod:`ucdcr.scoring.bootstrap`): the difference with its interval, the p-value, and whether it is tied for first
  (not significantly below the best).
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

from ucdcr.analysis.protocol import Protocol, column_comparisons
from ucdcr.analysis.signature import Signature, combined, signature_note
from ucdcr.report.tables import Estimate, PValue, ResultTable, format_cell
from ucdcr.scoring.bootstrap import EXACT_UNITS, LEVEL, RESAMPLES, Comparison, Method
from ucdcr.systems.framework.names import BUILTIN
from ucdcr.systems.framework.placement import Placement
from ucdcr.systems.framework.runner import Benchmark
from ucdcr.systems.framework.standings import (
    Standing,
    by_seed,
    estimate,
    fitted_on_own_train,
    group_signature,
    in_domain,
    means_over_datasets,
    seed_sd,
    seed_units,
    standing,
)
from ucdcr.systems.framework.store import StoredRun, forget_command

F1_COLUMNS = {"MUC": "F1_MUC", "B3": "F1_B3", "CEAFe": "F1_CEAF_E", "CoNLL": "F1_CONLL"}
TYPES = ("joint", "event", "entity")
IN_DOMAIN = ("in-domain", "fallback")


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
                        row["Seeds"], row["CoNLL sd"] = len(group), seed_sd(group, kind)
                    table.add(row)
    own = {key: group for key, group in groups.items() if fitted_on_own_train(group[0])}
    for label, subset in (("mean", groups), ("mean, datasets with a train split", own)):
        if label != "mean" and {key[2] for key in own} == {key[2] for key in groups}:
            continue
        for system in systems:
            for mean in means_over_datasets(
                [group for key, group in subset.items() if key[0] == system], protocol.level
            ):
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


def settings_table(
    runs: Sequence[StoredRun], systems: Sequence[str], dataset: str, protocols: Sequence[Protocol], kind: str = "joint"
) -> ResultTable:
    """One dataset's CoNLL F1 of one type per system (rows) in each of several settings (columns: the protocols'
    labels), each the mean over the system's seeds with its interval; a note per column gives its signature. The
    columns are different settings: a row's numbers are not compared with each other (no test)."""
    labels = [protocol.label for protocol in protocols]
    table = ResultTable(f"{dataset}: CoNLL F1 ({kind}) in each setting", ["System", *labels, "Seeds"])
    signatures: dict[str, list[Signature]] = {label: [] for label in labels}
    for system in systems:
        row: dict[str, object] = {"System": system}
        seeds = []
        for label in labels:
            chosen = [r for r in in_domain(runs) if (r.system, r.dataset, r.protocol) == (system, dataset, label)]
            groups = list(by_seed(chosen).values())
            row[label] = estimate(groups[0], kind) if groups else None
            if groups:
                seeds.append(len(groups[0]))
                signatures[label].append(group_signature(groups[0]))
        row["Seeds"] = "-".join(str(count) for count in sorted(set(seeds))) if seeds else None
        table.add(row)
    for label in labels:
        if signatures[label]:
            table.notes.append(f"{label}: {signature_note(combined(signatures[label], RESAMPLES))}")
    return table


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
    method: Method = "randomization",
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
    method: Method = "randomization",
) -> ResultTable:
    """The leaderboard of ``runs`` (:func:`ucdcr.systems.framework.standings.standing`, formatted by
    :func:`standing_table`)."""
    return standing_table(standing(runs, systems, datasets, protocol, resamples, method))


def standing_table(found: Standing, title: str = "") -> ResultTable:
    """CoNLL F1 (joint) per system (rows) and dataset (columns), with the unweighted mean over the same datasets for
    every system: the leaderboard's datasets (their count in the column ``n``). A system without a number on one of
    them has no mean and no test, and the note names it; only when no system has them all is the mean over those
    every system has a number for (the note names the others). When some of the mean's datasets were fitted on
    another dataset's train split (a fallback: a dataset without one), the column ``mean, with train`` averages the
    others (``train n`` of them). When a system or a dataset is left out, the columns ``mean, own datasets`` and
    ``own n`` give each system's mean over all its own numbers (with one dataset there is no mean: it would repeat
    the dataset's
    column). With a test, each system's mean is compared with the best mean on
    the same resampled units: ``Δ best`` (with its interval), ``p`` and ``tied for first``. ``Seeds``: the runs a
    number averages, when some system has several; ``Source``: where each system's runs came from, when given. The
    notes end with the signature of every number."""
    datasets, protocol = found.datasets, found.protocol
    uneven = found.covered != found.common or bool(found.partial)
    train_columns = ["mean, with train", "train n"] if found.trained != found.common else []
    extra = ["mean, own datasets", "own n"] if uneven else []
    test_columns = ["Δ best", "p", "tied for first"] if found.tested else []
    seeded = any(row.seeds > 1 for row in found.rows)
    sourced = any(row.source for row in found.rows)
    table = ResultTable(
        title or f"Leaderboard, {protocol.label} protocol: CoNLL F1 (joint)",
        [
            "System",
            *datasets,
            *(["mean", "n"] if len(datasets) > 1 else []),
            *test_columns,
            *train_columns,
            *extra,
            *(["Seeds"] if seeded else []),
            *(["Source"] if sourced else []),
        ],
    )
    for standing_row in found.rows:
        row: dict[str, object] = {"System": standing_row.system, **standing_row.scores}
        if len(datasets) > 1:
            row["mean"], row["n"] = standing_row.mean, standing_row.n
        if found.tested and standing_row.system in found.partial:
            row["Δ best"] = row["p"] = row["tied for first"] = None
        elif found.tested:
            delta = standing_row.delta
            row["Δ best"] = (
                0.0 if delta is None else Estimate(delta.difference, delta.low, delta.high, units=delta.units)
            )
            row["p"] = None if delta is None else PValue.of(delta)
            row["tied for first"] = "best" if standing_row.best else "yes" if standing_row.tied else "no"
        if train_columns:
            row["mean, with train"], row["train n"] = standing_row.trained_mean, standing_row.trained_n
        if uneven:
            row["mean, own datasets"], row["own n"] = standing_row.own_mean, standing_row.own_n
        if seeded:
            row["Seeds"] = standing_row.seeds
        if sourced:
            row["Source"] = standing_row.source
        table.add(row)
    table.notes.append(f"Protocol: {protocol.describe()}.")
    if found.resamples > 0:
        table.notes.append(interval_note(protocol, found.resamples))
    if found.tested:
        table.notes.append(test_note(found.method, found.resamples))
    if train_columns:
        table.notes.append(
            "mean, with train: over the datasets fitted on their own train split "
            f"({', '.join(found.trained) or 'none'}); the others "
            f"({', '.join(d for d in found.common if d not in found.trained)}) use a fallback (models table)."
        )
    if not uneven:
        table.notes.append("mean: unweighted over the n datasets, the same for every system.")
    elif found.partial:
        table.notes.append(
            f"mean: unweighted over the n datasets ({', '.join(found.common)}), the same for every system with a "
            f"number on each; left out of the means and the test: {partial_note(found)}. mean, own datasets: over "
            "all of a system's own numbers (own n): not comparable between systems."
        )
    else:
        gaps = "; ".join(
            f"{dataset} (no number for {', '.join(r.system for r in found.rows if r.scores[dataset] is None)})"
            for dataset in found.covered
            if dataset not in found.common
        )
        table.notes.append(
            "mean: unweighted over the n datasets every system has a number for "
            f"({', '.join(found.common) or 'none'}), the same for every system; left out of every mean: {gaps}. "
            "mean, own datasets: over all of a system's "
            "own numbers (own n): not comparable between systems."
        )
    if seeded:
        table.notes.append(SEEDS_NOTE)
    table.notes += found.notes
    if found.signature is not None:
        table.notes.append(signature_note(found.signature))
    return table


def partial_note(found: Standing) -> str:
    """The systems of a standing left out of its means, each with the datasets it has no number for."""
    return "; ".join(
        f"{system} (no number for {', '.join(d for d in found.common if found.row(system).scores[d] is None)})"
        for system in found.partial
    )


SEEDS_NOTE = (
    "Seeds: the runs each number averages (seeds 0 .. N-1); a system with 1 beside others with several is untrained "
    "or deterministic (it draws nothing at random), so more seeds would repeat its numbers."
)


def each_table(system: str, comparisons: dict[str, Comparison | None], found: Standing) -> ResultTable:
    """``system``'s mean CoNLL F1 (joint) against each reference system's, paired on the same units (``ucdcr
    evaluate --each``)."""
    table = ResultTable(
        f"{system} against each reference system: mean CoNLL F1 (joint) over {', '.join(found.common)}",
        ["System", "reference mean", "Δ", "p", "significant"],
    )
    mine = found.row(system).mean
    for other, comparison in comparisons.items():
        row: dict[str, object] = {"System": other, "reference mean": found.row(other).mean}
        if comparison is not None:
            row["Δ"] = Estimate(comparison.difference, comparison.low, comparison.high, units=comparison.units)
            row["p"], row["significant"] = PValue.of(comparison), "yes" if comparison.significant() else "no"
        elif mine is not None and found.row(other).mean is not None:
            row["Δ"] = float(mine) - float(found.row(other).mean or 0.0)
        table.add(row)
    table.notes.append(
        f"Δ: {system}'s mean ({format_cell(mine)}) minus the reference system's, with its {LEVEL:.0%} paired "
        f"bootstrap interval; p: two-sided, {test_description(found.method, found.resamples)}; significant: p < "
        f"{1 - LEVEL:.2f}."
    )
    if found.signature is not None:
        table.notes.append(signature_note(found.signature))
    return table


def test_description(method: Method, resamples: int) -> str:
    """What a p-value of ``method`` is and its resolution (the tables' notes)."""
    if method == "randomization":
        return (
            f"paired randomisation over the same units (every swap when there are at most {EXACT_UNITS} units: an "
            f"exact p; else {resamples} random swaps, and a p at its floor prints as <1/(R+1))"
        )
    return f"paired bootstrap ({resamples} resamples; a p at its floor prints as <2/(R+1))"


def test_note(method: Method, resamples: int) -> str:
    """What ``Δ best`` and ``p`` of a leaderboard are."""
    return (
        f"Δ best: the system's mean minus the best mean with its {LEVEL:.0%} paired bootstrap interval over the same "
        f"resampled test units of every dataset; p: two-sided, {test_description(method, resamples)}; tied for "
        f"first: not significantly below the best (p ≥ {1 - LEVEL:.2f})."
    )


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


def benchmark_tables(
    result: Benchmark,
    resamples: int = RESAMPLES,
    method: Method = "randomization",
    placement: Placement | None = None,
) -> list[ResultTable]:
    """What ``ucdcr benchmark`` prints: scores, models, the transfer matrices when there are transfer runs, and the
    leaderboard last (the summary a terminal shows at the end): the runs' own, or with ``placement``
    (:func:`ucdcr.systems.framework.placement.place_runs`) beside the reference runs of the same signature, after
    each system's comparison with every reference system when the placement has them (``each``)."""
    tables = run_tables(result.runs, result.systems, result.datasets, result.protocol, resamples, method)
    tables[0].notes.extend(f"{note}." for note in result.notes)
    if placement is not None and placement.standing is not None:
        leaderboard = standing_table(placement.standing)
        leaderboard.notes[:0] = placement.notes
        each = [each_table(system, found, placement.standing) for system, found in placement.each.items()]
        return [*tables, *each, leaderboard]
    else:
        leaderboard = leaderboard_table(
            result.runs, result.systems, result.datasets, result.protocol, resamples, method
        )
        leaderboard.notes[:0] = placement.notes if placement is not None else []
    return [*tables, leaderboard]


def run_tables(
    runs: Sequence[StoredRun],
    systems: Sequence[str],
    datasets: Sequence[str],
    protocol: Protocol,
    resamples: int = RESAMPLES,
    method: Method = "randomization",
) -> list[ResultTable]:
    """The tables of :func:`benchmark_tables` from stored runs of one protocol."""
    return [
        score_table(runs, systems, datasets, protocol, resamples),
        models_table(runs, systems, datasets),
        *transfer_tables(runs, systems, datasets, resamples, method),
    ]
