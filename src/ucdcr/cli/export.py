"""`ucdcr export` (not implemented yet)."""

from __future__ import annotations

import typer

from ucdcr.errors import UcdcrError


def register(app: typer.Typer) -> None:
    @app.command("export", help="(not implemented yet)")
    def _cmd() -> None:
        raise UcdcrError("`ucdcr export` is not implemented yet")
