"""Shared CLI pieces: the console, error reporting, and the common options."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from ucdcr.errors import UcdcrError

console = Console()
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def friendly_errors(func: F) -> F:
    """Print a UcdcrError as one clear line (no traceback) and exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except UcdcrError as exc:
            err_console.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True, soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


DataDirOption = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Folder of built datasets (default: env UCDCR_DATA_DIR or the user data dir)."),
]
RawDirOption = Annotated[
    Path | None,
    typer.Option("--raw-dir", help="Folder of raw downloads (default: env UCDCR_RAW_DIR or the user data dir)."),
]
DatasetsOption = Annotated[
    str | None, typer.Option("--datasets", help="Comma-separated dataset ids (default: every built dataset).")
]
JobsOption = Annotated[int, typer.Option("--jobs", "-j", min=1, help="Worker processes.")]
