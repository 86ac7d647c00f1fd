"""One released dataset folder, installed into the data dir as an ordinary uCDCR folder, and checked later.

A released folder (docs/release.md#which-folder-is-which-dataset) is read into a :class:`ReleasedFolder`
(:func:`read_layout`) and, with its provenance record, handed over as a :class:`Fetched`; :func:`install` checks a
download against the Hub's hashes, copies (or moves) the folder into ``<data-dir>/release/<id>`` through a staging
folder swapped in at once (:class:`~ucdcr.io.output_folder.OutputFolder`), joins the mention files of a split that
are several into one, and writes the provenance record ``release.json`` with the size and hashes of every file read
and written, which :func:`changed_files` checks later. Rule: what would be joined wrongly is refused, naming the copy's
file; a folder there without ``release.json`` (not installed by ucdcr) is never replaced.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from ucdcr.errors import ChecksumError, FormatError, UcdcrError
from ucdcr.io.atomic import reason, write_errors
from ucdcr.io.contents import provenance
from ucdcr.io.text import decode_text, file_errors, parse_json
from ucdcr.io.text import describe_json as describe
from ucdcr.records import SPLITS
from ucdcr.registry import get
from ucdcr.schema import DOCUMENTS_PARQUET, ENTITY_FILE, EVENT_FILE, MENTIONS_PARQUET, PROVENANCE_FILE

if TYPE_CHECKING:
    from ucdcr.io.output_folder import OutputFolder
    from ucdcr.sources.hub import RemoteFile

CARD_FILE = "README.md"
KIND_STEMS = {"event": EVENT_FILE.removesuffix(".json"), "entity": ENTITY_FILE.removesuffix(".json")}


# --- the layout of a released folder -------------------------------------------------------------------------

_NUMBER = re.compile(r"(\d+)")


def _natural(name: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in _NUMBER.split(name)]


@dataclass
class ReleasedFolder:
    """What one dataset folder of the release holds (:func:`read_layout`)."""

    path: Path
    card: Path | None
    mentions: Path | None
    documents: Path | None
    split_files: dict[tuple[str, str], list[Path]] = field(default_factory=dict)
    """(split, kind) -> the mention files of that split and kind, in natural order of their names."""
    unknown: list[Path] = field(default_factory=list)
    """Files that are none of the above (kept in the installed folder, listed in the provenance record)."""

    def files(self) -> Iterator[Path]:
        """Every file of the folder."""
        yield from (path for path in (self.card, self.mentions, self.documents) if path is not None)
        for paths in self.split_files.values():
            yield from paths
        yield from self.unknown

    def absent(self, texts: bool = True) -> list[str]:
        """What a complete release folder has and this one lacks (a partial copy): files and split folders.
        texts: whether the release holds the dataset's texts (``all_documents.parquet``)."""
        expected = ((CARD_FILE, self.card), (MENTIONS_PARQUET, self.mentions), (DOCUMENTS_PARQUET, self.documents))
        missing = [name for name, path in expected[: 3 if texts else 2] if path is None]
        missing += [f"{split}/" for split in SPLITS if not any(s == split for s, _ in self.split_files)]
        return missing


def split_files(folder: Path, kind: str) -> list[Path]:
    """The mention files of one kind in a split folder: ``<kind>_mentions.json`` or its parts
    ``<kind>_mentions_<n>.json`` (e.g. ``event_mentions_3.json``), in natural order of their names.

    A folder holding the whole file beside parts of it, or a file that starts like a mention file but is named
    otherwise (a browser's second download ``event_mentions (1).json``, ``event_mentions_2 copy.json``), is an
    error naming both files: joining them would repeat or mix mentions (:func:`check_split_names`)."""
    stem = KIND_STEMS[kind]
    if not folder.is_dir():
        return []
    entries = [path for path in _entries(folder) if path.name.startswith(stem) and path.name.endswith(".json")]
    found = sorted(
        (path for path in entries if _of_kind(path.name, stem) and path.is_file()), key=lambda path: _natural(path.name)
    )
    check_split_names(folder, stem, found, [path for path in entries if path not in found])
    return found


