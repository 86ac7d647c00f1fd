"""The paper's tables as :class:`~ucdcr.report.tables.ResultTable` objects, built from dataset folders.

One place for the tables that ``ucdcr stats`` (Tables 2, 3, 4, 12, 9-11 and the summary), ``ucdcr diversity``
(Table 5, per split, the PD / MTLD histograms of Figures 5-6), ``ucdcr baseline`` (Tables 6, 7, 13 and every
setting) and ``ucdcr evaluate`` print, and that ``ucdcr report`` collects. The values come from
:mod:`ucdcr.analysis`; this module only loads the columns each analysis needs and lays the results out.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ucdcr.analysis.baseline import run_baseline
from ucdcr.analysis.chains import scopes
from ucdcr.analysis.diversity import TABLE5_COLUMNS, chain_diversity, scope_diversity, table5_row
from ucdcr.analysis.evaluate import Evaluation
from ucdcr.analysis.histograms import METRIC_EDGES, chain_histograms, histogram_rows
from ucdcr.analysis.protocol import (
    LEVELS,
    MENTION_COLUMNS,
    META_DOCUMENT,
    PARTS,
    PROTOCOL_METRICS,
    TYPES,
    DatasetMean,
    ProtocolResult,
    load_for_protocol,
    ucdcr_means,
)
from ucdcr.analysis.stats import (
    STATS_FIELDS,
    distribution,
    summary_rows,
    table2_row,
    table3_row,
    table4_row,
    table12_rows,
    ucdcr_table2_row,
    ucdcr_table3_row,
    ucdcr_table4_row,
)
from ucdcr.errors import UcdcrError
from ucdcr.io.load import dataset_id, load_documents, load_mentions
from ucdcr.io.one_build import consistent
from ucdcr.registry import all_specs
from ucdcr.report.tables import Estimate, PValue, ResultTable
from ucdcr.schema import BUILD_REPORT
from ucdcr.scoring import CONLL
from ucdcr.scoring.bootstrap import LEVEL, RESAMPLES, Interval, Method

if TYPE_CHECKING:
    import pyarrow as pa

    from ucdcr.systems.framework.placement import PairedMean, PredictionsPlacement

STATS_TABLES = ("2", "3", "4", "12", "9", "10", "11", "summary")
DEFAULT_STATS_TABLES = STATS_TABLES[:-1]
DIVERSITY_FIELDS = ("coref_chain", "split", "tokens_text", "mention_head", "mention_head_lemma")
BASELINE_TITLE = "same-head-lemma baseline"

_DIVERSITY_NOTES = [
    "Non-singleton chains; AL, UL-a, PD and MTLD over the whole dataset, UL-o on the test split (paper Table 5).",
    "MTLD is the uCDCR variant the paper reports; MTLD (standard) is McCarthy & Jarvis (2010), not in the paper.",
]
_F1_COLUMNS = {
    **{metric.paper_label: metric.column("F1") for metric in PROTOCOL_METRICS},
    CONLL.paper_label: CONLL.column,
}
"""Tables 6 and 7: paper label (MUC, B3, CEAFe, CoNLL) -> the protocol's score column."""
_SCORE_COLUMNS = {
    **{f"{part}_{metric.paper_label}": metric.column(part) for metric in PROTOCOL_METRICS for part in PARTS},
    CONLL.paper_label: CONLL.column,
}
"""Table 13 and every setting: paper label (R_MUC, ..., F1_CEAFe, CoNLL) -> the protocol's score column."""
_TYPE_LABEL = {"": "joint", "event": "event", "entity": "entity"}


# --- statistics (ucdcr stats) ---------------------------------------------------------------------------------


def parse_stats_tables(text: str) -> tuple[str, ...]:
    """The table names of a comma-separated ``--tables`` value; unknown names raise :class:`UcdcrError`."""
    wanted = tuple(number.strip() for number in text.split(","))
    unknown = [number for number in wanted if number not in STATS_TABLES]
    if unknown:
        raise UcdcrError(f"unknown tables {', '.join(unknown)}; valid: {', '.join(STATS_TABLES)}")
    return wanted


