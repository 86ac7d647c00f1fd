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
  note) and, when some of them have no train split, the mean over those that have one.
"""

from __future__ import annotations

from collections.abc import Sequence

from ucdcr.analysis.protocol import DatasetMean, Protocol, ucdcr_means
from ucdcr.report.tables import ResultTable
from ucdcr.systems.runner import Benchmark
from ucdcr.systems.store import StoredRun

F1_COLUMNS = {"MUC": "F1_MUC", "B3": "F1_B3", "CEAFe": "F1_CEAF_E", "CoNLL": "F1_CONLL"}
TYPES = ("joint", "event", "entity")
IN_DOMAIN = ("in-domain", "fallback")


def in_domain(runs: Sequence[StoredRun]) -> list[StoredRun]:
    """The leaderboard's runs: in-domain or fallback."""
    return [run for run in runs if run.setting in IN_DOMAIN]


def fitted_on_own_train(run: StoredRun) -> bool:
    """Whether a run's model was fitted on its own dataset's train split (not a fallback's)."""
    return run.fit_on == f"{run.dataset} train"


def score_table(
    runs: Sequence[StoredRun], systems: Sequence[str], datasets: Sequence[str], protocol: Protocol
) -> ResultTable:
    """Scores of every dataset, system and type, and the mean rows per system (module docstring)."""
    table = ResultTable(f"Benchmark, {protocol.label} protocol (F1)", ["Dataset", "System", "Type", *F1_COLUMNS])
    level = protocol.level
    chosen = in_domain(runs)
    for dataset in datasets:
        for system in systems:
            for run in [r for r in chosen if r.dataset == dataset and r.system == system]:
                for kind in TYPES:
                    if run.score(kind) is not None:
                        table.add(_row(dataset, system, kind, run))
    with_train = [run for run in chosen if fitted_on_own_train(run)]
    for label, subset in (("mean", chosen), ("mean, datasets with a train split", with_train)):
        if label != "mean" and {run.dataset for run in with_train} == {run.dataset for run in chosen}:
            continue
        for system in systems:
            for mean in _means([run for run in subset if run.system == system], level):
                kind = mean.type or "joint"
                scores = {name: mean.scores[column] for name, column in F1_COLUMNS.items()}
                table.add({"Dataset": f"{label} ({mean.settings})", "System": system, "Type": kind, **scores})
    table.notes.append(f"Protocol: {protocol.describe()}.")
    table.notes.append(
        "Means: unweighted over datasets (number in brackets). Which splits each number was fitted and tuned on: "
        "see the models table."
    )
    return table


def _row(dataset: str, system: str, kind: str, run: StoredRun) -> dict[str, object]:
    return {
        "Dataset": dataset,
        "System": system,
        "Type": kind,
        **{n: run.score(kind, c) for n, c in F1_COLUMNS.items()},
    }


def _means(runs: Sequence[StoredRun], level: str) -> list[DatasetMean]:
    per_dataset = [
        DatasetMean(run.dataset, level, "" if mean["type"] == "joint" else mean["type"], 1, mean["scores"])  # type: ignore[arg-type]
        for run in runs
        for mean in run.means
    ]
    return [mean for mean in ucdcr_means(per_dataset) if mean.level == level]


def models_table(runs: Sequence[StoredRun], systems: Sequence[str], datasets: Sequence[str]) -> ResultTable:
    """Per system and dataset: fitted on, tuned on, what was learned."""
    table = ResultTable("Benchmark: models", ["System", "Dataset", "Setting", "Fitted on", "Tuned on", "Model"])
    chosen = in_domain(runs)
    for system in systems:
        for dataset in datasets:
            for run in [r for r in chosen if r.dataset == dataset and r.system == system]:
                table.add(
                    {
                        "System": system,
                        "Dataset": dataset,
                        "Setting": run.setting,
                        "Fitted on": run.fit_on or "–",
                        "Tuned on": run.tune_on or "–",
                        "Model": run.model,
                    }
                )
    return table


def transfer_tables(runs: Sequence[StoredRun], systems: Sequence[str], datasets: Sequence[str]) -> list[ResultTable]:
    """One matrix per system with transfer runs: rows = fitted and tuned on, columns = tested on (CoNLL F1)."""
    tables = []
    for system in systems:
        matrix = transfer_matrix(runs, system, datasets)
        if not matrix:
            continue
        table = ResultTable(
            f"Transfer: {system}, CoNLL F1 (joint); rows: fitted and tuned on, columns: tested on",
            ["Fitted on", *datasets, "mean"],
        )
        for source in datasets:
            row = {target: matrix.get((source, target)) for target in datasets}
            values = [value for value in row.values() if value is not None]
            table.add({"Fitted on": source, **row, "mean": sum(values) / len(values) if values else None})
        sources = {
            run.source: f"{run.fit_on} / {run.tune_on}"
            for run in runs
            if run.system == system and run.setting != "fallback"
        }
        table.notes.append(
            "Splits fitted / tuned on: " + "; ".join(f"{name}: {sources[name]}" for name in datasets if name in sources)
        )
        tables.append(table)
    return tables


