"""The Hugging Face Hub boundary: the only module that talks to the Hub (``huggingface_hub``, in the ``hf`` extra).

Two calls: :func:`listing` (the commit a revision resolves to, and every file there with the Hub's size and hash)
and :func:`snapshot` (the files matching some patterns at that commit, into a local folder where an interrupted
download resumes). Rule: each failure (no network, an unknown repository or revision, a full disk) is one
:class:`~ucdcr.errors.UcdcrError` line. Tests replace :func:`_dataset_info` and :func:`_snapshot_download`.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ucdcr.errors import UcdcrError

EXTRA = "hf"


@dataclass(frozen=True)
class RemoteFile:
    """One file of a repository on the Hub: its path, size and hash (sha256 where stored with Git LFS, else None;
    git_blob: the git blob id)."""

    path: str
    size: int | None
    sha256: str | None
    git_blob: str | None


def require_hub() -> Any:
    """The ``huggingface_hub`` module, or an error naming the extra that installs it."""
    try:
        import huggingface_hub
    except ImportError:
        from ucdcr.extras import install_hint

        raise UcdcrError(
            f"fetching the uCDCR release needs huggingface_hub, in the optional `{EXTRA}` extra "
            f"(`{install_hint(EXTRA)}`), or use --release-dir with a local copy of the release"
        ) from None
    return huggingface_hub


def listing(repo: str, revision: str) -> tuple[str, dict[str, RemoteFile]]:
    """(the commit ``revision`` resolves to, path -> :class:`RemoteFile` of every file at that commit)."""
    with _hub_errors(repo, revision):
        info = _dataset_info(repo, revision)
    files = {}
    for sibling in info.siblings or []:
        lfs = getattr(sibling, "lfs", None)
        sha256 = (lfs.get("sha256") if isinstance(lfs, dict) else getattr(lfs, "sha256", None)) if lfs else None
        files[sibling.rfilename] = RemoteFile(sibling.rfilename, sibling.size, sha256, sibling.blob_id)
    if not info.sha:
        raise UcdcrError(f"the Hub did not resolve revision {revision!r} of {repo} to a commit")
    return str(info.sha), files


def snapshot(repo: str, commit: str, patterns: list[str], local_dir: Path) -> Path:
    """Download the files of ``repo`` at ``commit`` matching ``patterns`` into ``local_dir`` (resumable)."""
    with _hub_errors(repo, commit, local_dir):
        _snapshot_download(repo, commit, patterns, local_dir)
    return local_dir


def _dataset_info(repo: str, revision: str) -> Any:
    hub = require_hub()
    return hub.HfApi().dataset_info(repo, revision=revision, files_metadata=True)


def _snapshot_download(repo: str, commit: str, patterns: list[str], local_dir: Path) -> None:
    hub = require_hub()
    hub.snapshot_download(
        repo_id=repo, repo_type="dataset", revision=commit, allow_patterns=patterns, local_dir=str(local_dir)
    )


@contextmanager
def _hub_errors(repo: str, revision: str, local_dir: Path | None = None) -> Iterator[None]:
    """Turn what ``huggingface_hub`` raises into one UcdcrError line (other exceptions pass unchanged);
    ``local_dir``: where a download writes (named when it cannot be written)."""
    try:
        yield
    except UcdcrError:
        raise
    except Exception as exc:
        message = _message(exc, repo, revision, local_dir)
        if message is None:
            raise
        raise UcdcrError(message) from exc


_LOCAL_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}
"""Errors of the local file system while a download writes: a full disk or quota, a read-only file system, no
permission."""


def _message(exc: Exception, repo: str, revision: str, local_dir: Path | None = None) -> str | None:
    name = type(exc).__name__
    first = (str(exc).strip().splitlines() or [name])[0][:200]
    if isinstance(exc, OSError) and exc.errno in _LOCAL_ERRORS and local_dir is not None:
        from ucdcr.io.atomic import reason

        return f"cannot write the download of {repo} into {exc.filename or local_dir}: {reason(exc)}"
    if name == "RevisionNotFoundError":
        return f"revision {revision!r} does not exist in {repo} on the Hugging Face Hub"
    if name in ("RepositoryNotFoundError", "GatedRepoError"):
        return f"the Hugging Face Hub has no accessible dataset {repo} ({first})"
    if name in ("LocalEntryNotFoundError", "OfflineModeIsEnabled") or _is_network_error(exc):
        return (
            f"cannot reach the Hugging Face Hub to fetch {repo} ({name}: {first}); check the network, or use "
            "--release-dir with a local copy of the release"
        )
    if name in ("HfHubHTTPError", "EntryNotFoundError", "RemoteEntryNotFoundError", "XetDownloadError"):
        return f"the Hugging Face Hub refused {repo} at {revision!r}: {first}"
    return None


def _is_network_error(exc: BaseException) -> bool:
    """A connection, DNS, TLS or timeout error of the HTTP stack huggingface_hub uses, or of the OS."""
    module = type(exc).__module__.split(".")[0]
    return isinstance(exc, ConnectionError | TimeoutError | socket.gaierror) or module in (
        "httpx",
        "httpx2",
        "httpcore",
        "requests",
        "urllib3",
    )
