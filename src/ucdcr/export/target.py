"""Where an export may write: it creates or replaces only what an export wrote, never the user's other files.

Rules, checked before anything is read or written (each failure is one :class:`~ucdcr.errors.UcdcrError` naming
the path and what is wrong):

- ``--out`` is never equal to or inside a place ucdcr reads or builds: the data dir (``--data-dir`` / env
  ``UCDCR_DATA_DIR`` / the default), the raw dir (env ``UCDCR_RAW_DIR`` / the default), the folder of the dataset
  exported, or any dataset folder (a folder in the uCDCR layout) -- so an export
  can neither replace a built dataset, nor its files, nor mix its own files into them;
- a folder export (``hf``, ``conll``, ``corefud``) writes into a folder that does not exist, is empty, or was
  written by an earlier export: such a folder holds the marker file ``.ucdcr-export.json`` listing the files
  exports wrote there. A non-empty folder without it is the user's: refused. In a marked folder, a file of the
  name an export is about to write must be one the marker lists (else it is the user's: refused). ``hf``
  replaces its folder as a whole (:class:`~ucdcr.io.output_folder.OutputFolder`), which is only allowed for a
  folder that is absent, empty, or marked and holding no file the marker does not list;
- a file export (``spacy``) replaces an existing file only if it is a spaCy ``DocBin`` written by
  :func:`ucdcr.export.spacy_docs.export_spacy` (its documents carry the ``conll_doc_key`` user data).

Paths are compared after resolving symlinks, so a link into the data dir is refused like the data dir itself.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterable
from pathlib import Path

from ucdcr.errors import UcdcrError
from ucdcr.io.atomic import reason, write_json
from ucdcr.paths import check_usable

MARKER = ".ucdcr-export.json"
"""The file every folder export writes into its folder: the files exports wrote there."""
_WRITTEN_BY = "ucdcr export"


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def check_location(out: str | Path, dataset_folder: Path | None, data_dir: str | Path | None) -> None:
    """Refuse an ``out`` equal to or inside the data dir, the raw dir, the exported dataset or any dataset folder."""
    from ucdcr.paths import resolve_data_dir, resolve_raw_dir
    from ucdcr.sources.discover import is_dataset_folder

    check_usable(out, "--out")  # a symlink loop, a path too long: said as such
    target = _real(Path(out))
    places: list[tuple[str, Path]] = [
        ("the data dir", resolve_data_dir(data_dir)),
        ("the raw dir", resolve_raw_dir(None)),
    ]
    if dataset_folder is not None:
        places.append(("the folder of the dataset exported", dataset_folder))
    for role, place in places:
        if _within(target, _real(place)):
            raise UcdcrError(
                f"--out {out} is {'' if target == _real(place) else 'inside '}{role} ({place}): an export never "
                "writes there, it would replace or mix with the data; choose a folder outside it"
            )
    for folder in [target, *target.parents]:
        try:
            found = folder.is_dir() and is_dataset_folder(folder)
        except (OSError, UcdcrError):
            found = False
        if found:
            raise UcdcrError(
                f"--out {out} is {'' if folder == target else 'inside '}the dataset folder {folder}: an export never "
                "writes into a dataset; choose a folder outside it"
            )


def marked_files(folder: Path) -> set[str] | None:
    """The files the marker of ``folder`` lists; None when it has no (readable) marker."""
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("written_by") != _WRITTEN_BY or not isinstance(data.get("files"), list):
        return None
    return {name for name in data["files"] if isinstance(name, str)}


def check_folder(out: str | Path, dataset_folder: Path | None, data_dir: str | Path | None) -> set[str]:
    """Check a folder export's ``out`` (module docstring); the files an earlier export wrote there."""
    folder = Path(out)
    check_location(folder, dataset_folder, data_dir)
    try:
        if not os.path.lexists(folder):
            return set()
        if not folder.is_dir():
            raise UcdcrError(f"--out {folder} is a file, not a folder")
        entries = os.listdir(folder)
    except OSError as exc:
        raise UcdcrError(f"cannot read --out {folder}: {reason(exc)}") from None
    if not entries:
        return set()
    listed = marked_files(folder)
    if listed is None:
        raise UcdcrError(
            f"--out {folder} is a folder that is not empty and was not written by `ucdcr export` (it has no {MARKER}); "
            "an export does not replace or mix with other files: choose a new or empty folder"
        )
    return listed


def check_replaceable(folder: Path, listed: set[str]) -> None:
    """A folder an export replaces as a whole (``hf``) holds only files the marker lists: a file the user added to
    an export's folder would be deleted with it, so it is refused."""
    root = Path(folder)
    try:
        for current, _, files in os.walk(root):
            for name in files:
                relative = (Path(current) / name).relative_to(root).as_posix()
                if relative != MARKER and relative not in listed:
                    raise UcdcrError(
                        f"--out {root} holds {relative}, which `ucdcr export` did not write (not listed in {MARKER}); "
                        "replacing the folder would delete it: move it away or choose another --out"
                    )
    except OSError as exc:
        raise UcdcrError(f"cannot read --out {root}: {reason(exc)}") from None


def check_files(folder: Path, names: Iterable[str], listed: set[str]) -> None:
    """Each file an export is about to write into ``folder`` is new or one an earlier export wrote there."""
    for name in names:
        path = folder / name
        if os.path.lexists(path) and name not in listed:
            raise UcdcrError(
                f"{path} exists and was not written by `ucdcr export` (not listed in {folder / MARKER}); "
                "an export does not replace it: move it away or choose another --out"
            )


def mark(folder: Path, names: Iterable[str], listed: Iterable[str] = ()) -> None:
    """Write (or update) the marker of ``folder``: the files exports wrote there."""
    files = sorted({*listed, *names})
    write_json(folder / MARKER, {"written_by": _WRITTEN_BY, "files": files})


def check_file(out: str | Path, dataset_folder: Path | None, data_dir: str | Path | None) -> None:
    """Check a file export's ``out`` (``spacy``): not in a protected place; an existing file is a DocBin written
    by ``ucdcr export spacy``."""
    path = Path(out)
    check_location(path, dataset_folder, data_dir)
    try:
        if not os.path.lexists(path):
            return
        if path.is_dir():
            raise UcdcrError(f"--out {path} is a folder, not a file")
        data = path.read_bytes()
    except OSError as exc:
        raise UcdcrError(f"cannot read --out {path}: {reason(exc)}") from None
    if not _is_our_docbin(data):
        raise UcdcrError(
            f"--out {path} exists and is not a spaCy DocBin written by `ucdcr export spacy`; an export does not "
            "replace it: move it away or choose another file name"
        )


def _is_our_docbin(data: bytes) -> bool:
    """A DocBin (zlib-compressed msgpack) whose documents carry the user data export_spacy writes."""
    try:
        import srsly  # type: ignore[import-untyped]

        content = srsly.msgpack_loads(zlib.decompress(data))
    except Exception:  # anything that is not a DocBin
        return False
    if not isinstance(content, dict) or not {"tokens", "spaces", "lengths"} <= set(content):
        return False
    user_data = content.get("user_data")
    if not isinstance(user_data, list):
        return False
    if not content.get("lengths"):
        return True  # an export of no documents
    return bool(user_data) and isinstance(user_data[0], bytes) and b"conll_doc_key" in user_data[0]
