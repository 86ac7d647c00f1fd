"""Map a function over batches from a slow reader on a ``-j 2`` pool under one start method, and interrupt or kill
this process once the first batch has come back (helper of tests/pipeline/test_start_methods.py).

    python -m tests.pipeline.executor_script METHOD ACTION PIDS_FILE

METHOD: fork | forkserver | spawn. ACTION: none (print the results), interrupt (Ctrl-C: SIGINT to the whole process
group, as a terminal sends it; run this in its own session; ends as the CLI ends on Ctrl-C: "interrupted", exit
130) or kill (SIGKILL of this process). Before acting, the worker pids are written to PIDS_FILE (JSON). The pool
runs while this process holds a build's output lock (``data/.x.lock`` beside PIDS_FILE), as a build does.
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


def square(batch: list[int]) -> list[int]:
    return [item * item for item in batch]


def slow_reader() -> Iterator[list[int]]:
    """Batches as a slow reader gives them: the workers wait for work most of the time (as in a build)."""
    for item in range(40):
        time.sleep(0.02)
        yield [item]


def main() -> None:
    method, action, pids_file = sys.argv[1:4]
    multiprocessing.set_start_method(method)
    from ucdcr.io.output_folder import OutputFolder
    from ucdcr.pipeline.executor import map_batches

    output = OutputFolder(Path(pids_file).parent / "data" / "x")  # holds the lock .x.lock, as a build does
    output.__enter__()
    results = []
    try:
        for number, batch in enumerate(map_batches(square, slow_reader(), jobs=2)):
            results += batch
            if number == 0 and action != "none":
                pids = [child.pid for child in multiprocessing.active_children()]
                Path(pids_file).write_text(json.dumps(pids), encoding="utf-8")
                if action == "kill":
                    os.kill(os.getpid(), signal.SIGKILL)
                os.killpg(0, signal.SIGINT)
                time.sleep(0.1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
