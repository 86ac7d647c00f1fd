"""Run a ``-j 2`` pool under one ``multiprocessing`` start method, and interrupt or kill this process once the first
batch has come back from the pool (helper of tests/pipeline/test_start_methods.py).

    python -m tests.pipeline.start_method_script pool METHOD ACTION PIDS_FILE
    python -m tests.pipeline.start_method_script build METHOD ACTION PIDS_FILE UCDCR_ARGS...

pool: map a function over batches from a slow reader (fast, no spaCy) while this process holds a build's output
lock (``data/.x.lock`` beside PIDS_FILE), as a build does; prints the results. build: ``ucdcr build`` through the
CLI's own entry point, five documents in batches of one, so that ``-j 2`` really starts a pool.

METHOD: fork | forkserver | spawn. ACTION: none (run to the end), interrupt (Ctrl-C: SIGINT to the whole process
group, as a terminal sends it; run this in its own session; the pool ends as the CLI ends on Ctrl-C:
"interrupted", exit 130) or kill (SIGKILL of this process, no clean-up). Before acting, the pids of the pool's
workers are written to PIDS_FILE (JSON).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def first_batch_back(action: str, pids_file: str, wait: float) -> None:
    """Write the workers' pids, then kill this process or send Ctrl-C to its group and wait ``wait`` s for it."""
    if action == "none":
        return
    pids = [child.pid for child in multiprocessing.active_children()]
    Path(pids_file).write_text(json.dumps(pids), encoding="utf-8")
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    os.killpg(0, signal.SIGINT)
    time.sleep(wait)  # Ctrl-C arrives here


def square(batch: list[int]) -> list[int]:
    return [item * item for item in batch]


def slow_reader() -> Iterator[list[int]]:
    """Batches as a slow reader gives them: the workers wait for work most of the time (as in a build), and the
    first comes after the workers have started (a reader opening its files), so a pool that starts a worker only
    when none is idle would run all of them on one worker."""
    time.sleep(0.5)
    for item in range(40):
        time.sleep(0.02)
        yield [item]


def pool(action: str, pids_file: str) -> None:
    from ucdcr.io.output_folder import OutputFolder
    from ucdcr.pipeline.executor import map_batches

    output = OutputFolder(Path(pids_file).parent / "data" / "x")  # holds the lock .x.lock, as a build does
    output.__enter__()
    results = []
    try:
        for number, batch in enumerate(map_batches(square, slow_reader(), jobs=2)):
            results += batch
            if number == 0:
                first_batch_back(action, pids_file, wait=0.1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    print(json.dumps(results))


def build(action: str, pids_file: str, ucdcr_args: list[str]) -> None:
    from ucdcr.pipeline import build as pipeline

    pipeline.DOCUMENTS_PER_BATCH = 1
    original = pipeline.LocalExecutor.map

    def map_batches(*args: Any, **kwargs: Any) -> Any:
        for number, results in enumerate(original(*args, **kwargs)):
            if number == 0:
                first_batch_back(action, pids_file, wait=5)
            yield results

    pipeline.LocalExecutor.map = map_batches  # type: ignore[method-assign]
    from ucdcr.cli.app import main

    sys.argv = ["ucdcr", *ucdcr_args]
    main()


if __name__ == "__main__":
    mode, method, action, pids_file = sys.argv[1:5]
    multiprocessing.set_start_method(method)
    if mode == "pool":
        pool(action, pids_file)
    else:
        build(action, pids_file, sys.argv[5:])