def _stats_input(folder: Path) -> tuple[pa.Table, pa.Table | None]:
    """A dataset's mentions (the statistics' fields) and token table (read together: one build)."""
    return load_mentions(folder, columns=STATS_FIELDS), load_documents(folder)


def stats_tables(
    folders: dict[str, Path],
    wanted: tuple[str, ...] = DEFAULT_STATS_TABLES,
    progress: Callable[[str], None] | None = None,
) -> list[ResultTable]:
    """The statistics tables (names from :data:`STATS_TABLES`) for the given dataset folders (name -> folder).

    progress: called with each dataset's name before its statistics are computed."""
    summaries: dict[str, list[dict[str, Any]]] = {}
    distributions: dict[str, dict[str, Any]] = {"pos": {}, "ner": {}, "type": {}}
    for name, folder in folders.items():
        if progress:
            progress(name)
        mentions, documents = consistent([folder], functools.partial(_stats_input, folder))
        summaries[name] = summary_rows(mentions, documents)
        for field, per_dataset in distributions.items():
            per_dataset[name] = distribution(mentions, field)
    full = {name: rows[0] for name, rows in summaries.items()}
    tables = []
    if "2" in wanted:
        rows2 = {name: table2_row(row) for name, row in full.items()}
        table = _dataset_table("Table 2: general statistics", rows2)
        if len(rows2) > 1:
            by_id = {dataset_id(name) or name: row for name, row in rows2.items()}
            reannotations = [spec for spec in all_specs() if spec.reannotates]
            table.add({"Dataset": "uCDCR", **ucdcr_table2_row(by_id, {spec.id for spec in reannotations})})
            table.notes.append(
                f"uCDCR: topic/subtopic/doc/token sums without the re-annotations "
                f"{' and '.join(spec.paper_name for spec in reannotations)}; chains, mentions, "
                "singletons summed over all; per-doc and context values are unweighted means."
            )
        tables.append(table)
    if "3" in wanted:
        rows3 = {name: table3_row(row) for name, row in full.items()}
        table = _dataset_table("Table 3: cross-subtopic chains, entities and events", rows3)
        if len(rows3) > 1:
            table.add({"Dataset": "uCDCR", **ucdcr_table3_row(list(rows3.values()))})
        tables.append(table)
    if "4" in wanted:
        rows4 = {name: table4_row(rows) for name, rows in summaries.items()}
        table = _dataset_table("Table 4: splits (mentions / chains)", rows4)
        if len(rows4) > 1:
            table.add({"Dataset": "uCDCR", **ucdcr_table4_row(list(summaries.values()))})
        tables.append(table)
    if "12" in wanted:
        tables.append(_table12(summaries))
    for number, field, title in (("9", "pos", "head POS"), ("10", "ner", "head NER"), ("11", "type", "mention type")):
        if number in wanted:
            tables.append(_distribution_table(f"Table {number}: {title} distribution", distributions[field]))
    if "summary" in wanted:
        tables.append(_summary_table(summaries))
    if tables:
        tables[0].notes += build_notes(folders)
    return tables


def build_notes(folders: dict[str, Path]) -> list[str]:
    """What each dataset's build report says about its input: the splits that were not built and the reader's
    notes (stand-in files, partial input and other remarks), as "<dataset> (build): <note>" lines."""
    lines = []
    for name, folder in folders.items():
        path = folder / BUILD_REPORT
        if not path.is_file():
            continue
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            lines.append(f"{name} (build): {path} could not be read ({exc})")
            continue
        report = report if isinstance(report, dict) else {}
        unavailable = report.get("unavailable_splits")
        if isinstance(unavailable, dict):
            lines += [f"{name} (build): split {split} not built: {why}" for split, why in unavailable.items()]
        notes = report.get("notes")
        if isinstance(notes, list):
            lines += [f"{name} (build): {note}" for note in notes]
    return lines


