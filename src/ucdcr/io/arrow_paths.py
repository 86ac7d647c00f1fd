"""Paths pyarrow can open: a name that is not UTF-8 (a legal file or folder name on Linux, e.g. a Latin-1 byte in
the data dir's name) cannot be handed to Arrow, which encodes paths as UTF-8; such a file is opened by Python and
the open file given to Arrow instead. Every other path is given to Arrow as it is (the bytes written are the
same either way).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import BinaryIO


def is_utf8(path: str | Path) -> bool:
    """Whether ``path`` can be given to Arrow as text."""
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def arrow_source(path: str | Path) -> AbstractContextManager[str | BinaryIO]:
    """``with arrow_source(path) as source: pq.read_table(source)``: the path's text, or the file opened to read."""
    return _path_or_file(path, "rb")


def arrow_sink(path: str | Path) -> str | BinaryIO:
    """What a pyarrow writer is given: the path's text, or the file opened to write (the caller closes it)."""
    if is_utf8(path):
        return os.fspath(path)
    return open(path, "wb")  # held by the writer until it is closed


def arrow_target(path: str | Path) -> AbstractContextManager[str | BinaryIO]:
    """``with arrow_target(path) as target: write(target)``: the path's text, or the file opened to write."""
    return _path_or_file(path, "wb")


@contextmanager
def _path_or_file(path: str | Path, mode: str) -> Iterator[str | BinaryIO]:
    """The path's text where Arrow can take it, else the file opened in ``mode`` (closed on leaving)."""
    if is_utf8(path):
        yield os.fspath(path)
        return
    with open(path, mode) as handle:
        yield handle  # type: ignore[misc]
