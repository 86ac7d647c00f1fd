"""Map a pure function over a stream of batches of picklable records: in this process (jobs=1), in a process pool
of ``jobs`` workers, or as a Ray Data pipeline (:mod:`ucdcr.pipeline.ray_executor`, the ``dist`` extra).

Results come back in input order, whatever the executor and the number of workers, so builds are deterministic.
Batches are taken from the stream as workers need them, at most :data:`BATCHES_PER_WORKER` per worker ahead, so the
producer (the reader) runs while the workers work and memory holds a few batches, not the corpus. Each worker runs
the ``warm_up`` function once when it starts (the build loads spaCy there, once per worker, while the reader reads).

Pool workers end with the process that started them, however it ends (even by SIGKILL, which runs no clean-up):
on Linux the kernel kills them (``PR_SET_PDEATHSIG``, which fires when the thread that started the pool ends --
the pool lives inside one :func:`map_batches` call, in the calling thread); elsewhere a thread in each worker
polls its parent.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from typing import TypeVar

from ucdcr.errors import UcdcrError
from ucdcr.io.processes import kill_me_with_parent

T = TypeVar("T")
R = TypeVar("R")

PARENT_POLL_SECONDS = 1.0


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
            from ucdcr.pipeline.ray_executor import require_ray

            require_ray()

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
    with ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker, initargs=(os.getpid(), warm_up)) as pool:
        pool.submit(os.getpid)  # starts the workers now, before the reader fills this process's memory (forked
        # workers would share those pages and each count them in its resident size)
        pending: deque[Future[list[R]]] = deque()
        for batch in batches:
            pending.append(pool.submit(function, batch))
            if len(pending) >= jobs * BATCHES_PER_WORKER:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _start_worker(parent: int, warm_up: Callable[[], object] | None = None) -> None:
    """Pool initializer: end when ``parent`` ends; then warm up."""
    if not kill_me_with_parent():
        threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)
    if warm_up is not None:
        warm_up()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)
