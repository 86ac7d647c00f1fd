"""The Ray Data executor (``ucdcr build ... --executor ray [--ray-address ADDR]``; the ``dist`` extra).

The batches of the build (the same batches as the local executor's, so the same output) are taken from the reader
in windows of :data:`WINDOW_BATCHES`; each window becomes a Ray Dataset of pickled batches, and ``map_batches`` runs
the per-document stages in a pool of ``jobs`` actors, each of which runs the ``warm_up`` function once per window
(the build loads spaCy there), one build batch at a time; the results stream back to the building process in input
order (``preserve_order``), which spills and writes them as with the local executor. The windows bound what the
building process and the object store hold to one window of input, not the corpus (a window of 256 batches of 16
documents is about 4,000 documents; ECB+ is one window).

Without ``address`` a local Ray is started for the build (and shut down after it) unless one is already running in
this process; with ``address`` (``ray://host:10001`` or ``host:6379``) the build joins that cluster, whose nodes need
ucdcr and the spaCy model installed. Before anything is read, the address must accept a connection: the build
waits for it at most :data:`CONNECT_SECONDS` (env ``UCDCR_RAY_CONNECT_SECONDS``), says on stderr what it waits for,
and then stops with an error naming the address (Ray itself would retry silently for minutes). A Ray that is not
installed, or whose import fails (a broken install), is one error naming the ``dist`` extra and the failure.
A window's input batches are held in Ray's object store (which spills to disk),
the results are consumed as they come.
"""

from __future__ import annotations

import logging
import os
import pickle
import socket
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from ucdcr.errors import UcdcrError
from ucdcr.extras import install_hint
from ucdcr.io.atomic import reason
from ucdcr.pipeline.executor import batched

T = TypeVar("T")
R = TypeVar("R")

_COLUMN = "batch"
WINDOW_BATCHES = 256


CONNECT_SECONDS_ENV = "UCDCR_RAY_CONNECT_SECONDS"
CONNECT_SECONDS = 20.0
"""How long a build waits for the cluster at ``--ray-address`` to answer (env ``UCDCR_RAY_CONNECT_SECONDS``)."""


def require_ray() -> None:
    """A clear error when Ray Data is not installed, or is installed but cannot be imported (a broken install)."""
    try:
        import ray.data  # noqa: F401
    except ImportError as exc:
        raise UcdcrError(
            f"--executor ray needs Ray Data, which is in the `dist` extra: {install_hint('dist')} ({exc})"
        ) from exc
    except Exception as exc:  # a broken install: a library that fails to load, a version clash, ...
        message = " ".join(str(exc).split()) or "(no message)"
        raise UcdcrError(
            f"--executor ray needs Ray Data (the `dist` extra), but `import ray.data` failed: "
            f"{type(exc).__name__}: {message}; repair or reinstall it: {install_hint('dist')}"
        ) from exc


def check_address(address: str | None) -> None:
    """Wait until the cluster at ``address`` (``ray://host:port`` or ``host:port``) accepts a connection, for at most
    :data:`CONNECT_SECONDS` (saying on stderr what it waits for when the first try fails); then a UcdcrError naming
    the address and the reason. Other forms (``auto``, ``local``) are left to Ray."""
    if address is None:
        return
    host_port = address.removeprefix("ray://")
    host, _, port_text = host_port.rpartition(":")
    if not host or not port_text.isdigit():
        if address.startswith("ray://") or ":" in address:
            raise UcdcrError(f"--ray-address {address!r} is not ray://HOST:PORT or HOST:PORT")
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
            raise UcdcrError(
                f"no Ray cluster answers at {address} ({problem}; waited {seconds:g} s, env {CONNECT_SECONDS_ENV} "
                "sets how long): start it there (`ray start --head`), or leave out --ray-address for a local Ray"
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
        raise UcdcrError(f"env {CONNECT_SECONDS_ENV}={text!r} is not a number of seconds")
    return value


class _Stage:
    """One Ray actor: warms up once, then maps the function over pickled batches."""

    def __init__(self, function: Callable[[list[Any]], list[Any]], warm_up: Callable[[], object] | None) -> None:
        self.function = function
        if warm_up is not None:
            warm_up()

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        results = [pickle.dumps(self.function(pickle.loads(item)), pickle.HIGHEST_PROTOCOL) for item in batch[_COLUMN]]
        return {_COLUMN: results}


def ray_map(
    function: Callable[[list[T]], list[R]],
    batches: Iterable[list[T]],
    jobs: int,
    address: str | None,
    warm_up: Callable[[], object] | None,
) -> Iterator[list[R]]:
    """``function`` over every batch on Ray Data with ``jobs`` actors, yielding results in batch order."""
    require_ray()
    with _only_ray_errors():
        import ray
        import ray.data

        started_here = not ray.is_initialized()
        if started_here:
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise UcdcrError(f"cannot start or join Ray{f' at {address}' if address else ''}: {exc}") from exc
        try:
            context = ray.data.DataContext.get_current()
            context.execution_options.preserve_order = True
            context.enable_progress_bars = False
            for window in batched(batches, WINDOW_BATCHES):
                items = [{_COLUMN: pickle.dumps(batch, pickle.HIGHEST_PROTOCOL)} for batch in window]
                del window
                dataset = ray.data.from_items(items, override_num_blocks=len(items)).map_batches(
                    _Stage,
                    fn_constructor_args=(function, warm_up),
                    batch_size=1,
                    compute=ray.data.ActorPoolStrategy(size=max(jobs, 1)),
                    num_cpus=1,
                )
                del items
                for row in dataset.iter_rows():
                    yield pickle.loads(row[_COLUMN])
        finally:
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
