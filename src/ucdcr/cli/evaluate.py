"""`ucdcr evaluate PREDICTIONS`: score a system's clusters with the uCDCR protocol (the baseline's protocol).

PREDICTIONS: JSON {mention_id: cluster}, JSON [{"mention_id": ..., "cluster": ...}], or CSV with the header
``mention_id,cluster`` (see :mod:`ucdcr.analysis.evaluate`). Scoring and tables:
:func:`ucdcr.report.paper_tables.evaluation_results`, ``evaluation_tables`` and ``results_json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ucdcr.cli.common import (
    DataDirOption,
    DatasetsOption,
    FormatOption,
    OutputOption,
    check_format,
    console,
    friendly_errors,
    selected_datasets,
)


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
        from ucdcr.analysis.evaluate import read_predictions
        from ucdcr.report.paper_tables import evaluation_results, evaluation_tables, results_json
        from ucdcr.report.tables import print_tables

        check_format(fmt)
        predicted = read_predictions(predictions)
        results = evaluation_results(predicted, selected_datasets(data_dir, datasets))
        if as_json:
            _write_json(results_json(results), output)
            return
        tables = evaluation_tables(results, f"evaluation of {predictions.name}", per_setting)
        print_tables(tables, fmt, console, output)


def _write_json(data: dict[str, Any], output: Path | None) -> None:
    """The JSON on stdout, or atomically into ``output``."""
    text = json.dumps(data, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    temporary = output.with_name(f".{output.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(output)
