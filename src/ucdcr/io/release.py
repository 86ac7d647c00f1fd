"""The authors' uCDCR release as a dataset source: its layout, where released datasets live, and which folder a
dataset name means.

The release (:data:`RELEASE_REPO` on the Hugging Face Hub, :data:`RELEASE_LICENCE`) holds one folder per dataset,
named by the dataset's :attr:`~ucdcr.registry.DatasetSpec.authors_folder` (``ECBplus``, ``WECEng``; the one
declaration of that name: :func:`release_ids` derives the mapping from the dataset modules). Each folder holds
``README.md`` (the dataset card), ``all_mentions.parquet`` (list fields as Python repr strings),
``all_documents.parquet`` where the texts may be shared, and ``train/``, ``val/``, ``test/`` with the mention
files; a split folder may hold several files of one kind (:func:`split_files`: ``event_mentions.json``,
``event_mentions_0.json``, ...; read in natural order of their names).

Side by side (:func:`release_path`): a dataset built from raw files lives in ``<data-dir>/<id>/`` with its
``build_report.json``; the released one in ``<data-dir>/release/<id>/``, with :data:`PROVENANCE_FILE`
(``release.json``: the repository, the revision asked for and the commit it resolved to, and every file with its
size and hashes, and ``installed``: the size and sha256 of every file written, which :func:`changed_files` checks
later). Installing a released folder (:func:`install`) copies it into a hidden staging folder, joins the
mention files of a split that are several into one (``<split>/<kind>_mentions.json``), so that the installed folder
is an ordinary uCDCR folder every reader understands, and swaps it in atomically
(:class:`~ucdcr.io.output_folder.OutputFolder`): a reader never sees a half-written dataset. What would be joined
wrongly is refused, naming the copy's files (:func:`split_files`, :func:`install`): the whole file beside its parts,
a browser's second download (``event_mentions (1).json``), a mention id in two parts, a part that is no JSON list of
mention records. A folder at ``<data-dir>/release/<id>`` without ``release.json`` (copied there by hand) is not
replaced, and the commands that find no release name it (:func:`unrecorded_note`).

Names (:func:`select`): every command takes a ``source`` (:data:`SOURCES`):

- ``auto`` (the default): a dataset's plain id names its build when there is one, else its release;
- ``build`` / ``release``: only that source, each under the plain id;
- ``both``: builds under their id, releases under ``<id>@release`` (:data:`RELEASE_SUFFIX`).

``<id>@release`` names the release under every source, so one command can pick the release of one dataset and the
build of another.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ucdcr.errors import FormatError, UcdcrError
from ucdcr.io.atomic import reason, write_errors
from ucdcr.io.text import decode_text, file_errors, parse_json
from ucdcr.io.text import describe_json as describe
from ucdcr.records import SPLITS
from ucdcr.registry import DatasetSpec, all_specs, get, normalize_id
from ucdcr.schema import DOCUMENTS_PARQUET, ENTITY_FILE, EVENT_FILE, MENTIONS_PARQUET

RELEASE_REPO = "AnZhu/uCDCR"
RELEASE_LICENCE = "CC BY-SA 4.0"
RELEASE_SUBDIR = "release"
PROVENANCE_FILE = "release.json"
RELEASE_SUFFIX = "@release"
CARD_FILE = "README.md"
SOURCES = ("auto", "build", "release", "both")
KIND_STEMS = {"event": EVENT_FILE.removesuffix(".json"), "entity": ENTITY_FILE.removesuffix(".json")}


# --- which folder is which dataset ---------------------------------------------------------------------------


def release_folder(spec: DatasetSpec) -> str:
    """The dataset's folder in the release: its declared :attr:`~ucdcr.registry.DatasetSpec.authors_folder`."""
    return spec.authors_folder


def release_ids() -> dict[str, str]:
    """Release folder name -> dataset id, for every declared dataset (paper order)."""
    return {release_folder(spec): spec.id for spec in all_specs()}


def dataset_of_folder(name: str) -> str | None:
    """The dataset id of a release folder name (``ECBplus`` -> ``ecbplus``), or None for an unknown folder."""
    return release_ids().get(name.removesuffix("-prep"))


