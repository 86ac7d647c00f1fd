"""`ucdcr score KEY RESPONSE`: score a CoNLL-2012 response file against a key file (v8.01 semantics and layout)."""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ucdcr.cli.common import DEFAULT_RESAMPLES, ResamplesOption, err_console, friendly_errors

METRIC_HELP = "all, muc, bcub, ceafm, ceafe, blanc, lea or conll (comma-separated for several)."
"""Written out so that start-up does not import the scorer; a test checks it lists ``METRIC_CHOICES``."""


def register(app: typer.Typer) -> None:
    @app.command(
        "score",
        help="Score a CoNLL-2012 RESPONSE file against a KEY file (CoNLL-2012 scorer v8.01 rules).\n\n"
        "Both files must be UTF-8 text (a UTF-8 byte-order mark is skipped) with at least one '#begin document' "
        "line; an empty, binary, UTF-16 or other file is an error, not a score of 0.",
    )
    @friendly_errors
    def _cmd(
        key: Annotated[Path, typer.Argument(exists=True, dir_okay=False, metavar="KEY", help="Key (gold) file.")],
        response: Annotated[
            Path, typer.Argument(exists=True, dir_okay=False, metavar="RESPONSE", help="Response (system) file.")
        ],
        metric: Annotated[str, typer.Option("--metric", "-m", help=METRIC_HELP)] = "all",
        as_json: Annotated[
            bool, typer.Option("--json", help="Exact floats, numerators and denominators of every metric as JSON.")
        ] = False,
        remove_singletons: Annotated[
            bool,
            typer.Option(
                "--remove-singletons",
                help="Remove every chain with one mention from the key and the response of each document first "
                "(coval's remove_singletons).",
            ),
        ] = False,
        per_document: Annotated[
            bool, typer.Option("--per-document", help="Also give every document's scores (a table, or in the JSON).")
        ] = False,
        resamples: ResamplesOption = DEFAULT_RESAMPLES,
    ) -> None:
        with lean_runtime():
            _score(key, response, metric, as_json, remove_singletons, per_document, resamples)


BLAS_THREADS = "OPENBLAS_NUM_THREADS"


@contextmanager
def lean_runtime() -> Iterator[None]:
    """While the command runs (the process as it was again after), two things the scorer does not use are off:

    - Python's cyclic garbage collector: its collections walk every object alive, most of them made by the
      imports (numpy's, typer's), and the scorer makes no reference cycles (reference counting frees it all).
    - OpenBLAS's thread pool, started when numpy is imported (``OPENBLAS_NUM_THREADS=1`` unless the environment
      sets it): the scorer makes no BLAS call, and starting the pool took half of numpy's import, 0.055 s of 0.11 s,
      on a two-CPU machine with both CPUs busy.
    """
    enabled = gc.isenabled()
    gc.disable()
    blas_threads_set = BLAS_THREADS not in os.environ
    if blas_threads_set:
        os.environ[BLAS_THREADS] = "1"
    try:
        yield
    finally:
        if blas_threads_set:
            os.environ.pop(BLAS_THREADS, None)
        if enabled:
            gc.enable()


def _score(
    key: Path,
    response: Path,
    metric: str,
    as_json: bool,
    remove_singletons: bool,
    per_document: bool,
    resamples: int,
) -> None:
    from ucdcr import __version__
    from ucdcr.scoring.bootstrap import intervals
    from ucdcr.scoring.scores import asks_for_conll, resolve_metrics, score_files
    from ucdcr.scoring.v801_text import format_report, interval_lines, per_document_rows

    requested = [name.strip() for name in metric.split(",") if name.strip()]
    try:
        metrics = resolve_metrics(requested)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--metric") from None
    scores = score_files(
        key,
        response,
        metrics,
        remove_singletons=remove_singletons,
        per_document=per_document,
        with_units=resamples > 0,  # the units (each part of the document scored alone) only feed the intervals
    )
    for note in scores.warnings:
        err_console.print(f"[yellow]warning:[/] {escape(note)}", highlight=False, soft_wrap=True)
    show_conll = asks_for_conll(requested)
    if as_json:
        result = {"key": str(key), "response": str(response), **scores.as_dict()}
        found = intervals(scores.units, resamples) if scores.units is not None else {}
        result["intervals"] = {name: interval.as_dict() for name, interval in found.items()}
        typer.echo(json.dumps(result, indent=2))
    else:
        title = f"ucdcr {__version__} score (CoNLL-2012 reference scorer v8.01 semantics)"
        typer.echo(format_report(scores, show_conll, title) + interval_lines(scores, resamples), nl=False)
        if per_document:
            from ucdcr.report.tables import ResultTable, render  # rich's table layout: only for this table

            table = ResultTable("scores per document", *per_document_rows(scores, show_conll))
            typer.echo("\n" + render([table], "md"), nl=False)
