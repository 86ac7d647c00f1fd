"""The executors: map a pure function over a stream of picklable items (the build's batches of documents), in this
process, in a local process pool, or on Ray (:mod:`ucdcr.pipeline.ray_executor`, the ``dist`` extra), behind one
interface, :class:`Executor`.

Every executor yields the results in input order, whatever the number of workers, so builds are deterministic, and
all share one submit loop (:func:`bounded_map`): items are taken from the stream as workers need them, at most
:data:`BATCHES_PER_WORKER` per worker in flight, so the producer (the reader) runs while the workers work and memory
holds a few items, not the corpus. Each worker runs the ``warm_up`` function of :meth:`Executor.map` once when it
starts (the build loads spaCy there, once per worker, while the reader reads).

What runs where is typed options (:class:`ExecutorOptions`: an :class:`ExecutorKind`, the number of workers, a Ray
address); the edge (the CLI, the API) makes the executor once (:func:`ucdcr.pipeline.build.executor_for`) and hands
it down. Problems with the options are :class:`ExecutorError` s in the library's words (the CLI words them as flags).

:class:`LocalExecutor`: ``jobs`` 1 runs in this process; more runs a process pool that works under every start
method of ``multiprocessing`` (fork, forkserver -- Python 3.14's default on Linux -- and spawn) and starts all
``jobs`` workers at once under each (the workers wait for each other at a barrier before warming up). Its workers end
with the building process, however it ends (even by SIGKILL, which runs no clean-up), within a second: each watches
the building process by its pid (on Linux a pidfd, which wakes the watching thread the moment the process ends;
elsewhere a poll every :data:`PARENT_POLL_SECONDS`), whoever its direct parent is (a forkserver worker's is the fork
server), and on Linux the kernel also kills a worker whose direct parent ends (``PR_SET_PDEATHSIG``). Ctrl-C is
handled by the building process alone: workers start with SIGINT blocked and then ignore it, so no worker prints a
``KeyboardInterrupt`` traceback; the building process kills its workers when anything (Ctrl-C, an error) ends the
map early. A worker lost while it works (killed by a signal, by the kernel when memory runs out) breaks a process
pool: the pool is started again and every item that was in flight is given to the new one, at most :data:`RESTARTS`
times per item (the functions are pure, so an item run twice gives the same result). An item whose workers were
lost more often is given to ``lost`` (:meth:`Executor.map`), whose value stands for its result (the benchmark's
named failure), or without ``lost`` ends the map with one :class:`WorkerLost` error naming it.

This module imports nothing of Ray; :mod:`ucdcr.pipeline.ray_executor` imports this one (no import circle).
Kept on concurrent.futures, not loky: loky's workers outlive a SIGKILLed parent and get Ctrl-C, so all of this stays.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from ucdcr.errors import UcdcrError
from ucdcr.pipeline.processes import kill_me_with_parent

if TYPE_CHECKING:
    from multiprocessing.synchronize import Barrier as SynchronizedBarrier

T = TypeVar("T")
R = TypeVar("R")

PARENT_POLL_SECONDS = 0.2

RESTARTS = 3
"""How often an item whose worker was lost is run again (local pool and Ray alike), before it is given up."""

WORKER_START_SECONDS = 300.0
"""How long a pool's workers wait for each other to start before the pool is given up as broken."""


