"""`ucdcr baseline`: the same-head-lemma baseline with the uCDCR protocol (paper Tables 6, 7 and 13)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import pyarrow as pa
import typer

from ucdcr.analysis.baseline import (
    EVAL_FIELDS,
    SCORE_COLUMNS,
    DatasetMean,
    ProtocolResult,
    has_cross_subtopic_chains,
    run_baseline,
    ucdcr_means,
)
from ucdcr.analysis.chains import chain_ids
from ucdcr.cli.common import DataDirOption, DatasetsOption, console, friendly_errors
from ucdcr.cli.stats import FormatOption, OutputOption, check_format, selected_datasets
from ucdcr.io.load import load_columns, load_mentions
from ucdcr.report.tables import ResultTable, print_tables

_F1_COLUMNS = {"MUC": "F1_MUC", "B3": "F1_B3", "CEAFe": "F1_CEAF_E", "CoNLL": "F1_CONLL"}
_TYPE_LABEL = {"": "joint", "event": "event", "entity": "entity"}


def load_for_protocol(folder: Path) -> tuple[pa.Table, bool]:
    """A dataset's test mentions for the protocol, and whether it is also evaluated per topic (it has chains that
    cross subtopics anywhere in the dataset)."""
    columns = load_columns(folder, ["coref_chain", "subtopic_id"])
    topic_level = has_cross_subtopic_chains(chain_ids(columns), columns["subtopic_id"].to_pylist())
    return load_mentions(folder, splits=("test",), columns=EVAL_FIELDS), topic_level


def _score_row(mean: DatasetMean, columns: dict[str, str]) -> dict[str, object]:
    return {label: mean.scores[column] for label, column in columns.items()}


def result_tables(results: Sequence[ProtocolResult], title: str, per_setting: bool) -> list[ResultTable]:
    """Tables 6, 7 and 13 (and every setting with ``per_setting``) for protocol results of several datasets."""
    means = [mean for result in results for mean in result.means]
    summary = ucdcr_means(means) if len(results) > 1 else []
    table6 = ResultTable(f"Table 6: {title}, subtopic and topic level (F1)", ["Dataset", "Level", *_F1_COLUMNS])
    table7 = ResultTable(f"Table 7: {title} per type, subtopic level (F1)", ["Dataset", "Type", *_F1_COLUMNS])
    full_columns = {column.replace("CEAF_E", "CEAFe").replace("F1_CONLL", "CoNLL"): column for column in SCORE_COLUMNS}
    table13 = ResultTable(
        f"Table 13: {title}, all metrics",
        ["Dataset", "Level", "Type", "Settings", *full_columns],
        notes=["Unweighted means over settings (uCDCR: over datasets; Settings = number of datasets)."],
    )
    for level in ("subtopic", "topic"):
        for mean in [m for m in means + summary if m.level == level and m.type == ""]:
            table6.add({"Dataset": mean.dataset, "Level": level, **_score_row(mean, _F1_COLUMNS)})
    for kind in ("event", "entity"):
        for mean in [m for m in means + summary if m.level == "subtopic" and m.type == kind]:
            table7.add({"Dataset": mean.dataset, "Type": kind, **_score_row(mean, _F1_COLUMNS)})
    for level in ("subtopic", "topic"):
        for kind in ("", "event", "entity"):
            for mean in [m for m in means + summary if m.level == level and m.type == kind]:
                table13.add(
                    {
                        "Dataset": mean.dataset,
                        "Level": level,
                        "Type": _TYPE_LABEL[kind],
                        "Settings": mean.settings,
                        **_score_row(mean, full_columns),
                    }
                )
    tables = [table6, table7, table13]
    if per_setting:
        settings = ResultTable(
            f"{title}: every setting", ["Dataset", "Level", "Unit", "Type", "Mentions", *full_columns], digits=3
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
                        **{label: item.scores[column] for label, column in full_columns.items()},
                    }
                )
        tables.append(settings)
    return tables


def register(app: typer.Typer) -> None:
    @app.command("baseline", help="Same-head-lemma baseline, uCDCR protocol: paper Tables 6, 7 and 13.")
    @friendly_errors
    def _cmd(
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        fmt: FormatOption = None,
        per_setting: Annotated[bool, typer.Option("--per-setting", help="Also list every setting's scores.")] = False,
        output: OutputOption = None,
    ) -> None:
        check_format(fmt)
        results = []
        for name, folder in selected_datasets(data_dir, datasets).items():
            table, topic_level = load_for_protocol(folder)
            results.append(run_baseline(name, table, topic_level))
        print_tables(result_tables(results, "same-head-lemma baseline", per_setting), fmt, console, output)

