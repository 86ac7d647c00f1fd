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
huggingface_hub's download metadata where the copy was made with ``snapshot_download(local_dir=...)``
(``.cache/huggingface/download/<folder>/<file>.metadata``, the commit on its first line). A copy
lacking some files (a partial download) installs what it holds; the record lists what is absent, and a file left
half-downloaded there (huggingface_hub's ``.incomplete``) is an error. A dataset whose folder is not in the copy is
an error; with ``all``, the datasets of the copy are installed and folders that are no dataset are named and left.
Also errors, each naming the copy's files: two folders of one dataset (``ECBplus/`` and ``ECBplus-prep/``); files
of one folder downloaded at different commits (a mixed copy: installed only with ``allow_mixed``, its commits
recorded; files without metadata beside files with it are recorded as ``without_metadata``); a ``revision`` that is
not the commit the copy's metadata gives (a branch or tag cannot be checked offline: refused). Mention files are
checked as they are joined (:func:`ucdcr.io.release.install`).

Either way a dataset that fails (the copy's or the data dir's fault, e.g. a full disk: the message names the file
of the data dir being written) does not stop the others, and what a failed run created in the data dir (its
folder, ``release/``) is removed again when it is empty.
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ucdcr.errors import ChecksumError, UcdcrError
from ucdcr.io.atomic import reason
from ucdcr.io.release import (
    RELEASE_LICENCE,
    RELEASE_REPO,
    ReleasedFolder,
    as_text,
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
    commits: dict[str, int] = field(default_factory=dict)
    """A mixed copy installed with ``allow_mixed``: commit -> how many of its files came from it; else {}."""


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
    revision: str | None = None,
    release_dir: Path | None = None,
    repo: str = RELEASE_REPO,
    report: Callable[[Installed], None] | None = None,
    allow_mixed: bool = False,
) -> ReleaseResult:
    """Install the released datasets ``names`` (ids; None: all) into ``<data-dir>/release/`` (module docstring).
    A dataset that fails does not stop the others; its one-line reason is in the result. revision: of the Hub
    (default ``main``); with ``release_dir`` only a commit, checked against the copy's download metadata.
    allow_mixed: install a copy whose files came from different commits (recorded as such)."""
    ids = release_targets(names)
    data_dir = Path(data_dir)
    created = [path for path in (data_dir, release_root(data_dir)) if not os.path.lexists(path)]
    try:
        if release_dir is not None:
            return _from_copy(ids, Path(release_dir), data_dir, report, revision, allow_mixed)
        return _from_hub(ids, data_dir, revision or DEFAULT_REVISION, repo, report)
    finally:
        for path in reversed(created):  # what this run created and left empty (every dataset failed)
            try:
                path.rmdir()
            except OSError:
                break


DEFAULT_REVISION = "main"
_COMMIT = re.compile(r"[0-9a-f]{7,40}")


# --- from a local copy ---------------------------------------------------------------------------------------


def _from_copy(
    ids: list[str] | None,
    copy: Path,
    data_dir: Path,
    report: Callable[[Installed], None] | None,
    revision: str | None = None,
    allow_mixed: bool = False,
) -> ReleaseResult:
    if revision is not None and not _COMMIT.fullmatch(revision.lower()):
        raise UcdcrError(
            f"--revision {revision} cannot be checked against the local copy {copy}: a branch or tag needs the Hub. "
            "Leave --revision out (the copy is installed as it is, with the commit its download metadata gives), "
            "or give the commit the copy was downloaded at"
        )
    try:
        if not copy.is_dir():
            raise UcdcrError(f"release copy {copy} is not a folder")
        entries = sorted(copy.iterdir())
        present = {folder.name: folder for folder in entries if folder.name[0] != "." and folder.is_dir()}
    except OSError as exc:
        raise UcdcrError(f"cannot read the release copy {copy}: {reason(exc)}") from None
    result = ReleaseResult()
    folders_of: dict[str, list[Path]] = {}
    for name, folder in present.items():
        key = dataset_of_folder(name)
        if key is not None:
            folders_of.setdefault(key, []).append(folder)
    if ids is None:
        ids = [key for key in dataset_ids() if key in folders_of]
        unknown = [name for name in present if dataset_of_folder(name) is None]
        if unknown:
            result.notes.append(f"folders of {copy} that are no uCDCR dataset, left out: {', '.join(unknown)}")
        if not ids:
            raise UcdcrError(f"{copy} holds no dataset folder of the release (e.g. {release_folder(get('ecbplus'))}/)")
    for key in ids:
        name = release_folder(get(key))
        folders = folders_of.get(key, [])
        try:
            if not folders:
                raise UcdcrError(f"the release copy {copy} has no folder {name}/ (dataset {key})")
            if len(folders) > 1:
                raise UcdcrError(
                    f"the release copy {copy} has {len(folders)} folders of dataset {key}: "
                    f"{' and '.join(f'{folder.name}/' for folder in folders)}; which one to install is not clear: "
                    "move all but one out of the copy"
                )
            folder = folders[0]
            _check_complete_downloads(copy, folder.name)
            layout = read_layout(folder)
            commits = _copy_commits(copy, layout)
            without = commits.pop(UNKNOWN_COMMIT, []) if commits.keys() - {UNKNOWN_COMMIT} else []
            commits.pop(UNKNOWN_COMMIT, None)
            commit = _one_commit(copy / folder.name, commits, allow_mixed)
            if revision is not None:
                _check_revision(copy / folder.name, revision, commit, commits)
            record = _record(repo=None, revision=revision, commit=commit, folder=folder.name)
            record["source"] = as_text(copy.resolve())
            if len(commits) > 1:
                record["commits"] = {found: sorted(files) for found, files in sorted(commits.items())}
            if without:  # the commit says nothing about these (added to the copy by hand?)
                record["without_metadata"] = sorted(without)
            counts = {found: len(files) for found, files in commits.items()} if len(commits) > 1 else {}
            _install(result, layout, data_dir, key, record, move=False, report=report, commits=counts)
        except UcdcrError as exc:
            result.failed[key] = str(exc)
        except OSError as exc:  # what the checks above did not foresee: still one line, and the others go on
            result.failed[key] = _os_error(exc)
    return result


def _check_complete_downloads(copy: Path, folder: str) -> None:
    """A copy made by huggingface_hub with a file still downloading (``*.incomplete``) is half-downloaded."""
    metadata = copy / HUB_METADATA / folder
    try:
        partial = sorted(metadata.rglob("*.incomplete")) if metadata.is_dir() else []
    except OSError as exc:
        raise UcdcrError(f"cannot read the download metadata {metadata}: {reason(exc)}") from None
    if partial:
        raise UcdcrError(
            f"{copy / folder} is half-downloaded ({len(partial)} file(s) still incomplete, e.g. "
            f"{partial[0].relative_to(metadata)}); finish the download first"
        )


UNKNOWN_COMMIT = "unknown"


def _copy_commits(copy: Path, layout: ReleasedFolder) -> dict[str, list[str]]:
    """The commits the files of a copy's folder were downloaded at, by huggingface_hub's download metadata
    (``<copy>/.cache/huggingface/download/<folder>/<file>.metadata``, the commit on its first line): commit ->
    the files (``<folder>/<path>``). Files without metadata do not count (recorded as ``without_metadata``
    by the caller): {} for a copy without any metadata (e.g. a git clone)."""
    by_commit: dict[str, list[str]] = {}
    for path in layout.files():
        name = f"{layout.path.name}/{path.relative_to(layout.path).as_posix()}"
        metadata = copy / HUB_METADATA / f"{name}.metadata"
        try:
            lines = metadata.read_text(encoding="utf-8", errors="replace").splitlines() if metadata.is_file() else []
        except OSError as exc:
            raise UcdcrError(f"cannot read the download metadata {metadata}: {reason(exc)}") from None
        commit = lines[0].strip().lower() if lines else ""
        by_commit.setdefault(commit if _COMMIT.fullmatch(commit) else UNKNOWN_COMMIT, []).append(name)
    return by_commit


def _one_commit(folder: Path, commits: dict[str, list[str]], allow_mixed: bool) -> str | None:
    """The commit every file of the folder came from; None when unknown or mixed. A mixed folder is an error
    unless ``allow_mixed``."""
    if len(commits) == 1:
        return next(iter(commits))
    if len(commits) > 1 and not allow_mixed:
        counts = sorted(commits.items(), key=lambda item: (-len(item[1]), item[0]))
        parts = ", ".join(f"{commit[:12]}: {len(files)} file(s)" for commit, files in counts)
        example = counts[-1][1][0]
        raise UcdcrError(
            f"{folder} is a mixed copy: its files come from {len(commits)} commits by huggingface_hub's download "
            f"metadata ({parts}; e.g. {example} from {counts[-1][0][:12]}), so they may not belong together; "
            "download the folder again at one revision, or give --allow-mixed to install it as it is"
        )
    return None


def _check_revision(folder: Path, revision: str, commit: str | None, commits: dict[str, list[str]]) -> None:
    """``revision`` (a commit, or its first digits) is the commit the copy's metadata gives."""
    if commit is not None and commit.startswith(revision.lower()):
        return
    if not commits:
        found = "its commit is unknown (it has no download metadata of huggingface_hub)"
    elif commit is None:
        found = f"its files come from {len(commits)} commits"
    else:
        found = f"its download metadata gives commit {commit}"
    raise UcdcrError(
        f"--revision {revision} is not what {folder} holds: {found}; leave --revision out to install the copy as "
        "it is, or download that revision"
    )


# --- from the Hub --------------------------------------------------------------------------------------------


def _from_hub(
    ids: list[str] | None, data_dir: Path, revision: str, repo: str, report: Callable[[Installed], None] | None
) -> ReleaseResult:
    import ucdcr.hub as hub

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
            shutil.rmtree(download / name, ignore_errors=True)  # what is left: the parts joined into one file
        except UcdcrError as exc:
            result.failed[key] = str(exc)
        except OSError as exc:
            result.failed[key] = _os_error(exc)
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


def _os_error(exc: OSError) -> str:
    """An OSError as one line naming its file(s)."""
    names = " -> ".join(str(name) for name in (exc.filename, exc.filename2) if name is not None)
    return f"{names or 'a file'}: {reason(exc)}"


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
    commits: dict[str, int] | None = None,
) -> None:
    spec = get(key)
    record.update(dataset=key, dataset_licence=spec.licence, citation=list(spec.citation))
    folder = install(layout, data_dir, key, record, move=move)
    done = Installed(key, folder, record.get("commit"), layout.absent(spec.texts_redistributable), commits or {})
    result.installed.append(done)
    if report is not None:
        report(done)
