"""The `ucdcr` command: a typer app; each command lives in its own module and registers itself.

The modules are imported lazily (:data:`COMMANDS`, :class:`LazyCommands`): `ucdcr score` imports the module of
`score` and not those of the other commands, whose imports and typer parameters cost start-up time; `ucdcr --help`
(and shell completion) imports them all to list them.

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
from collections.abc import Iterator, MutableMapping
from typing import Any

import typer
import typer.main
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

COMMANDS: dict[str, str] = {
    "demo": "demo",
    "datasets": "datasets_cmd",
    "download": "download",
    "build": "build",
    "compare": "compare",
    "stats": "stats",
    "diversity": "diversity",
    "baseline": "baseline",
    "evaluate": "evaluate",
    "benchmark": "benchmark",
    "score": "score",
    "report": "report",
    "view": "view",
    "export": "export",
    "results": "results",
}
"""Every command of `ucdcr`, in the order help lists them: name -> the module of :mod:`ucdcr.cli` whose
``register(app)`` adds it (written out so that naming a command imports no other command's module; a test checks
that each module registers its name)."""


def load_command(name: str) -> Any:
    """The click command (or group) ``name`` of :data:`COMMANDS`, built from its module's ``register``."""
    sub = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    importlib.import_module(f"ucdcr.cli.{COMMANDS[name]}").register(sub)
    return typer.main.get_group(sub).commands[name]


class LazyCommands(MutableMapping[str, Any]):
    """The root group's commands, name -> click command: each is built (:func:`load_command`) when first looked
    up, so running one command imports only its own module. The names (iteration, ``in``, ``len``) need no
    import; ``items()`` or ``values()`` (help, completion) build every command."""

    def __init__(self, commands: MutableMapping[str, Any]) -> None:
        self._commands: dict[str, Any] = dict.fromkeys(COMMANDS)  # None: not built yet
        self._commands.update(commands)

    def __getitem__(self, name: str) -> Any:
        command = self._commands[name]
        if command is None:
            command = self._commands[name] = load_command(name)
        return command

    def __setitem__(self, name: str, command: Any) -> None:
        self._commands[name] = command

    def __delitem__(self, name: str) -> None:
        del self._commands[name]

    def __contains__(self, name: object) -> bool:
        return name in self._commands

    def __iter__(self) -> Iterator[str]:
        return iter(self._commands)

    def __len__(self) -> int:
        return len(self._commands)


class RootGroup(TyperGroup):
    """The root command group: builds the commands when they are used (:class:`LazyCommands`), runs the chosen
    command and turns what escapes it into a message and exit code."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.commands = LazyCommands(self.commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

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
