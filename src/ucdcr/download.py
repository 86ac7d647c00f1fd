"""Raw-file manifests, verification and downloads (``ucdcr download``, the "raw files" column of ``ucdcr datasets``).

Each dataset ships ``ucdcr/manifests/<id>.json``::

    {"dataset": "ecbplus", "licence": "...", "homepage": "...", "manual_steps": null | "text",
     "files": [{"path": "ECB+_LREC2014/ECBplus_coreference_sentences.csv", "url": "https://...", "size": 23008,
                "sha256": "...", "git_blob": null, "required": true, "note": "", ["alternative_urls": [...]],
                ["one_of": "group"], ["alternatives": [paths]], ["unless_option": "name"], ["part": true]},
               {"path": "ECB+_LREC2014/ECB+", "kind": "tree", "tree_sha256": "...", "files": 982, "url": null | zip URL,
                "required": false, ["one_of": "group"], "note": "extracted ECB+.zip"}]}

Paths are relative to ``<raw-dir>/<DatasetSpec.raw_folder>/``. A file is verified by size and sha256 (or, when only
its git blob id is known, by ``sha1("blob <size>\\0" + content)``); a tree by its tree hash
(sha256 over the ``sha256sum`` lines of its files, paths relative to the dataset folder, sorted bytewise). Entries
sharing a ``one_of`` group are alternatives (ECB+.zip or its extracted tree): one of them is enough.

Sources, in order: a mirror folder laid out like the raw dir (``--mirror``, e.g. ``../shared/raw``), then the URL.
Everything is written to a temporary name and renamed into place only after verification; a mismatch raises
:class:`~ucdcr.errors.ChecksumError` naming the file, the expected and the actual hash. Every other way a fetch can
fail (no URL, offline, DNS, HTTP error, timeout, a connection cut short, a broken or unexpected archive, a mirror
or raw dir that cannot be read or written) is an outcome ``failed (why)`` of that entry, and the other entries are
still tried. A required file that could not be obtained then raises
:class:`~ucdcr.errors.ManualDownloadRequired` when the manifest has manual steps, else
:class:`~ucdcr.errors.DownloadError`; both messages say what failed, the manual steps if any, and the expected
names and hashes.

Before a reader runs, :func:`require_raw_files` checks (existence only) every required entry and one_of group, all
at once, and raises :class:`~ucdcr.errors.MissingRawData` with the same text naming each missing one. An entry
also counts as there when one of its ``alternatives`` exists (other places or stand-ins the reader accepts; it
says which it used), or when the reader option its ``unless_option`` names is given (NewsWCL50r's texts from
``--texts``). An entry marked ``part`` (one topic's annotations) is left to the reader, which checks the parts
against the structure the dataset declares (its split file): a missing one is named as such, or left out with
``partial=true``. What only the reader can tell (a folder without the files it should hold) it reports the same
way (:func:`missing_raw_data`).

Status (``ucdcr datasets``): without ``verify`` only existence, file sizes and tree file counts are checked (fast);
with it every sha256 / git blob / tree hash. A dataset is "complete", "manual" (incomplete and its manifest has
manual steps), "partial" (some files there) or "missing".
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

from ucdcr.errors import ChecksumError, DownloadError, ManualDownloadRequired, MissingRawData, WriteError
from ucdcr.io.atomic import atomic_path
from ucdcr.registry import DatasetSpec, ReadOptions, get

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


def load_manifest(dataset_id: str) -> dict[str, Any]:
    """The manifest of a dataset (:attr:`~ucdcr.registry.DatasetSpec.manifest`)."""
    return get(dataset_id).manifest


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
    manifest = load_manifest(dataset_id)
    folder = raw_dir / get(dataset_id).raw_folder
    entries = [_entry_status(folder, entry, verify) for entry in manifest["files"]]
    return DatasetStatus(manifest["dataset"], entries, bool(manifest.get("manual_steps")))


def _entry_status(folder: Path, entry: dict[str, Any], verify: bool) -> EntryStatus:
    target = folder / entry["path"]
    required, one_of = bool(entry.get("required", False)), entry.get("one_of")
    if not target.exists():
        return EntryStatus(entry["path"], "missing", required, one_of)
    short = _tree_shortfall(target, entry)
    if short:
        return EntryStatus(entry["path"], "incomplete", required, one_of, short)
    try:
        verified = verify_entry(target, entry, folder) if verify else _check_size(target, entry)
    except ChecksumError as exc:
        return EntryStatus(entry["path"], "mismatch", required, one_of, str(exc))
    return EntryStatus(entry["path"], "verified" if verified else "present", required, one_of)


def _tree_shortfall(target: Path, entry: dict[str, Any]) -> str:
    """ "N of M files" when a tree entry has fewer files than the manifest says, else ""."""
    if entry.get("kind") != "tree" or not entry.get("files"):
        return ""
    count = sum(1 for p in target.rglob("*") if p.is_file())
    return f"{count} of {entry['files']} files" if count < entry["files"] else ""


def _check_size(target: Path, entry: dict[str, Any]) -> bool:
    """The cheap check: a file's size (never a hash). Returns False: not verified."""
    if entry.get("kind") != "tree" and entry.get("size") is not None and target.stat().st_size != entry["size"]:
        raise ChecksumError(target, str(entry["size"]), str(target.stat().st_size), "size")
    return False


