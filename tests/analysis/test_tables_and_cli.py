"""Table rendering (md/csv/json/latex/rich) and the stats / diversity / baseline commands on a tiny folder."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from tests.fixtures.unified import mention, write_json_dataset
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.registry import dataset_ids
from ucdcr.report.tables import (
    ResultTable,
    format_cell,
    print_tables,
    render,
    to_csv,
    to_json,
    to_latex,
    to_markdown,
    to_rich,
)

DATASET_IDS = dataset_ids()


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


def test_csv_of_several_tables_is_one_csv_with_a_table_column() -> None:
    other = ResultTable("U", ["Dataset", "Other"])
    other.add({"Dataset": "NP4E", "Other": 1.5})
    assert render([_table()], "csv") == to_csv(_table())  # one table: its header and rows, nothing else
    assert list(csv.reader(io.StringIO(render([_table(), other], "csv")))) == [
        ["table", "Dataset", "Value", "Count", "Other"],
        ["T: a_b", "ECB+", "2.23", "3", ""],
        ["T: a_b", "x|y", "", "0", ""],
        ["U", "NP4E", "", "", "1.50"],
    ]


def test_pandas_reads_the_csv_of_the_stats_command(data_dir: Path) -> None:
    pd = pytest.importorskip("pandas")  # a dependency of ucdcr; skipped only where it is somehow absent
    one = CliRunner().invoke(app, ["stats", "--data-dir", str(data_dir), "--tables", "2", "--format", "csv"])
    assert one.exit_code == 0, one.output
    table2 = pd.read_csv(io.StringIO(one.stdout))
    assert list(table2.columns[:3]) == ["Dataset", "Topics", "Subtopics"] and table2["Dataset"].tolist() == ["toy"]
    assert table2.loc[0, "Mentions"] == 4
    assert one.stderr.startswith("# Table 2: general statistics\n")  # the title (and notes) on stderr
    every = CliRunner().invoke(app, ["stats", "--data-dir", str(data_dir), "--format", "csv"])
    tables = pd.read_csv(io.StringIO(every.stdout))
    assert tables.columns[:2].tolist() == ["table", "Dataset"]
    assert tables["table"].unique().tolist()[:3] == [
        "Table 2: general statistics",
        "Table 3: cross-subtopic chains, entities and events",
        "Table 4: splits (mentions / chains)",
    ]
    table2_again = tables[tables["table"] == "Table 2: general statistics"].dropna(axis=1, how="all")
    # the same values (the long CSV's columns are floats where other tables leave them empty)
    pd.testing.assert_frame_equal(
        table2_again.loc[:, "Dataset":].reset_index(drop=True), table2.dropna(axis=1, how="all"), check_dtype=False
    )


def test_rich_table() -> None:
    console = Console(file=io.StringIO(), width=120)
    console.print(to_rich(_table()))
    assert "ECB+" in console.file.getvalue() and "2.2" in console.file.getvalue()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    events = [mention("A", ["attack"], mention_id="m1"), mention("A", ["strike"], mention_id="m2", doc="d2")]
    entities = [mention("B", ["city"], mention_id="m3"), mention("B", ["city"], mention_id="m4", doc="d2")]
    write_json_dataset(tmp_path / "toy", {("test", "event"): events, ("test", "entity"): entities})
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
    assert result.exit_code == 2 and "'xml' is not one of 'md', 'csv', 'json', 'latex'" in result.output
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


# --- readable everywhere: narrow terminals, pipes, `ucdcr datasets --format` -----------------------------------


def _wide_table() -> ResultTable:
    """Paper Table 2's 18 columns (a wide table), two rows; every value distinct so that each can be looked for."""
    columns = ["Dataset", *(f"Column {name}" for name in "ABCDEFGHIJKLMNOPQ")]
    table = ResultTable("Wide", columns, notes=["a note"])
    table.add({"Dataset": "ecbplus", **{c: 1000.0 + i + 0.25 for i, c in enumerate(columns[1:])}})
    table.add({"Dataset": "np4e", **{c: 2000 + i for i, c in enumerate(columns[1:])}})
    return table


def _terminal(width: int) -> Console:
    return Console(width=width, record=True, force_terminal=True, color_system=None, file=io.StringIO())


