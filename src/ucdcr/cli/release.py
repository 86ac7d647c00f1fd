"""`ucdcr download --release [DATASET...|all]`: the authors' released datasets into ``<data-dir>/release/<id>/``.

One line per dataset installed (its folder, the commit -- or the commits of a mixed copy installed with
``--allow-mixed`` --, what its copy lacked), a line per dataset that failed (the others go on) and the notes; exit
code 2 when any failed. The release, the layout and the names:
:mod:`ucdcr.release`, :mod:`ucdcr.io.release`.
"""

from __future__ import annotations

from pathlib import Path

import typer

from ucdcr.cli.common import EXIT_ERROR, console, print_message
from ucdcr.paths import resolve_data_dir


def download_release_command(
    datasets: list[str] | None,
    data_dir: Path | None,
    revision: str | None,
    release_dir: Path | None,
    allow_mixed: bool = False,
) -> None:
    """Run the release download and print what happened (module docstring)."""
    from ucdcr.release import Installed, download_release

    def told(done: Installed) -> None:
        if done.commits:
            mixed = ", ".join(f"{commit[:12]}: {count} file(s)" for commit, count in sorted(done.commits.items()))
            commit = f"commits mixed ({mixed}; --allow-mixed)"
        else:
            commit = f"commit {done.commit[:12]}" if done.commit else "commit unknown (local copy)"
        lacking = f"; the copy lacks {', '.join(done.absent)}" if done.absent else ""
        console.print(
            f"{done.dataset} -> {done.folder.resolve()} ({commit}{lacking})",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )

    result = download_release(
        datasets, resolve_data_dir(data_dir), revision, release_dir, report=told, allow_mixed=allow_mixed
    )
    for note in result.notes:
        print_message("note:", note, style="yellow")
    for key, reason in result.failed.items():
        print_message(f"{key}: not installed --", reason)
    if result.failed:
        raise typer.Exit(EXIT_ERROR)