def _table12(summaries: dict[str, list[dict[str, Any]]]) -> ResultTable:
    table = ResultTable(
        "Table 12: dataset splits",
        [
            "Dataset",
            "Split",
            "Topics",
            "Subtopics",
            "Docs",
            "Tokens",
            "Chains",
            "Non-singleton chains",
            "Singletons",
            "Mentions",
        ],
    )
    for name, rows in summaries.items():
        for row in table12_rows(rows):
            table.add({"Dataset": name, **row})
    return table


def _summary_table(summaries: dict[str, list[dict[str, Any]]]) -> ResultTable:
    """Every summary value per dataset and split, named like the authors' summary CSV columns."""
    columns = list(dict.fromkeys(key for rows in summaries.values() for row in rows for key in row))
    table = ResultTable("Summary per dataset and split (the authors' CSV columns)", ["dataset", *columns])
    for name, rows in summaries.items():
        for row in rows:
            table.add({"dataset": name, **row})
    return table


def _dataset_table(title: str, rows: dict[str, dict[str, Any]]) -> ResultTable:
    columns = ["Dataset", *next(iter(rows.values()))]
    table = ResultTable(title, columns)
    for name, row in rows.items():
        table.add({"Dataset": name, **row})
    return table


def _distribution_table(title: str, counts: dict[str, Any]) -> ResultTable:
    labels = sorted({label for counter in counts.values() for label in counter}, key=str)
    table = ResultTable(title, ["Dataset", *map(str, labels)])
    for name, counter in counts.items():
        table.add({"Dataset": name, **{str(label): counter.get(label, 0) for label in labels}})
    return table


# --- lexical diversity (ucdcr diversity) ----------------------------------------------------------------------


def diversity_tables(
    folders: dict[str, Path],
    per_split: bool = False,
    histograms: bool = False,
    progress: Callable[[str], None] | None = None,
) -> list[ResultTable]:
    """Table 5 for the given dataset folders; with ``per_split`` also one row per split (non-singleton chains);
    with ``histograms`` also the MTLD and PD histogram tables (the layout of the authors'
    ``summary/histogram_{MLTD,phrasing_diversity}.csv``: one row per bin, one column per dataset). progress: called
    with each dataset's name before its chains are measured."""
    table5 = ResultTable(
        "Table 5: lexical ambiguity and diversity", ["Dataset", *TABLE5_COLUMNS], notes=list(_DIVERSITY_NOTES)
    )
    splits = ResultTable(
        "Lexical ambiguity and diversity per split (non-singleton chains of the split)",
        ["Dataset", "Split", "AL", "UL-a", "UL-o", "PD", "MTLD", "MTLD (standard)", "Avg size"],
    )
    binned: dict[str, dict[str, list[int]]] = {metric: {} for metric in METRIC_EDGES}
    for name, folder in folders.items():
        if progress:
            progress(name)
        mentions = load_mentions(folder, columns=DIVERSITY_FIELDS)
        chains = chain_diversity(mentions)
        for metric, counts in (chain_histograms(mentions) if histograms else {}).items():
            binned[metric][name] = counts
        table5.add({"Dataset": name, **table5_row(mentions, chains)})
        for scope in scopes(mentions)[1:] if per_split else ():
            values = scope_diversity(mentions, chains, scope)
            if values is not None:
                splits.add({"Dataset": name, "Split": scope, **_split_diversity_row(values)})
    tables = [table5, splits] if per_split else [table5]
    return tables + [_histogram_table(metric, binned[metric]) for metric in METRIC_EDGES] if histograms else tables


def _split_diversity_row(values: dict[str, Any]) -> dict[str, Any]:
    return {
        "AL": values["lexical_ambiguity"],
        "UL-a": values["unique_lemmas_avg"],
        "UL-o": values["unique_lemmas_sum"],
        "PD": values["phrasing_diversity_weighted"],
        "MTLD": values["MLTD"],
        "MTLD (standard)": values["MTLD_standard"],
        "Avg size": values["average_size"],
    }


