"""The Ray executor (``ucdcr build ... --executor ray [--ray-address ADDR]``; the ``dist`` extra).

:class:`RayExecutor` is an :class:`~ucdcr.pipeline.executor.Executor` like the local pool and runs the same submit
loop (:func:`~ucdcr.pipeline.executor.bounded_map`): ``jobs`` Ray actors (one CPU each) in a ``ray.util.ActorPool``,
each of which runs the ``warm_up`` function once when it starts (the build loads spaCy there) and then the function
on one item at a time; at most :data:`~ucdcr.pipeline.executor.BATCHES_PER_WORKER` items per actor are in flight
(held in Ray's object store), and the results come back in input order, so the build spills and writes them as with
the local executor and the output is the same.

Without ``address`` a local Ray is started for each map (and shut down after it) unless one is already running in
this process; with ``address`` (``ray://host:10001`` or ``host:6379``) the build joins that cluster, whose nodes need
ucdcr and the spaCy model installed. Making a :class:`RayExecutor` checks, before anything is read, that Ray imports
and that the address accepts a connection: it waits for it at most :data:`CONNECT_SECONDS` (env
``UCDCR_RAY_CONNECT_SECONDS``), says on stderr what it waits for, and then stops with an
:class:`~ucdcr.pipeline.executor.ExecutorError` naming the address (Ray itself would retry silently for minutes). A
Ray that is not installed, or whose import fails (a broken install), is one error naming the ``dist`` extra and the
failure. A lost actor is restarted and its items retried (:data:`~ucdcr.pipeline.executor.RESTARTS` times); an item
still lost after that is given to ``lost`` or ends the map with a :class:`~ucdcr.pipeline.executor.WorkerLost`
naming it, as on the local pool. The actors end when the map ends, also early (an error, Ctrl-C).

Given ``resources`` (:class:`~ucdcr.pipeline.executor.Resources`), the map runs each item as a Ray task of its own
instead (at most ``jobs`` at once), asking for one CPU, and one GPU for an item that wants one when the cluster has
any: Ray then shows that task its GPU, and every other task is shown none; each task gets this process's OpenMP
threads (:func:`openmp_threads`), not Ray's one. The benchmark's fits run so.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from ucdcr.extras import install_hint
from ucdcr.io.atomic import reason
from ucdcr.pipeline.executor import (
    BATCHES_PER_WORKER,
    RESTARTS,
    ExecutorError,
    Resources,
    WorkerLost,
    bounded_map,
    lost_message,
)

T = TypeVar("T")
R = TypeVar("R")

CONNECT_SECONDS_ENV = "UCDCR_RAY_CONNECT_SECONDS"
CONNECT_SECONDS = 20.0
"""How long a build waits for the cluster at ``--ray-address`` to answer (env ``UCDCR_RAY_CONNECT_SECONDS``)."""


def require_ray() -> None:
    """A clear error when Ray is not installed, or is installed but cannot be imported (a broken install)."""
    try:
        import ray.util  # noqa: F401
    except ImportError as exc:
        raise ExecutorError(
            f"the Ray executor needs Ray, which is in the `dist` extra: {install_hint('dist')} ({exc})"
        ) from exc
    except Exception as exc:  # a broken install: a library that fails to load, a version clash, ...
        message = " ".join(str(exc).split()) or "(no message)"
        raise ExecutorError(
            f"the Ray executor needs Ray (the `dist` extra), but `import ray` failed: "
            f"{type(exc).__name__}: {message}; repair or reinstall it: {install_hint('dist')}"
        ) from exc


def check_address(address: str | None) -> None:
    """Wait until the cluster at ``address`` (``ray://host:port`` or ``host:port``) accepts a connection, for at most
    :data:`CONNECT_SECONDS` (saying on stderr what it waits for when the first try fails); then an ExecutorError naming
    the address and the reason. Other forms (``auto``, ``local``) are left to Ray."""
    if address is None:
        return
    host_port = address.removeprefix("ray://")
    host, _, port_text = host_port.rpartition(":")
    if not host or not port_text.isdigit():
        if address.startswith("ray://") or ":" in address:
            raise ExecutorError(f"Ray address {address!r} is not ray://HOST:PORT or HOST:PORT", "ray_address")
        return
    seconds = _connect_seconds()
    deadline = time.monotonic() + seconds
    told = False
    while True:
        try:
            with socket.create_connection((host.strip("[]"), int(port_text)), timeout=max(0.1, min(2.0, seconds))):
                return
        except OSError as exc:
            problem = reason(exc)
        if time.monotonic() >= deadline:
            raise ExecutorError(
                f"no Ray cluster answers at {address} ({problem}; waited {seconds:g} s, env {CONNECT_SECONDS_ENV} "
                "sets how long): start it there (`ray start --head`), or leave out the address for a local Ray",
                "ray_address",
            )
        if not told:
            print(
                f"waiting for the Ray cluster at {address} to answer ({problem}); giving up after {seconds:g} s",
                file=sys.stderr,
                flush=True,
            )
            told = True
        time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))


def _connect_seconds() -> float:
    text = os.environ.get(CONNECT_SECONDS_ENV)
    if not text:
        return CONNECT_SECONDS
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise ExecutorError(f"env {CONNECT_SECONDS_ENV}={text!r} is not a number of seconds", "ray_address")
    return value


class _Stage:
    """One Ray actor's state: warms up once, then runs the function on each item it is given."""

    def __init__(self, function: Callable[[Any], Any], warm_up: Callable[[], object] | None) -> None:
        self.function = function
        if warm_up is not None:
            warm_up()

    def run(self, item: Any) -> Any:
        return self.function(item)


@dataclass(frozen=True)
class RayExecutor:
    """``jobs`` Ray actors on a local Ray or on the cluster at ``address`` (see the module docstring); made, it has
    checked that Ray imports and that the address answers."""

    jobs: int = 1
    address: str | None = None

    def __post_init__(self) -> None:
        require_ray()
        check_address(self.address)

    def map(
        self,
        function: Callable[[T], R],
        items: Iterable[T],
        warm_up: Callable[[], object] | None = None,
        lost: Callable[[T, str], R] | None = None,
        resources: Callable[[T], Resources] | None = None,
    ) -> Iterator[R]:
        """``function`` over every item on ``jobs`` actors, results in item order; ``lost``: see the module
        docstring; with ``resources``, each item is a Ray task of its own asking for what ``resources(item)`` says
        (:func:`_task_map`)."""
        with _only_ray_errors():
            import ray

            started_here = not ray.is_initialized()
            if started_here:
                try:
                    ray.init(
                        address=self.address, include_dashboard=False, log_to_driver=False, configure_logging=False
                    )
                except (ConnectionError, RuntimeError, ValueError) as exc:
                    where = f" at {self.address}" if self.address else ""
                    raise ExecutorError(f"cannot start or join Ray{where}: {exc}", "ray_address") from exc
            try:
                if resources is None:
                    yield from self._actor_map(function, items, warm_up, lost)
                else:
                    yield from self._task_map(function, items, warm_up, lost, resources)
            finally:
                if started_here:
                    ray.shutdown()

    def _actor_map(
        self,
        function: Callable[[T], R],
        items: Iterable[T],
        warm_up: Callable[[], object] | None,
        lost: Callable[[T, str], R] | None,
    ) -> Iterator[R]:
        """``jobs`` actors (one CPU each) that warm up once and take item after item: for many short items."""
        import ray
        from ray.util import ActorPool

        actors: list[Any] = []
        try:
            # a lost actor (a cluster node gone) is restarted and its items retried: the function is pure
            stage = ray.remote(num_cpus=1, max_restarts=RESTARTS, max_task_retries=RESTARTS)(_Stage)
            actors = [stage.remote(function, warm_up) for _ in range(self.jobs)]
            pool = ActorPool(actors)
            sent: deque[T] = deque()

            def submit(item: T) -> None:
                sent.append(item)
                pool.submit(lambda actor, value: actor.run.remote(value), item)

            def next_result() -> R:
                item = sent.popleft()
                try:
                    return pool.get_next()
                except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as exc:
                    return _given_up(item, lost, exc)

            yield from bounded_map(items, submit, next_result, self.jobs * BATCHES_PER_WORKER)
        finally:
            for actor in actors:
                with contextlib.suppress(Exception):
                    ray.kill(actor)

    def _task_map(
        self,
        function: Callable[[T], R],
        items: Iterable[T],
        warm_up: Callable[[], object] | None,
        lost: Callable[[T, str], R] | None,
        resources: Callable[[T], Resources],
    ) -> Iterator[R]:
        """Each item a Ray task with the resources it asks for (one CPU; one GPU for an item that wants one when the
        cluster has any): for long items of mixed needs, as the benchmark's fits. At most ``jobs`` run at once; a
        task whose worker is lost is run again (:data:`~ucdcr.pipeline.executor.RESTARTS` times)."""
        import ray

        has_gpu = ray.cluster_resources().get("GPU", 0) >= 1
        environment = {"env_vars": {"OMP_NUM_THREADS": openmp_threads()}}
        task: Any = ray.remote(max_retries=RESTARTS)(_run_task)
        sent: deque[tuple[T, Any]] = deque()
        try:

            def submit(item: T) -> None:
                gpus = 1 if has_gpu and resources(item).gpu else 0
                hide = has_gpu and not gpus
                chosen = task.options(num_cpus=1, num_gpus=gpus, runtime_env=environment)
                sent.append((item, chosen.remote(function, warm_up, item, hide)))

            def next_result() -> R:
                item, reference = sent.popleft()
                try:
                    return ray.get(reference)
                except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as exc:
                    return _given_up(item, lost, exc)

            yield from bounded_map(items, submit, next_result, self.jobs)
        finally:
            for _, reference in sent:
                with contextlib.suppress(Exception):
                    ray.cancel(reference, force=True)


def openmp_threads() -> str:
    """The OpenMP threads of a local run here: ``OMP_NUM_THREADS`` as set, else the CPUs this process may use (the
    OpenMP default). Ray gives a one-CPU task ``OMP_NUM_THREADS=1``, which changes what torch computes even with its
    intra-op threads set (measured: a cross-encoder trained under it scores other means), so the benchmark's tasks
    get this value instead and compute what a local run computes."""
    given = os.environ.get("OMP_NUM_THREADS")
    if given:
        return given
    return str(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def _run_task(function: Callable[[T], R], warm_up: Callable[[], object] | None, item: T, hide_gpus: bool) -> R:
    """One item as a Ray task: the warm-up (idempotent), then the function; ``hide_gpus``: a task given no GPU on a
    cluster that has some sees none (Ray leaves ``CUDA_VISIBLE_DEVICES`` unset there: it would see them all)."""
    if hide_gpus:
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
    if warm_up is not None:
        warm_up()
    return function(item)


def _given_up(item: T, lost: Callable[[T, str], R] | None, exc: Exception) -> R:
    """An item whose worker Ray lost more often than it retries: ``lost``'s value for it, or a WorkerLost."""
    message = lost_message(item, RESTARTS + 1)
    if lost is None:
        raise WorkerLost(message) from exc
    return lost(item, message)


@contextmanager
def _only_ray_errors() -> Iterator[None]:
    """Ray's start-up and progress notices would drown the build's own output; its errors still show."""
    loggers = [logging.getLogger(name) for name in ("ray", "ray.data")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
