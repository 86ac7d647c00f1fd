"""Map a pure function over a stream of batches of picklable records: in this process (jobs=1), in a process pool
of ``jobs`` workers, or as a Ray Data pipeline (:mod:`ucdcr.pipeline.ray_executor`, the ``dist`` extra).

Results come back in input order, whatever the executor and the number of workers, so builds are deterministic.
Batches are taken from the stream as workers need them, at most :data:`BATCHES_PER_WORKER` per worker ahead, so the
producer (the reader) runs while the workers work and memory holds a few batches, not the corpus. Each worker runs
the ``warm_up`` function once when it starts (the build loads spaCy there, once per worker, while the reader reads).

The pool works under every start method of ``multiprocessing`` (fork, forkserver -- Python 3.14's default on Linux
-- and spawn). Its workers end with the building process, however it ends (even by SIGKILL, which runs no
clean-up), within a second: each watches the building process by its pid (on Linux a pidfd, which wakes the
watching thread the moment the process ends; elsewhere a poll every :data:`PARENT_POLL_SECONDS`), whoever its
direct parent is (a forkserver worker's is the fork server), and on Linux the kernel also kills a worker whose
direct parent ends (``PR_SET_PDEATHSIG``). Ctrl-C is handled by the building process alone: workers start with
SIGINT blocked and then ignore it, so no worker prints a ``KeyboardInterrupt`` traceback; the building process
kills its workers when anything (Ctrl-C, an error) ends the map early.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from typing import TypeVar

from ucdcr.errors import UcdcrError
from ucdcr.io.processes import kill_me_with_parent

T = TypeVar("T")
R = TypeVar("R")

PARENT_POLL_SECONDS = 0.2


BATCHES_PER_WORKER = 2
EXECUTORS = ("local", "ray")


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive batches of at most ``size`` items, as the items come."""
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


@dataclass(frozen=True)
class Executor:
    """Where the per-document stages run: ``kind`` "local" (this process when ``jobs`` is 1, else a process pool)
    or "ray" (Ray Data, ``jobs`` workers, on the cluster at ``address`` or a local Ray)."""

    kind: str = "local"
    jobs: int = 1
    address: str | None = None
    warm_up: Callable[[], object] | None = None

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise UcdcrError(f"unknown executor {self.kind!r} (choose one of {', '.join(EXECUTORS)})")
        if self.address is not None and self.kind != "ray":
            raise UcdcrError("--ray-address needs --executor ray")
        if self.kind == "ray":
            from ucdcr.pipeline.ray_executor import check_address, require_ray

            require_ray()
            check_address(self.address)

    def map(self, function: Callable[[list[T]], list[R]], batches: Iterable[list[T]]) -> Iterator[list[R]]:
        """``function`` over every batch, yielding results in batch order."""
        if self.kind == "ray":
            from ucdcr.pipeline.ray_executor import ray_map

            return ray_map(function, batches, self.jobs, self.address, self.warm_up)
        if self.jobs <= 1:
            return (function(batch) for batch in batches)
        return _pool_map(function, batches, self.jobs, self.warm_up)


def map_batches(function: Callable[[list[T]], list[R]], batches: Iterable[list[T]], jobs: int = 1) -> Iterator[list[R]]:
    """``function`` over every batch on the local executor, yielding results in batch order."""
    return Executor("local", jobs).map(function, batches)


def _pool_map(
    function: Callable[[list[T]], list[R]],
    batches: Iterable[list[T]],
    jobs: int,
    warm_up: Callable[[], object] | None,
) -> Iterator[list[R]]:
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker, initargs=(os.getpid(), warm_up))
    try:
        with _sigint_held():
            pool.submit(os.getpid)  # starts the workers now, before the reader fills this process's memory (forked
            # workers would share those pages and each count them in its resident size)
        pending: deque[Future[list[R]]] = deque()
        for batch in batches:
            with _sigint_held():  # a worker may be started here (forkserver, spawn)
                pending.append(pool.submit(function, batch))
            if len(pending) >= jobs * BATCHES_PER_WORKER:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BaseException:  # an error, Ctrl-C, or the consumer stopped early: the workers go now
        _stop(pool)
        raise
    pool.shutdown(wait=True)


@contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT blocked while workers may be started: they begin with it blocked (the mask survives fork and exec)
    until their initializer ignores it, so a Ctrl-C then never prints a worker's KeyboardInterrupt traceback; here
    it stays pending and arrives when the block ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's workers at once (their work is lost anyway) and reap them."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AssertionError, AttributeError):
            process.join(timeout=5)


def _start_worker(parent: int, warm_up: Callable[[], object] | None = None) -> None:
    """Pool initializer: ignore Ctrl-C (the building process handles it and stops the workers), end when ``parent``
    (the building process; not always this worker's parent: a forkserver worker's is the fork server) ends; then
    warm up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    kill_me_with_parent()  # the direct parent (fork, spawn); quicker than any watch
    if not _watch(parent):  # the building process ended before the watch began
        os._exit(1)
    if warm_up is not None:
        warm_up()


def _watch(parent: int) -> bool:
    """Start a thread that ends this process as soon as process ``parent`` ends; False if it has ended already.
    Linux: a pidfd of ``parent``, which becomes readable when it ends (at once, also after SIGKILL); elsewhere the
    thread polls every :data:`PARENT_POLL_SECONDS`."""
    try:
        handle = os.pidfd_open(parent)  # type: ignore[attr-defined,unused-ignore]
    except ProcessLookupError:
        return False
    except (AttributeError, OSError):  # no pidfd (not Linux, or a kernel before 5.3)
        if not _alive(parent):
            return False
        threading.Thread(target=_poll_parent, args=(parent,), name="watch-parent", daemon=True).start()
        return True
    threading.Thread(target=_wait_for_pidfd, args=(handle,), name="watch-parent", daemon=True).start()
    return True


def _wait_for_pidfd(handle: int) -> None:
    poller = select.poll()
    poller.register(handle, select.POLLIN)
    while not poller.poll():
        pass
    os._exit(1)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs. POSIX: signal 0 (no signal is sent). Windows, where ``os.kill`` would end the
    process: whether it is still this worker's parent (spawn, the only start method there, makes it the parent)."""
    if os.name == "nt":
        return os.getppid() == pid
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _poll_parent(parent: int) -> None:
    while _alive(parent):
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)
