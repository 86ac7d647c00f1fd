"""What the confidence intervals add to a warm ``ucdcr benchmark`` run (every run answered from the results file):
the same command with ``--resamples 1000`` (the default) and ``--resamples 0`` (no intervals, no paired tests), each a
fresh process, run in turn; min and median wall seconds of each and the ratio of each pair. Then, in one process,
the tables alone (``benchmark_tables`` with and without intervals) timed the same way. Prints timings only, no
score.

    python bench/bootstrap_overhead.py --data-dir DIR [--datasets ecbplus] [--systems head-lemma,lemma-baseline]
        [--protocol standard] [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--datasets", default="ecbplus")
    parser.add_argument("--systems", default="head-lemma,lemma-baseline")
    parser.add_argument("--protocol", default="standard")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="ucdcr-bootstrap-"))
    command = [sys.executable, "-m", "ucdcr", "benchmark", "--data-dir", str(args.data_dir), "--datasets"]
    command += [args.datasets, "--systems", args.systems, "--protocol", args.protocol, "--cache-dir", str(cache)]
    command += ["--format", "json"]
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"
    )
    _run(command)  # fills the results file: every later run is warm
    with_intervals, without = [], []
    for _ in range(args.repeat):
        with_intervals.append(_run([*command, "--resamples", "1000"]))
        without.append(_run([*command, "--resamples", "0"]))
    ratios = [a / b for a, b in zip(with_intervals, without, strict=True)]
    _line("warm run, --resamples 1000", with_intervals)
    _line("warm run, --resamples 0", without)
    print(f"ratio per pair: min {min(ratios):.3f}, median {statistics.median(ratios):.3f}, max {max(ratios):.3f}")
    _in_process(args, cache)


def _run(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def _line(label: str, seconds: list[float]) -> None:
    print(f"{label}: min {min(seconds):.3f} s, median {statistics.median(seconds):.3f} s ({len(seconds)} runs)")


def _in_process(args: argparse.Namespace, cache: Path) -> None:
    from ucdcr.api import dataset_folders, make_protocol
    from ucdcr.report.benchmark_tables import benchmark_tables
    from ucdcr.systems.framework.runner import benchmark

    folders = dataset_folders(args.datasets.split(","), args.data_dir)
    result = benchmark(
        args.systems.split(","), folders, make_protocol(args.protocol, None, "gold", True), cache_dir=cache
    )
    timed: dict[int, list[float]] = {1000: [], 0: []}
    for _ in range(args.repeat):
        for resamples in timed:
            started = time.perf_counter()
            benchmark_tables(result, resamples)
            timed[resamples].append(time.perf_counter() - started)
    for resamples, seconds in timed.items():
        _line(f"tables in process, resamples {resamples}", seconds)
    extra = statistics.median(timed[1000]) - statistics.median(timed[0])
    print(f"the intervals and paired tests add {extra * 1000:.1f} ms (median) to the tables")


if __name__ == "__main__":
    main()
