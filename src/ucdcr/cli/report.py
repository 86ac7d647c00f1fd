"""`ucdcr report`: every table and figure in one folder (see :mod:`ucdcr.report.build_report`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from ucdcr.cli.common import (
    DataDirOption,
    DatasetsOption,
    ReferencesChoice,
    SourceChoice,
    SourceOption,
    console,
    err_console,
    friendly_errors,
    output_folder_option,
    print_message,
    selected_datasets,
    step_log,
)


def register(app: typer.Typer) -> None:
    @app.command("report", help="Write an HTML and Markdown report. All tables and figures of the built datasets.")
    @friendly_errors
    def _cmd(
        out: Annotated[Path, output_folder_option("--out", "Output folder (in the current folder by default).")] = Path(
            "ucdcr-report"
        ),
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        source: SourceOption = SourceChoice.AUTO,
        cache_dir: Annotated[
            Path | None,
            typer.Option(
                "--cache-dir",
                metavar="DIR",
                help="Where `ucdcr benchmark` stored its results (its default); giving it shows them "
                "(--references local).",
            ),
        ] = None,
        references: Annotated[
            ReferencesChoice | None,
            typer.Option(
                "--references",
                case_sensitive=False,
                help="Whose benchmark runs the benchmark section shows, of the same data only: shipped (the "
                "reference runs shipped with ucdcr; the default), local (this machine's, in --cache-dir), none. "
                "Default: local when --cache-dir is given, else shipped.",
            ),
        ] = None,
        embed: Annotated[
            bool, typer.Option("--embed/--no-embed", help="Draw the mention map if the `embed` extra is installed.")
        ] = True,
    ) -> None:
        from ucdcr.report.build_report import build_report

        folders = selected_datasets(data_dir, datasets, source)
        with _steps_on_stderr() as say:
            chosen = references.value if references is not None else None
            report = build_report(folders, out, say, None if embed else False, cache_dir, chosen)
        for figure in report.figures:
            if figure.missing:
                print_message("figure not drawn:", f"{figure.title}: {figure.missing}", style="yellow", to=console)
        folder = out.resolve()
        console.print(
            f"wrote {len(report.files)} files to {folder} (open {folder / 'index.html'})",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )


@contextmanager
def _steps_on_stderr() -> Iterator[Callable[[str], None]]:
    """Show the report's steps on stderr (stdout keeps only the result): on a terminal one spinner line with the
    current step and the time so far; elsewhere (a log, a pipe) one line per step with the time so far
    (:func:`~ucdcr.cli.common.step_log`), ``[    12s] report: <step>``, each step of a second or more followed by
    its time, and a line after 30 s of quiet saying which step still runs; the slow figures say what they compute,
    ``[    31s] report: t-SNE map of mentions: t-SNE of 5,000 mentions``."""
    if err_console.is_terminal:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        with Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=err_console, transient=True
        ) as progress:
            task = progress.add_task("starting", total=None)
            yield lambda message: progress.update(task, description=message)
        return
    with step_log() as say:
        yield lambda message: say(f"report: {message}")
