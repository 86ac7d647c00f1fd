"""`ucdcr report`: every table and figure in one folder (see :mod:`ucdcr.report.build_report`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ucdcr.cli.common import DataDirOption, DatasetsOption, console, friendly_errors, selected_datasets


def register(app: typer.Typer) -> None:
    @app.command("report", help="Write index.html + report.md with all tables and figures of the built datasets.")
    @friendly_errors
    def _cmd(
        out: Annotated[Path, typer.Option("--out", help="Output folder.")] = Path("ucdcr-report"),
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        embed: Annotated[
            bool, typer.Option("--embed/--no-embed", help="Draw the mention map if the `embed` extra is installed.")
        ] = True,
    ) -> None:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        from ucdcr.report.build_report import build_report

        folders = selected_datasets(data_dir, datasets)
        with Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console, transient=True
        ) as progress:
            task = progress.add_task("starting", total=None)
            report = build_report(
                folders, out, lambda message: progress.update(task, description=message), None if embed else False
            )
        for figure in report.figures:
            if figure.missing:
                console.print(f"figure not drawn: {figure.title}: {figure.missing}", highlight=False, markup=False)
        console.print(f"wrote {len(report.files)} files to {out} (open {out / 'index.html'})", highlight=False)