BATCHES_PER_WORKER = 2
"""Items in flight per worker: one being worked on, one waiting, so no worker idles while the next is sent."""


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive batches of at most ``size`` items, as the items come."""
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


@dataclass(frozen=True)
class Resources:
    """What one item's work asks of a cluster: ``gpu`` -- one GPU when the cluster has any (the work then finds it,
    and work that does not ask is given none), else the CPU like the rest."""

    gpu: bool = False


class WorkerLost(UcdcrError):
    """A worker was lost more than :data:`RESTARTS` times while working on the same item."""


def item_name(item: object) -> str:
    """How an error names an item: its ``describe()`` when it has one (a benchmark step), else its kind."""
    describe = getattr(item, "describe", None)
    if callable(describe):
        return str(describe())
    return f"a batch of {len(item)} items" if isinstance(item, list) else f"a {type(item).__name__} item"


def lost_message(item: object, tries: int) -> str:
    """The error of an item whose worker was lost on each of its ``tries``."""
    return (
        f"{item_name(item)}: its worker process was lost {tries} times (killed by a signal, or by the kernel when "
        "memory ran out); given up"
    )


class ExecutorKind(StrEnum):
    """Where the per-document stages run."""

    LOCAL = "local"  # this process, or a local process pool
    RAY = "ray"  # Ray (the ``dist`` extra): a local Ray, or the cluster at a Ray address


class ExecutorError(UcdcrError):
    """Executor options that cannot work: an unknown kind, a bad number of workers, a Ray address for the local
    executor, Ray missing or broken, a Ray cluster that does not answer. ``option`` names the option at fault
    ("kind", "jobs", "ray_address"), so a front end can name its own flag."""

    def __init__(self, message: str, option: str = "kind") -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class ExecutorOptions:
    """What runs where: ``kind``, ``jobs`` workers (1: in this process, for the local executor), and for Ray the
    cluster's ``ray_address`` (``ray://host:10001`` or ``host:6379``; None: a local Ray). Checked when made."""

    kind: ExecutorKind = ExecutorKind.LOCAL
    jobs: int = 1
    ray_address: str | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "kind", ExecutorKind(self.kind))
        except ValueError:
            choices = ", ".join(kind.value for kind in ExecutorKind)
            raise ExecutorError(f"unknown executor {self.kind!r} (choose one of {choices})") from None
        if isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1:
            raise ExecutorError(
                f"the number of workers must be a whole number of at least 1, not {self.jobs!r}", "jobs"
            )
        if self.ray_address is not None and self.kind is not ExecutorKind.RAY:
            raise ExecutorError("a Ray address is an option of the Ray executor, not of the local one", "ray_address")


class Executor(Protocol):
    """Maps a function over items, yielding the results in input order, a bounded number of items in flight."""

    @property
    def jobs(self) -> int:
        """The number of workers."""
        ...

    def map(
        self,
        function: Callable[[T], R],
        items: Iterable[T],
        warm_up: Callable[[], object] | None = None,
        lost: Callable[[T, str], R] | None = None,
        resources: Callable[[T], Resources] | None = None,
    ) -> Iterator[R]:
        """``function`` over every item, results in item order; ``warm_up`` runs once in each worker first.
        ``lost(item, message)``: the result of an item whose worker was lost too often (else :class:`WorkerLost`).
        ``resources(item)``: what an item's work asks of a cluster (:class:`Resources`; a local pool ignores it)."""
        ...


def bounded_map(
    items: Iterable[T], submit: Callable[[T], object], next_result: Callable[[], R], in_flight: int
) -> Iterator[R]:
    """The submit loop every executor shares: ``submit`` each item, and once ``in_flight`` items are out, take a
    result (``next_result``: the oldest submitted item's, waiting for it) before submitting the next; then the rest."""
    pending = 0
    for item in items:
        submit(item)
        pending += 1
        if pending >= in_flight:
            yield next_result()
            pending -= 1
    while pending:
        yield next_result()
        pending -= 1


@dataclass(frozen=True)
class LocalExecutor:
    """This process (``jobs`` 1) or a process pool of ``jobs`` workers (see the module docstring). ``start_method``:
    how the workers start (None: ``multiprocessing``'s default); ``spawn`` for work that may run after torch was
    loaded in this process (a forked child of a process with torch's threads can hang), as the benchmark's does."""

    jobs: int = 1
    start_method: str | None = None

    def map(
        self,
        function: Callable[[T], R],
        items: Iterable[T],
        warm_up: Callable[[], object] | None = None,
        lost: Callable[[T, str], R] | None = None,
        resources: Callable[[T], Resources] | None = None,
    ) -> Iterator[R]:
        """``function`` over every item, results in item order (``warm_up`` is not needed in this process: the
        function loads what it needs; nor is ``lost``: no worker of its own can be lost; ``resources`` are a
        cluster's: on one machine every worker sees all of it)."""
        if self.jobs <= 1:
            return (function(item) for item in items)
        return _PoolMap(function, jobs=self.jobs, warm_up=warm_up, start_method=self.start_method, lost=lost).run(items)


