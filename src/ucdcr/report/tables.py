"""Render a result table as Markdown, CSV, JSON, LaTeX or a rich terminal table.

A :class:`ResultTable` is a title, column names and rows (dicts keyed by column). Cells are numbers, strings or
None (missing: "–" in text formats, empty in CSV, null in JSON). Floats are printed with ``digits`` decimals
(Python rounding of the value) in md/csv/latex/rich; JSON keeps the exact values for machines. A line break in a
cell is ``<br>`` in Markdown and a space in LaTeX.

On a terminal (:func:`print_tables` without a format) a table never loses a column: values are never cut, and a
table wider than the terminal is shown in parts that each fit, every part repeating the first column, with a
note saying so and that ``--format md`` prints it whole (:func:`fit_to_width`). Output that is not a terminal
(a pipe, a file) gets Markdown, which no width cuts.

CSV output is plain CSV that ``pandas.read_csv`` (or ``csv.DictReader``) reads as it is: one table is its header
row and rows; several tables are one CSV whose first column, ``table``, holds each row's table title, followed by
the union of the tables' columns (a cell of a column its table does not have is empty). Titles and notes, which a
CSV has no place for, go to stderr as ``#`` lines (:func:`print_tables`); ``--format json`` keeps them with the
values.
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

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from ucdcr.io.atomic import write_text
from ucdcr.scoring.bootstrap import Estimate as Estimate
from ucdcr.scoring.bootstrap import PValue as PValue

TableFormat = Literal["md", "csv", "json", "latex"]
FORMATS: tuple[str, ...] = ("md", "csv", "json", "latex")
MISSING = "–"
TABLE_COLUMN = "table"  # the first CSV column when several tables are printed as one CSV: the table's title


@dataclass
class ResultTable:
    """A titled table; ``digits`` is the float precision of the text formats, ``notes`` are printed below it.
    ``styles`` colours cells on the terminal only: column -> {cell text: rich style}."""

    title: str
    columns: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    digits: int = 2
    notes: list[str] = field(default_factory=list)
    styles: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, row: Mapping[str, Any]) -> None:
        unknown = [key for key in row if key not in self.columns]
        if unknown:
            raise ValueError(f"{self.title}: row has columns not in the table: {unknown}")
        self.rows.append(dict(row))


def format_cell(value: Any, digits: int = 2, missing: str = MISSING) -> str:
    """One cell as text: floats rounded to ``digits`` decimals, None and NaN as ``missing``, an estimate with its
    interval."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    if isinstance(value, PValue):
        return value.text()
    if isinstance(value, Estimate):
        return f"{value:.{digits}f} [{value.low:.{digits}f}, {value.high:.{digits}f}]{value.mark}"
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
        return "| " + " | ".join(cell.replace("|", "\\|").replace("\n", "<br>") for cell in cells) + " |"

    lines = [f"### {table.title}", "", line(table.columns), line(["---"] * len(table.columns))]
    lines += [line(cells) for cells in _text_rows(table)]
    lines += [""] + [f"{note}  " for note in table.notes] if table.notes else []
    return "\n".join(lines) + "\n"


def with_bounds(table: ResultTable) -> ResultTable:
    """The table with every column holding an :class:`Estimate` followed by its ``low`` and ``high`` columns (and
    ``mark`` where some estimate has one), the estimates as plain floats: what CSV and JSON print."""
    estimated = [c for c in table.columns if any(isinstance(row.get(c), Estimate) for row in table.rows)]
    if not estimated:
        return table
    marked = {c for c in estimated if any(getattr(row.get(c), "mark", "") for row in table.rows)}
    columns: list[str] = []
    for column in table.columns:
        columns.append(column)
        if column in estimated:
            columns += [f"{column} low", f"{column} high", *([f"{column} mark"] if column in marked else [])]
    rows = []
    for row in table.rows:
        expanded = dict(row)
        for column in estimated:
            value = row.get(column)
            bounds = (value.low, value.high, value.mark) if isinstance(value, Estimate) else (None, None, "")
            expanded[column] = float(value) if isinstance(value, Estimate) else value
            expanded[f"{column} low"], expanded[f"{column} high"] = bounds[:2]
            if column in marked:
                expanded[f"{column} mark"] = bounds[2]
        rows.append(expanded)
    return ResultTable(table.title, columns, rows, table.digits, table.notes, table.styles)


