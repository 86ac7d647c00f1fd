"""Run ``ucdcr build`` (the CLI's own entry point) under one ``multiprocessing`` start method, and interrupt or kill
it once the first batch has come back from the pool (helper of tests/pipeline/test_start_methods.py).

    python start_method_script.py METHOD ACTION PIDS_FILE UCDCR_ARGS...

METHOD: fork | forkserver | spawn. ACTION: none (run to the end), interrupt (Ctrl-C: SIGINT to the whole process
group, as a terminal sends it; run this script in its own session) or kill (SIGKILL of this process, no clean-up).
Before acting, the pids of the pool's workers are written to PIDS_FILE (JSON). Five documents go in batches of
one, so that ``-j 2`` really starts a pool.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    method, action, pids_file = sys.argv[1:4]
    multiprocessing.set_start_method(method)
    from ucdcr.pipeline import build

    build.DOCUMENTS_PER_BATCH = 1
    original = build.LocalExecutor.map

    def map_batches(*args: Any, **kwargs: Any) -> Any:
        for number, results in enumerate(original(*args, **kwargs)):
            if number == 0 and action != "none":
                pids = [child.pid for child in multiprocessing.active_children()]
                Path(pids_file).write_text(json.dumps(pids), encoding="utf-8")
                if action == "kill":
                    os.kill(os.getpid(), signal.SIGKILL)
                os.killpg(0, signal.SIGINT)
                time.sleep(5)  # Ctrl-C arrives here
            yield results

    build.LocalExecutor.map = map_batches  # type: ignore[method-assign]
    from ucdcr.cli.app import main

    sys.argv = ["ucdcr", *sys.argv[4:]]
    main()
