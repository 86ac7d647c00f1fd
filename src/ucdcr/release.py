"""``ucdcr download --release``: the authors' released datasets, from the Hugging Face Hub or a local copy, installed
side by side with the builds (layout and names: :mod:`ucdcr.io.release`; the Hub: :mod:`ucdcr.hub`).

From the Hub (:func:`download_release` without ``release_dir``):

1. the revision asked for (default ``main``) is resolved to its commit, and the repository's file list with the
   Hub's hashes is read at that commit (:func:`ucdcr.hub.listing`); a dataset whose folder the release lacks is
   an error naming the folder and the commit;
2. only the folders asked for are downloaded, at that commit, into ``<data-dir>/release/.download/`` (hidden;
   an interrupted download resumes from there on the next run);
3. every file the Hub lists under a folder must be there with the Hub's size and hash (sha256 for files stored with
   Git LFS, the git blob id otherwise): a missing file is a half-downloaded folder (run the command again to
   resume), a different hash a :class:`~ucdcr.errors.ChecksumError`;
4. the folder is installed (:func:`ucdcr.io.release.install`) with its provenance record ``release.json``:
   repository, revision asked for, commit, licence, and every file with size, sha256 and git blob id and which
   of them the Hub's hash verified.

From a local copy (``release_dir``: a folder holding the release's dataset folders, e.g. a clone of the
repository): the same install, offline; the hashes are computed and recorded, the commit is read from
huggingface_hub's download metadata where the copy was made with ``snapshot_download(local_dir=...)``. A copy
lacking some files (a partial download) installs what it holds; the record lists what is absent, and a file left
half-downloaded there (huggingface_hub's ``.incomplete``) is an error. A dataset whose folder is not in the copy is
an error; with ``all``, the datasets of the copy are installed and folders that are no dataset are named and left.
"""

from __future__ import annotations

import datetime
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ucdcr.errors import ChecksumError, UcdcrError
from ucdcr.io.release import (
    RELEASE_LICENCE,
    RELEASE_REPO,
    ReleasedFolder,
    dataset_of_folder,
    file_hashes,
    install,
    read_layout,
    release_folder,
    release_root,
)
from ucdcr.registry import dataset_ids, get

DOWNLOAD_SUBDIR = ".download"
HUB_METADATA = Path(".cache") / "huggingface" / "download"


@dataclass
class Installed:
    """One released dataset installed: its id, folder, the commit it came from, what its copy lacked."""

    dataset: str
    folder: Path
    commit: str | None
    absent: list[str] = field(default_factory=list)


@dataclass
class ReleaseResult:
    """What :func:`download_release` did: installed datasets, failures (id -> one line), notes."""

    installed: list[Installed] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def release_targets(names: list[str] | None) -> list[str] | None:
    """Dataset ids from command-line names; None for every dataset (no names, or ``all``)."""
    if not names or any(name.lower() == "all" for name in names):
        return None
    return list(dict.fromkeys(get(name).id for name in names))


def download_release(
    names: list[str] | None,
    data_dir: Path,
    revision: str = "main",
    release_dir: Path | None = None,
    repo: str = RELEASE_REPO,
    report: Callable[[Installed], None] | None = None,
) -> ReleaseResult:
    """Install the released datasets ``names`` (ids; None: all) into ``<data-dir>/release/`` (module docstring).
    A dataset that fails does not stop the others; its one-line reason is in the result."""
    ids = release_targets(names)
    if release_dir is not None:
        return _from_copy(ids, Path(release_dir), Path(data_dir), report)
    return _from_hub(ids, Path(data_dir), revision, repo, report)


# --- from a local copy ---------------------------------------------------------------------------------------


def _from_copy(
    ids: list[str] | None, copy: Path, data_dir: Path, report: Callable[[Installed], None] | None
) -> ReleaseResult:
    if not copy.is_dir():
        raise UcdcrError(f"release copy {copy} is not a folder")
    result = ReleaseResult()
    present = {folder.name: folder for folder in sorted(copy.iterdir()) if folder.is_dir() and folder.name[0] != "."}
    by_id = {dataset_of_folder(name): folder for name, folder in present.items() if dataset_of_folder(name)}
    if ids is None:
        ids = [key for key in dataset_ids() if key in by_id]
        unknown = [name for name in present if dataset_of_folder(name) is None]
        if unknown:
            result.notes.append(f"folders of {copy} that are no uCDCR dataset, left out: {', '.join(unknown)}")
        if not ids:
            raise UcdcrError(f"{copy} holds no dataset folder of the release (e.g. {release_folder(get('ecbplus'))}/)")
    for key in ids:
        name = release_folder(get(key))
        folder = by_id.get(key)
        try:
            if folder is None:
                raise UcdcrError(f"the release copy {copy} has no folder {name}/ (dataset {key})")
            _check_complete_downloads(copy, folder.name)
            layout = read_layout(folder)
            files = {
                f"{folder.name}/{path.relative_to(folder).as_posix()}": {**file_hashes(path), "verified_by": None}
                for path in layout.files()
            }
            record = _record(repo=None, revision=None, commit=_copy_commit(copy, folder.name), folder=folder.name)
            record.update(source=str(copy.resolve()), files=files)
            _install(result, layout, data_dir, key, record, move=False, report=report)
        except UcdcrError as exc:
            result.failed[key] = str(exc)
    return result


