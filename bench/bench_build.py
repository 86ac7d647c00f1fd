"""Benchmark: ECB+ (or any dataset) build wall time and throughput.

Usage: python bench/bench_build.py [--dataset ecbplus] [--raw-dir ../shared/raw] [--jobs 2] [--repeat 1] [--no-beside]
Prints wall time, tokens/s, mentions/s and the sentences that needed the full spaCy pipeline, then the minimum and
median wall time and the load average. ``--no-beside``: (a tree that still has it) the token table written in this
process, not in a forked process beside the mentions -- to measure what the fork gains. Runs the tree on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="ecbplus")
    parser.add_argument("--raw-dir", type=Path, default=REPO.parent / "shared" / "raw")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-beside", action="store_true")
    args = parser.parse_args()

    import ucdcr.io.writer

    if args.no_beside and hasattr(ucdcr.io.writer, "can_run_beside"):
        ucdcr.io.writer.can_run_beside = lambda: False  # type: ignore[attr-defined]

    from ucdcr.pipeline.build import build_dataset
    from ucdcr.pipeline.nlp import load_nlp

    started = time.perf_counter()
    load_nlp()
    print(f"spaCy model load: {time.perf_counter() - started:.2f} s (not counted below)")
    print(f"cores: {os.cpu_count()}, jobs: {args.jobs}, tree: {Path(ucdcr.io.writer.__file__).parents[2]}")
    times = []
    for run in range(args.repeat):
        with tempfile.TemporaryDirectory() as data_dir:
            started = time.perf_counter()
            report = build_dataset(
                args.dataset, raw_dir=args.raw_dir, data_dir=data_dir, jobs=args.jobs, progress=False
            )
            seconds = time.perf_counter() - started
        times.append(seconds)
        counts = report.counts
        print(
            f"run {run + 1}: {args.dataset} built in {seconds:.1f} s wall: {counts['documents']} documents, "
            f"{counts['tokens']} tokens ({counts['tokens'] / seconds:,.0f} tokens/s), "
            f"{counts['mentions_written']} mentions ({counts['mentions_written'] / seconds:,.0f} mentions/s), "
            f"{counts['sentences_parsed']} sentences fully parsed (load {os.getloadavg()[0]:.2f})"
        )
    print(f"min {min(times):.2f} s, median {statistics.median(times):.2f} s over {len(times)} runs")


if __name__ == "__main__":
    main()
