"""Raw files by their manifests: fetch, verify and mirror them (``ucdcr download``), and say what a raw dir holds
(``ucdcr datasets``); docs/raw-data.md.

Rule: what the files are is the dataset's manifest (:mod:`ucdcr.manifest`); this module only reads and writes them.
A file is taken from the mirror (``--mirror``) or its URL, written under a temporary name and renamed into place
only once its size and hash (sha256, git blob id or tree hash) verified. A failed entry is an outcome of that entry
and the others are still tried; a required file still missing then raises
:class:`~ucdcr.errors.ManualDownloadRequired` (the manifest has manual steps) or :class:`~ucdcr.errors.DownloadError`.
Kept on urllib, not pooch: pooch checks no git blob id or tree hash, fetches no file:// URL and brings requests.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import tempfile
import urllib.request
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ucdcr.errors import ChecksumError, DownloadError, ManualDownloadRequired, WriteError
from ucdcr.io.atomic import atomic_path
from ucdcr.io.text import file_errors
from ucdcr.manifest import Manifest, ManifestEntry
from ucdcr.registry import get

CHUNK = 1 << 20
TIMEOUT_SECONDS = 60
# What fetching from a URL, unpacking an archive or copying from a mirror can raise besides our own errors: OSError
# covers URLError, HTTPError, timeouts and file-system errors; HTTPException a connection cut short; the rest are
# broken archives (BadZipFile, a failing CRC or inflate, a truncated member, an encrypted or unknown compression).
FETCH_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    ValueError,
    http.client.HTTPException,
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    RuntimeError,
    NotImplementedError,
)


@dataclass(frozen=True)
class EntryStatus:
    """State of one manifest entry in a raw dir: "verified", "present" (exists; not hashed, or nothing to verify it
    by), "incomplete" (a tree with fewer files than the manifest says), "mismatch" or "missing"."""

    path: str
    state: str
    required: bool
    one_of: str | None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.state in ("verified", "present")


@dataclass(frozen=True)
class DatasetStatus:
    dataset: str
    entries: list[EntryStatus]
    has_manual_steps: bool = False

    @property
    def complete(self) -> bool:
        """Every required entry, and one entry of every one_of group, is present and not mismatched."""
        return not self.missing

    @property
    def missing(self) -> list[str]:
        """What is lacking: required entries not ok, and each one_of group with no ok entry ("a | b")."""
        lacking = [e.path for e in self.entries if e.required and not e.one_of and not e.ok]
        groups: dict[str, list[EntryStatus]] = {}
        for entry in self.entries:
            if entry.one_of:
                groups.setdefault(entry.one_of, []).append(entry)
        lacking += [" | ".join(e.path for e in group) for group in groups.values() if not any(e.ok for e in group)]
        return lacking

    @property
    def state(self) -> str:
        """complete / manual / partial / missing (see the module docstring)."""
        if self.complete:
            return "complete"
        if self.has_manual_steps:
            return "manual"
        return "partial" if any(e.state != "missing" for e in self.entries) else "missing"

    def summary(self) -> str:
        found = sum(1 for e in self.entries if e.ok)
        verified = sum(1 for e in self.entries if e.state == "verified")
        bad = sum(1 for e in self.entries if e.state == "mismatch")
        text = f"{found}/{len(self.entries)} found" + (f", {verified} verified" if verified else "")
        return text + (f", {bad} MISMATCH" if bad else "")


def dataset_status(dataset_id: str, raw_dir: Path, verify: bool = True) -> DatasetStatus:
    """Check every manifest entry of a dataset in ``raw_dir``; hashes only with ``verify`` (else sizes, counts)."""
    spec = get(dataset_id)
    folder = raw_dir / spec.raw_folder
    entries = [_entry_status(folder, entry, verify) for entry in spec.manifest.files]
    return DatasetStatus(spec.manifest.dataset, entries, bool(spec.manifest.manual_steps))


@dataclass(frozen=True)
class Buildable:
    """What a build can make of a dataset's raw files: every split, some (``splits``: those a present stand-in
    covers, ``without``: those still lacking, ``needs``: the missing entries), or nothing."""

    dataset: str
    state: str  # "all", "some" or "none"
    splits: tuple[str, ...] = ()
    without: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()

    def describe(self) -> str:
        """``cerec (val, test; train needs data/COLING/cerec.zip)``, ``np4e`` or ``gvc (needs train.csv, ...)``."""
        needs = ", ".join(self.needs)
        if self.state == "all":
            return self.dataset
        if self.state == "some":
            return f"{self.dataset} ({', '.join(self.splits)}; {', '.join(self.without)} needs {needs})"
        return f"{self.dataset} (needs {needs})"


def buildable(dataset_id: str, raw_dir: Path) -> Buildable:
    """Which splits a build can make from the raw dir, from the manifest: all when nothing required is lacking;
    else, when every lacking entry names its split ``members``, the splits whose member has a present stand-in
    (an entry's ``stands_in_for``); else none."""
    status = dataset_status(dataset_id, raw_dir, verify=False)
    if status.complete:
        return Buildable(status.dataset, "all")
    entries = {entry.path: entry for entry in get(dataset_id).manifest.files}
    present = {entry.path for entry in status.entries if entry.ok}
    lacking = [entries[path] for path in status.missing if path in entries]
    stand_ins = {final for path in present for final in entries[path].stands_in_for if path in entries}
    if len(lacking) != len(status.missing) or not all(entry.members for entry in lacking):
        return Buildable(status.dataset, "none", needs=tuple(status.missing))
    splits = [split for entry in lacking for split, member in entry.members.items() if member in stand_ins]
    without = [split for entry in lacking for split, member in entry.members.items() if member not in stand_ins]
    if not splits:
        return Buildable(status.dataset, "none", needs=tuple(status.missing))
    return Buildable(status.dataset, "some", tuple(splits), tuple(without), tuple(status.missing))


def _entry_status(folder: Path, entry: ManifestEntry, verify: bool) -> EntryStatus:
    target = folder / entry.path
    if not target.exists():
        return EntryStatus(entry.path, "missing", entry.required, entry.one_of)
    short = _tree_shortfall(target, entry)
    if short:
        return EntryStatus(entry.path, "incomplete", entry.required, entry.one_of, short)
    try:
        verified = verify_entry(target, entry, folder) if verify else _check_size(target, entry)
    except ChecksumError as exc:
        return EntryStatus(entry.path, "mismatch", entry.required, entry.one_of, str(exc))
    return EntryStatus(entry.path, "verified" if verified else "present", entry.required, entry.one_of)


def _tree_shortfall(target: Path, entry: ManifestEntry) -> str:
    """ "N of M files" when a tree entry has fewer files than the manifest says, else ""."""
    if not entry.is_tree or not entry.files:
        return ""
    count = sum(1 for p in target.rglob("*") if p.is_file())
    return f"{count} of {entry.files} files" if count < entry.files else ""


def _check_size(target: Path, entry: ManifestEntry) -> bool:
    """The cheap check: a file's size (never a hash). Returns False: not verified."""
    if not entry.is_tree and entry.size is not None and target.stat().st_size != entry.size:
        raise ChecksumError(target, str(entry.size), str(target.stat().st_size), "size")
    return False


def verify_entry(target: Path, entry: ManifestEntry, dataset_folder: Path) -> bool:
    """True if verified, False if the manifest gives nothing to verify by; raises ChecksumError on a mismatch."""
    if entry.is_tree:
        if not entry.tree_sha256:
            return False
        actual = tree_sha256(dataset_folder, target)
        if actual != entry.tree_sha256:
            raise ChecksumError(target, entry.tree_sha256, actual, "tree hash")
        return True
    size = target.stat().st_size
    if entry.size is not None and size != entry.size:
        raise ChecksumError(target, str(entry.size), str(size), "size")
    if entry.sha256:
        actual = file_sha256(target)
        if actual != entry.sha256:
            raise ChecksumError(target, entry.sha256, actual)
        return True
    if entry.git_blob:
        actual = git_blob_id(target)
        if actual != entry.git_blob:
            raise ChecksumError(target, entry.git_blob, actual, "git blob id")
        return True
    return False


def file_sha256(path: Path) -> str:
    """The sha256 of a file (hex): what the manifests and the build report's ``inputs`` give."""
    return _hash_file(path, hashlib.sha256())


def git_blob_id(path: Path) -> str:
    """``git hash-object`` of a file."""
    return _hash_file(path, hashlib.sha1(f"blob {path.stat().st_size}\0".encode()))


def _hash_file(path: Path, digest: Any) -> str:
    """``digest`` (a hashlib object) fed with the file's bytes in blocks, as hex; a path that is not a regular file
    (a device, a pipe) or cannot be read is one error naming it."""
    with file_errors(path), open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return str(digest.hexdigest())


def tree_sha256(dataset_folder: Path, tree: Path) -> str:
    """Tree hash (docs/raw-data.md#verification).

    ``find <dir> -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum``."""
    relative = tree.relative_to(dataset_folder).as_posix()
    names = sorted(
        (p.relative_to(dataset_folder).as_posix() for p in tree.rglob("*") if p.is_file()),
        key=lambda name: name.encode(),
    )
    lines = "".join(f"{file_sha256(dataset_folder / name)}  {name}\n" for name in names)
    assert all(name.startswith(relative) for name in names)
    return hashlib.sha256(lines.encode()).hexdigest()


@dataclass(frozen=True)
class Fetched:
    path: str
    action: (
        str  # "already there", "copied from mirror", "downloaded", "skipped (...)", "failed (...)", "incomplete (...)"
    )


def download(
    dataset_id: str, raw_dir: Path, mirror: Path | None = None, report: Callable[[Fetched], None] | None = None
) -> list[Fetched]:
    """Fetch every entry of a dataset's manifest that is not already verified; see the module docstring.

    ``report`` is called with each entry's outcome as it happens (the CLI prints them). A required entry (or a
    one_of group) that could not be obtained raises ManualDownloadRequired / DownloadError after the others were tried.
    """
    spec = get(dataset_id)
    manifest = spec.manifest
    folder = raw_dir / spec.raw_folder
    mirror_folder = mirror / spec.raw_folder if mirror else None
    done: list[Fetched] = []
    satisfied_groups: set[str] = set()
    failed: dict[str, str] = {}  # path -> why, for required entries and one_of alternatives
    entries = sorted(manifest.files, key=lambda e: not _available(e, folder, mirror_folder))
    for entry in entries:
        group = entry.one_of
        if group and group in satisfied_groups:
            action = f"skipped (an alternative of group {group!r} is there)"
        else:
            action = _try_fetch(entry, folder, mirror_folder)
            if action in OBTAINED:
                satisfied_groups.update([group] if group else [])
            elif entry.required or group:
                failed[entry.path] = action
        done.append(Fetched(entry.path, action))
        if report:
            report(done[-1])
    lacking = [e.path for e in manifest.files if e.path in failed and e.one_of not in satisfied_groups]
    if lacking:
        raise _not_obtained(spec.id, manifest, folder, {path: failed[path] for path in lacking})
    return done


OBTAINED = ("already there", "copied from mirror", "downloaded")
NOT_IN_MIRROR = "skipped (not in the mirror)"
"""A file a mirror lacks: with ``--mirror`` the network is never asked for it."""


def _mirror_lacks(reason: str) -> bool:
    """Whether an entry was not obtained because the mirror (or the raw dir) holds none or only part of it, not
    because something failed."""
    return reason == NOT_IN_MIRROR or reason.startswith("incomplete (")


def _try_fetch(entry: ManifestEntry, folder: Path, mirror_folder: Path | None) -> str:
    """The entry's outcome; a failed fetch becomes "failed (why)" so the other entries are still tried."""
    try:
        return _fetch_entry(entry, folder, mirror_folder)
    except ChecksumError:
        raise  # a wrong file is never "missing": the user must look at it
    except DownloadError as exc:
        return f"failed ({exc})"
    except FETCH_ERRORS as exc:  # e.g. the raw dir or the mirror cannot be written or read
        return f"failed ({folder / entry.path}: {_describe(exc)})"


def _not_obtained(
    dataset_id: str, manifest: Manifest, folder: Path, why: dict[str, str]
) -> DownloadError | ManualDownloadRequired:
    """The error for required entries that could not be fetched; its message ends with where to put them by hand
    (running the same download again would not help)."""
    hint = (
        f"Put the files listed above under {folder} by hand, or give --mirror DIR, a copy laid out like the raw "
        f"dir; `ucdcr datasets --verify` then checks them."
    )
    failures = [f"{path}: {reason}" for path, reason in why.items()]
    message = manifest.missing_message(dataset_id, folder, list(why), failures, hint)
    summary = manifest.missing_message(dataset_id, folder, list(why), None, hint)
    error = ManualDownloadRequired if manifest.manual_steps else DownloadError
    found = error(message, summary)
    found.lacking = sorted(why)
    found.not_in_mirror = sorted(path for path, reason in why.items() if _mirror_lacks(reason))
    return found


def _available(entry: ManifestEntry, folder: Path, mirror_folder: Path | None) -> bool:
    return (folder / entry.path).exists() or bool(mirror_folder and (mirror_folder / entry.path).exists())


def _fetch_entry(entry: ManifestEntry, folder: Path, mirror_folder: Path | None) -> str:
    target = folder / entry.path
    if target.exists():
        short = _tree_shortfall(target, entry)
        if short:
            return f"incomplete ({short}; add the rest by hand)"
        verify_entry(target, entry, folder)
        return "already there"
    source = mirror_folder / entry.path if mirror_folder else None
    if entry.is_tree:
        if source is not None and source.is_dir():
            _install_tree(entry, folder, lambda staging: shutil.copytree(source, staging / entry.path))
            return "copied from mirror"
        if source is not None:  # a mirror is given: the network is never asked
            return NOT_IN_MIRROR
        if entry.url:
            _install_tree(entry, folder, lambda staging: _extract_archive(entry, staging))
            return "downloaded"
        return "skipped (no URL; not in the mirror)"
    if source is not None and source.is_file():
        _install_file(entry, folder, lambda handle: _copy_stream(source.open("rb"), handle))
        return "copied from mirror"
    if source is not None:  # a mirror is given: the network is never asked
        return NOT_IN_MIRROR
    if not entry.urls:
        return "skipped (no URL; not in the mirror)"
    errors = []
    for url in entry.urls:
        try:
            _install_file(entry, folder, lambda handle, url=url: download_url(url, handle))
            return "downloaded"
        except DownloadError as exc:
            errors.append(str(exc))
    raise DownloadError(f"download failed ({'; '.join(errors)})")


def download_url(url: str, handle: Any) -> None:
    """Copy what ``url`` serves into the open binary ``handle``; any failure is a DownloadError naming the URL."""
    try:
        _copy_stream(urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS), handle)
    except FETCH_ERRORS as exc:
        raise DownloadError(f"{url}: {_describe(exc)}") from exc


