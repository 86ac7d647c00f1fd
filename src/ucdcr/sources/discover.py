"""Where the datasets of a data dir are, and which folder a dataset name means: the builds (``<data-dir>/<id>/``)
and the authors' release installed beside them (``<data-dir>/release/<id>/``, :mod:`ucdcr.sources.install`).

Rule: a data dir or a dataset name is resolved to folders here, once, where a command or an API call begins
(:func:`discover_datasets`, :func:`dataset_folders`, :func:`dataset_dir`); the layers below are given folders and
never look a name up again. Folders whose name starts with "." (a build's staging) are never datasets. The names
and sources (``auto``, ``build``, ``release``, ``both``; ``<id>@release``): docs/release.md#side-by-side.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pyarrow as pa

from ucdcr.errors import UcdcrError, UnknownDatasetError
from ucdcr.io.atomic import reason
from ucdcr.io.load import KIND_FILES, MentionFile, TableKind, check_split, read_table
from ucdcr.paths import check_usable, existing_folder, resolve_data_dir
from ucdcr.records import SPLITS
from ucdcr.registry import dataset_ids, dataset_of_name, get, known_ids, normalize_id
from ucdcr.schema import MENTIONS_PARQUET, PROVENANCE_FILE

RELEASE_SUBDIR = "release"
RELEASE_SUFFIX = "@release"
SOURCES = ("auto", "build", "release", "both")
DatasetChoice = str | Path | Sequence[str | Path] | None
"""Which datasets a table covers: None (every dataset folder in the data dir), a name or folder, or several."""


# --- which folder is which dataset ---------------------------------------------------------------------------


def strip_suffix(name: str) -> tuple[str, bool]:
    """``ecbplus@release`` -> (``ecbplus``, True); any other name -> (name, False)."""
    if name.lower().endswith(RELEASE_SUFFIX):
        return name[: -len(RELEASE_SUFFIX)], True
    return name, False


def _id_of(name: str) -> str:
    """Our id of a folder or dataset name (:func:`~ucdcr.registry.dataset_of_name`; other names are normalized)."""
    spec = dataset_of_name(name)
    return spec.id if spec else normalize_id(name)


# --- what a data dir holds -----------------------------------------------------------------------------------


def is_hidden(folder: Path) -> bool:
    """A folder whose name starts with ".": where a build stages its output or retires the old one; never a dataset."""
    return folder.name.startswith(".")


def is_dataset_folder(folder: Path) -> bool:
    """A folder in the uCDCR layout: it has all_mentions.parquet or at least one split mention file."""
    try:
        if (folder / MENTIONS_PARQUET).is_file():
            return True
        return any((folder / split / name).is_file() for split in SPLITS for name in KIND_FILES.values())
    except OSError as exc:
        raise UcdcrError(f"cannot read the folder {folder}: {reason(exc)}") from None


def build_folders(root: Path) -> dict[str, Path]:
    """The dataset folders of a data dir (by folder name; ``root`` itself if it is one), hidden ones left out."""
    if is_dataset_folder(root):
        return {root.name: root}
    found = {}
    for folder in _subfolders(root, "cannot list the data dir"):
        if is_dataset_folder(folder):
            found[folder.name] = folder
    return found


def release_root(data_dir: Path) -> Path:
    """``<data-dir>/release``: the released datasets of a data dir."""
    return Path(data_dir) / RELEASE_SUBDIR


def release_path(data_dir: Path, dataset_id: str) -> Path:
    """``<data-dir>/release/<id>``: where the release of a dataset is installed."""
    return release_root(data_dir) / get(dataset_id).id


def installed_releases(data_dir: Path) -> dict[str, Path]:
    """Dataset id -> folder of every installed release in a data dir (hidden staging folders left out)."""
    root = release_root(data_dir)
    found = {}
    for folder in _subfolders(root, "cannot read the folder") if root.is_dir() else []:
        if (folder / PROVENANCE_FILE).is_file():
            found[folder.name] = folder
    return found


def unrecorded_folders(data_dir: Path) -> list[Path]:
    """The folders of ``<data-dir>/release`` that have no ``release.json`` (copied there by hand, not installed):
    no command reads them as a release."""
    root = release_root(data_dir)
    if not root.is_dir():
        return []
    return [
        folder for folder in _subfolders(root, "cannot read the folder") if not (folder / PROVENANCE_FILE).is_file()
    ]


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
    authors = get(key).authors_folder if key in dataset_ids() else None
    where = f"a folder DIR holding {authors}/" if authors else "a folder DIR holding the authors' dataset folder"
    return (
        f"; {shown} {'has' if len(folders) == 1 else 'have'} no {PROVENANCE_FILE} (the record `ucdcr download "
        f"--release` writes), so {'it is' if len(folders) == 1 else 'they are'} not read as an installed release: "
        f"move {'it' if len(folders) == 1 else 'them'} away and install with `ucdcr download --release "
        f"{key if authors else 'ID'} --release-dir DIR` ({where})"
    )


def _subfolders(root: Path, failure: str) -> list[Path]:
    """The folders in ``root`` that are not hidden, sorted; an unreadable ``root`` is an error (``failure``: how
    it begins) naming it."""
    try:
        return sorted(child for child in root.iterdir() if not is_hidden(child) and child.is_dir())
    except OSError as exc:
        raise UcdcrError(f"{failure} {root}: {reason(exc)}") from None


# --- the one discovery ---------------------------------------------------------------------------------------


def discover_datasets(
    data_dir: str | Path, names: Iterable[str] | None = None, source: str = "auto"
) -> dict[str, Path]:
    """The dataset folders in a data dir, by name, sorted; ``data_dir`` itself if it is one.

    source: builds, the authors' release installed in ``<data-dir>/release/``, or both; ``auto``: a dataset's build
    where there is one, else its release (module docstring). names: only these (folder names, our ids, the authors'
    names, ``<id>@release``); an unknown name is an error listing the folders found.
    """
    return dict(_discover(existing_folder(Path(data_dir), "data dir"), names, source))


def _discover(root: Path, names: Iterable[str] | None, source: str) -> list[tuple[str, Path]]:
    """(name, folder) of every dataset of the data dir ``root`` (``names`` None), or of each name in turn; ``root``
    itself, whatever the source, when it is a dataset folder."""
    check_source(source)
    if is_dataset_folder(root):
        return _select({root.name: root}, {}, root, "auto", names)
    return _select(build_folders(root), installed_releases(root), root, source, names)


def check_source(source: str) -> str:
    """``source`` if it is one of :data:`SOURCES`, else an error listing them."""
    if source not in SOURCES:
        raise UcdcrError(f"unknown source {source!r}; valid sources: {', '.join(SOURCES)}")
    return source


def _select(
    builds: dict[str, Path], releases: dict[str, Path], data_dir: Path, source: str, names: Iterable[str] | None
) -> list[tuple[str, Path]]:
    """The datasets of a data dir under a source (module docstring): ``builds`` are its build folders (by folder
    name), ``releases`` its installed releases (by id). names: only these (ids, authors' folder names,
    ``<id>@release``), each in turn; None: every dataset of the source."""
    check_source(source)
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
                f"no datasets{what} in {data_dir} (a dataset folder holds {MENTIONS_PARQUET} or "
                f"<split>/*_mentions.json; build them with `ucdcr build` or fetch the release with "
                f"`ucdcr download --release`){note}"
            )
        return list(chosen.items())
    selected = []
    for name in names:
        match = _resolve(name, builds, releases, source)
        if match is None:
            what = "" if source in ("auto", "both") else f" from the {source}"
            note = unrecorded_note(data_dir, [name]) if source != "build" else ""
            raise UcdcrError(f"no dataset {name!r}{what} in {data_dir}; found: {', '.join(every) or 'none'}{note}")
        selected.append(match)
    return selected


def _resolve(name: str, builds: dict[str, Path], releases: dict[str, Path], source: str) -> tuple[str, Path] | None:
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


# --- names and folders given by a caller ---------------------------------------------------------------------


def dataset_folders(datasets: DatasetChoice = None, data_dir: str | Path | None = None) -> dict[str, Path]:
    """The dataset folders a table covers, by name: every dataset folder in the data dir (None), or each given
    name (our id or the authors' folder name, in the data dir) or folder path (a ``Path``, or a string naming a
    folder in the uCDCR layout), in the order given; the data dir is listed once, for the names."""
    return _dataset_folders(datasets, resolve_data_dir(data_dir))


def _dataset_folders(datasets: DatasetChoice, root: Path) -> dict[str, Path]:
    given: list[tuple[str, Path] | None] = []  # per item: (name, folder) of a folder given as such; None: a name
    names: list[str] | None = None  # the names to look up; None: every dataset of the data dir
    if datasets is not None:
        items = [datasets] if isinstance(datasets, (str, Path)) else list(datasets)
        given = [_given_folder(item) for item in items]
        names = [str(item) for item, folder in zip(items, given, strict=True) if folder is None]
    found = _discover(existing_folder(root, "data dir"), names, "auto") if names is None or names else []
    if names is not None:  # in the order given
        looked_up = iter(found)
        found = [folder or next(looked_up) for folder in given]
    folders: dict[str, Path] = {}
    for name, folder in found:
        if name in folders and folders[name] != folder:
            raise UcdcrError(f"two datasets named {name!r}: {folders[name]} and {folder}")
        folders[name] = folder
    return folders


def _given_folder(item: str | Path) -> tuple[str, Path] | None:
    """(name, folder) of a folder given as such (a ``Path``, or a string naming a folder in the uCDCR layout);
    None for a name to look up in the data dir."""
    path = Path(item)
    if not isinstance(item, Path) and not (path.is_dir() and is_dataset_folder(path)):
        return None
    if not is_dataset_folder(existing_folder(path, "dataset folder")):
        raise UcdcrError(f"{path} is not a dataset folder (no {MENTIONS_PARQUET} or <split>/*_mentions.json)")
    return path.name, path


def dataset_dir(dataset: str | Path, data_dir: str | Path | None = None) -> Path:
    """The folder of a built dataset: ``dataset`` is an id in the data dir or a path to a uCDCR folder.

    A folder in the uCDCR layout wins over an id of the same name; any other folder is taken as a path unless its
    name is a dataset id (so a raw-data folder ``ecbplus/`` in the working directory does not hide the built one).
    ``<id>@release`` names the authors' release installed by ``ucdcr download --release``
    (``<data-dir>/release/<id>``), and so does a plain id that is not built but released (docs/release.md).
    """
    as_path = Path(dataset)
    check_usable(as_path, "dataset")
    plain, released = strip_suffix(str(dataset)) if isinstance(dataset, str) else (str(dataset), False)
    key = normalize_id(plain)
    if as_path.is_dir() and (key not in known_ids() or is_dataset_folder(as_path)):
        return as_path
    if key not in known_ids():
        if as_path.exists():
            raise UcdcrError(f"{dataset} is a file, not a dataset folder or a dataset id")
        raise UnknownDatasetError(
            f"{dataset!r} is neither a folder nor a dataset id; valid ids: {', '.join(known_ids())}"
        )
    root = resolve_data_dir(data_dir)
    if root.exists():
        existing_folder(root, "data dir")
    folder = root / key
    if released or not _is_built(folder):  # the release of it (docs/release.md#side-by-side)
        if (release_root(root) / key / PROVENANCE_FILE).is_file():
            return release_root(root) / key
        note = unrecorded_note(root, [key])
        if released:
            raise UcdcrError(
                f"the release of {key!r} is not in {root} (run `ucdcr download --release {key}` first){note}"
            )
        raise UcdcrError(f"dataset {key!r} is not built in {root} (run `ucdcr build {key}` first){note}")
    return folder


def _is_built(folder: Path) -> bool:
    try:
        return (folder / MENTIONS_PARQUET).is_file()
    except OSError as exc:
        raise UcdcrError(f"cannot read the folder {folder}: {exc.strerror or exc}") from None


def list_datasets(data_dir: str | Path | None = None, built_only: bool = False) -> list[str]:
    """The uCDCR dataset ids, in the paper's order; with ``built_only`` only those built in the data dir."""
    if not built_only:
        return dataset_ids()
    root = resolve_data_dir(data_dir)
    if not root.exists():
        return []
    existing_folder(root, "data dir")
    return [key for key in dataset_ids() if _is_built(root / key)]


def load(
    dataset: str | Path,
    split: str | None = None,
    kind: TableKind = "mentions",
    data_dir: str | Path | None = None,
    mention_type: MentionFile | None = None,
    columns: Sequence[str] | None = None,
) -> pa.Table:
    """Load one built dataset as a ``pyarrow.Table``.

    dataset: a dataset id (see :func:`list_datasets`) or a path to a folder in the uCDCR layout.
    split: "train", "val" or "test"; None for every split.
    kind: "mentions" (one row per mention, 29 columns) or "documents" (one row per token).
    data_dir: where built datasets live (default: env ``UCDCR_DATA_DIR`` or the user data dir).
    mention_type: "event" or "entity" to read only the mentions of that file (kind "mentions" only).
    columns: only these mention fields (kind "mentions"; default all 29, in schema order), to save memory.

    Example::

        import ucdcr
        mentions = ucdcr.load("ecbplus", split="test")       # pyarrow.Table
        df = mentions.to_pandas()                            # or polars.from_arrow(mentions)
    """
    if split is not None:
        check_split(split)
    return read_table(dataset_dir(dataset, data_dir), split, kind, mention_type, columns)