def to_csv(table: ResultTable) -> str:
    """CSV with a header row; missing cells are empty; estimates with their bounds (:func:`with_bounds`)."""
    table = with_bounds(table)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows(_text_rows(table, missing=""))
    return buffer.getvalue()


def tables_to_csv(tables: Sequence[ResultTable]) -> str:
    """Several tables as one CSV: the column ``table`` (each row's table title), then every column of the tables in
    the order they first appear; a cell of a column the row's table does not have is empty, as a missing one."""
    tables = [with_bounds(table) for table in tables]
    columns = list(dict.fromkeys(column for table in tables for column in table.columns))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([TABLE_COLUMN, *columns])
    for table in tables:
        for cells in _text_rows(table, missing=""):
            values = dict(zip(table.columns, cells, strict=True))
            writer.writerow([table.title, *(values.get(column, "") for column in columns)])
    return buffer.getvalue()


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def to_json_data(table: ResultTable) -> dict[str, Any]:
    """The table as a JSON-ready dict: title, columns, rows (exact values; estimates with their bounds), notes."""
    table = with_bounds(table)
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
    lines += [
        " & ".join(latex_escape(" ".join(cell.split("\n"))) for cell in cells) + r" \\" for cells in _text_rows(table)
    ]
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{latex_escape(table.title)}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def render(tables: Sequence[ResultTable], fmt: TableFormat) -> str:
    """Several tables in one output: md/latex blocks separated by a blank line, JSON as one list, CSV as one CSV
    (one table: :func:`to_csv`; several: :func:`tables_to_csv`)."""
    if fmt == "json":
        return json.dumps([to_json_data(t) for t in tables], indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return to_csv(tables[0]) if len(tables) == 1 else tables_to_csv(tables) if tables else ""
    if fmt == "md":
        return "\n".join(to_markdown(t) for t in tables)
    if fmt == "latex":
        return "\n".join(to_latex(t) for t in tables)
    raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")


def to_rich(
    table: ResultTable,
    columns: Sequence[str] | None = None,
    title: str | None = None,
    widths: Sequence[int] | None = None,
) -> RichTable:
    """A rich table for the terminal (numbers right-aligned) of all columns or the given ones, each column as wide
    as rich likes or as given in ``widths`` (headers wrap, long values fold)."""
    shown = list(columns or table.columns)
    rich_table = RichTable(title=title or table.title, caption="\n".join(table.notes) or None, caption_justify="left")
    for position, column in enumerate(shown):
        numeric = all(isinstance(row.get(column), int | float) or row.get(column) is None for row in table.rows)
        rich_table.add_column(
            column,
            justify="right" if numeric else "left",
            width=widths[position] if widths else None,
            overflow="fold",
        )
    indices = [table.columns.index(column) for column in shown]
    for cells in _text_rows(table):
        rich_table.add_row(*(_styled(table, table.columns[i], cells[i]) for i in indices))
    return rich_table


def _styled(table: ResultTable, column: str, text: str) -> Text:
    style = table.styles.get(column, {}).get(text)
    return Text(text, style=style or "")


WHOLE = 20  # text up to this width is never wrapped on the terminal (numbers never are)
FOLD = 30  # a longer word may be folded at this width


def _needed_widths(table: ResultTable) -> dict[str, tuple[int, int]]:
    """Column -> (narrowest width that keeps its values readable, width with every value and the header on one
    line). Readable: numbers and short texts whole, longer texts wrapped at spaces, words longer than FOLD folded;
    the header wraps at spaces."""
    cells = _text_rows(table)
    needed = {}
    for index, column in enumerate(table.columns):
        lines = [line for row in cells for line in row[index].split("\n")]
        narrow = max((_narrowest(line) for line in lines), default=0)
        widest = max((cell_len(line) for line in lines), default=0)
        longest_word = max((cell_len(word) for word in column.split()), default=0)
        needed[column] = (max(narrow, longest_word), max(widest, cell_len(column)))
    return needed


def _narrowest(text: str) -> int:
    width = cell_len(text)
    if width <= WHOLE:
        return width
    return max(WHOLE, min(FOLD, max(cell_len(word) for word in text.split())))


def _table_width(column_widths: Sequence[int]) -> int:
    """Width of a rich table with the default box: one space of padding on each side of a column, a rule before
    every column and after the last."""
    return sum(column_widths) + 3 * len(column_widths) + 1


def fit_to_width(table: ResultTable, console: Console) -> list[RenderableType]:
    """The table as rich tables no wider than ``console.width``, none losing a column or cutting a value, then
    its notes as lines of the full width.

    As it is if it fits (headers may wrap); else in parts of as many columns as fit, each part repeating the first
    column, and a note saying so. A column too wide to fit even alone next to the first one folds its values.
    """
    needed = _needed_widths(table)
    width = console.width
    notes = list(table.notes)
    if _table_width([needed[c][0] for c in table.columns]) <= width or len(table.columns) < 3:
        parts = [_fitted(table, table.columns, None, needed, width)]
    else:
        key, groups = table.columns[0], [[table.columns[1]]]
        for column in table.columns[2:]:
            if _table_width([needed[c][0] for c in (key, *groups[-1], column)]) <= width:
                groups[-1].append(column)
            else:
                groups.append([column])
        parts = []
        for number, group in enumerate(groups, 1):
            shown = group[0] if len(group) == 1 else f"{group[0]} … {group[-1]}"
            title = f"{table.title} (part {number} of {len(groups)}: {shown})"
            parts.append(_fitted(table, [key, *group], title, needed, width))
        notes.append(
            f"{len(table.columns)} columns do not fit in {width} characters: shown in {len(groups)} parts "
            f"that repeat {key!r}; `--format md` prints the table whole."
        )
    for part in parts:
        part.caption = None
    return [*parts, *(Text(note, style="dim italic") for note in notes)]


def _fitted(
    table: ResultTable, columns: Sequence[str], title: str | None, needed: dict[str, tuple[int, int]], width: int
) -> RichTable:
    """Rich's own layout when every header fits on one line; else the narrowest widths that keep values whole,
    the room left given to headers left to right; if even those do not fit, rich's layout (values fold)."""
    narrow, natural = [needed[c][0] for c in columns], [needed[c][1] for c in columns]
    if _table_width(natural) <= width or _table_width(narrow) > width:
        return to_rich(table, columns, title)
    widths, spare = list(narrow), width - _table_width(narrow)
    for position, wanted in enumerate(natural):
        grow = min(wanted - widths[position], spare)
        widths[position] += grow
        spare -= grow
    return to_rich(table, columns, title, widths)


def print_tables(
    tables: Sequence[ResultTable], fmt: str | None, console: Console, output: str | Path | None = None
) -> None:
    """Without ``fmt``: on a terminal rich tables fitted to its width (:func:`fit_to_width`), elsewhere Markdown.
    With ``fmt``: the rendering in that format on stdout, or with ``output`` written atomically to that file (its
    absolute path is printed). With CSV, each table's title and notes go to stderr as ``#`` lines."""
    if fmt is None and output is None and console.is_terminal:
        for table in tables:
            for part in fit_to_width(table, console):
                console.print(part)
        return
    text = render(tables, fmt or "md")  # type: ignore[arg-type]
    if fmt == "csv":
        sys.stderr.write("".join(f"# {t.title}\n" + "".join(f"#   {note}\n" for note in t.notes) for t in tables))
        sys.stderr.flush()
    if output is None:
        console.file.write(text)
        console.file.flush()
        return
    target = Path(output)
    write_text(target, text)
    console.print(Text(f"wrote {target.resolve()}"), soft_wrap=True)