def _histogram_table(metric: str, counts: dict[str, list[int]]) -> ResultTable:
    table = ResultTable(
        f"Chains per {metric} bin (paper Figure {5 if metric == 'MTLD' else 6})",
        ["", *counts],
        notes=["Chains of the whole dataset, singletons included; right-open bins, the last one is open-ended."],
    )
    for row in histogram_rows(counts, METRIC_EDGES[metric]):
        table.add(row)
    return table


# --- the uCDCR protocol (ucdcr baseline, ucdcr evaluate) ------------------------------------------------------


def baseline_results(folders: dict[str, Path], progress: Callable[[str], None] | None = None) -> list[ProtocolResult]:
    """The same-head-lemma baseline with the uCDCR protocol on each dataset folder (``progress`` is called with each
    dataset's name before its run)."""
    results = []
    for name, folder in folders.items():
        if progress:
            progress(name)
        results.append(run_baseline(name, *load_for_protocol(folder)))
    return results


def baseline_tables(
    folders: dict[str, Path],
    per_setting: bool = False,
    progress: Callable[[str], None] | None = None,
    resamples: int = RESAMPLES,
) -> list[ResultTable]:
    """Tables 6, 7 and 13 of the baseline (and every setting with ``per_setting``), F1 with their intervals."""
    return result_tables(baseline_results(folders, progress), BASELINE_TITLE, per_setting, resamples)


def evaluation_tables(
    results: Sequence[ProtocolResult], title: str, per_setting: bool = False, resamples: int = RESAMPLES
) -> list[ResultTable]:
    """The evaluation's tables: Table 13's layout (every dataset, level and type), plus every setting."""
    return result_tables(results, title, per_setting, resamples)[2:]


def result_tables(
    results: Sequence[ProtocolResult], title: str, per_setting: bool, resamples: int = RESAMPLES
) -> list[ResultTable]:
    """Tables 6, 7 and 13 (and every setting with ``per_setting``) for protocol results of several datasets; each
    F1 with its 95% bootstrap interval (``resamples`` 0: none)."""
    means = [mean for result in results for mean in result.means]
    summary = ucdcr_means(means) if len(results) > 1 else []
    table6 = ResultTable(f"Table 6: {title}, subtopic and topic level (F1)", ["Dataset", "Level", *_F1_COLUMNS])
    table7 = ResultTable(f"Table 7: {title} per type, subtopic level (F1)", ["Dataset", "Type", *_F1_COLUMNS])
    table13 = ResultTable(
        f"Table 13: {title}, all metrics",
        ["Dataset", "Level", "Type", "Settings", *_SCORE_COLUMNS],
        notes=["Unweighted means over settings (uCDCR: over datasets; Settings = number of datasets)."],
    )
    for level in LEVELS:
        for mean in [m for m in means + summary if m.level == level and m.type == ""]:
            table6.add({"Dataset": mean.dataset, "Level": level, **_score_row(mean, _F1_COLUMNS, resamples)})
    for kind in TYPES[1:]:
        for mean in [m for m in means + summary if m.level == "subtopic" and m.type == kind]:
            table7.add({"Dataset": mean.dataset, "Type": kind, **_score_row(mean, _F1_COLUMNS, resamples)})
    for level in LEVELS:
        for kind in TYPES:
            for mean in [m for m in means + summary if m.level == level and m.type == kind]:
                table13.add(
                    {
                        "Dataset": mean.dataset,
                        "Level": level,
                        "Type": _TYPE_LABEL[kind],
                        "Settings": mean.settings,
                        **_score_row(mean, _SCORE_COLUMNS, resamples),
                    }
                )
    tables = [table6, table7, table13]
    if resamples > 0:
        for table in tables:
            table.notes.append(interval_note(resamples, results))
    if per_setting:
        tables.append(_settings_table(results, title))
    return tables


