"""Several datasets built at once (``ucdcr build A B C -j N``, ``ucdcr.build([...], jobs=N)``).

A build spends much of its time in its own process (reading and parsing the raw files, validating, writing), which a
pool of per-document workers cannot share. So when a local executor has ``jobs`` N > 1 and there are several
datasets, :func:`build_datasets` builds ``min(N, datasets)`` of them at once, each in a worker process of its own
(spawned, ending with this process; the local pool of :mod:`ucdcr.pipeline.executor`) with ``N // at_once``
per-document workers; the largest raw folder goes first, so the longest build does not start last. One dataset, one
job or the Ray executor (whose workers are a cluster's): one dataset after another, with the executor given. The
output of each build is the same either way (the build is deterministic and each writes its own folder).

Each outcome (:class:`BuildOutcome`) is a report, the missing raw files, or the error of one dataset: one dataset's
problem does not stop the others. Progress is forwarded from the workers through a queue to the caller's per-dataset
callback (``progress(dataset_id)``), called in one thread of this process.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ucdcr.errors import MissingRawData, UcdcrError
from ucdcr.pipeline.build import BuildReport, ProgressCallback, build_dataset
from ucdcr.pipeline.executor import Executor, LocalExecutor
from ucdcr.registry import ReadOptions, get

ProgressFor = Callable[[str], ProgressCallback | None]
"""The progress callback of a dataset's build, by dataset id (None: no progress)."""


@dataclass(frozen=True)
class BuildRequest:
    """One dataset to build, with its checked reader options."""

    dataset_id: str
    options: ReadOptions | Mapping[str, object] | None = None


@dataclass(frozen=True)
class BuildOutcome:
    """What became of one dataset: its build report, or the error that stopped it (:class:`MissingRawData` when its
    raw files are not there)."""

    dataset_id: str
    report: BuildReport | None = None
    error: UcdcrError | None = None

    @property
    def missing(self) -> bool:
        return isinstance(self.error, MissingRawData)


def at_once(executor: Executor, datasets: int) -> int:
    """How many datasets are built at the same time with ``executor`` (see the module docstring)."""
    if not isinstance(executor, LocalExecutor) or executor.jobs < 2:
        return 1
    return max(1, min(executor.jobs, datasets))


def build_datasets(
    requests: Sequence[BuildRequest],
    raw_dir: Path,
    data_dir: Path,
    executor: Executor,
    progress: ProgressFor | None = None,
) -> Iterator[BuildOutcome]:
    """Build each request (see the module docstring): the outcomes in the order the builds are started."""
    slots = at_once(executor, len(requests))
    if slots == 1:
        for request in requests:
            show = progress(request.dataset_id) if progress else None
            yield _outcome(request, raw_dir, data_dir, executor, show)
        return
    ordered = sorted(requests, key=lambda request: -_raw_size(raw_dir, request.dataset_id))
    inner = LocalExecutor(executor.jobs // slots)
    queue: Any = multiprocessing.get_context("spawn").Queue() if progress else None
    relay = _Relay(queue, progress) if progress else None
    try:
        yield from LocalExecutor(slots, start_method="spawn").map(
            partial(_build_in_worker, raw_dir=raw_dir, data_dir=data_dir, executor=inner),
            ordered,
            partial(_connect, queue),
        )
    finally:
        if relay is not None:
            relay.stop()


def _outcome(
    request: BuildRequest, raw_dir: Path, data_dir: Path, executor: Executor, show: ProgressCallback | None
) -> BuildOutcome:
    try:
        report = build_dataset(
            request.dataset_id,
            raw_dir=raw_dir,
            data_dir=data_dir,
            progress=show,
            options=request.options,
            executor=executor,
        )
    except UcdcrError as exc:
        return BuildOutcome(request.dataset_id, error=exc)
    return BuildOutcome(request.dataset_id, report=report)


def _raw_size(raw_dir: Path, dataset_id: str) -> int:
    """The bytes of a dataset's raw folder (0 when it is not there): how long its build will take, roughly."""
    folder = raw_dir / get(dataset_id).raw_folder
    if not folder.is_dir():
        return 0
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


_WORKER_QUEUE: list[Any] = []
"""In a worker: the queue its builds' progress goes to (set when the worker starts)."""


def _connect(queue: Any) -> None:
    _WORKER_QUEUE[:] = [queue]


def _build_in_worker(request: BuildRequest, raw_dir: Path, data_dir: Path, executor: Executor) -> BuildOutcome:
    queue = _WORKER_QUEUE[0] if _WORKER_QUEUE else None
    show = partial(_forward, queue, request.dataset_id) if queue is not None else None
    return _outcome(request, raw_dir, data_dir, executor, show)


def _forward(queue: Any, dataset_id: str, description: str, done: int, total: int | None) -> None:
    queue.put((dataset_id, description, done, total))


class _Relay:
    """A thread that hands the workers' progress events to the caller's callbacks, one per dataset."""

    def __init__(self, queue: Any, progress: ProgressFor) -> None:
        self.queue = queue
        self.progress = progress
        self.callbacks: dict[str, ProgressCallback | None] = {}
        self.thread = threading.Thread(target=self._run, name="build-progress", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while (event := self.queue.get()) is not None:
            dataset_id, description, done, total = event
            if dataset_id not in self.callbacks:
                self.callbacks[dataset_id] = self.progress(dataset_id)
            callback = self.callbacks[dataset_id]
            if callback is not None:
                callback(description, done, total)

    def stop(self) -> None:
        self.queue.put(None)
        self.thread.join(timeout=5)
