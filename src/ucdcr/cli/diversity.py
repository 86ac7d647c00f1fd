"""`ucdcr diversity`: paper Table 5 (AL, UL-a, UL-o, PD, MTLD) plus the standard MTLD.

With ``--histograms`` also the chain counts per PD and MTLD bin (paper Figures 5-6) in the layout of the authors'
``summary/histogram_{MLTD,phrasing_diversity}.csv``: one row per bin, one column per dataset. The tables are built
by :func:`ucdcr.report.paper_tables.diversity_tables`.
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


def register(app: typer.Typer) -> None:
    @app.command("diversity", help="Lexical ambiguity and diversity (paper Table 5). Also the standard MTLD.")
    @friendly_errors
    def _cmd(
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        source: SourceOption = SourceChoice.AUTO,
        fmt: FormatOption = None,
        per_split: Annotated[bool, typer.Option("--per-split", help="Also list the values of each split.")] = False,
        histograms: Annotated[
            bool, typer.Option("--histograms", help="Also the chain counts per PD and MTLD bin (Figures 5-6).")
        ] = False,
        output: OutputOption = None,
    ) -> None:
        from ucdcr.report.paper_tables import diversity_tables
        from ucdcr.report.tables import print_tables

        check_format(fmt)
        tables = diversity_tables(selected_datasets(data_dir, datasets, source), per_split, histograms)
        print_tables(tables, fmt, console, output)
