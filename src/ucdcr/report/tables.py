"""Render a result table as Markdown, CSV, JSON, LaTeX or a rich terminal table.

A :class:`ResultTable` is a title, column names and rows (dicts keyed by column). Cells are numbers, strings or
None (missing: "–" in text formats, empty in CSV, null in JSON). Floats are printed with ``digits`` decimals
(Python rounding of the value) in md/csv/latex/rich; JSON keeps the exact values for machines.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rich.table import Table as RichTable

TableFormat = Literal["md", "csv", "json", "latex"]
FORMATS: tuple[str, ...] = ("md", "csv", "json", "latex")
MISSING = "–"


@dataclass
class ResultTable:
    """A titled table; ``digits`` is the float precision of the text formats, ``notes`` are printed below it."""

    title: str
    columns: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    digits: int = 2
    notes: list[str] = field(default_factory=list)

    def add(self, row: Mapping[str, Any]) -> None:
        unknown = [key for key in row if key not in self.columns]
        if unknown:
            raise ValueError(f"{self.title}: row has columns not in the table: {unknown}")
        self.rows.append(dict(row))


def format_cell(value: Any, digits: int = 2, missing: str = MISSING) -> str:
    """One cell as text: floats rounded to ``digits`` decimals, None and NaN as ``missing``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _text_rows(table: ResultTable, missing: str = MISSING) -> list[list[str]]:
    return [[format_cell(row.get(column), table.digits, missing) for column in table.columns] for row in table.rows]


def to_markdown(table: ResultTable) -> str:
    """A GitHub-flavoured Markdown table with a "### title" heading."""

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    lines = [f"### {table.title}", "", line(table.columns), line(["---"] * len(table.columns))]
    lines += [line(cells) for cells in _text_rows(table)]
    lines += [""] + [f"{note}  " for note in table.notes] if table.notes else []
    return "\n".join(lines) + "\n"


def to_csv(table: ResultTable) -> str:
    """CSV with a header row; missing cells are empty."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows(_text_rows(table, missing=""))
    return buffer.getvalue()


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def to_json_data(table: ResultTable) -> dict[str, Any]:
    """The table as a JSON-ready dict: title, columns, rows (exact values), notes."""
    return {
        "title": table.title,
        "columns": table.columns,
        "rows": [{column: _json_value(row.get(column)) for column in table.columns} for row in table.rows],
        "notes": table.notes,
    }


def to_json(table: ResultTable) -> str:
    return json.dumps(to_json_data(table), indent=2, ensure_ascii=False) + "\n"


_LATEX_SPECIAL = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def to_latex(table: ResultTable) -> str:
    """A booktabs ``table`` environment; the first column left-aligned, the others right-aligned."""
    spec = "l" + "r" * (len(table.columns) - 1)
    lines = [r"\begin{table}[t]", r"\centering", rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
    lines.append(" & ".join(latex_escape(column) for column in table.columns) + r" \\")
    lines.append(r"\midrule")
    lines += [" & ".join(latex_escape(cell) for cell in cells) + r" \\" for cells in _text_rows(table)]
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{latex_escape(table.title)}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def render(tables: Sequence[ResultTable], fmt: TableFormat) -> str:
    """Several tables in one output: md/latex blocks separated by a blank line, CSV blocks by a "# title" line,
    JSON as one list."""
    if fmt == "json":
        return json.dumps([to_json_data(t) for t in tables], indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return "\n".join(f"# {t.title}\n{to_csv(t)}" for t in tables)
    if fmt == "md":
        return "\n".join(to_markdown(t) for t in tables)
    if fmt == "latex":
        return "\n".join(to_latex(t) for t in tables)
    raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")


def to_rich(table: ResultTable) -> RichTable:
    """A rich table for the terminal (numbers right-aligned)."""
    rich_table = RichTable(title=table.title, caption="\n".join(table.notes) or None, caption_justify="left")
    numeric = {
        column: all(isinstance(row.get(column), int | float) or row.get(column) is None for row in table.rows)
        for column in table.columns
    }
    cells = _text_rows(table)
    for index, column in enumerate(table.columns):
        widest = max((len(row[index]) for row in cells), default=0)  # values stay whole; headers may wrap
        rich_table.add_column(column, justify="right" if numeric[column] else "left", min_width=widest, overflow="fold")
    for row in cells:
        rich_table.add_row(*row)
    return rich_table


def print_tables(
    tables: Sequence[ResultTable], fmt: str | None, console: Any, output: str | Path | None = None
) -> None:
    """Show tables on the terminal (rich) when ``fmt`` is None, else write them rendered in ``fmt`` to stdout; with
    ``output`` (a path) the rendering is written there atomically instead."""
    if fmt is None:
        for table in tables:
            console.print(to_rich(table))
        return
    text = render(tables, fmt)  # type: ignore[arg-type]
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(output)
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(target)
