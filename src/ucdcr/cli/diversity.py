"""`ucdcr diversity` (not implemented yet)."""

from __future__ import annotations

import typer

from ucdcr.errors import UcdcrError


def register(app: typer.Typer) -> None:
    @app.command("diversity", help="(not implemented yet)")
    def _cmd() -> None:
        raise UcdcrError("`ucdcr diversity` is not implemented yet")
