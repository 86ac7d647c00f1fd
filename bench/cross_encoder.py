"""Train the ``cross-encoder`` system on one dataset (default ECB+, events and entities) and score it under both
protocols: prints the time of each training epoch and its mean loss, the total, and the models table (the pruning's
recall on val, what was tuned, the val CoNLL F1); with ``--final``, a final run, the test CoNLL F1 tables too
(development compares configurations on val alone: bench/final_run.py).

Each protocol is one ``ucdcr benchmark --systems cross-encoder`` subprocess (a user's run); the first trains the
model (unless ``--cache-dir`` already holds it), the second reads it from the model cache, so its time is the
scoring and tuning alone. The load average is printed before each run, because the machine may be shared.
``--systems`` runs other systems the same way (names or ``module:attribute``, e.g. a development subclass of
``CrossEncoder`` beside the default, to compare them on val); ``--dataset`` may name several, comma-separated.

    python bench/cross_encoder.py [--data-dir /tmp/final21b] [--dataset ecbplus] [--cache-dir DIR]
        [--protocols standard,ucdcr] [--systems cross-encoder] [--transfer] [--final]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from final_run import add_final_flag, benchmark_output, notice

EPOCH = re.compile(r"epoch (\d+)/(\d+) done in (\d+):(\d\d):(\d\d), mean loss ([\d.]+)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/final21b"))
    parser.add_argument("--dataset", default="ecbplus")
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--protocols", default="standard,ucdcr")
    parser.add_argument("--systems", default="cross-encoder", help="comma-separated names or module:attribute")
    parser.add_argument("--transfer", action="store_true", help="also the transfer matrix (every built dataset)")
    add_final_flag(parser)
    args = parser.parse_args()
    cache = args.cache_dir or Path(tempfile.mkdtemp(prefix="ucdcr-cross-encoder-"))
    print(notice(args.final), flush=True)
    print(f"cache dir {cache}; machine: {os.cpu_count()} CPUs", flush=True)
    for protocol in args.protocols.split(","):
        command = [sys.executable, "-m", "ucdcr", "benchmark", "--systems", args.systems, "--format", "md"]
        command += ["--data-dir", str(args.data_dir), "--cache-dir", str(cache), "--protocol", protocol]
        command += ["--transfer"] if args.transfer else ["--datasets", args.dataset]
        command += [] if args.final else ["--val-only"]  # test is predicted and scored in a final run only
        print(f"\n[{protocol}] load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"{protocol}: ucdcr benchmark failed:\n{done.stderr}")
        epochs = EPOCH.findall(done.stderr)
        for epoch, total, hours, minutes, seconds, loss in epochs:
            spent = int(hours) * 3600 + int(minutes) * 60 + int(seconds)
            print(f"[{protocol}] epoch {epoch}/{total}: {spent / 60:.1f} min, mean training loss {loss}")
        trained = sum(int(h) * 3600 + int(m) * 60 + int(s) for _, _, h, m, s, _ in epochs)
        print(
            f"[{protocol}] training {trained / 60:.1f} min ({'read from the model cache' if not epochs else 'trained'})"
            f", whole run {wall / 60:.1f} min wall"
        )
        print(benchmark_output(done.stdout, args.final))


if __name__ == "__main__":
    main()