def strip_suffix(name: str) -> tuple[str, bool]:
    """``ecbplus@release`` -> (``ecbplus``, True); any other name -> (name, False)."""
    if name.lower().endswith(RELEASE_SUFFIX):
        return name[: -len(RELEASE_SUFFIX)], True
    return name, False


# --- where released datasets live ----------------------------------------------------------------------------


def release_root(data_dir: Path) -> Path:
    """``<data-dir>/release``: the released datasets of a data dir."""
    return Path(data_dir) / RELEASE_SUBDIR


def release_path(data_dir: Path, dataset_id: str) -> Path:
    """``<data-dir>/release/<id>``: where the release of a dataset is installed."""
    return release_root(data_dir) / get(dataset_id).id


def installed_releases(data_dir: Path) -> dict[str, Path]:
    """Dataset id -> folder of every installed release in a data dir (hidden staging folders left out)."""
    root = release_root(data_dir)
    if not root.is_dir():
        return {}
    found = {}
    for folder in _folders(root):
        if (folder / PROVENANCE_FILE).is_file():
            found[folder.name] = folder
    return found


def unrecorded_folders(data_dir: Path) -> list[Path]:
    """The folders of ``<data-dir>/release`` that have no ``release.json`` (copied there by hand, not installed):
    no command reads them as a release."""
    root = release_root(data_dir)
    if not root.is_dir():
        return []
    return [folder for folder in _folders(root) if not (folder / PROVENANCE_FILE).is_file()]


def unrecorded_note(data_dir: Path, names: Iterable[str] | None = None) -> str:
    """What to add to a "no release found" error when ``<data-dir>/release`` holds folders without
    ``release.json`` (of the dataset ``names`` only, when given): each folder, what it lacks and how to install
    the release; "" when there are none."""
    folders = unrecorded_folders(data_dir)
    if names is not None:
        wanted = {_id_of(strip_suffix(name)[0]) for name in names}
        folders = [folder for folder in folders if _id_of(folder.name) in wanted]
    if not folders:
        return ""
    shown = " and ".join(str(folder) for folder in folders[:3]) + (" ..." if len(folders) > 3 else "")
    key = _id_of(folders[0].name)
    authors = release_folder(get(key)) if key in release_ids().values() else None
    where = f"a folder DIR holding {authors}/" if authors else "a folder DIR holding the authors' dataset folder"
    return (
        f"; {shown} {'has' if len(folders) == 1 else 'have'} no {PROVENANCE_FILE} (the record `ucdcr download "
        f"--release` writes), so {'it is' if len(folders) == 1 else 'they are'} not read as an installed release: "
        f"move {'it' if len(folders) == 1 else 'them'} away and install with `ucdcr download --release "
        f"{key if authors else 'ID'} --release-dir DIR` ({where})"
    )


def _folders(root: Path) -> list[Path]:
    """The folders in ``root`` whose names do not start with "." (an unreadable ``root``: an error naming it)."""
    try:
        return sorted(entry for entry in root.iterdir() if not entry.name.startswith(".") and entry.is_dir())
    except OSError as exc:
        raise UcdcrError(f"cannot read the folder {root}: {reason(exc)}") from None


def provenance(folder: Path) -> dict[str, Any] | None:
    """The provenance record (``release.json``) of an installed released dataset, or None for a build."""
    path = Path(folder) / PROVENANCE_FILE
    if not path.is_file():
        return None
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise FormatError(path, f"not a readable provenance record: {exc}") from None


def check_source(source: str) -> str:
    """``source`` if it is one of :data:`SOURCES`, else an error listing them."""
    if source not in SOURCES:
        raise UcdcrError(f"unknown source {source!r}; valid sources: {', '.join(SOURCES)}")
    return source


