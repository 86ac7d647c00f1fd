"""`ucdcr report` (not implemented yet)."""

from __future__ import annotations

import typer

from ucdcr.errors import UcdcrError


def register(app: typer.Typer) -> None:
    @app.command("report", help="(not implemented yet)")
    def _cmd() -> None:
        raise UcdcrError("`ucdcr report` is not implemented yet")