_PART = re.compile(r"(?:_\d+)?")
_SECOND_COPY = re.compile(r"(?P<base>.+?)(?:\s*\(\d+\)|\s*-?\s*[Cc]opy(?:\s*\(?\d+\)?)?)")
"""A name a browser or file manager gives a second copy: ``name (1)``, ``name(2)``, ``name - Copy``, ``name copy 2``."""


def _of_kind(name: str, stem: str) -> bool:
    return name.endswith(".json") and name.startswith(stem) and bool(_PART.fullmatch(name[len(stem) : -len(".json")]))


def check_split_names(folder: Path, stem: str, found: list[Path], others: list[Path]) -> None:
    """Refuse a split folder whose mention files of one kind would be joined wrongly (see :func:`split_files`):
    ``others`` are the entries that begin with ``stem``, end with ``.json`` and are no mention file."""
    for path in sorted(others):
        name = path.name.removesuffix(".json")
        copy_of = _SECOND_COPY.fullmatch(name)
        original = folder / f"{copy_of['base']}.json" if copy_of else None
        if original is not None and original.is_file():
            raise UcdcrError(
                f"{path} looks like a second copy of {original} (a browser's or file manager's name for a file "
                "downloaded or copied twice); only one may be installed: remove the copy"
            )
        raise UcdcrError(
            f"{path} is not a mention file name of the release ({stem}.json, or {stem}_<n>.json for each of several "
            "parts): rename it or move it out of the folder"
        )
    whole = folder / f"{stem}.json"
    parts = [path for path in found if path != whole]
    if whole in found and parts:
        raise UcdcrError(
            f"{whole} and {parts[0]}: the whole file beside {len(parts)} part(s) of it; the release has one or the "
            f"other, and joining both would count its mentions twice: remove {whole.name} or the parts"
        )


def read_layout(folder: Path) -> ReleasedFolder:
    """The files of one released dataset folder, classified; a folder with no mentions at all (neither
    ``all_mentions.parquet`` nor a split mention file) is an error naming it, and so are a folder that cannot be
    read, file names that would be joined wrongly (:func:`split_files`) and a file name that is not UTF-8 (the
    release's names are ASCII)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UcdcrError(f"{folder} is not a folder")
    layout = ReleasedFolder(
        path=folder,
        card=_file(folder / CARD_FILE),
        mentions=_file(folder / MENTIONS_PARQUET),
        documents=_file(folder / DOCUMENTS_PARQUET),
    )
    known: set[Path] = {path for path in (layout.card, layout.mentions, layout.documents) if path is not None}
    for split in SPLITS:
        for kind in KIND_STEMS:
            paths = split_files(folder / split, kind)
            if paths:
                layout.split_files[(split, kind)] = paths
                known.update(paths)
    every = _walk(folder)
    layout.unknown = sorted(path for path in every if path not in known and not _is_hub_metadata(path, folder))
    for path in layout.files():
        if not _utf8(path.relative_to(folder).as_posix()):
            raise UcdcrError(
                f"{path}: a file name that is not UTF-8 text; the release's file names are ASCII: rename the file "
                "or move it out of the folder"
            )
    if layout.mentions is None and not layout.split_files:
        raise UcdcrError(
            f"{folder} holds no mentions ({MENTIONS_PARQUET} or <split>/*_mentions*.json): "
            "not a released dataset folder"
        )
    return layout


def _entries(folder: Path) -> list[Path]:
    """The entries of a folder; one that cannot be read is an error naming it."""
    try:
        return list(folder.iterdir())
    except OSError as exc:
        raise UcdcrError(f"cannot read the folder {folder}: {reason(exc)}") from None


def _walk(folder: Path) -> list[Path]:
    """Every file below ``folder``; a subfolder that cannot be read is an error naming it."""

    def failed(exc: OSError) -> None:
        raise UcdcrError(f"cannot read the folder {exc.filename or folder}: {reason(exc)}") from None

    return [Path(root) / name for root, _, names in os.walk(folder, onerror=failed) for name in names]


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes of a file name (surrogate escapes)
        return False
    return True


def as_text(path: str | Path) -> str:
    """A path as JSON-safe text: bytes of its name that are not UTF-8 written as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _file(path: Path) -> Path | None:
    return path if path.is_file() else None