def _check_complete_downloads(copy: Path, folder: str) -> None:
    """A copy made by huggingface_hub with a file still downloading (``*.incomplete``) is half-downloaded."""
    metadata = copy / HUB_METADATA / folder
    partial = sorted(metadata.rglob("*.incomplete")) if metadata.is_dir() else []
    if partial:
        raise UcdcrError(
            f"{copy / folder} is half-downloaded ({len(partial)} file(s) still incomplete, e.g. "
            f"{partial[0].relative_to(metadata)}); finish the download first"
        )


def _copy_commit(copy: Path, folder: str) -> str | None:
    """The commit a copy made with ``snapshot_download(local_dir=...)`` came from (its download metadata: the
    commit on the first line), when every file of the folder agrees; else None."""
    metadata = copy / HUB_METADATA / folder
    commits = set()
    for path in metadata.rglob("*.metadata") if metadata.is_dir() else []:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if lines:
            commits.add(lines[0].strip())
    return commits.pop() if len(commits) == 1 else None


# --- from the Hub --------------------------------------------------------------------------------------------


def _from_hub(
    ids: list[str] | None, data_dir: Path, revision: str, repo: str, report: Callable[[Installed], None] | None
) -> ReleaseResult:
    from ucdcr import hub

    hub.require_hub()
    commit, remote = hub.listing(repo, revision)
    folders = {path.split("/", 1)[0] for path in remote if "/" in path}
    result = ReleaseResult()
    if ids is None:
        ids = [key for key in dataset_ids() if release_folder(get(key)) in folders]
        unknown = sorted(name for name in folders if dataset_of_folder(name) is None and name[0] != ".")
        if unknown:
            result.notes.append(f"folders of {repo} that are no uCDCR dataset, left out: {', '.join(unknown)}")
    wanted = []
    for key in ids:
        name = release_folder(get(key))
        if name in folders:
            wanted.append(key)
        else:
            result.failed[key] = f"{repo} at {revision!r} (commit {commit[:12]}) has no folder {name}/ (dataset {key})"
    if not wanted:
        return result
    download = release_root(data_dir) / DOWNLOAD_SUBDIR
    hub.snapshot(repo, commit, [f"{release_folder(get(key))}/*" for key in wanted], download)
    for key in wanted:
        name = release_folder(get(key))
        try:
            files = _verify(download, {path: entry for path, entry in remote.items() if path.startswith(name + "/")})
            record = _record(repo=repo, revision=revision, commit=commit, folder=name)
            record["files"] = files
            _install(result, read_layout(download / name), data_dir, key, record, move=True, report=report)
            shutil.rmtree(download / HUB_METADATA / name, ignore_errors=True)
        except UcdcrError as exc:
            result.failed[key] = str(exc)
    return result


def _verify(download: Path, remote: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every file the Hub lists is in the download folder with the Hub's size and hash; their hashes, and which
    hash of the Hub verified each."""
    files = {}
    for path, entry in sorted(remote.items()):
        local = download / path
        if not local.is_file():
            raise UcdcrError(
                f"{download / path.split('/', 1)[0]} is half-downloaded: {path} is missing; run the same command "
                "again to resume"
            )
        hashes = file_hashes(local)
        if entry.size is not None and hashes["size"] != entry.size:
            raise ChecksumError(local, f"{entry.size} bytes", f"{hashes['size']} bytes", "size")
        if entry.sha256:
            if hashes["sha256"] != entry.sha256:
                raise ChecksumError(local, entry.sha256, hashes["sha256"])
            verified = "sha256"
        elif entry.git_blob:
            if hashes["git_blob"] != entry.git_blob:
                raise ChecksumError(local, entry.git_blob, hashes["git_blob"], "git blob")
            verified = "git_blob"
        else:
            verified = None
        files[path] = {**hashes, "verified_by": verified}
    return files


# --- shared --------------------------------------------------------------------------------------------------


def _record(repo: str | None, revision: str | None, commit: str | None, folder: str) -> dict[str, Any]:
    return {
        "release": RELEASE_REPO if repo is None else repo,
        "licence": RELEASE_LICENCE,
        "revision": revision,
        "commit": commit,
        "folder": folder,
        "retrieved": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def _install(
    result: ReleaseResult,
    layout: ReleasedFolder,
    data_dir: Path,
    key: str,
    record: dict[str, Any],
    move: bool,
    report: Callable[[Installed], None] | None,
) -> None:
    spec = get(key)
    record.update(dataset=key, dataset_licence=spec.licence, citation=list(spec.citation))
    folder = install(layout, data_dir, key, record, move=move)
    done = Installed(key, folder, record.get("commit"), layout.absent(spec.texts_redistributable))
    result.installed.append(done)
    if report is not None:
        report(done)