def select(builds: dict[str, Path], data_dir: Path, source: str, names: Iterable[str] | None) -> dict[str, Path]:
    """The dataset folders of a data dir under a source (module docstring): ``builds`` are the build folders
    found in it (by folder name), the releases are read from ``<data-dir>/release``. names: only these (ids,
    authors' folder names, ``<id>@release``); None: every dataset of the source."""
    check_source(source)
    releases = installed_releases(data_dir)
    every = {**builds, **{name + RELEASE_SUFFIX: folder for name, folder in releases.items()}}
    if names is None:
        if source == "build":
            chosen = dict(builds)
        elif source == "release":
            chosen = dict(releases)
        elif source == "both":
            chosen = every
        else:
            built_ids = {_id_of(name) for name in builds}
            chosen = dict(sorted({**builds, **{k: v for k, v in releases.items() if k not in built_ids}}.items()))
        if not chosen:
            what = "" if source in ("auto", "both") else f" from the {source}"
            note = unrecorded_note(data_dir) if source != "build" else ""
            raise UcdcrError(
                f"no datasets{what} in {data_dir} (build them with `ucdcr build` or fetch the release with "
                f"`ucdcr download --release`){note}"
            )
        return chosen
    selected: dict[str, Path] = {}
    for name in names:
        match = resolve(name, builds, releases, source)
        if match is None:
            what = "" if source in ("auto", "both") else f" from the {source}"
            note = unrecorded_note(data_dir, [name]) if source != "build" else ""
            raise UcdcrError(f"no dataset {name!r}{what} in {data_dir}; found: {', '.join(every) or 'none'}{note}")
        selected.update([match])
    return selected


def resolve(name: str, builds: dict[str, Path], releases: dict[str, Path], source: str) -> tuple[str, Path] | None:
    """(table name, folder) of one dataset name under a source, or None."""
    plain, suffixed = strip_suffix(name)
    key = _id_of(plain)
    if suffixed or source == "release":
        if key in releases:
            return (name if suffixed or source == "both" else key), releases[key]
        return None
    build = next((folder_name for folder_name in builds if folder_name == plain or _id_of(folder_name) == key), None)
    if build is not None:
        return build, builds[build]
    if source == "auto" and key in releases:
        return key, releases[key]
    return None


def _id_of(name: str) -> str:
    """Our id of a folder or dataset name (the authors' folder name maps to its id; other names are normalized)."""
    return dataset_of_folder(name) or normalize_id(name)


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


def _bytes_hashes(data: bytes) -> dict[str, Any]:
    blob = hashlib.sha1(f"blob {len(data)}\0".encode(), usedforsecurity=False)
    blob.update(data)
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "git_blob": blob.hexdigest()}


# --- installing ----------------------------------------------------------------------------------------------


def install(
    layout: ReleasedFolder, data_dir: Path, dataset_id: str, record: dict[str, Any], move: bool = False
) -> Path:
    """Install one released dataset folder as ``<data-dir>/release/<id>`` (module docstring); the provenance
    ``record`` (repository, revision, files and hashes) is written as ``release.json`` beside the data. move: move
    the files rather than copy them (a download folder of our own). Returns the installed folder.

    ``record["files"]`` (``<folder>/<path>`` -> size and hashes of the released files) is completed here with the
    hashes of what was read; ``record["installed"]`` gets the size and sha256 of every file written (what
    :func:`changed_files` checks later). Every mention file is parsed: a file that is no JSON list of mention
    records is an error naming it, and so is a mention id that two files joined into one both hold. A file that
    cannot be read names the file of the release; one that cannot be written names the file of the data dir.
    A folder at ``<data-dir>/release/<id>`` without ``release.json`` (not installed by ucdcr) is not replaced."""
    from ucdcr.io.output_folder import OutputFolder

    target = release_path(data_dir, dataset_id)
    _check_replaceable(target)
    _check_readable(layout)
    prefix = layout.path.name
    sources: dict[str, dict[str, Any]] = record.setdefault("files", {})
    installed: dict[str, dict[str, Any]] = {}
    with OutputFolder(target) as output:
        staging = output.staging
        for path in (layout.card, layout.mentions, layout.documents, *layout.unknown):
            if path is None:
                continue
            name = path.relative_to(layout.path).as_posix()
            known = sources.get(f"{prefix}/{name}")
            hashes = _place(path, staging / name, target / name, move, known)
            sources.setdefault(f"{prefix}/{name}", {**hashes, "verified_by": None})
            installed[name] = {"size": hashes["size"], "sha256": hashes["sha256"]}
        merged = {}
        for (split, kind), paths in layout.split_files.items():
            name = f"{split}/{KIND_STEMS[kind]}.json"
            read, written = _install_mention_files(paths, staging / name, target / name, move and len(paths) == 1)
            for path, hashes in read.items():
                sources.setdefault(
                    f"{prefix}/{path.relative_to(layout.path).as_posix()}", {**hashes, "verified_by": None}
                )
            installed[name] = written
            if len(paths) > 1:
                merged[name] = [path.relative_to(layout.path).as_posix() for path in paths]
        absent = layout.absent(get(dataset_id).texts_redistributable)
        record["files"] = dict(sorted(sources.items()))
        full = {**record, "joined": merged, "absent": absent, "installed": dict(sorted(installed.items()))}
        _write_file(staging / PROVENANCE_FILE, target / PROVENANCE_FILE, _json_bytes(full))
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