def _is_hub_metadata(path: Path, folder: Path) -> bool:
    """Files huggingface_hub keeps beside a download (``.cache/``), and hidden files: never part of the dataset."""
    return any(part.startswith(".") for part in path.relative_to(folder).parts)


# --- hashes --------------------------------------------------------------------------------------------------

CHUNK = 1 << 20


def file_hashes(path: Path) -> dict[str, Any]:
    """Size, sha256 and git blob id (``sha1("blob <size>\\0" + content)``) of a file: the two hashes the Hub
    gives (sha256 for files stored with Git LFS, the blob id for the others). A file that cannot be read is an
    error naming it."""
    with file_errors(path):
        size = path.stat().st_size
        sha256 = hashlib.sha256()
        blob = hashlib.sha1(f"blob {size}\0".encode(), usedforsecurity=False)
        with path.open("rb") as handle:
            while chunk := handle.read(CHUNK):
                sha256.update(chunk)
                blob.update(chunk)
    return {"size": size, "sha256": sha256.hexdigest(), "git_blob": blob.hexdigest()}


def verify_download(download: Path, remote: dict[str, RemoteFile]) -> dict[str, dict[str, Any]]:
    """Every file the Hub lists (``remote``: path -> the Hub's size and hashes) is in the download folder with the
    Hub's size and hash: their hashes, and which hash of the Hub verified each (a missing file is a half-downloaded
    folder, a different hash a :class:`~ucdcr.errors.ChecksumError`)."""
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


def _bytes_hashes(data: bytes) -> dict[str, Any]:
    blob = hashlib.sha1(f"blob {len(data)}\0".encode(), usedforsecurity=False)
    blob.update(data)
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "git_blob": blob.hexdigest()}


# --- installing ----------------------------------------------------------------------------------------------


@dataclass
class Fetched:
    """One released dataset folder, read and checked, to be installed: from a copy, or our own download (``move``
    its files, then remove what is ``left`` of it; ``expected``: the Hub's size and hashes of its files, checked
    before anything is installed)."""

    key: str
    layout: ReleasedFolder
    record: dict[str, Any]
    move: bool = False
    commits: dict[str, int] = field(default_factory=dict)
    left: list[Path] = field(default_factory=list)
    expected: dict[str, RemoteFile] = field(default_factory=dict)
    """``<folder>/<path>`` -> the Hub's size and hashes (:func:`verify_download`); {} for a copy."""


@dataclass
class Installed:
    """One released dataset installed: its id, folder, the commit it came from, what its copy lacked."""

    dataset: str
    folder: Path
    commit: str | None
    absent: list[str] = field(default_factory=list)
    commits: dict[str, int] = field(default_factory=dict)
    """A mixed copy installed with ``allow_mixed``: commit -> how many of its files came from it; else {}."""


def install(fetched: Fetched, root: Path) -> Installed:
    """Install a fetched folder as ``<root>/<id>`` (``root``: the data dir's ``release/``): a download is verified
    against the Hub's hashes first, the provenance record gets the dataset's licence and citation, and what is left
    of a download is removed once its files are installed."""
    spec = get(fetched.key)
    record = fetched.record
    if fetched.expected:
        record["files"] = verify_download(fetched.layout.path.parent, fetched.expected)
    record.update(dataset=spec.id, dataset_licence=spec.licence, citation=list(spec.citation))
    absent = fetched.layout.absent(spec.texts_redistributable)
    folder = _install_folder(fetched.layout, root / spec.id, record, absent, move=fetched.move)
    for path in fetched.left:
        shutil.rmtree(path, ignore_errors=True)
    return Installed(spec.id, folder, record.get("commit"), absent, fetched.commits)