def verify_entry(target: Path, entry: dict[str, Any], dataset_folder: Path) -> bool:
    """True if verified, False if the manifest gives nothing to verify by; raises ChecksumError on a mismatch."""
    if entry.get("kind") == "tree":
        expected = entry.get("tree_sha256")
        if not expected:
            return False
        actual = tree_sha256(dataset_folder, target)
        if actual != expected:
            raise ChecksumError(target, expected, actual, "tree hash")
        return True
    size = target.stat().st_size
    if entry.get("size") is not None and size != entry["size"]:
        raise ChecksumError(target, str(entry["size"]), str(size), "size")
    if entry.get("sha256"):
        actual = file_sha256(target)
        if actual != entry["sha256"]:
            raise ChecksumError(target, entry["sha256"], actual)
        return True
    if entry.get("git_blob"):
        actual = git_blob_id(target)
        if actual != entry["git_blob"]:
            raise ChecksumError(target, entry["git_blob"], actual, "git blob id")
        return True
    return False


def file_sha256(path: Path) -> str:
    """The sha256 of a file (hex): what the manifests and the build report's ``inputs`` give."""
    return _hash_file(path, hashlib.sha256())


def git_blob_id(path: Path) -> str:
    """``git hash-object`` of a file."""
    return _hash_file(path, hashlib.sha1(f"blob {path.stat().st_size}\0".encode()))


def _hash_file(path: Path, digest: Any) -> str:
    """``digest`` (a hashlib object) fed with the file's bytes in blocks, as hex."""
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return str(digest.hexdigest())


def tree_sha256(dataset_folder: Path, tree: Path) -> str:
    """MANIFEST.md tree hash: ``find <dir> -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum``."""
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
    manifest = load_manifest(dataset_id)
    folder = raw_dir / spec.raw_folder
    mirror_folder = mirror / spec.raw_folder if mirror else None
    done: list[Fetched] = []
    satisfied_groups: set[str] = set()
    failed: dict[str, str] = {}  # path -> why, for required entries and one_of alternatives
    entries = sorted(manifest["files"], key=lambda e: not _available(e, folder, mirror_folder))
    for entry in entries:
        group = entry.get("one_of")
        if group and group in satisfied_groups:
            action = f"skipped (an alternative of group {group!r} is there)"
        else:
            action = _try_fetch(entry, folder, mirror_folder)
            if action in OBTAINED:
                satisfied_groups.update([group] if group else [])
            elif entry.get("required") or group:
                failed[entry["path"]] = action
        done.append(Fetched(entry["path"], action))
        if report:
            report(done[-1])
    lacking = [
        path
        for path, entry in _by_path(manifest).items()
        if path in failed and entry.get("one_of") not in satisfied_groups
    ]
    if lacking:
        raise _not_obtained(spec.id, manifest, folder, {path: failed[path] for path in lacking})
    return done


OBTAINED = ("already there", "copied from mirror", "downloaded")


def _by_path(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["path"]: entry for entry in manifest["files"]}


