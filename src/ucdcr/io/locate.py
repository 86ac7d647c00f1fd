"""Finding and loading built datasets: a dataset id in the data dir or a folder in the uCDCR layout, as a
``pyarrow.Table`` (:func:`load`), and the dataset folders a table covers (:func:`dataset_folders`).

Rule: a name is looked up once, here, for every caller above (the API, the exports, the CLI): a folder in the uCDCR
layout wins over an id of the same name; any other folder is taken as a path unless its name is a dataset id (so a
raw-data folder ``ecbplus/`` in the working directory does not hide the built one); an unknown name is an error
listing the valid ids. :mod:`ucdcr.api` re-exports :func:`list_datasets`, :func:`dataset_dir` and :func:`load`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

import pyarrow as pa
import pyarrow.compute as pc

from ucdcr.errors import UcdcrError, UnknownDatasetError
from ucdcr.io import load as built
from ucdcr.io.load import (
    KIND_COLUMN,
    KINDS,
    build_folders,
    check_folder,
    consistent,
    is_dataset_folder,
    load_mentions,
    load_tokens,
)
from ucdcr.paths import check_usable, resolve_data_dir
from ucdcr.records import SPLITS
from ucdcr.registry import dataset_ids, known_ids, normalize_id
from ucdcr.schema import MENTION_SCHEMA, MENTIONS_PARQUET

TableKind = Literal["mentions", "documents"]
MentionFile = Literal["event", "entity"]
DatasetChoice = str | Path | Sequence[str | Path] | None
"""Which datasets a table covers: None (every dataset folder in the data dir), a name or folder, or several."""


# --- loading -------------------------------------------------------------------------------------------------


def list_datasets(data_dir: str | Path | None = None, built_only: bool = False) -> list[str]:
    """The uCDCR dataset ids, in the paper's order; with ``built_only`` only those built in the data dir."""
    if not built_only:
        return dataset_ids()
    root = resolve_data_dir(data_dir)
    if not root.exists():
        return []
    check_folder(root, "data dir")
    return [key for key in dataset_ids() if _is_built(root / key)]


def dataset_dir(dataset: str | Path, data_dir: str | Path | None = None) -> Path:
    """The folder of a built dataset: ``dataset`` is an id in the data dir or a path to a uCDCR folder.

    A folder in the uCDCR layout wins over an id of the same name; any other folder is taken as a path unless its
    name is a dataset id (so a raw-data folder ``ecbplus/`` in the working directory does not hide the built one).
    ``<id>@release`` names the authors' release installed by ``ucdcr download --release``
    (``<data-dir>/release/<id>``), and so does a plain id that is not built but released (docs/release.md).
    """
    from ucdcr.io.release import PROVENANCE_FILE, release_root, strip_suffix, unrecorded_note

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
        check_folder(root, "data dir")
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
    folder = dataset_dir(dataset, data_dir)
    if kind == "documents":
        if mention_type is not None:
            raise UcdcrError("mention_type applies to kind='mentions' only")
        return consistent([folder], lambda: load_tokens(folder, split))
    if kind == "mentions":
        return _read_mentions(folder, split, mention_type, columns)  # load_mentions reads one build
    raise UcdcrError(f"unknown kind {kind!r}; valid kinds: mentions, documents")


def check_split(split: str) -> None:
    if split not in SPLITS:
        raise UcdcrError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")


def _read_mentions(
    folder: Path, split: str | None, mention_type: MentionFile | None, columns: Sequence[str] | None
) -> pa.Table:
    if mention_type not in (None, *KINDS):
        raise UcdcrError(f"unknown mention_type {mention_type!r}; valid: {', '.join(KINDS)}")
    table = load_mentions(folder, splits=[split] if split else SPLITS, columns=columns)
    if mention_type is not None:
        table = table.filter(pc.equal(table[KIND_COLUMN], mention_type))
    return table.select(list(columns) if columns is not None else MENTION_SCHEMA.names)


def dataset_folders(datasets: DatasetChoice = None, data_dir: str | Path | None = None) -> dict[str, Path]:
    """The dataset folders a table covers, by name: every dataset folder in the data dir (None), or each given
    name (our id or the authors' folder name, in the data dir) or folder path (a ``Path``, or a string naming a
    folder in the uCDCR layout), in the order given."""
    root = resolve_data_dir(data_dir)
    if datasets is None:
        return discover_datasets(root)
    folders: dict[str, Path] = {}
    for item in [datasets] if isinstance(datasets, (str, Path)) else datasets:
        name, folder = next(iter(_dataset_folder(item, root).items()))
        if name in folders and folders[name] != folder:
            raise UcdcrError(f"two datasets named {name!r}: {folders[name]} and {folder}")
        folders[name] = folder
    return folders


def _dataset_folder(item: str | Path, root: Path) -> dict[str, Path]:
    path = Path(item)
    if isinstance(item, Path) or (path.is_dir() and is_dataset_folder(path)):
        if not is_dataset_folder(check_folder(path, "dataset folder")):
            raise UcdcrError(f"{path} is not a dataset folder (no {MENTIONS_PARQUET} or <split>/*_mentions.json)")
        return {path.name: path}
    return discover_datasets(root, [item])


def discover_datasets(
    data_dir: str | Path, names: Iterable[str] | None = None, source: str = "auto"
) -> dict[str, Path]:
    """The dataset folders in a data dir, by name, sorted; ``data_dir`` itself if it is one.

    source: builds, the authors' release installed in ``<data-dir>/release/``, or both; ``auto``: a dataset's build
    where there is one, else its release (the names and sources: :mod:`ucdcr.io.release`). Without a release
    installed, ``auto`` is :func:`ucdcr.io.load.discover_datasets` (builds only).
    names: only these (folder names, our ids, the authors' names, ``<id>@release``); an unknown name is an error
    listing the folders found.
    """
    from ucdcr.io import release

    root = check_folder(Path(data_dir), "data dir")
    if not built.is_dataset_folder(root) and (source != "auto" or release.release_root(root).is_dir()):
        return release.select(build_folders(root), root, source, names)
    return built.discover_datasets(root, names)
