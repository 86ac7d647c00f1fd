"""`ucdcr datasets`: one row per dataset: id, paper name, mention types, licence, raw-file status, built, the release
installed (its commit), missing files.

Every registered dataset (:func:`ucdcr.registry.all_specs`, in the paper's order); the licence comes from its
manifest.

Status (:attr:`ucdcr.sources.download.DatasetStatus.state`): complete / manual (incomplete; the manifest has manual
steps) / partial / missing. Fast by default (existence, sizes, tree file counts); ``--verify`` also checks every
hash. The same holds for an installed release, checked against what its ``release.json`` records was installed: a
file of it missing, changed or added since is named in the "release" cell and in one error line per dataset, exit
code 1.
Printed like the other table commands (:func:`ucdcr.report.tables.print_tables`): fitted to the terminal, Markdown
when piped, or ``--format md|csv|json|latex``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ucdcr.cli.common import (
    DataDirOption,
    FormatOption,
    OutputOption,
    RawDirOption,
    check_format,
    console,
    friendly_errors,
    print_message,
)
from ucdcr.paths import resolve_data_dir, resolve_raw_dir
from ucdcr.registry import all_specs
from ucdcr.report.tables import ResultTable


def dataset_rows(raw_dir: Path, data_dir: Path, verify: bool = False) -> list[dict[str, str]]:
    """The table rows (also used by tests); "missing" holds the lacking files, one per line."""
    from ucdcr.schema import BUILD_REPORT
    from ucdcr.sources.download import dataset_status

    rows = []
    for spec in all_specs():
        try:
            status = dataset_status(spec.id, raw_dir, verify=verify)
            state, raw, missing, licence = status.state, status.summary(), "\n".join(status.missing), spec.licence
        except FileNotFoundError:
            state, raw, missing, licence = "(no manifest)", "", "", ""
        rows.append(
            {
                "id": spec.id,
                "name": spec.paper_name,
                "types": "+".join(spec.mention_kinds),
                "licence": licence,
                "status": state,
                "raw": raw,
                "missing": missing,
                "built": "yes" if (data_dir / spec.id / BUILD_REPORT).exists() else "no",
                **release_cells(data_dir, spec.id, verify),
            }
        )
    return rows


ROW_KEYS = ("id", "name", "types", "licence", "status", "raw", "built", "release", "missing")
HEADERS = ("id", "paper name", "mentions", "licence", "status", "raw files", "built", "release", "missing")


def release_state(data_dir: Path, dataset_id: str) -> str:
    """The "release" cell: the commit of the installed release (``ucdcr download --release``), "local copy" when
    it came from one of unknown commit, or "no"."""
    return release_cells(data_dir, dataset_id)["release"]


def release_cells(data_dir: Path, dataset_id: str, verify: bool = False) -> dict[str, str]:
    """The "release" cell (:func:`release_state`; with what changed in the installed folder since it was
    installed: sizes, and with ``verify`` every sha256, by its ``release.json``) and "release_changed" (each
    changed file of the folder, one per line: ``<folder>/<file>: what``; "" when none)."""
    from ucdcr.io.contents import provenance
    from ucdcr.sources.discover import release_path
    from ucdcr.sources.install import changed_files

    folder = release_path(data_dir, dataset_id)
    record = provenance(folder)
    if record is None:
        state = "no (a folder without release.json)" if folder.is_dir() else "no"
        return {"release": state, "release_changed": ""}
    state = str(record["commit"])[:12] if record.get("commit") else "local copy"
    if record.get("commits"):
        state = "mixed commits"
    changed = changed_files(folder, hashes=verify)
    if changed:
        more = f" (+{len(changed) - 1} more)" if len(changed) > 1 else ""
        state = f"{state}; CHANGED: {changed[0].split(':', 1)[0]}{more}"
    return {"release": state, "release_changed": "\n".join(f"{folder}/{line}" for line in changed)}


STATE_STYLE = {"complete": "green", "manual": "yellow", "partial": "yellow", "missing": "red"}


def datasets_table(rows: list[dict[str, str]]) -> ResultTable:
    """The rows of :func:`dataset_rows` as a table (the "missing" cell lists one lacking file per line)."""
    table = ResultTable("uCDCR datasets", list(HEADERS), styles={"status": STATE_STYLE})
    for row in rows:
        table.add({header: row[key] for header, key in zip(HEADERS, ROW_KEYS, strict=True)})
    return table


def register(app: typer.Typer) -> None:
    @app.command(
        "datasets",
        help="List the datasets. Licence, raw-file status and missing files, built or not, release installed or not.",
    )
    @friendly_errors
    def _cmd(
        raw_dir: RawDirOption = None,
        data_dir: DataDirOption = None,
        verify: Annotated[bool, typer.Option("--verify", help="Also check every sha256 / tree hash (slow).")] = False,
        fmt: FormatOption = None,
        output: OutputOption = None,
    ) -> None:
        from ucdcr.report.tables import print_tables

        check_format(fmt)
        rows = dataset_rows(resolve_raw_dir(raw_dir), resolve_data_dir(data_dir), verify=verify)
        print_tables([datasets_table(rows)], fmt, console, output)
        changed = [row for row in rows if row["release_changed"]]
        for row in changed:  # one line per dataset: its first changed file
            lines = row["release_changed"].splitlines()
            more = f" (and {len(lines) - 1} more file(s))" if len(lines) > 1 else ""
            print_message(
                "error:",
                f"{lines[0]}{more}: the installed release of {row['id']} changed since `ucdcr download --release` "
                f"installed it; install it again with `ucdcr download --release {row['id']}`",
            )
        if changed:
            raise typer.Exit(1)