@pytest.mark.parametrize("width", [60, 80, 200])
def test_a_wide_table_loses_no_column_on_a_narrow_terminal(width: int) -> None:
    table = _wide_table()
    console = _terminal(width)
    print_tables([table], None, console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= width  # nothing beyond the terminal's edge
    words = text.split()
    for column in table.columns:  # every header (headers may wrap between their words)
        assert all(word in words for word in column.split()), column
    for row in table.rows:  # every value, whole
        for column in table.columns:
            assert format_cell(row[column]) in words, (column, row[column])
    assert "a note" in text
    # 18 columns need 18 * 7 + 3 * 18 + 1 = 181 characters at least (the widest value, "1016.25", is 7)
    if width < 181:
        parts = [line for line in text.splitlines() if line.strip().startswith("Wide (part ")]
        assert len(parts) >= 2 and parts[0].strip().startswith(f"Wide (part 1 of {len(parts)}: Column A")
        assert "`--format md` prints the table whole" in " ".join(words)
        assert text.count("ecbplus") == len(parts)  # the first column is repeated in each part
    else:
        assert "part 1" not in text and text.count("ecbplus") == 1


def test_a_table_that_fits_is_shown_whole_with_wrapped_headers() -> None:
    table = ResultTable("Two", ["Dataset", "Non-singleton chains", "Mentions per document"])
    table.add({"Dataset": "ecbplus", "Non-singleton chains": 1, "Mentions per document": 2.5})
    console = _terminal(40)  # headers on one line need 45 characters, wrapped 30
    print_tables([table], None, console)
    text = console.export_text()
    assert "part 1" not in text and max(len(line) for line in text.splitlines()) <= 40
    assert "Non-singleton" in text and "2.50" in text


def test_a_column_too_wide_for_the_terminal_folds_its_values() -> None:
    table = ResultTable("Paths", ["id", "status", "missing"])
    long_path = "a" * 50 + "/" + "b" * 30 + ".csv"
    table.add({"id": "fcct", "status": "manual", "missing": long_path})
    console = _terminal(40)
    print_tables([table], None, console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 40
    assert long_path in "".join(line.strip(" │┃") for line in text.splitlines())  # folded, nothing lost


def test_not_a_terminal_gets_markdown() -> None:
    console = Console(width=40, file=io.StringIO())  # a pipe or a file: no terminal width applies
    print_tables([_wide_table()], None, console)
    assert console.file.getvalue() == to_markdown(_wide_table())


def test_output_file_is_written_and_named(tmp_path: Path) -> None:
    console = Console(file=io.StringIO())
    target = tmp_path / "sub" / "tables.md"
    print_tables([_table()], None, console, target)  # no --format: Markdown
    assert target.read_text(encoding="utf-8") == to_markdown(_table())
    assert console.file.getvalue() == f"wrote {target.resolve()}\n"


def test_line_breaks_in_cells() -> None:
    table = ResultTable("T", ["id", "missing"])
    table.add({"id": "x", "missing": "a.csv\nb.csv"})
    assert "| x | a.csv<br>b.csv |" in to_markdown(table)
    assert r"x & a.csv b.csv \\" in to_latex(table)
    assert list(csv.reader(io.StringIO(to_csv(table))))[1] == ["x", "a.csv\nb.csv"]


def test_stats_output_prints_where_it_wrote(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["stats", "--data-dir", str(data_dir), "-f", "csv", "-o", "stats.csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"wrote {tmp_path / 'stats.csv'}\n"
    assert (tmp_path / "stats.csv").read_text(encoding="utf-8").startswith("table,Dataset,")
    assert result.stderr.startswith("# Table 2: general statistics\n")  # the titles and notes a CSV has no place for


@pytest.mark.parametrize("fmt", ["md", "csv", "json", "latex", None])
def test_datasets_in_every_format(tmp_path: Path, fmt: str | None) -> None:
    args = ["datasets", "--raw-dir", str(tmp_path / "raw"), "--data-dir", str(tmp_path / "data")]
    result = CliRunner().invoke(app, args + (["--format", fmt] if fmt else []))
    assert result.exit_code == 0, result.output
    if fmt == "json":
        (table,) = json.loads(result.output)
        assert [row["id"] for row in table["rows"]] == list(DATASET_IDS)
        assert table["columns"] == [
            "id",
            "paper name",
            "mentions",
            "licence",
            "status",
            "raw files",
            "built",
            "release",
            "missing",
        ]
        ecbplus = table["rows"][DATASET_IDS.index("ecbplus")]
        assert (ecbplus["status"], ecbplus["built"]) == ("missing", "no")
        assert "ECB+_LREC2014/ECBplus_coreference_sentences.csv" in ecbplus["missing"].split("\n")
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(result.stdout)))
        assert len(rows) == 1 + len(DATASET_IDS) and rows[0][0] == "id"
    else:  # md, latex, and md when piped (CliRunner's output is not a terminal)
        assert all(
            dataset_id.replace("_", r"\_" if fmt == "latex" else "_") in result.output for dataset_id in DATASET_IDS
        )
        if fmt != "latex":
            assert result.output.startswith("### uCDCR datasets\n") and "┃" not in result.output
