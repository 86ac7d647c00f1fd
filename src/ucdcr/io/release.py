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
size and hashes). Installing a released folder (:func:`install`) copies it into a hidden staging folder, joins the
mention files of a split that are several into one (``<split>/<kind>_mentions.json``), so that the installed folder
is an ordinary uCDCR folder every reader understands, and swaps it in atomically
(:class:`~ucdcr.io.output_folder.OutputFolder`): a reader never sees a half-written dataset.

Names (:func:`select`): every command takes a ``source`` (:data:`SOURCES`):

- ``auto`` (the default): a dataset's plain id names its build when there is one, else its release;
- ``build`` / ``release``: only that source, each under the plain id;
- ``both``: builds under their id, releases under ``<id>@release`` (:data:`RELEASE_SUFFIX`).

``<id>@release`` names the release under every source, so one command can pick the release of one dataset and the
build of another.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ucdcr.errors import FormatError, UcdcrError
from ucdcr.io.atomic import write_json
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
    for folder in sorted(root.iterdir()):
        if folder.name.startswith(".") or not folder.is_dir() or not (folder / PROVENANCE_FILE).is_file():
            continue
        found[folder.name] = folder
    return found


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
            raise UcdcrError(
                f"no datasets{what} in {data_dir} (build them with `ucdcr build` or fetch the release with "
                "`ucdcr download --release`)"
            )
        return chosen
    selected: dict[str, Path] = {}
    for name in names:
        match = resolve(name, builds, releases, source)
        if match is None:
            what = "" if source in ("auto", "both") else f" from the {source}"
            raise UcdcrError(f"no dataset {name!r}{what} in {data_dir}; found: {', '.join(every) or 'none'}")
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
    """The mention files of one kind in a split folder: ``<kind>_mentions.json`` and ``<kind>_mentions<suffix>.json``
    (e.g. ``event_mentions_3.json``), in natural order of their names."""
    stem = KIND_STEMS[kind]
    if not folder.is_dir():
        return []
    found = [path for path in folder.iterdir() if path.is_file() and _of_kind(path.name, stem)]
    return sorted(found, key=lambda path: _natural(path.name))


def _of_kind(name: str, stem: str) -> bool:
    return name.endswith(".json") and name.startswith(stem) and not name[len(stem) : -len(".json")][:1].isalpha()


def read_layout(folder: Path) -> ReleasedFolder:
    """The files of one released dataset folder, classified; a folder with no mentions at all (neither
    ``all_mentions.parquet`` nor a split mention file) is an error naming it."""
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
    layout.unknown = sorted(
        path
        for path in folder.rglob("*")
        if path.is_file() and path not in known and not _is_hub_metadata(path, folder)
    )
    if layout.mentions is None and not layout.split_files:
        raise UcdcrError(
            f"{folder} holds no mentions ({MENTIONS_PARQUET} or <split>/*_mentions*.json): "
            "not a released dataset folder"
        )
    return layout


def _file(path: Path) -> Path | None:
    return path if path.is_file() else None


def _is_hub_metadata(path: Path, folder: Path) -> bool:
    """Files huggingface_hub keeps beside a download (``.cache/``), and hidden files: never part of the dataset."""
    return any(part.startswith(".") for part in path.relative_to(folder).parts)


# --- hashes --------------------------------------------------------------------------------------------------

CHUNK = 1 << 20


def file_hashes(path: Path) -> dict[str, Any]:
    """Size, sha256 and git blob id (``sha1("blob <size>\\0" + content)``) of a file: the two hashes the Hub
    gives (sha256 for files stored with Git LFS, the blob id for the others)."""
    size = path.stat().st_size
    sha256 = hashlib.sha256()
    blob = hashlib.sha1(f"blob {size}\0".encode(), usedforsecurity=False)
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            sha256.update(chunk)
            blob.update(chunk)
    return {"size": size, "sha256": sha256.hexdigest(), "git_blob": blob.hexdigest()}


# --- installing ----------------------------------------------------------------------------------------------


def install(
    layout: ReleasedFolder, data_dir: Path, dataset_id: str, record: dict[str, Any], move: bool = False
) -> Path:
    """Install one released dataset folder as ``<data-dir>/release/<id>`` (module docstring); the provenance
    ``record`` (repository, revision, files and hashes) is written as ``release.json`` beside the data. move: move
    the files rather than copy them (a download folder of our own). Returns the installed folder."""
    from ucdcr.io.output_folder import OutputFolder

    target = release_path(data_dir, dataset_id)
    _check_readable(layout)
    with OutputFolder(target) as output:
        staging = output.staging
        for path in (layout.card, layout.mentions, layout.documents, *layout.unknown):
            if path is not None:
                _place(path, staging / path.relative_to(layout.path), move)
        merged = {}
        for (split, kind), paths in layout.split_files.items():
            name = f"{split}/{KIND_STEMS[kind]}.json"
            if len(paths) == 1:
                _place(paths[0], staging / name, move)
            else:
                _join_json_lists(paths, staging / name)
                merged[name] = [path.relative_to(layout.path).as_posix() for path in paths]
        absent = layout.absent(get(dataset_id).texts_redistributable)
        write_json(staging / PROVENANCE_FILE, {**record, "joined": merged, "absent": absent})
        output.commit()
    return target


def _place(source: Path, target: Path, move: bool) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if move:
        shutil.move(source, target)
    else:
        shutil.copyfile(source, target)


def _join_json_lists(paths: list[Path], target: Path) -> None:
    """Write the JSON lists of ``paths`` as one JSON list (their items in order), without parsing the items."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as out:
        out.write(b"[")
        first = True
        for path in paths:
            body = path.read_bytes().strip()
            if body.startswith(b"\xef\xbb\xbf"):
                body = body[3:].strip()
            if not (body.startswith(b"[") and body.endswith(b"]")):
                raise FormatError(path, "expected a JSON list of mention records")
            inner = body[1:-1].strip()
            if not inner:
                continue
            if not first:
                out.write(b",\n")
            out.write(inner)
            first = False
        out.write(b"]\n")


def _check_readable(layout: ReleasedFolder) -> None:
    """The Parquet files of a released folder open (a truncated download is an error naming the file)."""
    from ucdcr.io.load import parquet_columns

    for path in (layout.mentions, layout.documents):
        if path is not None:
            parquet_columns(path)


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