def _describe(exc: BaseException) -> str:
    """An exception as a short phrase: its message, or its type when the message is empty or uninformative."""
    reason = getattr(exc, "reason", None)  # URLError wraps the socket error
    text = str(reason if reason is not None and not str(exc).startswith("HTTP Error") else exc)
    text = " ".join(text.split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _copy_stream(source: Any, handle: Any) -> None:
    with source:
        shutil.copyfileobj(source, handle, CHUNK)


def _install_file(entry: ManifestEntry, folder: Path, fill: Any) -> None:
    """Fill a temporary file beside the target, verify it, then rename it into place (:mod:`ucdcr.io.atomic`)."""
    target = folder / entry.path
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_path(target) as temporary:
            with temporary.open("wb") as handle:
                fill(handle)
            verify_entry_as(temporary, entry, target)
    except WriteError as exc:  # the raw dir cannot be written: an outcome of this entry, like a failed fetch
        raise DownloadError(str(exc)) from exc


def verify_entry_as(temporary: Path, entry: ManifestEntry, target: Path) -> None:
    """Verify a temporary copy, naming the final target in errors."""
    try:
        verify_entry(temporary, entry, temporary.parent)
    except ChecksumError as exc:
        raise ChecksumError(target, exc.expected, exc.actual, exc.kind) from None


def _install_tree(entry: ManifestEntry, folder: Path, fill: Any) -> None:
    """Build the tree in a staging folder next to the dataset folder, verify it there, then rename it into place."""
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".tree-", dir=folder))
    try:
        fill(staging)
        built = staging / entry.path
        if entry.tree_sha256:
            actual = tree_sha256(staging, built)
            if actual != entry.tree_sha256:
                raise ChecksumError(folder / entry.path, entry.tree_sha256, actual, "tree hash")
        target = folder / entry.path
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(built, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _extract_archive(entry: ManifestEntry, staging: Path) -> None:
    """Download the entry's zip and extract it so that ``staging/<path>`` is the tree (without macOS resource forks)."""
    assert entry.url is not None  # only a tree with a URL is extracted
    archive = staging / (entry.archive or "archive.zip")
    with archive.open("wb") as handle:
        download_url(entry.url, handle)
    extracted = staging / "extracted"
    try:
        with zipfile.ZipFile(archive) as bundle:
            bundle.extractall(extracted, [m for m in bundle.namelist() if "__MACOSX" not in m])
    except FETCH_ERRORS as exc:
        raise DownloadError(f"{entry.url}: not a readable zip archive ({_describe(exc)})") from exc
    name = Path(entry.path).name
    found = next((p for p in [extracted / name, *extracted.rglob(name)] if p.is_dir()), None)
    if found is None:
        raise DownloadError(f"{entry.url}: the archive has no folder {name!r}")
    (staging / entry.path).parent.mkdir(parents=True, exist_ok=True)
    os.replace(found, staging / entry.path)