def transfer_matrix(runs: Sequence[StoredRun], system: str, datasets: Sequence[str]) -> dict[tuple[str, str], float]:
    """(source, target) -> CoNLL F1 of the transfer runs of a system (empty when it has none)."""
    chosen = [run for run in runs if run.system == system and run.setting == "transfer"]
    if not chosen:
        return {}
    chosen += [run for run in runs if run.system == system and run.setting == "in-domain"]  # the diagonal
    matrix: dict[tuple[str, str], float] = {}
    for run in chosen:
        value = run.score()
        if run.source in datasets and run.dataset in datasets and value is not None:
            matrix[(run.source, run.dataset)] = value
    return matrix


def leaderboard_table(
    runs: Sequence[StoredRun], systems: Sequence[str], datasets: Sequence[str], protocol: Protocol
) -> ResultTable:
    """CoNLL F1 (joint) per system (rows) and dataset (columns), with the unweighted mean over the same datasets for
    every system: those every system has a number for (their count in the column ``n``). When some of them were
    fitted on another dataset's train split (a fallback: a dataset without one), the column ``mean, with train``
    averages the others (``train n`` of them). When some system has a number for a dataset another lacks, that
    dataset is left out of every mean, the note names it, and the columns ``mean, own datasets`` and ``own n`` give
    each system's mean over all its own numbers."""
    chosen = in_domain(runs)
    leaderboard: dict[tuple[str, str], StoredRun] = {}
    for run in chosen:
        leaderboard.setdefault((run.system, run.dataset), run)
    scores = {
        system: {
            dataset: found.score() if (found := leaderboard.get((system, dataset))) else None for dataset in datasets
        }
        for system in systems
    }
    common = [dataset for dataset in datasets if all(scores[system][dataset] is not None for system in systems)]
    covered = [dataset for dataset in datasets if any(scores[system][dataset] is not None for system in systems)]
    trained = [
        dataset for dataset in common if all(fitted_on_own_train(leaderboard[(system, dataset)]) for system in systems)
    ]
    uneven = covered != common
    train_columns = ["mean, with train", "train n"] if trained != common else []
    extra = ["mean, own datasets", "own n"] if uneven else []
    table = ResultTable(
        f"Leaderboard, {protocol.label} protocol: CoNLL F1 (joint)",
        ["System", *datasets, "mean", "n", *train_columns, *extra],
    )
    for system in systems:
        row: dict[str, object] = {"System": system, **scores[system]}
        row["mean"], row["n"] = _mean_of(scores[system], common)
        if train_columns:
            row["mean, with train"], row["train n"] = _mean_of(scores[system], trained)
        if uneven:
            row["mean, own datasets"], row["own n"] = _mean_of(scores[system], covered)
        table.add(row)
    table.notes.append(f"Protocol: {protocol.describe()}.")
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


def _mean_of(scores: dict[str, float | None], datasets: Sequence[str]) -> tuple[float | None, int]:
    """The unweighted mean of a system's numbers on ``datasets`` (None where it has none) and how many there were."""
    values = [value for dataset in datasets if (value := scores[dataset]) is not None]
    return (sum(values) / len(values) if values else None), len(values)


def benchmark_tables(result: Benchmark) -> list[ResultTable]:
    """What ``ucdcr benchmark`` prints: scores, models, the transfer matrices when there are transfer runs, and the
    leaderboard last (the summary a terminal shows at the end)."""
    tables = run_tables(result.runs, result.systems, result.datasets, result.protocol)
    tables[0].notes.extend(f"{note}." for note in result.notes)
    return [*tables, leaderboard_table(result.runs, result.systems, result.datasets, result.protocol)]


def run_tables(
    runs: Sequence[StoredRun], systems: Sequence[str], datasets: Sequence[str], protocol: Protocol
) -> list[ResultTable]:
    """The tables of :func:`benchmark_tables` from stored runs of one protocol."""
    return [
        score_table(runs, systems, datasets, protocol),
        models_table(runs, systems, datasets),
        *transfer_tables(runs, systems, datasets),
    ]