def comparison_table(
    compared: Sequence[PairedMean],
    names: tuple[str, str],
    resamples: int = RESAMPLES,
    method: Method = "randomization",
) -> ResultTable:
    """Two systems' scores on the same mentions, paired (:func:`ucdcr.systems.framework.placement.compare_results`):
    per dataset, level and type (and the uCDCR mean with several datasets) each CoNLL F1 and the difference first -
    second with its paired bootstrap interval and the two-sided p of ``method``."""
    from ucdcr.report.benchmark_tables import test_description  # the benchmark's tables load the systems' runner

    a_name, b_name = names
    table = ResultTable(
        f"{a_name} against {b_name}: CoNLL F1, paired {method}",
        ["Dataset", "Level", "Type", a_name, b_name, "Δ", "p", "significant"],
    )
    for pair in compared:
        a, b, found = pair.first, pair.second, pair.comparison
        row: dict[str, object] = {"Dataset": a.dataset, "Level": a.level, "Type": _TYPE_LABEL[a.type]}
        row[a_name] = with_interval(a.scores[CONLL.column], a.intervals(resamples).get(CONLL.column))
        row[b_name] = with_interval(b.scores[CONLL.column], b.intervals(resamples).get(CONLL.column))
        if found is not None:
            row["Δ"] = Estimate(found.difference, found.low, found.high, units=found.units)
            row["p"], row["significant"] = PValue.of(found), "yes" if found.significant() else "no"
        else:
            row["Δ"] = float(a.scores[CONLL.column]) - float(b.scores[CONLL.column])
        table.add(row)
    table.notes.append(
        f"Δ: {a_name} minus {b_name} (points) with its {LEVEL:.0%} paired bootstrap interval over the same resampled "
        f"units ({resamples} resamples, fixed seed); p: two-sided, {test_description(method, resamples)}; "
        f"significant: p < {1 - LEVEL:.2f}. Both files are scored on the same mentions with the same protocol."
    )
    return table


def _score_row(mean: DatasetMean, columns: dict[str, str], resamples: int = RESAMPLES) -> dict[str, object]:
    found = mean.intervals(resamples)
    return {label: with_interval(mean.scores[column], found.get(column)) for label, column in columns.items()}


def with_interval(value: float, interval: Interval | None) -> float:
    """The value as an :class:`Estimate` with its interval, or as it is without one."""
    return Estimate.of(value, interval)


def interval_note(resamples: int, results: Sequence[ProtocolResult] = ()) -> str:
    """The note under a table whose scores carry intervals: what was resampled."""
    standard = any(s.setting.unit == META_DOCUMENT for result in results for s in result.settings)
    units = "gold topics (topics a chain joins count as one)" if standard else "the level's units (subtopics or topics)"
    return (
        f"[low, high]: 95% percentile bootstrap interval of the F1 over {units}, {resamples} resamples, fixed seed; "
        "a mean over datasets resamples each dataset on its own; a dataset of one unit has no interval and enters "
        "the means as a constant."
    )


def _settings_table(
    results: Sequence[ProtocolResult], title: str, columns: Mapping[str, str] = _SCORE_COLUMNS
) -> ResultTable:
    """Every setting of the results: its place, its mentions and the ``columns`` (label -> score column)."""
    settings = ResultTable(
        f"{title}: every setting", ["Dataset", "Level", "Unit", "Type", "Mentions", *columns], digits=3
    )
    for result in results:
        for item in result.settings:
            settings.add(
                {
                    "Dataset": result.dataset,
                    "Level": item.setting.level,
                    "Unit": item.setting.unit,
                    "Type": _TYPE_LABEL[item.setting.type],
                    "Mentions": item.mentions,
                    **{label: item.scores[column] for label, column in columns.items()},
                }
            )
    return settings


