"""`ucdcr stats`: paper Tables 2, 3, 4, 12 and the head POS / NER / type distributions (Tables 9–11)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

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
from ucdcr.cli.common import DataDirOption, DatasetsOption, console, friendly_errors
from ucdcr.errors import UcdcrError
from ucdcr.io.load import dataset_id, discover_datasets, load_documents, load_mentions
from ucdcr.paths import resolve_data_dir
from ucdcr.report.tables import FORMATS, ResultTable, print_tables

TABLES = ("2", "3", "4", "12", "9", "10", "11", "summary")
DEFAULT_TABLES = ",".join(TABLES[:-1])
FormatOption = Annotated[
    str | None, typer.Option("--format", "-f", help=f"Print as {'|'.join(FORMATS)} (default: tables on the terminal).")
]
OutputOption = Annotated[Path | None, typer.Option("--output", "-o", help="Write the output to this file.")]


def selected_datasets(data_dir: Path | None, datasets: str | None) -> dict[str, Path]:
    """Dataset folders chosen by --data-dir / --datasets (every dataset folder found by default)."""
    names = [name.strip() for name in datasets.split(",") if name.strip()] if datasets else None
    return discover_datasets(resolve_data_dir(data_dir), names)


def check_format(fmt: str | None) -> None:
    if fmt is not None and fmt not in FORMATS:
        raise UcdcrError(f"unknown format {fmt!r}; valid formats: {', '.join(FORMATS)}")


def build_tables(folders: dict[str, Path], wanted: tuple[str, ...] = TABLES[:-1]) -> list[ResultTable]:
    """The statistics tables for the given dataset folders."""
    summaries: dict[str, list[dict[str, Any]]] = {}
    distributions: dict[str, dict[str, Any]] = {"pos": {}, "ner": {}, "type": {}}
    for name, folder in folders.items():
        mentions = load_mentions(folder, columns=STATS_FIELDS)
        summaries[name] = summary_rows(mentions, load_documents(folder))
        for field, per_dataset in distributions.items():
            per_dataset[name] = distribution(mentions, field)
    full = {name: rows[0] for name, rows in summaries.items()}
    tables = []
    if "2" in wanted:
        rows2 = {name: table2_row(row) for name, row in full.items()}
        table = _dataset_table("Table 2: general statistics", rows2)
        if len(rows2) > 1:
            by_id = {dataset_id(name) or name: row for name, row in rows2.items()}
            table.add({"Dataset": "uCDCR", **ucdcr_table2_row(by_id)})
            table.notes.append(
                "uCDCR: topic/subtopic/doc/token sums without NIdent and ECB+METAm; chains, mentions, "
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
        tables.append(table)
    for number, field, title in (("9", "pos", "head POS"), ("10", "ner", "head NER"), ("11", "type", "mention type")):
        if number in wanted:
            tables.append(_distribution_table(f"Table {number}: {title} distribution", distributions[field]))
    if "summary" in wanted:
        tables.append(_summary_table(summaries))
    return tables


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


def register(app: typer.Typer) -> None:
    @app.command("stats", help="Dataset statistics: paper Tables 2, 3, 4, 12 and POS/NER/type distributions (9-11).")
    @friendly_errors
    def _cmd(
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        fmt: FormatOption = None,
        tables: Annotated[
            str, typer.Option("--tables", help="Comma-separated: 2,3,4,12,9,10,11 and 'summary' (every value).")
        ] = DEFAULT_TABLES,
        output: OutputOption = None,
    ) -> None:
        check_format(fmt)
        wanted = tuple(number.strip() for number in tables.split(","))
        unknown = [number for number in wanted if number not in TABLES]
        if unknown:
            raise UcdcrError(f"unknown tables {', '.join(unknown)}; valid: {', '.join(TABLES)}")
        folders = selected_datasets(data_dir, datasets)
        print_tables(build_tables(folders, wanted), fmt, console, output)
