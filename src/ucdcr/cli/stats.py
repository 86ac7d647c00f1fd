"""`ucdcr stats`: paper Tables 2, 3, 4, 12 and the head POS / NER / type distributions (Tables 9–11).

The tables are built by :func:`ucdcr.report.paper_tables.stats_tables`; under the first one, each dataset's build
report notes (splits not built, stand-in files, partial input and the reader's other remarks).
"""

from __future__ import annotations

from typing import Annotated

import typer

from ucdcr.cli.common import (
    DataDirOption,
    DatasetsOption,
    FormatOption,
    OutputOption,
    SourceChoice,
    SourceOption,
    check_format,
    console,
    friendly_errors,
    selected_datasets,
)

# The default of --tables; equal to ",".join(ucdcr.report.paper_tables.DEFAULT_STATS_TABLES) (tested), written out
# so that start-up does not import the analysis.
DEFAULT_TABLES = "2,3,4,12,9,10,11"


def register(app: typer.Typer) -> None:
    @app.command(
        "stats",
        help="Dataset statistics (paper Tables 2-4 and 12). Also head POS / NER / mention type distributions (9-11).",
    )
    @friendly_errors
    def _cmd(
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        source: SourceOption = SourceChoice.AUTO,
        fmt: FormatOption = None,
        tables: Annotated[
            str,
            typer.Option(
                "--tables", metavar="LIST", help="Comma-separated: 2,3,4,12,9,10,11 and 'summary' (every value)."
            ),
        ] = DEFAULT_TABLES,
        output: OutputOption = None,
    ) -> None:
        from ucdcr.report.paper_tables import parse_stats_tables, stats_tables
        from ucdcr.report.tables import print_tables

        check_format(fmt)
        wanted = parse_stats_tables(tables)
        folders = selected_datasets(data_dir, datasets, source)
        print_tables(stats_tables(folders, wanted), fmt, console, output)
