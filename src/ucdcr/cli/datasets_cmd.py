"""`ucdcr datasets`: one row per dataset: id, paper name, mention types, licence, raw-file status, missing files, built.

Status (:attr:`ucdcr.download.DatasetStatus.state`): complete / manual (incomplete; the manifest has manual steps) /
partial / missing. Fast by default (existence, sizes, tree file counts); ``--verify`` also checks every hash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ucdcr.cli.common import DataDirOption, RawDirOption, console, friendly_errors
from ucdcr.paths import resolve_data_dir, resolve_raw_dir
from ucdcr.registry import DATASET_IDS, get


def dataset_rows(raw_dir: Path, data_dir: Path, verify: bool = False) -> list[dict[str, str]]:
    """The table rows (also used by tests); "missing" holds the lacking files, one per line."""
    from ucdcr.download import dataset_status
    from ucdcr.schema import BUILD_REPORT

    rows = []
    for dataset_id in DATASET_IDS:
        try:
            spec = get(dataset_id)
        except ModuleNotFoundError:
            rows.append(dict.fromkeys(ROW_KEYS, "") | {"id": dataset_id, "status": "(no module)"})
            continue
        try:
            status = dataset_status(dataset_id, raw_dir, verify=verify)
            state, raw, missing = status.state, status.summary(), "\n".join(status.missing)
        except FileNotFoundError:
            state, raw, missing = "(no manifest)", "", ""
        rows.append(
            {
                "id": spec.id,
                "name": spec.paper_name,
                "types": "+".join(spec.mention_kinds),
                "licence": spec.licence,
                "status": state,
                "raw": raw,
                "missing": missing,
                "built": "yes" if (data_dir / spec.id / BUILD_REPORT).exists() else "no",
            }
        )
    return rows


ROW_KEYS = ("id", "name", "types", "licence", "status", "raw", "missing", "built")
STATE_STYLE = {"complete": "green", "manual": "yellow", "partial": "yellow", "missing": "red"}


def register(app: typer.Typer) -> None:
    @app.command("datasets", help="List the 12 datasets: licence, raw-file status and missing files, built or not.")
    @friendly_errors
    def _cmd(
        raw_dir: RawDirOption = None,
        data_dir: DataDirOption = None,
        verify: Annotated[bool, typer.Option("--verify", help="Also check every sha256 / tree hash (slow).")] = False,
    ) -> None:
        from rich.table import Table

        table = Table("id", "paper name", "mentions", "licence", "status", "raw files", "built")
        table.add_column("missing", overflow="fold")
        for row in dataset_rows(resolve_raw_dir(raw_dir), resolve_data_dir(data_dir), verify=verify):
            style = STATE_STYLE.get(row["status"], "")
            status = f"[{style}]{row['status']}[/]" if style else row["status"]
            row = row | {"status": status}
            table.add_row(
                *(row[key] for key in ("id", "name", "types", "licence", "status", "raw", "built", "missing"))
            )
        console.print(table)
