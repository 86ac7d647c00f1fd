"""`ucdcr demo`: build the ECB+ sample shipped inside the package, print its tables, write its report.

A thin layer over :func:`ucdcr.demo.run_demo`; the tables are printed like `ucdcr stats`, `ucdcr diversity` and
`ucdcr baseline` print them.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from ucdcr.cli.common import FormatOption, check_format, console, err_console, friendly_errors
from ucdcr.demo import DEFAULT_OUT  # ucdcr.demo imports its heavy modules inside run_demo

if TYPE_CHECKING:
    from ucdcr.demo import DemoResult


def register(app: typer.Typer) -> None:
    @app.command(
        "demo",
        help="The whole job, offline, on an ECB+ sample shipped with ucdcr: build it, print its statistics, "
        "diversity and baseline tables, write its HTML report.",
    )
    @friendly_errors
    def _cmd(
        out: Annotated[
            Path, typer.Option("--out", help="Output folder: data/ecbplus_sample (the built sample) and report/.")
        ] = DEFAULT_OUT,
        fmt: FormatOption = None,
        embed: Annotated[
            bool, typer.Option("--embed/--no-embed", help="Draw the mention map if the `embed` extra is installed.")
        ] = True,
    ) -> None:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        from ucdcr.demo import run_demo
        from ucdcr.report.tables import print_tables

        check_format(fmt)
        with Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console, transient=True
        ) as progress:
            task = progress.add_task("building the ECB+ sample", total=None)
            result = run_demo(
                out,
                say=lambda message: progress.update(task, description=f"report: {message}"),
                embed=None if embed else False,
            )
        notes = console if fmt is None else err_console  # keep stdout pure md/csv/json/latex with --format
        _print_build(result, notes)
        print_tables(result.tables, fmt, console)
        _print_outputs(result, notes)


def _print_build(result: DemoResult, notes: Console) -> None:
    counts = result.build.counts
    notes.print(
        f"built the ECB+ sample: {counts['documents']} documents, {counts['tokens']:,} tokens, "
        f"{counts['mentions_written']} of {counts['mentions_annotated']} mentions "
        f"(from {counts['reader_documents_in_corpus']} CAT XML files, in {result.build.seconds:.1f} s)",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


def _print_outputs(result: DemoResult, notes: Console) -> None:
    def say(text: str) -> None:
        notes.print(text, highlight=False, markup=False, soft_wrap=True)

    for figure in result.report.figures:
        if figure.missing:
            say(f"figure not drawn: {figure.title}: {figure.missing}")
    say("")
    say("wrote:")
    say(f"  {result.dataset_dir}    the sample in the unified format (mention JSON + Parquet, build_report.json)")
    say(f"  {result.report_dir / 'index.html'}    the report: every table and figure")
    say("")
    say("next:")
    data, dataset = shlex.quote(str(result.data_dir)), shlex.quote(str(result.dataset_dir))
    page = shlex.quote(str(result.out_dir / "view.html"))
    load = shlex.quote(f"import ucdcr; print(ucdcr.load({json.dumps(str(result.dataset_dir))}))")
    for command, what in (
        (f"ucdcr stats --data-dir {data} --tables summary", "every statistic per split"),
        (f"ucdcr baseline --data-dir {data} --per-setting", "the baseline's score in every setting"),
        (f"ucdcr view {dataset} {result.example_doc_key} --out {page}", "one document as an HTML page"),
        (f"python -c {load}", "the mentions as a pyarrow.Table"),
        ("ucdcr datasets", "the 12 full datasets; then `ucdcr download` and `ucdcr build` (see the README)"),
    ):
        say(f"  {command}")
        say(f"      {what}")