def _try_fetch(entry: dict[str, Any], folder: Path, mirror_folder: Path | None) -> str:
    """The entry's outcome; a failed fetch becomes "failed (why)" so the other entries are still tried."""
    try:
        return _fetch_entry(entry, folder, mirror_folder)
    except ChecksumError:
        raise  # a wrong file is never "missing": the user must look at it
    except DownloadError as exc:
        return f"failed ({exc})"
    except FETCH_ERRORS as exc:  # e.g. the raw dir or the mirror cannot be written or read
        return f"failed ({folder / entry['path']}: {_describe(exc)})"


def _not_obtained(
    dataset_id: str, manifest: dict[str, Any], folder: Path, why: dict[str, str]
) -> DownloadError | ManualDownloadRequired:
    failures = [f"{path}: {reason}" for path, reason in why.items()]
    message = manual_steps_message(dataset_id, folder, list(why), failures)
    return ManualDownloadRequired(message) if manifest.get("manual_steps") else DownloadError(message)


def manual_steps_message(dataset_id: str, folder: Path, missing: list[str], failures: list[str] | None = None) -> str:
    """What ``download``, ``build`` and the readers say when raw files are missing: the names, what failed, the
    manifest's manual steps, licence and homepage, and every expected file with its URL and hashes (sha256, or the
    git blob id where only that is known)."""
    manifest = load_manifest(dataset_id)
    lines = [f"{dataset_id}: raw files missing in {folder}: {', '.join(missing)}."]
    if failures:
        lines += ["What failed:", *(f"  {failure}" for failure in failures)]
    if manifest.get("manual_steps"):
        lines += ["Manual steps:", manifest["manual_steps"]]
    lines.append(
        f"Licence: {manifest.get('licence') or 'not stated'}"
        + (f"; homepage: {manifest['homepage']}" if manifest.get("homepage") else "")
    )
    expected = [_expected_line(e) for e in manifest.get("files", []) if e.get("required", True) or e.get("one_of")]
    if expected:
        lines += [f"Expected under {folder}:", *expected]
    lines.append(
        f"`ucdcr download {dataset_id}` fetches and verifies what has a URL (--mirror DIR: from a local copy)."
    )
    return "\n".join(lines)


def _expected_line(entry: dict[str, Any]) -> str:
    checks = [f"{key} {entry[key]}" for key in ("size", "sha256", "git_blob", "tree_sha256", "files") if entry.get(key)]
    if entry.get("one_of"):
        checks.append(f"or another of group {entry['one_of']!r}")
    if entry.get("url"):
        checks.append(f"from {entry['url']}")
    return f"  {entry['path']}" + (f" ({', '.join(checks)})" if checks else "")


def missing_raw_files(
    dataset: DatasetSpec | str, folder: Path, options: ReadOptions | None = None, only: list[str] | None = None
) -> list[str]:
    """The required manifest entries (``only``: of these paths) that are not in ``folder``, each one_of group as
    ``a | b``; ``["the whole folder"]`` when the folder is not there. See the module docstring."""
    spec = get(dataset) if isinstance(dataset, str) else dataset
    if not folder.is_dir():
        return ["the whole folder"]
    given = (options or spec.options()).given()
    entries = [e for e in load_manifest(spec.id)["files"] if only is None or e["path"] in only]

    def there(entry: dict[str, Any]) -> bool:
        paths = [entry["path"], *entry.get("alternatives", [])]
        return entry.get("unless_option") in given or any((folder / path).exists() for path in paths)

    missing = [
        e["path"] for e in entries if e.get("required") and not e.get("one_of") and not e.get("part") and not there(e)
    ]
    groups: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        if entry.get("one_of"):
            groups.setdefault(entry["one_of"], []).append(entry)
    missing += [" | ".join(e["path"] for e in group) for group in groups.values() if not any(map(there, group))]
    return missing


def require_raw_files(
    dataset: DatasetSpec | str, folder: Path, options: ReadOptions | None = None, only: list[str] | None = None
) -> None:
    """Raise MissingRawData with the manual steps naming every missing required entry (:func:`missing_raw_files`)."""
    spec = get(dataset) if isinstance(dataset, str) else dataset
    missing = missing_raw_files(spec, folder, options, only)
    if missing:
        raise missing_raw_data(spec.id, folder, missing)


