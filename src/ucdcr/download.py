"""Raw-file manifests, verification and downloads (``ucdcr download``, the "raw files" column of ``ucdcr datasets``).

Each dataset ships ``ucdcr/manifests/<id>.json``::

    {"dataset": "ecbplus", "licence": "...", "homepage": "...", "manual_steps": null | "text",
     "files": [{"path": "ECB+_LREC2014/ECBplus_coreference_sentences.csv", "url": "https://...", "size": 23008,
                "sha256": "...", "git_blob": null, "required": true, "note": "", ["alternative_urls": [...]],
                ["one_of": "group"]},
               {"path": "ECB+_LREC2014/ECB+", "kind": "tree", "tree_sha256": "...", "files": 982, "url": null | zip URL,
                "required": false, ["one_of": "group"], "note": "extracted ECB+.zip"}]}

Paths are relative to ``<raw-dir>/<DatasetSpec.raw_folder>/``. A file is verified by size and sha256 (or, when only
its git blob id is known, by ``sha1("blob <size>\\0" + content)``); a tree by the tree hash of ``../shared/raw/MANIFEST.md``
(sha256 over the ``sha256sum`` lines of its files, paths relative to the dataset folder, sorted bytewise). Entries
sharing a ``one_of`` group are alternatives (ECB+.zip or its extracted tree): one of them is enough.

Sources, in order: a mirror folder laid out like the raw dir (``--mirror``, e.g. ``../shared/raw``), then the URL.
Everything is written to a temporary name and renamed into place only after verification; a mismatch raises
:class:`~ucdcr.errors.ChecksumError` naming the file, the expected and the actual hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ucdcr.errors import ChecksumError, DownloadError, ManualDownloadRequired
from ucdcr.registry import get

CHUNK = 1 << 20


def load_manifest(dataset_id: str) -> dict[str, Any]:
    """The shipped manifest of a dataset."""
    spec = get(dataset_id)
    text = resources.files("ucdcr").joinpath("manifests", f"{spec.id}.json").read_text(encoding="utf-8")
    return json.loads(text)


@dataclass(frozen=True)
class EntryStatus:
    """State of one manifest entry in a raw dir: "verified", "present" (nothing to verify it by), "mismatch" or
    "missing"."""

    path: str
    state: str
    required: bool
    one_of: str | None
    detail: str = ""


@dataclass(frozen=True)
class DatasetStatus:
    dataset: str
    entries: list[EntryStatus]

    @property
    def complete(self) -> bool:
        """Every required entry, and one entry of every one_of group, is present and not mismatched."""
        ok = {"verified", "present"}
        groups: dict[str, bool] = {}
        for entry in self.entries:
            if entry.one_of:
                groups[entry.one_of] = groups.get(entry.one_of, False) or entry.state in ok
            elif entry.required and entry.state not in ok:
                return False
        return all(groups.values())

    def summary(self) -> str:
        found = sum(1 for e in self.entries if e.state in ("verified", "present"))
        verified = sum(1 for e in self.entries if e.state == "verified")
        bad = sum(1 for e in self.entries if e.state == "mismatch")
        text = f"{found}/{len(self.entries)} found, {verified} verified"
        return text + (f", {bad} MISMATCH" if bad else "")


def dataset_status(dataset_id: str, raw_dir: Path) -> DatasetStatus:
    """Check every manifest entry of a dataset in ``raw_dir`` (hashes included)."""
    manifest = load_manifest(dataset_id)
    folder = raw_dir / get(dataset_id).raw_folder
    return DatasetStatus(manifest["dataset"], [_entry_status(folder, entry) for entry in manifest["files"]])


def _entry_status(folder: Path, entry: dict[str, Any]) -> EntryStatus:
    target = folder / entry["path"]
    required, one_of = bool(entry.get("required", False)), entry.get("one_of")
    if not target.exists():
        return EntryStatus(entry["path"], "missing", required, one_of)
    try:
        verified = verify_entry(target, entry, folder)
    except ChecksumError as exc:
        return EntryStatus(entry["path"], "mismatch", required, one_of, str(exc))
    return EntryStatus(entry["path"], "verified" if verified else "present", required, one_of)


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
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def git_blob_id(path: Path) -> str:
    """``git hash-object`` of a file."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


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
    action: str  # "already there", "copied from mirror", "downloaded", "skipped (...)"


