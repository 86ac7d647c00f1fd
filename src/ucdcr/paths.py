"""Default locations: the unified data dir and the raw dir.

`--data-dir` / env `UCDCR_DATA_DIR` (default: the platform user data dir + "/data");
`--raw-dir` / env `UCDCR_RAW_DIR` (default: the platform user data dir + "/raw").

Paths that cannot be looked up at all are told as what they are instead of "does not exist" or "File exists":
:func:`unusable` looks a path up once (``os.stat``) and names the two problems the usual checks (``Path.exists``,
``mkdir``) misreport: a symbolic link loop on the way (``exists`` says False, ``mkdir`` says "File exists") and a
path or name longer than the system allows (``exists`` raises). A path that simply does not exist (yet) is no
problem here. Every folder ucdcr is given (data dir, raw dir, output folders, export targets) is checked so.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import platformdirs

from ucdcr.errors import UcdcrError

_APP = "ucdcr"


def platform_dir(kind: str) -> Path:
    """The platform's default for ``kind`` ("data" or "raw"), without the environment variable."""
    return Path(platformdirs.user_data_dir(_APP)) / kind


def default_data_dir() -> Path:
    """Where built datasets live unless told otherwise."""
    env = os.environ.get("UCDCR_DATA_DIR")
    return Path(env) if env else platform_dir("data")


def default_raw_dir() -> Path:
    """Where raw downloads live unless told otherwise."""
    env = os.environ.get("UCDCR_RAW_DIR")
    return Path(env) if env else platform_dir("raw")


def resolve_data_dir(data_dir: str | Path | None) -> Path:
    """The data dir to use; a symlink loop or a path too long for the system is an error saying so."""
    path = Path(data_dir) if data_dir else default_data_dir()
    check_usable(path, "data dir")
    return path


def resolve_raw_dir(raw_dir: str | Path | None) -> Path:
    """The raw dir to use; a symlink loop or a path too long for the system is an error saying so."""
    path = Path(raw_dir) if raw_dir else default_raw_dir()
    check_usable(path, "raw dir")
    return path


def unusable(path: str | Path, role: str = "") -> str | None:
    """Why ``path`` cannot be looked up, as one line naming it (``role``: e.g. "data dir"), or None."""
    where = f"{role} {path}".strip()
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"{where}: a symbolic link loop on the way (a link that points back to itself or its folder)"
        if exc.errno == errno.ENAMETOOLONG:
            longest = max((len(os.fsencode(part)) for part in Path(path).parts), default=0)
            return (
                f"{where}: longer than the system allows (a name of {longest} bytes, a path of "
                f"{len(os.fsencode(os.fspath(path)))} bytes; the usual limits are 255 and 4096)"
            )
    except ValueError as exc:  # a NUL byte
        return f"{where}: not a usable path ({exc})"
    return None


def check_usable(path: str | Path, role: str = "") -> None:
    """Raise a UcdcrError when :func:`unusable` finds a problem."""
    problem = unusable(path, role)
    if problem:
        raise UcdcrError(problem)


def existing_folder(folder: Path, what: str) -> Path:
    """``folder`` if it is a folder, else a UcdcrError saying that ``what`` does not exist or is a file (or cannot
    be looked up: a symlink loop, a path longer than the system allows)."""
    check_usable(folder, what)
    if folder.is_dir():
        return folder
    if folder.exists():
        raise UcdcrError(f"{what} {folder} is a file, not a folder")
    raise UcdcrError(f"{what} {folder} does not exist")
