"""Crash-safe replacement of one output folder ``<parent>/<name>`` (a built dataset).

Guarantee: whenever the writing process stops -- an error, Ctrl-C, SIGKILL, a crash of the interpreter --
``<parent>/<name>`` is the complete previous folder or the complete new one, and every other entry the build made
is hidden (its name starts with "."; every dataset discovery skips such names)::

    <parent>/.<name>.lock                    lock file; exists while a build of <name> runs (left by a killed one)
    <parent>/.<name>.staging-<pid>-<hex>     the new folder while it is written; after the swap, the old one
    <parent>/.<name>.retired-<pid>-<hex>     two-rename swap only: the old folder between the two renames

How (:class:`OutputFolder`, a context manager held from before the build reads its input until after the swap):

1. Location first, before any work: the parent folder is created if needed and must be a writable folder;
   ``<name>`` must be a folder if it exists. Each failure is one :class:`~ucdcr.errors.UcdcrError` naming the path.
2. Lock: ``.<name>.lock``, held with :mod:`filelock` (``flock`` on Unix). A second build of the same folder fails
   at once with an error naming the lock file and the process holding it (waiting could look like a hang for the
   minutes a build takes). The kernel releases the lock when its holder dies, even by SIGKILL, so a killed build
   never blocks the next one.
3. Debris of earlier builds of ``<name>`` (staging or retired folders) is removed -- except that a retired folder
   is put back as ``<name>`` when ``<name>`` is missing (a build killed between the two renames below). Then the
   staging folder is created (mode 0777 minus the umask, like every folder and file written into it).
4. :meth:`OutputFolder.commit`: the build's scratch files (:meth:`OutputFolder.scratch`) are removed, the files
   and folders of staging are fsynced, then staging and ``<name>`` are
   exchanged in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``, macOS ``renamex_np(RENAME_SWAP)``), so a
   reader sees the old folder or the new one, never none. The old folder, now at the staging name, is removed.
   Where that primitive does not exist (other platforms, and filesystems that refuse it, e.g. some network and
   FUSE filesystems) the swap is two renames, ``<name>`` -> retired, staging -> ``<name>``: for the microseconds
   between them ``<name>`` is missing; a build killed exactly there leaves the old folder at the retired name,
   and the next build of ``<name>`` puts it back first (step 3).

Where ``<name>`` is so long that these hidden names would exceed the file system's name limit, they are made of a
shortened form of it (:func:`ucdcr.io.atomic.hidden_stem`).

On Windows filelock locks with the system's own file locking, so concurrent builds are excluded there too.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from types import TracebackType
from typing import Self

from filelock import BaseFileLock, FileLock, Timeout

from ucdcr.errors import UcdcrError
from ucdcr.io.atomic import fsync_file, fsync_folder, hidden_stem, reason
from ucdcr.paths import check_usable

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # linux/fs.h
_RENAME_SWAP = 2  # macOS sys/stdio.h
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP}


class OutputFolder:
    """``with OutputFolder(path) as output:`` write into ``output.staging``, then ``output.commit()``.

    Leaving the block without a commit removes the staging folder and leaves ``path`` as it was.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._staging: Path | None = None
        self._lock: _Lock | None = None
        self._scratch: list[Path] = []

    @property
    def staging(self) -> Path:
        """The hidden folder to write the new content into (exists between entering and commit)."""
        if self._staging is None:
            raise RuntimeError(f"{self.path}: no staging folder (use `with OutputFolder(...)` and commit once)")
        return self._staging

    def scratch(self, name: str) -> Path:
        """A path inside the staging folder for a file the build needs only while it writes (removed by
        :meth:`commit` before the swap, or with the staging folder)."""
        path = self.staging / name
        self._scratch.append(path)
        return path

    def __enter__(self) -> Self:
        _check_location(self.path)
        self._lock = _Lock.acquire(self.path)
        try:
            _clean_debris(self.path)
            self._staging = _new_staging(self.path)
        except BaseException:
            self._lock.release()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        try:
            if self._staging is not None:
                shutil.rmtree(self._staging, ignore_errors=True)  # what is left, the next build removes (step 3)
                self._staging = None
        finally:
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    def commit(self) -> None:
        """Make the staging folder ``path`` (atomically where the platform can), then remove the old folder."""
        staging = self.staging
        try:
            for path in self._scratch:
                path.unlink(missing_ok=True)
            _sync_tree(staging)
            if not os.path.lexists(self.path):
                os.rename(staging, self.path)
            elif not exchange(staging, self.path):
                _swap_by_renames(staging, self.path)
            fsync_folder(self.path.parent)
        except OSError as exc:
            raise UcdcrError(f"cannot replace {self.path} by the new build: {reason(exc)}") from exc
        # staging now holds the old folder (or nothing); removing it is tidying, so failures are left to step 3
        shutil.rmtree(staging, ignore_errors=True)
        self._staging = None


