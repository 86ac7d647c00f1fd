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
failure. A lost actor is restarted and its items retried (:data:`RESTARTS` times); the actors end when the map ends,
also early (an error, Ctrl-C).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from ucdcr.extras import install_hint
from ucdcr.io.atomic import reason
from ucdcr.pipeline.executor import BATCHES_PER_WORKER, ExecutorError, bounded_map

T = TypeVar("T")
R = TypeVar("R")

RESTARTS = 3
"""How often Ray restarts a lost actor, and retries an item whose actor was lost (the function is pure)."""

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
        self, function: Callable[[T], R], items: Iterable[T], warm_up: Callable[[], object] | None = None
    ) -> Iterator[R]:
        """``function`` over every item on ``jobs`` actors, results in item order."""
        with _only_ray_errors():
            import ray
            from ray.util import ActorPool

            started_here = not ray.is_initialized()
            if started_here:
                try:
                    ray.init(
                        address=self.address, include_dashboard=False, log_to_driver=False, configure_logging=False
                    )
                except (ConnectionError, RuntimeError, ValueError) as exc:
                    where = f" at {self.address}" if self.address else ""
                    raise ExecutorError(f"cannot start or join Ray{where}: {exc}", "ray_address") from exc
            actors: list[Any] = []
            try:
                # a lost actor (a cluster node gone) is restarted and its items retried: the function is pure
                stage = ray.remote(num_cpus=1, max_restarts=RESTARTS, max_task_retries=RESTARTS)(_Stage)
                actors = [stage.remote(function, warm_up) for _ in range(self.jobs)]
                pool = ActorPool(actors)
                yield from bounded_map(
                    items,
                    lambda item: pool.submit(lambda actor, value: actor.run.remote(value), item),
                    pool.get_next,
                    self.jobs * BATCHES_PER_WORKER,
                )
            finally:
                for actor in actors:
                    with contextlib.suppress(Exception):
                        ray.kill(actor)
                if started_here:
                    ray.shutdown()


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
