"""Table rendering (md/csv/json/latex/rich) and the stats / diversity / baseline commands on a tiny folder."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from _toy_data import mention, write_dataset
from rich.console import Console
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.report.tables import (
    ResultTable,
    render,
    to_csv,
    to_json,
    to_latex,
    to_markdown,
    to_rich,
)


def _table() -> ResultTable:
    table = ResultTable("T: a_b", ["Dataset", "Value", "Count"], notes=["a note"])
    table.add({"Dataset": "ECB+", "Value": 2.226, "Count": 3})
    table.add({"Dataset": "x|y", "Value": None, "Count": 0})
    return table


def test_text_formats() -> None:
    table = _table()
    assert "| ECB+ | 2.23 | 3 |" in to_markdown(table)  # floats to 2 decimals
    assert "| x\\|y | – | 0 |" in to_markdown(table)  # pipes escaped, missing as a dash
    assert list(csv.reader(io.StringIO(to_csv(table)))) == [
        ["Dataset", "Value", "Count"],
        ["ECB+", "2.23", "3"],
        ["x|y", "", "0"],
    ]
    assert json.loads(to_json(table))["rows"][0] == {"Dataset": "ECB+", "Value": 2.226, "Count": 3}  # exact values
    latex = to_latex(table)
    assert r"\caption{T: a\_b}" in latex and r"\begin{tabular}{lrr}" in latex
    assert json.loads(render([table, table], "json"))[1]["title"] == "T: a_b"
    with pytest.raises(ValueError):
        table.add({"Other": 1})


def test_rich_table() -> None:
    console = Console(file=io.StringIO(), width=120)
    console.print(to_rich(_table()))
    assert "ECB+" in console.file.getvalue() and "2.2" in console.file.getvalue()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    events = [mention("A", ["attack"], mention_id="m1"), mention("A", ["strike"], mention_id="m2", doc="d2")]
    entities = [mention("B", ["city"], mention_id="m3"), mention("B", ["city"], mention_id="m4", doc="d2")]
    write_dataset(tmp_path / "toy", {("test", "event"): events, ("test", "entity"): entities})
    return tmp_path


@pytest.mark.parametrize("command", ["stats", "diversity", "baseline"])
@pytest.mark.parametrize("fmt", ["md", "csv", "json", "latex", None])
def test_commands_run_in_every_format(data_dir: Path, command: str, fmt: str | None) -> None:
    args = [command, "--data-dir", str(data_dir), "--datasets", "toy"] + (["--format", fmt] if fmt else [])
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "toy" in result.output


def test_diversity_values_through_the_cli(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["diversity", "--data-dir", str(data_dir), "--format", "json"])
    row = json.loads(result.output)[0]["rows"][0]
    # A: lemmas attack/strike -> UL 2; B: city/city -> UL 1; UL-a = 1.5; 3 distinct lemmas each used by one chain
    assert (row["UL-a"], row["UL-o"], row["AL"]) == (1.5, 3, 1.0)


def test_bad_options_are_clear_errors(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["stats", "--data-dir", str(data_dir), "--format", "xml"])
    assert result.exit_code == 2 and "unknown format 'xml'" in result.output
    result = CliRunner().invoke(app, ["baseline", "--data-dir", str(data_dir), "--datasets", "gvc"])
    assert result.exit_code == 2 and "no dataset 'gvc'" in result.output


def test_stats_summary_table_has_every_csv_column(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["stats", "--data-dir", str(data_dir), "--tables", "summary", "-f", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)[0]["rows"]
    assert [row["split"] for row in rows] == ["", "test"]
    # 4 test mentions in 2 chains (A: m1, m2; B: m3, m4), none flagged singleton
    assert (rows[0]["mentions"], rows[0]["coref_chain_all"], rows[0]["singletons"]) == (4, 2, 0)
    assert rows[0]["lexical_ambiguity_wo_singl"] == 1.0
