"""Shared CLI pieces: the console, error reporting, the common options and the dataset / format selection.

Only typer, rich and light ucdcr modules are imported here: every `ucdcr` call imports this module.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from ucdcr.errors import UcdcrError
from ucdcr.report.tables import FORMATS

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
FormatOption = Annotated[
    str | None, typer.Option("--format", "-f", help=f"Print as {'|'.join(FORMATS)} (default: tables on the terminal).")
]
OutputOption = Annotated[Path | None, typer.Option("--output", "-o", help="Write the output to this file.")]


def check_format(fmt: str | None) -> None:
    """Raise a UcdcrError for an unknown --format value."""
    if fmt is not None and fmt not in FORMATS:
        raise UcdcrError(f"unknown format {fmt!r}; valid formats: {', '.join(FORMATS)}")


def selected_datasets(data_dir: Path | None, datasets: str | None) -> dict[str, Path]:
    """Dataset folders chosen by --data-dir / --datasets (every dataset folder found by default)."""
    from ucdcr.io.load import discover_datasets
    from ucdcr.paths import resolve_data_dir

    names = [name.strip() for name in datasets.split(",") if name.strip()] if datasets else None
    return discover_datasets(resolve_data_dir(data_dir), names)
