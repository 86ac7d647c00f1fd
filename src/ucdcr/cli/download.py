"""`ucdcr download DATASET...|all`: fetch raw files (URL or --mirror), verify size + sha256, write atomically.

A dataset whose required files cannot be fetched prints its manual steps (or the failure) and the others go on;
the exit code is 1 when only manual steps are missing, 2 when a download failed otherwise, 0 when all are there.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from ucdcr.cli.common import RawDirOption, console, err_console, friendly_errors
from ucdcr.errors import ManualDownloadRequired, UcdcrError
from ucdcr.paths import resolve_raw_dir
from ucdcr.registry import DATASET_IDS, get


def expand_ids(names: list[str]) -> list[str]:
    """Dataset ids from command-line names (``all`` = every dataset)."""
    if any(name.lower() == "all" for name in names):
        return list(DATASET_IDS)
    return [get(name).id for name in names]


def register(app: typer.Typer) -> None:
    @app.command("download", help="Fetch and verify the raw files of datasets (or take them from --mirror).")
    @friendly_errors
    def _cmd(
        datasets: Annotated[list[str], typer.Argument(help="Dataset ids, or 'all'.")],
        raw_dir: RawDirOption = None,
        mirror: Annotated[
            Path | None, typer.Option("--mirror", help="A local folder laid out like the raw dir (e.g. ../shared/raw).")
        ] = None,
    ) -> None:
        from ucdcr.download import download

        target = resolve_raw_dir(raw_dir)
        manual: list[str] = []
        failed: list[str] = []
        for dataset_id in expand_ids(datasets):
            try:
                download(dataset_id, target, mirror, report=partial(_print_fetched, dataset_id))
            except ManualDownloadRequired as exc:
                manual.append(dataset_id)
                err_console.print(
                    f"[yellow]{dataset_id}: manual steps needed[/]\n{exc}", highlight=False, soft_wrap=True
                )
            except UcdcrError as exc:  # a failed dataset does not stop the others
                failed.append(dataset_id)
                err_console.print(f"[bold red]{dataset_id}: failed:[/] {exc}", highlight=False, soft_wrap=True)
        if manual or failed:
            err_console.print(_not_fetched_line(manual, failed), highlight=False, soft_wrap=True)
            raise typer.Exit(2 if failed else 1)


def _print_fetched(dataset_id: str, item: Any) -> None:
    console.print(f"{dataset_id}: {item.path}: {item.action}", highlight=False, soft_wrap=True)


def _not_fetched_line(manual: list[str], failed: list[str]) -> str:
    parts = [f"manual steps needed: {', '.join(manual)}"] if manual else []
    parts += [f"failed: {', '.join(failed)}"] if failed else []
    return "not fetched -- " + "; ".join(parts)
