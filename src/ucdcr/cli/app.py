"""The `ucdcr` command: a typer app; each command lives in its own module and registers itself.

Whatever escapes a command is told here, once for all commands (:class:`RootGroup`): a UcdcrError as one line
(exit 2), an OS error the user's setup causes (a full disk, a read-only file system, a symlink loop, a path too
long: :data:`USER_OS_ERRORS`) as one line naming the file (exit 2), Ctrl-C as one line (exit 130), any other
exception as one line plus where to report it (exit 70), with the traceback only under ``ucdcr --debug`` / env
``UCDCR_DEBUG=1`` (see :mod:`ucdcr.cli.common`). Usage errors keep click's message. Help is click's plain layout
(flags without value slots, readable when piped).
"""

from __future__ import annotations

import errno
import importlib
from typing import Any

import typer
from typer.core import TyperGroup

from ucdcr.cli.common import (
    DEBUG_ENV,
    EXIT_BUG,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    err_console,
    print_error,
    print_message,
    print_unexpected,
)
from ucdcr.errors import UcdcrError


class RootGroup(TyperGroup):
    """The root command group: runs the chosen command and turns what escapes it into a message and exit code."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except UcdcrError as exc:
            print_error(exc)
            raise typer.Exit(EXIT_ERROR) from None
        except KeyboardInterrupt:
            err_console.print("interrupted", highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except OSError as exc:
            if exc.errno not in USER_OS_ERRORS:
                if _is_control_flow(exc):
                    raise
                print_unexpected(exc, f"ucdcr {ctx.invoked_subcommand or ''}".strip(), bool(ctx.params.get("debug")))
                raise typer.Exit(EXIT_BUG) from None
            print_message("error:", _os_error_line(exc))
            raise typer.Exit(EXIT_ERROR) from None
        except Exception as exc:
            if _is_control_flow(exc):
                raise
            print_unexpected(exc, f"ucdcr {ctx.invoked_subcommand or ''}".strip(), bool(ctx.params.get("debug")))
            raise typer.Exit(EXIT_BUG) from None


USER_OS_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.ELOOP, errno.ENAMETOOLONG}
"""OS errors caused by where the user points ucdcr or by the machine, not by ucdcr: a full disk or quota, a
read-only file system, a symlink loop, a path longer than the system allows. Told as one line naming the file."""


def _os_error_line(exc: OSError) -> str:
    from ucdcr.io.atomic import reason

    where = exc.filename if exc.filename is not None else "a file"
    return f"{where}: {reason(exc)}"


def _is_control_flow(exc: Exception) -> bool:
    """Exits, aborts and usage errors of typer / click (they print their own message), and a closed stdout pipe
    (typer's main exits quietly on it)."""
    package = type(exc).__module__.split(".")[0]
    return package in ("typer", "click") or isinstance(exc, BrokenPipeError)


app = typer.Typer(
    name="ucdcr",
    cls=RootGroup,
    help="Unified cross-document coreference datasets: build, analyse, evaluate and score.",
    no_args_is_help=True,
    invoke_without_command=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

_COMMAND_MODULES = (
    "demo",
    "datasets_cmd",
    "download",
    "build",
    "compare",
    "stats",
    "diversity",
    "baseline",
    "evaluate",
    "benchmark",
    "score",
    "export",
    "report",
    "view",
    "results",
)

for _name in _COMMAND_MODULES:
    importlib.import_module(f"ucdcr.cli.{_name}").register(app)


@app.callback()
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True),
    debug: bool = typer.Option(
        False, "--debug", envvar=DEBUG_ENV, help="Show the full traceback when a command fails unexpectedly."
    ),
) -> None:
    if version:
        from ucdcr import __version__

        typer.echo(__version__)
        raise typer.Exit()
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


def main() -> None:
    """Console-script entry point."""
    app(prog_name="ucdcr")
