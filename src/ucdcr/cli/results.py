"""`ucdcr results collect|render`: the committed results file and the docs' results tables rendered from it
(:mod:`ucdcr.report.results_file`)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Annotated

import typer

from ucdcr.cli.common import console, friendly_errors

results_app = typer.Typer(
    help="Measured results as data: collect stored benchmark runs into a results file; render the docs' marked "
    "results tables from it.",
    no_args_is_help=True,
)


def _list(value: str | None) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()] if value else []


@results_app.command("collect", help="Add the runs of a cache dir's benchmark results to a results file.")
@friendly_errors
def _collect(
    results: Annotated[Path, typer.Argument(help="The results file (created if absent).")],
    cache_dir: Annotated[Path, typer.Option("--cache-dir", metavar="DIR", help="The cache dir of the runs.")],
    systems: Annotated[str | None, typer.Option("--systems", help="Only these systems (comma-separated).")] = None,
    datasets: Annotated[str | None, typer.Option("--datasets", help="Only these datasets.")] = None,
    protocols: Annotated[
        str | None, typer.Option("--protocols", help="Only these protocol labels (e.g. standard/gold-topics).")
    ] = None,
    commit: Annotated[
        str | None, typer.Option("--commit", help="The commit that computed the runs (default: git's HEAD here).")
    ] = None,
) -> None:
    from ucdcr.report.results_file import collect
    from ucdcr.systems.framework.store import RESULTS_FILE

    found = commit or _head()
    added = collect(cache_dir / RESULTS_FILE, results, found, _list(systems), _list(datasets), _list(protocols))
    console.print(
        f"{added} runs -> {results.resolve()} (commit {found})", highlight=False, markup=False, soft_wrap=True
    )


@results_app.command("render", help="Rewrite the results tables marked in DOCUMENTS from the results file.")
@friendly_errors
def _render(
    results: Annotated[Path, typer.Argument(help="The results file.")],
    documents: Annotated[list[Path], typer.Argument(help="Markdown files with <!-- results: ... --> blocks.")],
    check: Annotated[
        bool, typer.Option("--check", help="Change nothing; exit 1 if a block differs from the results file.")
    ] = False,
) -> None:
    from ucdcr.report.results_file import render_docs

    changed = render_docs(results, documents, check)
    verb = "differ" if check else "rewritten"
    for document in changed:
        console.print(f"{document}: {verb}", highlight=False, markup=False, soft_wrap=True)
    if check and changed:
        raise typer.Exit(1)


def _head() -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def register(app: typer.Typer) -> None:
    app.add_typer(results_app, name="results")