def map_batches(function: Callable[[list[T]], list[R]], batches: Iterable[list[T]], jobs: int = 1) -> Iterator[list[R]]:
    """``function`` over every batch on the local executor, yielding results in batch order."""
    return LocalExecutor(jobs).map(function, batches)


@dataclass
class _InFlight(Generic[T, R]):
    """An item given to the pool: its future, or its result once settled otherwise (given up), and its tries."""

    item: T
    future: Future[R] | None
    tries: int = 1
    result: R | None = None


@dataclass
class _PoolMap(Generic[T, R]):
    """One map on a local process pool (:meth:`LocalExecutor.map`), started again when a worker is lost."""

    function: Callable[[T], R]
    jobs: int
    warm_up: Callable[[], object] | None
    start_method: str | None
    lost: Callable[[T, str], R] | None

    def run(self, items: Iterable[T]) -> Iterator[R]:
        self.context = multiprocessing.get_context(self.start_method)
        self.pending: deque[_InFlight[T, R]] = deque()
        self.pool = self._start()
        try:
            yield from bounded_map(items, self._submit, self._next_result, self.jobs * BATCHES_PER_WORKER)
        except BaseException:  # an error, Ctrl-C, or the consumer stopped early: the workers go now
            _stop(self.pool)
            raise
        self.pool.shutdown(wait=True)

    def _start(self) -> ProcessPoolExecutor:
        started = self.context.Barrier(self.jobs, timeout=WORKER_START_SECONDS)
        pool = ProcessPoolExecutor(
            max_workers=self.jobs,
            mp_context=self.context,
            initializer=_start_worker,
            initargs=(os.getpid(), started, self.warm_up),
        )
        with _sigint_held():  # all workers start now, before the reader fills this process's memory (forked
            # workers would share those pages and each count them in its resident size); under forkserver and spawn
            # the pool starts a worker only when a task finds none idle, and none is idle until all have started
            for _ in range(self.jobs):
                pool.submit(os.getpid)
        return pool

    def _send(self, entry: _InFlight[T, R]) -> None:
        with _sigint_held():  # a worker may be started here (forkserver, spawn)
            entry.future = self.pool.submit(self.function, entry.item)

    def _submit(self, item: T) -> None:
        entry: _InFlight[T, R] = _InFlight(item, None)
        self.pending.append(entry)
        self._send(entry)

    def _next_result(self) -> R:
        while True:
            entry = self.pending[0]
            try:
                result = entry.result if entry.future is None else entry.future.result()
            except BrokenProcessPool:
                self._restart()
                continue
            self.pending.popleft()
            return result  # type: ignore[return-value]  # None only as a given-up item's R

    def _restart(self) -> None:
        """A worker was lost: a new pool, every item in flight given again (or given up after RESTARTS tries)."""
        waiting = [entry for entry in self.pending if _lost_with_pool(entry.future)]
        _stop(self.pool)
        self.pool = self._start()
        for entry in waiting:
            if entry.tries > RESTARTS:
                message = lost_message(entry.item, entry.tries)
                if self.lost is None:
                    raise WorkerLost(message)
                entry.future, entry.result = None, self.lost(entry.item, message)
                continue
            entry.tries += 1
            print(
                f"a worker process was lost (killed): {item_name(entry.item)} runs again on a new worker (try "
                f"{entry.tries} of {RESTARTS + 1})",
                file=sys.stderr,
                flush=True,
            )
            self._send(entry)


def _lost_with_pool(future: Future | None) -> bool:
    """Whether an item's future went down with a broken pool (not one that finished or raised its own error)."""
    if future is None:
        return False
    if not future.done() or future.cancelled():
        return True
    return isinstance(future.exception(), BrokenProcessPool)


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


def _start_worker(parent: int, started: SynchronizedBarrier, warm_up: Callable[[], object] | None = None) -> None:
    """Pool initializer: ignore Ctrl-C (the building process handles it and stops the workers), end when ``parent``
    (the building process; not always this worker's parent: a forkserver worker's is the fork server) ends; wait
    at ``started`` until every worker has got this far (so the pool starts all of them, whatever the start method);
    then warm up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    kill_me_with_parent()  # the direct parent (fork, spawn); quicker than any watch
    if not _watch(parent):  # the building process ended before the watch began
        os._exit(1)
    started.wait()
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
