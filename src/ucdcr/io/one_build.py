"""Reading one build of a folder that a rebuild may replace while it is read.

A rebuild swaps a new dataset folder in while others read it (:mod:`ucdcr.io.output_folder`). Rule: a reader notes
the folder's identity (:func:`generation`: device, inode and change time) before it reads and checks it after; when
the folder was replaced meanwhile, what was read may mix two builds, so it is read again (:func:`consistent`, up to
:data:`READ_ATTEMPTS` times; a folder replaced on every attempt is an error saying so). A read that succeeded with
the same folder before and after read one build. Every reader of :mod:`ucdcr.io.load` reads through it, and so do
the readers that read a folder several times (the exports, the statistics, ``ucdcr.load``, the benchmark).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from ucdcr.errors import UcdcrError

READ_ATTEMPTS = 20
"""How often a folder replaced while it is read is read again before giving up."""
_RETRY_PAUSE = 0.05
T = TypeVar("T")


def generation(folder: str | Path) -> tuple[int, int, int] | None:
    """The identity of the folder now at ``folder`` (device, inode, change time), or None when there is none: a
    rebuild puts a different folder there."""
    try:
        stat = os.stat(folder)
    except (OSError, ValueError):
        return None
    return (stat.st_dev, stat.st_ino, stat.st_ctime_ns)


def consistent(folders: Iterable[str | Path], read: Callable[[], T]) -> T:
    """``read()``, done again while any of ``folders`` was replaced (rebuilt) during it: what it returns was read
    from one build of each folder. An error raised while a folder was replaced is taken as a sign of the swap (the
    read is repeated); an error with the folders unchanged is raised as it is."""
    paths = list(dict.fromkeys(Path(folder) for folder in folders))
    for attempt in range(READ_ATTEMPTS):
        if attempt:
            time.sleep(_RETRY_PAUSE * min(attempt, 4))
        before = [generation(path) for path in paths]
        try:
            result = read()
        except (UcdcrError, OSError):
            if [generation(path) for path in paths] != before:
                continue
            raise
        if [generation(path) for path in paths] == before:
            return result
    names = ", ".join(str(path) for path in paths)
    raise UcdcrError(
        f"{names} was replaced by a new build on each of {READ_ATTEMPTS} attempts to read it; read it again when "
        "the build has ended"
    )
