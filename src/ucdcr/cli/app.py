"""The `ucdcr` command: a typer app; each command lives in its own module and registers itself."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="ucdcr",
    help="Unified cross-document coreference datasets: build, analyse, evaluate and score.",
    no_args_is_help=True,
    invoke_without_command=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_COMMAND_MODULES = (
    "demo",
    "datasets_cmd",
    "download",
    "build",
    "stats",
    "diversity",
    "baseline",
    "evaluate",
    "score",
    "export",
    "report",
    "view",
)

for _name in _COMMAND_MODULES:
    importlib.import_module(f"ucdcr.cli.{_name}").register(app)


@app.callback()
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True),
) -> None:
    if version:
        from ucdcr import __version__

        typer.echo(__version__)
        raise typer.Exit()
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


def main() -> None:
    """Console-script entry point."""
    app()
