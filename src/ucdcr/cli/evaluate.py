"""`ucdcr evaluate PREDICTIONS`: score a system's clusters with the uCDCR protocol (the baseline's protocol).

PREDICTIONS: JSON {mention_id: cluster}, JSON [{"mention_id": ..., "cluster": ...}], or CSV with the header
``mention_id,cluster`` (see :mod:`ucdcr.analysis.evaluate`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ucdcr.analysis.baseline import ProtocolResult, ucdcr_means
from ucdcr.analysis.evaluate import evaluate, read_predictions
from ucdcr.cli.baseline import load_for_protocol, result_tables
from ucdcr.cli.common import DataDirOption, DatasetsOption, console, friendly_errors
from ucdcr.cli.stats import FormatOption, OutputOption, check_format, selected_datasets
from ucdcr.report.tables import ResultTable, print_tables


def results_json(results: list[ProtocolResult]) -> dict[str, Any]:
    """Machine-readable results: per dataset its means and settings, plus the uCDCR means."""

    def mean_json(mean: Any) -> dict[str, Any]:
        return {
            "dataset": mean.dataset,
            "level": mean.level,
            "type": mean.type or "joint",
            "settings": mean.settings,
            "scores": mean.scores,
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


def register(app: typer.Typer) -> None:
    @app.command("evaluate", help="Score predicted clusters (JSON/CSV: mention_id -> cluster) with the uCDCR protocol.")
    @friendly_errors
    def _cmd(
        predictions: Annotated[Path, typer.Argument(help="Predictions file (.json or .csv).")],
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        fmt: FormatOption = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print every mean and setting as JSON.")] = False,
        per_setting: Annotated[bool, typer.Option("--per-setting", help="Also list every setting's scores.")] = False,
        output: OutputOption = None,
    ) -> None:
        check_format(fmt)
        predicted = read_predictions(predictions)
        tables, topic_levels = {}, {}
        for name, folder in selected_datasets(data_dir, datasets).items():
            tables[name], topic_levels[name] = load_for_protocol(folder)
        results = evaluate(predicted, tables, topic_levels)
        if as_json:
            text = json.dumps(results_json(results), indent=2) + "\n"
            if output is None:
                sys.stdout.write(text)
            else:
                temporary = output.with_name(f".{output.name}.tmp")
                temporary.write_text(text, encoding="utf-8")
                temporary.replace(output)
            return
        all_tables: list[ResultTable] = result_tables(results, f"evaluation of {predictions.name}", per_setting)
        print_tables(all_tables[2:], fmt, console, output)  # Table 13 layout: every dataset, level and type
