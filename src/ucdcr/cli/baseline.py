"""`ucdcr baseline`: the same-head-lemma baseline with the uCDCR protocol (paper Tables 6, 7 and 13).

The tables are built by :func:`ucdcr.report.paper_tables.baseline_tables`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ucdcr.cli.common import (
    DEFAULT_RESAMPLES,
    DataDirOption,
    DatasetsOption,
    FormatOption,
    OutputOption,
    ResamplesOption,
    SourceChoice,
    SourceOption,
    check_format,
    console,
    friendly_errors,
    selected_datasets,
)


def register(app: typer.Typer) -> None:
    @app.command("baseline", help="Same-head-lemma baseline (paper Tables 6, 7, 13). Scored with the uCDCR protocol.")
    @friendly_errors
    def _cmd(
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        source: SourceOption = SourceChoice.AUTO,
        fmt: FormatOption = None,
        per_setting: Annotated[bool, typer.Option("--per-setting", help="Also list every setting's scores.")] = False,
        output: OutputOption = None,
        resamples: ResamplesOption = DEFAULT_RESAMPLES,
    ) -> None:
        from ucdcr.report.paper_tables import baseline_tables
        from ucdcr.report.tables import print_tables

        check_format(fmt)
        tables = baseline_tables(selected_datasets(data_dir, datasets, source), per_setting, resamples=resamples)
        print_tables(tables, fmt, console, output)