def _open_target(staged: Path, shown: Path) -> BinaryIO:
    with write_errors(shown):
        staged.parent.mkdir(parents=True, exist_ok=True)
        return staged.open("wb")


def _write_file(staged: Path, shown: Path, data: bytes) -> None:
    """Write ``data`` to ``staged``; a failure names ``shown``, the file as it will be installed."""
    with write_errors(shown), _open_target(staged, shown) as out:
        _write_chunk(out, data)


def _place(source: Path, staged: Path, shown: Path, move: bool, known: dict[str, Any] | None) -> dict[str, Any]:
    """Copy (or move) ``source`` to ``staged`` and return its size and hashes (``known``: those already computed,
    for a moved file). Reading errors name ``source``, writing errors ``shown``."""
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
        with write_errors(shown), _open_target(staged, shown) as out:
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
    paths: list[Path], staged: Path, shown: Path, move: bool
) -> tuple[dict[Path, dict[str, Any]], dict[str, Any]]:
    """Check the mention files of one split and kind and write them as one file (a JSON list: the records of each
    in order, their bytes unchanged; one file is written as it is, or moved). Returns the size and hashes of each
    file read, and the size and sha256 of the file written.

    Each file must be a JSON list of objects with a string ``mention_id``, and no mention id may be in two of
    them: each problem is an error naming the file (both files, and the id, for a repeated mention)."""
    read: dict[Path, dict[str, Any]] = {}
    owner: dict[str, Path] = {}
    if move:  # one file of our own download folder
        data = _mention_file(paths[0], owner)
        read[paths[0]] = _bytes_hashes(data)
        _place(paths[0], staged, shown, move=True, known=read[paths[0]])
        return read, {"size": read[paths[0]]["size"], "sha256": read[paths[0]]["sha256"]}
    sha256 = hashlib.sha256()
    size = 0
    with write_errors(shown), _open_target(staged, shown) as out:

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


# --- what a build report says, for a release -----------------------------------------------------------------


def release_report(folder: Path) -> dict[str, Any] | None:
    """For an installed release, what the exports read from a build report: the dataset id, the per-split counts
    (documents, mentions by file, chains, singletons; tokens where the folder has a token table) and the provenance
    record (``release``); None for a folder that is no installed release."""
    from ucdcr.io.load import load_documents, load_mentions

    record = provenance(folder)
    if record is None:
        return None
    mentions = load_mentions(folder, columns=["conll_doc_key", "coref_chain", "split"]).to_pylist()
    documents = load_documents(folder)
    tokens: dict[str, int] = {}
    if documents is not None and "split" in documents.column_names:
        for split in documents["split"].to_pylist():
            tokens[split] = tokens.get(split, 0) + 1
    splits: dict[str, dict[str, int]] = {}
    for split in SPLITS:
        rows = [row for row in mentions if row["split"] == split]
        sizes: dict[str, int] = {}
        for row in rows:
            sizes[row["coref_chain"]] = sizes.get(row["coref_chain"], 0) + 1
        splits[split] = {
            "documents": len({row["conll_doc_key"] for row in rows}),
            "mentions": len(rows),
            "event_mentions": sum(row["type"] == "event" for row in rows),
            "entity_mentions": sum(row["type"] == "entity" for row in rows),
            "chains": len(sizes),
            "singletons": sum(size == 1 for size in sizes.values()),
            **({"tokens": tokens[split]} if split in tokens else {}),
        }
    return {"dataset": record.get("dataset"), "splits": splits, "release": record}
