"""`ucdcr build` (not implemented yet)."""

from __future__ import annotations

import typer

from ucdcr.errors import UcdcrError


def register(app: typer.Typer) -> None:
    @app.command("build", help="(not implemented yet)")
    def _cmd() -> None:
        raise UcdcrError("`ucdcr build` is not implemented yet")