def missing_raw_data(dataset_id: str, folder: Path, missing: list[str]) -> MissingRawData:
    """The error for raw files missing in ``folder`` (what they are, as phrases), with the manifest's manual steps."""
    return MissingRawData(manual_steps_message(dataset_id, folder, missing))


def _available(entry: dict[str, Any], folder: Path, mirror_folder: Path | None) -> bool:
    return (folder / entry["path"]).exists() or bool(mirror_folder and (mirror_folder / entry["path"]).exists())


def _fetch_entry(entry: dict[str, Any], folder: Path, mirror_folder: Path | None) -> str:
    target = folder / entry["path"]
    if target.exists():
        short = _tree_shortfall(target, entry)
        if short:
            return f"incomplete ({short}; add the rest by hand)"
        verify_entry(target, entry, folder)
        return "already there"
    source = mirror_folder / entry["path"] if mirror_folder else None
    if entry.get("kind") == "tree":
        if source is not None and source.is_dir():
            _install_tree(entry, folder, lambda staging: shutil.copytree(source, staging / entry["path"]))
            return "copied from mirror"
        if entry.get("url"):
            _install_tree(entry, folder, lambda staging: _extract_archive(entry, staging))
            return "downloaded"
        return "skipped (no URL; not in the mirror)"
    if source is not None and source.is_file():
        _install_file(entry, folder, lambda handle: _copy_stream(source.open("rb"), handle))
        return "copied from mirror"
    urls = [u for u in [entry.get("url"), *entry.get("alternative_urls", [])] if u]
    if not urls:
        return "skipped (no URL; not in the mirror)"
    errors = []
    for url in urls:
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


def _install_file(entry: dict[str, Any], folder: Path, fill: Any) -> None:
    """Fill a temporary file beside the target, verify it, then rename it into place (:mod:`ucdcr.io.atomic`)."""
    target = folder / entry["path"]
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_path(target) as temporary:
            with temporary.open("wb") as handle:
                fill(handle)
            verify_entry_as(temporary, entry, target)
    except WriteError as exc:  # the raw dir cannot be written: an outcome of this entry, like a failed fetch
        raise DownloadError(str(exc)) from exc


def verify_entry_as(temporary: Path, entry: dict[str, Any], target: Path) -> None:
    """Verify a temporary copy, naming the final target in errors."""
    try:
        verify_entry(temporary, entry, temporary.parent)
    except ChecksumError as exc:
        raise ChecksumError(target, exc.expected, exc.actual, exc.kind) from None


def _install_tree(entry: dict[str, Any], folder: Path, fill: Any) -> None:
    """Build the tree in a staging folder next to the dataset folder, verify it there, then rename it into place."""
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".tree-", dir=folder))
    try:
        fill(staging)
        built = staging / entry["path"]
        if entry.get("tree_sha256"):
            actual = tree_sha256(staging, built)
            if actual != entry["tree_sha256"]:
                raise ChecksumError(folder / entry["path"], entry["tree_sha256"], actual, "tree hash")
        target = folder / entry["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(built, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _extract_archive(entry: dict[str, Any], staging: Path) -> None:
    """Download the entry's zip and extract it so that ``staging/<path>`` is the tree (without macOS resource forks)."""
    archive = staging / (entry.get("archive") or "archive.zip")
    with archive.open("wb") as handle:
        download_url(entry["url"], handle)
    extracted = staging / "extracted"
    try:
        with zipfile.ZipFile(archive) as bundle:
            bundle.extractall(extracted, [m for m in bundle.namelist() if "__MACOSX" not in m])
    except FETCH_ERRORS as exc:
        raise DownloadError(f"{entry['url']}: not a readable zip archive ({_describe(exc)})") from exc
    name = Path(entry["path"]).name
    found = next((p for p in [extracted / name, *extracted.rglob(name)] if p.is_dir()), None)
    if found is None:
        raise DownloadError(f"{entry['url']}: the archive has no folder {name!r}")
    (staging / entry["path"]).parent.mkdir(parents=True, exist_ok=True)
    os.replace(found, staging / entry["path"])