def mention_detection_tables(
    evaluation: Evaluation, title: str, per_setting: bool = False, resamples: int = RESAMPLES
) -> list[ResultTable]:
    """Mention detection (predicted mentions): per dataset, level and type the mean over the settings (and the uCDCR
    rows), each with its interval, beside the CoNLL F1 of the same mean; with ``per_setting`` also every setting.
    None with gold mentions."""
    if not evaluation.mention_detection:
        return []
    means = [mean for result in evaluation.results for mean in result.means]
    means += ucdcr_means(means) if len(evaluation.results) > 1 else []
    conll = {(m.dataset, m.level, m.type): m.scores[CONLL.column] for m in means}
    table = ResultTable(
        f"Mention detection: {title} (exact spans)",
        ["Dataset", "Level", "Type", "Settings", *MENTION_COLUMNS, "CoNLL"],
        notes=[
            "Mention detection as v8.01's mention identification: R = response mentions that are gold mentions / "
            "gold mentions, P = the same / response mentions; unweighted means over settings like the other "
            "columns (uCDCR: over datasets). CoNLL: the coreference F1 of the same mean."
        ],
    )
    for mean in evaluation.mention_detection:
        table.add(
            {
                "Dataset": mean.dataset,
                "Level": mean.level,
                "Type": _TYPE_LABEL[mean.type],
                "Settings": mean.settings,
                **{
                    column: with_interval(mean.scores[column], mean.intervals(resamples).get(column))
                    for column in MENTION_COLUMNS
                },
                "CoNLL": conll.get((mean.dataset, mean.level, mean.type)),
            }
        )
    if not per_setting:
        return [table]
    columns = {**{column: column for column in MENTION_COLUMNS}, "CoNLL": CONLL.column}
    return [table, _settings_table(evaluation.results, f"Mention detection: {title}", columns)]


def results_json(results: Sequence[ProtocolResult], resamples: int = RESAMPLES) -> dict[str, Any]:
    """Machine-readable protocol results: per dataset its means (with the F1 intervals) and settings, plus the uCDCR
    means."""

    def mean_json(mean: DatasetMean) -> dict[str, Any]:
        return {
            "dataset": mean.dataset,
            "level": mean.level,
            "type": mean.type or "joint",
            "settings": mean.settings,
            "scores": mean.scores,
            "intervals": {column: found.as_dict() for column, found in mean.intervals(resamples).items()},
        }

    return {
        "datasets": [
            {
                "dataset": result.dataset,
                "topic_level": result.topic_level,
                "evaluated_mentions": result.evaluated_mentions,
                "means": [mean_json(mean) for mean in result.means],
                "settings": [
                    {
                        "level": s.setting.level,
                        "unit": s.setting.unit,
                        "type": s.setting.type or "joint",
                        "mentions": s.mentions,
                        "scores": s.scores,
                    }
                    for s in result.settings
                ],
            }
            for result in results
        ],
        "ucdcr": [mean_json(mean) for mean in ucdcr_means([m for r in results for m in r.means])]
        if len(results) > 1
        else [],
    }


def placement_tables(
    placed: PredictionsPlacement,
    title: str,
    per_setting: bool = False,
    resamples: int = RESAMPLES,
    method: Method = "randomization",
    names: tuple[str, str] | None = None,
) -> list[ResultTable]:
    """What ``ucdcr evaluate`` prints for placed predictions (:func:`ucdcr.systems.framework.placement.
    place_predictions`): Table 13's layout (every dataset, level and type; each score with its interval), every
    setting with ``per_setting``, mention detection (predicted mentions), the comparison with another file
    (``names``: the two files' names), the leaderboard beside the references and the comparison with each reference
    system. Every table ends with the signature of its numbers."""
    from ucdcr.analysis.signature import signature_note
    from ucdcr.report.benchmark_tables import each_table, standing_table

    evaluation = placed.evaluation
    tables = evaluation_tables(evaluation.results, title, per_setting, resamples)
    tables += mention_detection_tables(evaluation, title, per_setting, resamples)
    if names is not None and placed.compared:
        tables.append(comparison_table(placed.compared, names, resamples, method))
    for table in tables:
        table.notes.append(signature_note(placed.signature))
    placement = placed.placement
    if placement.standing is not None:
        tables.append(standing_table(placement.standing))
        for system, comparisons in placement.each.items():
            tables.append(each_table(system, comparisons, placement.standing))
    return tables
