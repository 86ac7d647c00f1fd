"""``ucdcr download --release``: the authors' released datasets, from the Hugging Face Hub (:mod:`ucdcr.sources.hub`)
or a local copy, installed beside the builds (:func:`ucdcr.sources.install.install`); docs/release.md.

Rule: what is installed is what the Hub lists at one commit, each file checked against the Hub's hash (a copy's
hashes are computed and recorded, its commit read from huggingface_hub's download metadata), with its provenance in
``release.json``. A dataset that fails does not stop the others, and what a failed run created in the data dir and
left empty is removed again.
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ucdcr.errors import UcdcrError
from ucdcr.io.atomic import reason
from ucdcr.registry import by_authors_folder, dataset_ids, get
from ucdcr.sources.discover import release_root
from ucdcr.sources.install import Fetched, Installed, ReleasedFolder, as_text, install, read_layout

RELEASE_REPO = "AnZhu/uCDCR"
RELEASE_LICENCE = "CC BY-SA 4.0"
DOWNLOAD_SUBDIR = ".download"
HUB_METADATA = Path(".cache") / "huggingface" / "download"


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
    root = release_root(data_dir)
    created = [path for path in (Path(data_dir), root) if not os.path.lexists(path)]
    result = ReleaseResult()
    try:
        if release_dir is not None:
            fetched = _from_copy(ids, Path(release_dir), result, revision, allow_mixed)
        else:
            fetched = _from_hub(ids, root / DOWNLOAD_SUBDIR, result, revision or DEFAULT_REVISION, repo)
        for item in fetched:  # each installed as soon as it is fetched, before the next is read
            with _failing(result, item.key):
                done = install(item, root)
                result.installed.append(done)
                if report is not None:
                    report(done)
        return result
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
    ids: list[str] | None, copy: Path, result: ReleaseResult, revision: str | None, allow_mixed: bool
) -> Iterator[Fetched]:
    """The dataset folders ``ids`` (None: every one) of a local copy of the release, each read and checked (a
    failure goes to ``result`` and the others go on)."""
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
    folders_of: dict[str, list[Path]] = {}
    for name, folder in present.items():
        spec = by_authors_folder(name)
        if spec is not None:
            folders_of.setdefault(spec.id, []).append(folder)
    if ids is None:
        ids = [key for key in dataset_ids() if key in folders_of]
        unknown = [name for name in present if by_authors_folder(name) is None]
        if unknown:
            result.notes.append(f"folders of {copy} that are no uCDCR dataset, left out: {', '.join(unknown)}")
        if not ids:
            raise UcdcrError(f"{copy} holds no dataset folder of the release (e.g. {get('ecbplus').authors_folder}/)")
    for key in ids:
        name = get(key).authors_folder
        folders = folders_of.get(key, [])
        fetched = None
        with _failing(result, key):
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
            fetched = Fetched(key, layout, record, commits=counts)
        if fetched is not None:
            yield fetched


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
    ids: list[str] | None, download: Path, result: ReleaseResult, revision: str, repo: str
) -> Iterator[Fetched]:
    """The dataset folders ``ids`` (None: every one) of the release at ``revision``, downloaded into ``download``
    (where an interrupted download resumes), each with the Hub's hashes that :func:`install` verifies (a failure
    goes to ``result`` and the others go on)."""
    from ucdcr.sources import hub

    hub.require_hub()
    commit, remote = hub.listing(repo, revision)
    folders = {path.split("/", 1)[0] for path in remote if "/" in path}
    if ids is None:
        ids = [key for key in dataset_ids() if get(key).authors_folder in folders]
        unknown = sorted(name for name in folders if by_authors_folder(name) is None and name[0] != ".")
        if unknown:
            result.notes.append(f"folders of {repo} that are no uCDCR dataset, left out: {', '.join(unknown)}")
    wanted = []
    for key in ids:
        name = get(key).authors_folder
        if name in folders:
            wanted.append(key)
        else:
            result.failed[key] = f"{repo} at {revision!r} (commit {commit[:12]}) has no folder {name}/ (dataset {key})"
    if not wanted:
        return
    patterns = [f"{get(key).authors_folder}/*" for key in wanted]
    hub.snapshot(repo, commit, patterns, download)
    for key in wanted:
        name = get(key).authors_folder
        fetched = None
        with _failing(result, key):
            record = _record(repo=repo, revision=revision, commit=commit, folder=name)
            expected = {path: entry for path, entry in remote.items() if path.startswith(name + "/")}
            left = [download / HUB_METADATA / name, download / name]  # the parts joined into one file, the metadata
            fetched = Fetched(key, read_layout(download / name), record, move=True, left=left, expected=expected)
        if fetched is not None:
            yield fetched


# --- shared --------------------------------------------------------------------------------------------------


@contextmanager
def _failing(result: ReleaseResult, key: str) -> Iterator[None]:
    """A dataset that fails in the block is in ``result.failed`` with a one-line reason; the others go on."""
    try:
        yield
    except UcdcrError as exc:
        result.failed[key] = str(exc)
    except OSError as exc:  # what the checks did not foresee: still one line
        result.failed[key] = _os_error(exc)


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
