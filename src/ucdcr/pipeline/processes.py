"""Child processes that never outlive the build: the kernel's parent-death signal, and a function run beside this
process in a forked child.

:func:`kill_me_with_parent` asks Linux to SIGKILL the calling process when its parent dies (``PR_SET_PDEATHSIG``);
it returns False elsewhere. :func:`run_beside` forks a child that runs one function while the parent goes on
(Linux only: fork is the point, the child shares the parent's memory without copying or pickling it; and only while
this process runs no other Python thread, :func:`can_run_beside`, which makes the fork safe); the child
ends with its parent, and :meth:`Beside.join` raises the child's error in the parent as one
:class:`~ucdcr.errors.UcdcrError` with the child's message. The child never returns into the parent's code: it
leaves with ``os._exit``, so no clean-up handler of the parent runs twice.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ucdcr.errors import UcdcrError

_PR_SET_PDEATHSIG = 1  # linux/prctl.h
_MESSAGE_BYTES = 64 * 1024


def kill_me_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (AttributeError, OSError):
        return False


def can_run_beside() -> bool:
    """Whether :func:`run_beside` may fork here: Linux, and this is the only Python thread of the process.

    The thread check is what makes the fork safe: a forked child has only the forking thread, and any lock another
    thread held at that moment (a buffered stream's, a progress bar's console's) would stay locked in the child
    forever. With one Python thread no Python-level lock is held by anyone else; the native libraries the child uses
    (glibc malloc, pyarrow and its jemalloc, OpenBLAS) reset their own threads and locks in ``pthread_atfork``
    handlers. Elsewhere, or when another thread runs, the caller runs the function in this process."""
    return sys.platform.startswith("linux") and hasattr(os, "fork") and threading.active_count() == 1


@dataclass
class Beside:
    """A forked child running a function; :meth:`join` waits for it, :meth:`kill` stops it."""

    pid: int
    errors: int  # read end of the pipe the child writes its error message to

    def join(self) -> None:
        """Wait for the child; its error (or its death by a signal) raised here."""
        with os.fdopen(self.errors, "rb") as pipe:
            message = pipe.read().decode("utf-8", "replace")
        _, status = os.waitpid(self.pid, 0)
        if os.WIFSIGNALED(status):
            raise UcdcrError(message or f"a build process was killed by signal {os.WTERMSIG(status)}")
        if os.waitstatus_to_exitcode(status) != 0:
            raise UcdcrError(message or f"a build process failed (exit {os.waitstatus_to_exitcode(status)})")

    def kill(self) -> None:
        """Stop the child and reap it (after an error in the parent)."""
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.errors)


def run_beside(function: Callable[[], object]) -> Beside:
    """Run ``function`` in a forked child while this process goes on (see the module docstring)."""
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_end)
        code = 1
        try:
            kill_me_with_parent()
            if os.getppid() == 1:  # the parent died before the line above took effect
                os._exit(1)
            function()
            code = 0
        except BaseException as exc:
            os.write(write_end, str(exc).encode("utf-8", "replace")[:_MESSAGE_BYTES] or type(exc).__name__.encode())
        finally:
            os._exit(code)
    os.close(write_end)
    return Beside(pid, read_end)
