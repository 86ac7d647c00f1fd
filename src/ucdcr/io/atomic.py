"""Atomic file writes: readers of the file see its complete old content or its complete new content, never a part.

Every output file of ucdcr that is not written into a staging folder (reports, tables, CoNLL files, figures,
downloaded files) is written here. The content goes into a hidden temporary file in the target's folder
(``.<name>.<random>.tmp``, on the same filesystem, so the rename is atomic), created with the usual permissions
(0666 minus the umask), flushed to disk (fsync) and renamed over the target (``os.replace``). If anything fails,
the temporary file is removed and the target stays as it was; a process killed meanwhile leaves at most a hidden
``.tmp`` file. Where the target's name is so long (a legal name near the file system's limit of 255 bytes) that a
hidden name made of it would exceed the limit, hidden names use a shortened form of it (:func:`hidden_stem`).
A failure of the file system (a full disk, no permission, a file where a folder belongs) is one
:class:`~ucdcr.errors.WriteError` naming the target and the reason.

A whole folder (a built dataset) is replaced with :class:`~ucdcr.io.output_folder.OutputFolder`, whose files are
written into a staging folder and fsynced with :func:`fsync_file` before the folder is swapped in.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ucdcr.errors import WriteError


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (parent folders are created)."""
    with atomic_path(path) as temporary, write_errors(path):
        temporary.write_bytes(data)


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` atomically (newlines as given, never translated)."""
    write_bytes(path, text.encode("utf-8"))


def write_json(path: str | Path, data: Any, indent: int | None = 1, ensure_ascii: bool = False) -> None:
    """Write ``data`` as JSON (``json.dumps`` with these arguments, then a newline) to ``path`` atomically."""
    write_text(path, json.dumps(data, indent=indent, ensure_ascii=ensure_ascii) + "\n")


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """For writers that want a path (pyarrow, matplotlib, a stream): ``with atomic_path(target) as temporary:``
    write ``temporary``; when the block ends it becomes ``target``. When the block raises, the temporary file is
    removed and the exception propagates unchanged (wrap the block in :func:`write_errors` to name the target)."""
    target = Path(path)
    with write_errors(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = _new_temporary(target)
    try:
        yield temporary
        with write_errors(target):
            fsync_file(temporary)
            os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


NAME_MAX = 255
"""The longest file name (in bytes) of the usual file systems (ext4, xfs, btrfs, tmpfs, APFS, NTFS in UTF-16)."""
_HIDDEN_ROOM = 40
"""What hidden names add around a name: ".", and ".staging-<pid>-<hex>", ".lock" or ".<hex>.tmp"."""


def hidden_stem(name: str) -> str:
    """``name`` as hidden names beside it use it: unchanged, or where ``.<name>.<suffix>`` could exceed
    :data:`NAME_MAX`, its first bytes + ``~`` + 16 hex digits of its sha256 (one stem per name, so the next build
    still finds what a killed one left)."""
    encoded = os.fsencode(name)
    if len(encoded) + _HIDDEN_ROOM <= NAME_MAX:
        return name
    digest = hashlib.sha256(encoded).hexdigest()[:16]
    head = encoded[: NAME_MAX - _HIDDEN_ROOM - len(digest) - 1]
    for cut in range(4):  # end on a whole UTF-8 character where the name is UTF-8
        try:
            return head[: len(head) - cut].decode("utf-8") + "~" + digest
        except UnicodeDecodeError:
            continue
    return os.fsdecode(head) + "~" + digest


def _new_temporary(target: Path) -> Path:
    """An empty hidden file beside ``target``, created with mode 0666 minus the umask, as ``open`` creates files."""
    while True:
        candidate = target.with_name(f".{hidden_stem(target.name)}.{secrets.token_hex(4)}.tmp")
        try:
            os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue  # a name another writer drew: draw again
        return candidate


@contextmanager
def write_errors(path: str | Path, *also: type[Exception]) -> Iterator[None]:
    """OSErrors (and errors of the types ``also``, e.g. pyarrow's) raised in the block become one WriteError
    naming ``path``: 'cannot write <path>: No space left on device'."""
    kinds: tuple[type[Exception], ...] = (OSError, *also)
    try:
        yield
    except kinds as exc:
        raise WriteError(f"cannot write {path}: {reason(exc)}") from exc


_FULL = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up"}


def reason(exc: BaseException) -> str:
    """The readable part of an OSError (or any error): 'No space left on device (the disk is full)', not
    '[Errno 28] ...'. A full disk reported through Arrow (an ``ArrowException`` with the errno in its text) is named
    the same way."""
    if isinstance(exc, OSError) and exc.strerror:
        full = _FULL.get(exc.errno or 0)
        return f"{exc.strerror} ({full})" if full else exc.strerror
    text = str(exc) or type(exc).__name__
    for code, full in _FULL.items():
        if os.strerror(code) in text:
            return f"{os.strerror(code)} ({full}): {text}"
    return text


def fsync_file(path: Path) -> None:
    """Flush a file's content to disk."""
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def fsync_folder(path: Path) -> None:
    """Flush a folder's entries (created, renamed, removed names) to disk; a no-op on Windows, which cannot open
    folders for that."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    handle = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