def _install_folder(
    layout: ReleasedFolder, target: Path, record: dict[str, Any], absent: list[str], move: bool = False
) -> Path:
    """Install one released dataset folder as ``target`` (``<data-dir>/release/<id>``, module docstring); the
    provenance ``record`` (repository, revision, files and hashes; ``absent``: what the copy lacks) is written as
    ``release.json`` beside the data. move: move the files rather than copy them (a download folder of our own).
    Returns the installed folder.

    ``record["files"]`` (``<folder>/<path>`` -> size and hashes of the released files) is completed here with the
    hashes of what was read; ``record["installed"]`` gets the size and sha256 of every file written (what
    :func:`changed_files` checks later). Every mention file is parsed: a file that is no JSON list of mention
    records is an error naming it, and so is a mention id that two files joined into one both hold. A file that
    cannot be read names the file of the release; one that cannot be written names the file of the data dir.
    A folder at ``target`` without ``release.json`` (not installed by ucdcr) is not replaced."""
    from ucdcr.io.output_folder import OutputFolder

    _check_replaceable(target)
    _check_readable(layout)
    prefix = layout.path.name
    sources: dict[str, dict[str, Any]] = record.setdefault("files", {})
    installed: dict[str, dict[str, Any]] = {}
    with OutputFolder(target) as output:
        for path in (layout.card, layout.mentions, layout.documents, *layout.unknown):
            if path is None:
                continue
            name = path.relative_to(layout.path).as_posix()
            hashes = _place(path, output, name, move, sources.get(f"{prefix}/{name}"))
            sources.setdefault(f"{prefix}/{name}", {**hashes, "verified_by": None})
            installed[name] = {"size": hashes["size"], "sha256": hashes["sha256"]}
        merged = {}
        for (split, kind), paths in layout.split_files.items():
            name = f"{split}/{KIND_STEMS[kind]}.json"
            read, written = _install_mention_files(paths, output, name, move and len(paths) == 1)
            for path, hashes in read.items():
                sources.setdefault(
                    f"{prefix}/{path.relative_to(layout.path).as_posix()}", {**hashes, "verified_by": None}
                )
            installed[name] = written
            if len(paths) > 1:
                merged[name] = [path.relative_to(layout.path).as_posix() for path in paths]
        record["files"] = dict(sorted(sources.items()))
        full = {**record, "joined": merged, "absent": absent, "installed": dict(sorted(installed.items()))}
        _write_file(output, PROVENANCE_FILE, _json_bytes(full))
        output.commit()
    return target


def _check_replaceable(target: Path) -> None:
    """``target`` is absent, empty or an installed release (it has ``release.json``): a folder someone put there by
    hand is theirs, not replaced."""
    try:
        if not os.path.lexists(target) or (target / PROVENANCE_FILE).is_file():
            return
        if target.is_dir() and not any(target.iterdir()):
            return
    except OSError as exc:
        raise UcdcrError(f"cannot read {target}: {reason(exc)}") from None
    raise UcdcrError(
        f"{target} exists and was not installed by `ucdcr download --release` (it has no {PROVENANCE_FILE}): it is "
        "not replaced; move it away first"
    )


def _json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def _write_chunk(handle: BinaryIO, data: bytes) -> None:
    """Every write of an installed file goes through here (tests make it fail as a full disk would)."""
    handle.write(data)


def _open_target(output: OutputFolder, name: str) -> BinaryIO:
    """The staged file ``name`` of ``output``, opened to write; a failure names the file as it will be installed
    (and so do the writing helpers below)."""
    with write_errors(output.path / name):
        (output.staging / name).parent.mkdir(parents=True, exist_ok=True)
        return (output.staging / name).open("wb")


