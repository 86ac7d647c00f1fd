"""`ucdcr download DATASET...|all`: fetch raw files (URL or --mirror), verify size + sha256, write atomically;
`ucdcr download --release [DATASET...|all]`: install the authors' released datasets into ``<data-dir>/release/<id>/``.

Each dataset gets one line: its raw folder (absolute) and how many files were obtained how, naming the files that
were not (a file that failed is printed at once, with why). A dataset whose required files cannot be fetched (no
network, HTTP error, a broken archive, ...) then prints what is missing, the manual steps, the expected files with
their hashes and where to put them by hand, and the others go on. The last line says what ``ucdcr build`` can then
make: whole datasets, some splits (a dataset whose lacking file has a stand-in for some splits, e.g. CEREC's val and
test) and what it cannot, with the files it needs. With ``--mirror`` the network is never asked: a file the mirror
lacks is skipped. ``all`` from a mirror fetches every dataset the mirror allows: a dataset that lacks only what the
mirror lacks gets no manual steps (the last line names what the mirror lacks) and the exit code is 0 unless a
download failed. Otherwise (named datasets, or no mirror) the exit code is 0 when every dataset can be built (if
only in part, as the last line says), 1 when one cannot be built until manual steps are done; 2 when a download
failed otherwise.

With --release: one line per dataset installed (its folder, the commit -- or the commits of a mixed copy installed
with ``--allow-mixed`` --, what its copy lacked), a line per dataset that failed (the others go on) and the notes;
exit code 2 when any failed (:mod:`ucdcr.sources.release`).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ucdcr.cli.common import (
    EXIT_ERROR,
    DataDirOption,
    RawDirOption,
    console,
    err_console,
    friendly_errors,
    input_folder_option,
    print_message,
)
from ucdcr.errors import DownloadError, ManualDownloadRequired, UcdcrError
from ucdcr.paths import resolve_data_dir, resolve_raw_dir
from ucdcr.registry import dataset_ids, get
from ucdcr.sources.download import NOT_IN_MIRROR, OBTAINED

if TYPE_CHECKING:
    from ucdcr.sources.download import Buildable
    from ucdcr.sources.install import Installed


def expand_ids(names: list[str]) -> list[str]:
    """Dataset ids from command-line names (``all`` = every dataset)."""
    if any(name.lower() == "all" for name in names):
        return dataset_ids()
    return [get(name).id for name in names]


def register(app: typer.Typer) -> None:
    @app.command(
        "download", help="Fetch and verify raw files. Takes them from --mirror when given, else from their URLs."
    )
    @friendly_errors
    def _cmd(
        datasets: Annotated[
            list[str] | None,
            typer.Argument(metavar="DATASET...", help="Dataset ids, or 'all' (with --release, none means all)."),
        ] = None,
        raw_dir: RawDirOption = None,
        mirror: Annotated[
            Path | None,
            input_folder_option("--mirror", "A local folder laid out like the raw dir (e.g. ../shared/raw)."),
        ] = None,
        release: Annotated[
            bool,
            typer.Option(
                "--release", help="Fetch the authors' released datasets (Hugging Face Hub) into the data dir."
            ),
        ] = False,
        revision: Annotated[
            str | None,
            typer.Option(
                "--revision",
                metavar="REV",
                help="--release: branch, tag or commit of the release (default main); with --release-dir only a "
                "commit, checked against the copy's download metadata.",
            ),
        ] = None,
        release_dir: Annotated[
            Path | None,
            input_folder_option("--release-dir", "--release: a local copy of the release repository (offline)."),
        ] = None,
        allow_mixed: Annotated[
            bool,
            typer.Option(
                "--allow-mixed",
                help="--release-dir: install a copy whose files were downloaded at different commits (recorded).",
            ),
        ] = False,
        data_dir: DataDirOption = None,
    ) -> None:
        from ucdcr.sources.download import buildable, download

        if release or release_dir is not None:
            download_release_command(datasets, data_dir, revision, release_dir, allow_mixed)
            return
        if revision is not None or allow_mixed:
            raise UcdcrError("--revision and --allow-mixed are options of --release")
        if not datasets:
            raise UcdcrError("name the datasets to download, or 'all'")
        target = resolve_raw_dir(raw_dir)
        failed: list[str] = []
        bulk = mirror is not None and any(name.lower() == "all" for name in datasets)  # every dataset the mirror has
        for dataset_id in expand_ids(datasets):
            folder = (target / get(dataset_id).raw_folder).resolve()
            fetched: list[Any] = []
            try:
                download(dataset_id, target, mirror, report=partial(_print_failed, dataset_id, fetched))
            except (ManualDownloadRequired, DownloadError) as exc:
                if bulk and exc.lacking and exc.not_in_mirror == exc.lacking:
                    continue  # `all` from a mirror: only what the mirror lacks, which the last line says
                if isinstance(exc, ManualDownloadRequired):  # each failed file was printed as it happened
                    print_message(f"{dataset_id}: manual steps needed\n", exc.summary, style="yellow")
                    continue
                failed.append(dataset_id)
                print_message(f"{dataset_id}: not fetched\n", exc.summary)
            except UcdcrError as exc:  # a failed dataset does not stop the others
                failed.append(dataset_id)
                print_message(f"{dataset_id}: not fetched\n", str(exc))
            finally:
                console.print(_dataset_line(dataset_id, folder, fetched), highlight=False, markup=False, soft_wrap=True)
        outcomes = [buildable(dataset_id, target) for dataset_id in expand_ids(datasets)]
        err_console.print(_buildable_line(outcomes, failed, mirror), markup=False, highlight=False, soft_wrap=True)
        if failed or (not bulk and any(outcome.state == "none" for outcome in outcomes)):
            raise typer.Exit(2 if failed else 1)


def download_release_command(
    datasets: list[str] | None,
    data_dir: Path | None,
    revision: str | None,
    release_dir: Path | None,
    allow_mixed: bool = False,
) -> None:
    """Run the release download and print what happened (module docstring)."""
    from ucdcr.sources.release import download_release

    result = download_release(
        datasets, resolve_data_dir(data_dir), revision, release_dir, report=_print_installed, allow_mixed=allow_mixed
    )
    for note in result.notes:
        print_message("note:", note, style="yellow")
    for key, reason in result.failed.items():
        print_message(f"{key}: not installed --", reason)
    if result.failed:
        raise typer.Exit(EXIT_ERROR)


def _print_installed(done: Installed) -> None:
    if done.commits:
        mixed = ", ".join(f"{commit[:12]}: {count} file(s)" for commit, count in sorted(done.commits.items()))
        commit = f"commits mixed ({mixed}; --allow-mixed)"
    else:
        commit = f"commit {done.commit[:12]}" if done.commit else "commit unknown (local copy)"
    lacking = f"; the copy lacks {', '.join(done.absent)}" if done.absent else ""
    console.print(
        f"{done.dataset} -> {done.folder.resolve()} ({commit}{lacking})", highlight=False, markup=False, soft_wrap=True
    )


def _print_failed(dataset_id: str, fetched: list[Any], item: Any) -> None:
    """Keep each file's outcome for the dataset's line; a file that failed is printed at once, with why."""
    fetched.append(item)
    if item.action.startswith("failed"):
        console.print(f"{dataset_id}: {item.path}: {item.action}", highlight=False, soft_wrap=True, markup=False)


def _dataset_line(dataset_id: str, folder: Path, fetched: list[Any]) -> str:
    """One line per dataset: its raw folder and how many files were obtained how (or were not in the mirror), the
    others named with what happened (the last line says what each dataset needs)."""
    counts: dict[str, int] = {}
    others = []
    for item in fetched:
        if item.action in (*OBTAINED, NOT_IN_MIRROR) or item.action.startswith("skipped (an alternative"):
            counts[item.action] = counts.get(item.action, 0) + 1
        elif not item.action.startswith("failed"):
            others.append(f"{item.path}: {item.action}")
    done = ", ".join(f"{count} {action}" for action, count in counts.items()) or "no file"
    return f"{dataset_id} -> {folder}: {done}" + (f"; {'; '.join(others)}" if others else "")


def _buildable_line(outcomes: list[Buildable], failed: list[str], mirror: Path | None = None) -> str:
    """The last line: what ``ucdcr build`` can make now (whole datasets, or some splits) and what it cannot, and
    why (the files it needs; with a mirror, that the mirror lacks them)."""
    whole = [outcome.describe() for outcome in outcomes if outcome.state == "all"]
    some = [outcome.describe() for outcome in outcomes if outcome.state == "some"]
    none = [outcome.describe() for outcome in outcomes if outcome.state == "none"]
    parts = [f"can build: {', '.join(whole)}"] if whole else []
    parts += [f"can build some splits: {', '.join(some)}"] if some else []
    where = f" (not in the mirror {mirror})" if mirror is not None else ""
    parts += [f"cannot build{where}: {', '.join(none)}"] if none else []
    parts += [f"download failed: {', '.join(failed)}"] if failed else []
    return "; ".join(parts)