def exchange(first: Path, second: Path) -> bool:
    """Atomically exchange two existing paths; False where the platform or the filesystem cannot."""
    function = _exchange_function()
    if function is None:
        return False
    if function(os.fsencode(first), os.fsencode(second)) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), str(second))


@lru_cache(maxsize=1)
def _exchange_function() -> Callable[[bytes, bytes], int] | None:
    """The C function that swaps two paths atomically, through ctypes: Python's ``os.replace`` cannot replace a
    non-empty folder, and neither the standard library nor a maintained package exposes ``renameat2`` /
    ``renamex_np``, so this is the only way to swap two folders with no moment where ``<name>`` is missing."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if sys.platform.startswith("linux"):
            renameat2 = libc.renameat2
            renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            renameat2.restype = ctypes.c_int
            return lambda a, b: int(renameat2(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE))
        if sys.platform == "darwin":
            renamex_np = libc.renamex_np
            renamex_np.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
            renamex_np.restype = ctypes.c_int
            return lambda a, b: int(renamex_np(a, b, _RENAME_SWAP))
    except (AttributeError, OSError, TypeError):  # no such C function (old libc) or no C library to load
        pass
    return None


def _swap_by_renames(staging: Path, target: Path) -> None:
    """The fallback swap; afterwards the old folder is at the staging name, like after an exchange."""
    retired = _hidden_name(target, "retired")
    os.rename(target, retired)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(retired, target)
        raise
    os.rename(retired, staging)


def _check_location(path: Path) -> None:
    parent = path.parent
    check_usable(path, "output folder")  # a symlink loop, a path too long: said as such, not as "File exists"
    try:
        if parent.exists() and not parent.is_dir():
            raise UcdcrError(f"data dir {parent} is a file, not a folder")
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        problem = reason(exc)
        if isinstance(exc, (NotADirectoryError, FileExistsError)):
            blocker = next((p for p in parent.parents if p.is_file()), None)
            problem = f"{blocker} is a file" if blocker is not None else problem
        raise UcdcrError(f"cannot create the data dir {parent}: {problem}") from exc
    if os.path.lexists(path) and not path.is_dir():
        raise UcdcrError(f"{path} exists and is not a folder; move it away or choose another data dir")


def _debris_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(hidden_stem(name))}\.(?P<kind>staging|retired)-[\w-]+")


def _clean_debris(path: Path) -> None:
    """Remove what killed builds of ``path`` left; put a retired old folder back if ``path`` is missing."""
    pattern = _debris_pattern(path.name)
    try:
        for entry in sorted(path.parent.iterdir()):
            match = pattern.fullmatch(entry.name)
            if match is None:
                continue
            if match["kind"] == "retired" and not os.path.lexists(path):
                os.rename(entry, path)
            else:
                _remove(entry)
    except OSError as exc:
        where = exc.filename or path.parent
        raise UcdcrError(f"cannot clean up after an earlier build of {path} ({where}): {reason(exc)}") from exc


def _new_staging(path: Path) -> Path:
    staging = _hidden_name(path, "staging")
    try:
        os.mkdir(staging)
    except OSError as exc:
        raise UcdcrError(f"data dir {path.parent} is not writable: {reason(exc)}") from exc
    return staging


def _hidden_name(path: Path, kind: str) -> Path:
    while True:
        candidate = path.with_name(f".{hidden_stem(path.name)}.{kind}-{os.getpid()}-{secrets.token_hex(4)}")
        if not os.path.lexists(candidate):
            return candidate


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def _sync_tree(folder: Path) -> None:
    """fsync every file and folder below ``folder`` (so the swap never points at data still in flight)."""
    for root, _, files in os.walk(folder):
        for name in files:
            fsync_file(Path(root) / name)
        fsync_folder(Path(root))


class _Lock:
    """An exclusive lock on ``.<name>.lock`` next to ``<name>`` (:class:`filelock.FileLock`: ``flock`` on Unix, which
    the kernel releases when its holder dies; filelock also closes the descriptor in a forked child, so a build's
    workers that outlive it never hold the next build off). The holder writes its pid into the file, for the error
    a competing build gets; the file is removed on release, while still locked: a competitor that opened it meanwhile
    sees the file unlinked once it gets the lock and takes a new one (filelock checks this)."""

    def __init__(self, path: Path, lock: BaseFileLock | None) -> None:
        self.path, self.lock = path, lock

    @classmethod
    def acquire(cls, output: Path, wait: bool = False, folder_role: str = "data dir") -> _Lock:
        """The lock of ``output``; held by another process: an error, or with ``wait`` its release is waited for."""
        path = output.with_name(f".{hidden_stem(output.name)}.lock")
        lock = FileLock(
            path, timeout=-1 if wait else 0, thread_local=False, fallback_to_soft=False, on_acquired=_note_pid
        )
        try:
            lock.acquire()
        except Timeout:
            raise UcdcrError(
                f"{output} is being built by another process ({_read_holder(path)}, lock file {path}); "
                "wait until it ends, or stop it and build again"
            ) from None
        except OSError as exc:
            if exc.filename is not None:  # opening the lock file failed
                raise UcdcrError(f"{folder_role} {path.parent} is not writable: {reason(exc)} ({path})") from exc
            raise UcdcrError(f"cannot lock {path}: {reason(exc)}") from exc  # e.g. a network filesystem without locks
        return cls(path, lock)

    def release(self) -> None:
        if self.lock is None:
            return
        with contextlib.suppress(OSError):  # a stale lock file is harmless: the kernel lock is what counts
            self.path.unlink(missing_ok=True)  # still holding the lock (class docstring)
        self.lock.release()
        self.lock = None


def _note_pid(handle: int) -> None:
    """Write the holder's pid into the lock file it just took (filelock emptied it)."""
    with contextlib.suppress(OSError):  # the pid only makes the message of a competing build more helpful
        os.write(handle, f"{os.getpid()}\n".encode())


@contextlib.contextmanager
def exclusive(path: Path, folder_role: str = "folder") -> Iterator[None]:
    """Wait for, then hold, the lock of ``path`` (``.<name>.lock`` beside it, removed on release): for a short
    read-modify-write of a file that several processes update (the benchmark's results file). ``folder_role``
    names ``path``'s folder in the error when it is not writable."""
    lock = _Lock.acquire(Path(path), wait=True, folder_role=folder_role)
    try:
        yield
    finally:
        lock.release()


def _read_holder(path: Path) -> str:
    """The holder's pid; it writes it just after taking the lock, so an empty file is read again for a moment."""
    for _ in range(50):
        try:
            pid = path.read_bytes()[:32].decode("ascii", "replace").strip()
        except OSError:
            break
        if pid.isdigit():
            return f"pid {pid}"
        time.sleep(0.01)
    return "pid unknown"
