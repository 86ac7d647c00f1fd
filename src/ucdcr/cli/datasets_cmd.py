"""`ucdcr datasets`: one row per dataset: id, paper name, mention types, licence, raw files found / verified, built."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from ucdcr.cli.common import DataDirOption, RawDirOption, console, friendly_errors
from ucdcr.paths import resolve_data_dir, resolve_raw_dir
from ucdcr.registry import DATASET_IDS, get
from ucdcr.schema import BUILD_REPORT


def dataset_rows(raw_dir: Path, data_dir: Path) -> list[dict[str, str]]:
    """The table rows (also used by tests)."""
    from ucdcr.download import dataset_status

    rows = []
    for dataset_id in DATASET_IDS:
        try:
            spec = get(dataset_id)
        except ModuleNotFoundError:
            rows.append({"id": dataset_id, "name": "", "types": "", "licence": "", "raw": "(no module)", "built": ""})
            continue
        try:
            status = dataset_status(dataset_id, raw_dir)
            raw = status.summary() + (" (complete)" if status.complete else "")
        except FileNotFoundError:
            raw = "(no manifest)"
        rows.append(
            {
                "id": spec.id,
                "name": spec.paper_name,
                "types": "+".join(spec.mention_kinds),
                "licence": spec.licence,
                "raw": raw,
                "built": "yes" if (data_dir / spec.id / BUILD_REPORT).exists() else "no",
            }
        )
    return rows


def register(app: typer.Typer) -> None:
    @app.command("datasets", help="List the 12 datasets: licence, raw files found and verified, built or not.")
    @friendly_errors
    def _cmd(raw_dir: RawDirOption = None, data_dir: DataDirOption = None) -> None:
        table = Table("id", "paper name", "mentions", "licence", "raw files", "built")
        for row in dataset_rows(resolve_raw_dir(raw_dir), resolve_data_dir(data_dir)):
            table.add_row(row["id"], row["name"], row["types"], row["licence"], row["raw"], row["built"])
        console.print(table)