def _write_file(output: OutputFolder, name: str, data: bytes) -> None:
    with write_errors(output.path / name), _open_target(output, name) as out:
        _write_chunk(out, data)


def _place(source: Path, output: OutputFolder, name: str, move: bool, known: dict[str, Any] | None) -> dict[str, Any]:
    """Copy (or move) ``source`` to the staged file ``name`` and return its size and hashes (``known``: those
    already computed, for a moved file). Reading errors name ``source``, writing errors the installed file."""
    staged, shown = output.staging / name, output.path / name
    if move:
        with write_errors(shown):
            staged.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.move(source, staged)
        except OSError as exc:
            raise UcdcrError(f"cannot move {source} into {shown}: {reason(exc)}") from None
        return known if known is not None else file_hashes(staged)
    with file_errors(source):
        handle = source.open("rb")
    with handle:
        with file_errors(source):
            size = os.fstat(handle.fileno()).st_size
        sha256 = hashlib.sha256()
        blob = hashlib.sha1(f"blob {size}\0".encode(), usedforsecurity=False)
        copied = 0
        with write_errors(shown), _open_target(output, name) as out:
            while True:
                with file_errors(source):
                    chunk = handle.read(CHUNK)
                if not chunk:
                    break
                sha256.update(chunk)
                blob.update(chunk)
                copied += len(chunk)
                _write_chunk(out, chunk)
    if copied != size:
        raise UcdcrError(f"{source} changed while it was copied ({size} bytes, then {copied}): copy it again")
    return {"size": size, "sha256": sha256.hexdigest(), "git_blob": blob.hexdigest()}


def _install_mention_files(
    paths: list[Path], output: OutputFolder, name: str, move: bool
) -> tuple[dict[Path, dict[str, Any]], dict[str, Any]]:
    """Check the mention files of one split and kind and write them as the staged file ``name`` (a JSON list: the
    records of each in order, their bytes unchanged; one file is written as it is, or moved). Returns the size and
    hashes of each file read, and the size and sha256 of the file written.

    Each file must be a JSON list of objects with a string ``mention_id``, and no mention id may be in two of
    them: each problem is an error naming the file (both files, and the id, for a repeated mention)."""
    read: dict[Path, dict[str, Any]] = {}
    owner: dict[str, Path] = {}
    if move:  # one file of our own download folder
        data = _mention_file(paths[0], owner)
        read[paths[0]] = _bytes_hashes(data)
        _place(paths[0], output, name, move=True, known=read[paths[0]])
        return read, {"size": read[paths[0]]["size"], "sha256": read[paths[0]]["sha256"]}
    sha256 = hashlib.sha256()
    size = 0
    with write_errors(output.path / name), _open_target(output, name) as out:

        def write(chunk: bytes) -> None:
            nonlocal size
            sha256.update(chunk)
            size += len(chunk)
            _write_chunk(out, chunk)

        if len(paths) == 1:
            data = _mention_file(paths[0], owner)
            read[paths[0]] = _bytes_hashes(data)
            write(data)
        else:
            write(b"[")
            first = True
            for path in paths:
                data = _mention_file(path, owner)
                read[path] = _bytes_hashes(data)
                inner = data.removeprefix(codecs.BOM_UTF8).strip()[1:-1].strip()
                if not inner:
                    continue
                write(inner if first else b",\n" + inner)
                first = False
            write(b"]\n")
    return read, {"size": size, "sha256": sha256.hexdigest()}