def download(dataset_id: str, raw_dir: Path, mirror: Path | None = None) -> list[Fetched]:
    """Fetch every entry of a dataset's manifest that is not already verified; see the module docstring."""
    spec = get(dataset_id)
    manifest = load_manifest(dataset_id)
    folder = raw_dir / spec.raw_folder
    mirror_folder = mirror / spec.raw_folder if mirror else None
    done: list[Fetched] = []
    satisfied_groups: set[str] = set()
    missing_required: list[str] = []
    entries = sorted(manifest["files"], key=lambda e: not _available(e, folder, mirror_folder))
    for entry in entries:
        group = entry.get("one_of")
        if group and group in satisfied_groups:
            done.append(Fetched(entry["path"], f"skipped (an alternative of group {group!r} is there)"))
            continue
        action = _fetch_entry(entry, folder, mirror_folder)
        done.append(Fetched(entry["path"], action))
        if not action.startswith("skipped"):
            if group:
                satisfied_groups.add(group)
        elif entry.get("required"):
            missing_required.append(entry["path"])
    groups = {e["one_of"] for e in manifest["files"] if e.get("one_of")}
    missing_required += [f"one of group {g!r}" for g in sorted(groups - satisfied_groups)]
    if missing_required:
        steps = manifest.get("manual_steps")
        message = f"{spec.id}: could not obtain {', '.join(missing_required)}"
        if steps:
            raise ManualDownloadRequired(f"{message}.\nManual steps:\n{steps}")
        raise DownloadError(f"{message} (no URL and not in the mirror)")
    return done


def _available(entry: dict[str, Any], folder: Path, mirror_folder: Path | None) -> bool:
    return (folder / entry["path"]).exists() or bool(mirror_folder and (mirror_folder / entry["path"]).exists())


def _fetch_entry(entry: dict[str, Any], folder: Path, mirror_folder: Path | None) -> str:
    target = folder / entry["path"]
    if target.exists():
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
            _install_file(
                entry, folder, lambda handle, url=url: _copy_stream(urllib.request.urlopen(url, timeout=60), handle)
            )
            return "downloaded"
        except (OSError, ValueError) as exc:
            errors.append(f"{url}: {exc}")
    raise DownloadError(f"{target}: download failed ({'; '.join(errors)})")


def _copy_stream(source: Any, handle: Any) -> None:
    with source:
        shutil.copyfileobj(source, handle, CHUNK)


def _install_file(entry: dict[str, Any], folder: Path, fill: Any) -> None:
    target = folder / entry["path"]
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        dir=target.parent, prefix=f".{target.name}.", suffix=".part", delete=False
    ) as handle:
        temporary = Path(handle.name)
        try:
            fill(handle)
        except BaseException:
            handle.close()
            temporary.unlink(missing_ok=True)
            raise
    try:
        verify_entry_as(temporary, entry, target)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


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
    """Download the entry's zip and extract it so that ``staging/<path>`` is the tree (macOS resource forks left out)."""
    archive = staging / (entry.get("archive") or "archive.zip")
    with archive.open("wb") as handle:
        _copy_stream(urllib.request.urlopen(entry["url"], timeout=60), handle)
    extracted = staging / "extracted"
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(extracted, [m for m in bundle.namelist() if "__MACOSX" not in m])
    name = Path(entry["path"]).name
    found = next((p for p in [extracted / name, *extracted.rglob(name)] if p.is_dir()), None)
    if found is None:
        raise DownloadError(f"{entry['url']}: the archive has no folder {name!r}")
    (staging / entry["path"]).parent.mkdir(parents=True, exist_ok=True)
    os.replace(found, staging / entry["path"])
