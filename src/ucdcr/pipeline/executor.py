"""Map a pure function over batches of picklable records: in this process (jobs=1) or in a process pool.

Results come back in input order, whatever the number of workers, so builds are deterministic. Each worker loads
spaCy once (the model is cached per process by :func:`ucdcr.pipeline.nlp.load_nlp`). A Ray Data executor for
corpora that outgrow one machine can implement the same :func:`map_batches` signature.

Pool workers end with the process that started them, however it ends (even by SIGKILL, which runs no clean-up):
on Linux the kernel kills them (``PR_SET_PDEATHSIG``, which fires when the thread that started the pool ends --
the pool lives inside one :func:`map_batches` call, in the calling thread); elsewhere a thread in each worker
polls its parent.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_POLL_SECONDS = 1.0


def batched(items: Sequence[T], size: int) -> list[list[T]]:
    """Consecutive batches of at most ``size`` items."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def map_batches(function: Callable[[list[T]], list[R]], batches: list[list[T]], jobs: int = 1) -> Iterator[list[R]]:
    """``function`` over every batch, yielding results in batch order."""
    if jobs <= 1 or len(batches) <= 1:
        for batch in batches:
            yield function(batch)
        return
    workers = min(jobs, len(batches))
    with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(os.getpid(),)) as pool:
        yield from pool.map(function, batches)


def _start_worker(parent: int) -> None:
    """Pool initializer: end when ``parent`` ends."""
    if not _kill_me_with_parent():
        threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)


def _kill_me_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (AttributeError, OSError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)