def _mention_file(path: Path, owner: dict[str, Path]) -> bytes:
    """The bytes of a mention file, after checking it is a JSON list of mention records whose ids no file read
    before (``owner``: mention id -> file) holds; adds its ids to ``owner``."""
    with file_errors(path):
        data = path.read_bytes()
    records = _parse_json_bytes(data, path)
    if not isinstance(records, list):
        raise FormatError(path, f"expected a JSON list of mention records, got {describe(records)}")
    mine: set[str] = set()
    for index, record in enumerate(records):
        mention_id = record.get("mention_id") if isinstance(record, dict) else None
        if not isinstance(record, dict):
            raise FormatError(path, f"record {index} must be a JSON object (a mention record), got {describe(record)}")
        if not isinstance(mention_id, str):
            raise FormatError(path, f"record {index} has no mention_id (a string), got {describe(mention_id)}")
        other = owner.get(mention_id)
        if other is not None and other != path:
            raise FormatError(
                path,
                f"mention {mention_id} (record {index}) is also in {other}: the files would be joined into one "
                "with the mention twice; remove the file that repeats it (an overlapping part or a second copy)",
            )
        mine.add(mention_id)
    owner.update(dict.fromkeys(mine, path))
    return data


def _parse_json_bytes(data: bytes, path: Path) -> Any:
    """JSON bytes -> value (orjson when installed); malformed JSON is a FormatError naming ``path`` and the line."""
    try:
        from orjson import loads
    except ImportError:  # pragma: no cover - depends on the environment
        pass
    else:
        try:
            return loads(data)
        except ValueError:
            pass  # diagnosed below with the encoding rule and the standard library's line numbers
    text = decode_text(data, path)
    if not text.strip():
        raise FormatError(path, "the file is empty; expected a JSON list of mention records")
    return parse_json(text, path)


def _check_readable(layout: ReleasedFolder) -> None:
    """The Parquet files of a released folder open (a truncated download is an error naming the file)."""
    from ucdcr.io.load import parquet_columns

    for path in (layout.mentions, layout.documents):
        if path is not None:
            with file_errors(path):  # a file that cannot be opened is said as such, not as a broken Parquet file
                path.open("rb").close()
            parquet_columns(path)


# --- checking an installed release ---------------------------------------------------------------------------


def changed_files(folder: Path, hashes: bool = False) -> list[str]:
    """What changed in an installed release since it was installed, one phrase per file (``val/x.json: sha256
    differs``): files missing, of another size, added, and with ``hashes`` of another sha256, by the record of
    what was written (``installed`` of ``release.json``; for a record written before it existed, the released
    files that were installed unchanged). [] for an unchanged folder or one that is no installed release."""
    record = provenance(folder)
    if record is None:
        return []
    expected, unchecked = _expected_files(record)
    problems = []
    for name, entry in expected.items():
        path = folder / name
        try:
            if not path.is_file():
                problems.append(f"{name}: missing")
            elif isinstance(entry.get("size"), int) and path.stat().st_size != entry["size"]:
                problems.append(f"{name}: {path.stat().st_size} bytes, {entry['size']} when installed")
            elif hashes and entry.get("sha256") and file_hashes(path)["sha256"] != entry["sha256"]:
                problems.append(f"{name}: sha256 differs from the one recorded when it was installed")
        except OSError as exc:
            problems.append(f"{name}: cannot be read ({reason(exc)})")
    for path in _walk(folder):
        name = path.relative_to(folder).as_posix()
        hidden = any(part.startswith(".") for part in path.relative_to(folder).parts)  # e.g. .DS_Store
        if name not in expected and name not in unchecked and name != PROVENANCE_FILE and not hidden:
            problems.append(f"{name}: added after the release was installed")
    return problems


def _expected_files(record: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """(name -> size and sha256 of each installed file, names installed whose hashes were not recorded)."""
    installed = record.get("installed")
    if isinstance(installed, dict):
        return {str(name): dict(entry) for name, entry in installed.items() if isinstance(entry, dict)}, set()
    joined = record.get("joined")
    if not isinstance(joined, dict):
        joined = {}
    sources = {str(part) for parts in joined.values() if isinstance(parts, list) for part in parts}
    expected = {}
    for key, entry in (record.get("files") or {}).items():
        name = str(key).split("/", 1)[-1]
        if name not in sources and isinstance(entry, dict):
            expected[name] = entry
    return expected, set(joined)
