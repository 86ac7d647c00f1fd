"""Default locations: the unified data dir and the raw dir.

`--data-dir` / env `UCDCR_DATA_DIR` (default: the platform user data dir + "/data");
`--raw-dir` / env `UCDCR_RAW_DIR` (default: the platform user data dir + "/raw").
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from ucdcr.io.path_problems import check_usable

_APP = "ucdcr"


def default_data_dir() -> Path:
    """Where built datasets live unless told otherwise."""
    env = os.environ.get("UCDCR_DATA_DIR")
    return Path(env) if env else Path(platformdirs.user_data_dir(_APP)) / "data"


def default_raw_dir() -> Path:
    """Where raw downloads live unless told otherwise."""
    env = os.environ.get("UCDCR_RAW_DIR")
    return Path(env) if env else Path(platformdirs.user_data_dir(_APP)) / "raw"


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
