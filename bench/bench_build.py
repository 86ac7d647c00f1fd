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
    parser.add_argument(
        "--beside-ab", action="store_true", help="alternate runs with and without the forked token-table writer"
    )
    args = parser.parse_args()

    import ucdcr.pipeline.write

    can_fork = getattr(ucdcr.pipeline.write, "can_run_beside", None)

    def set_beside(on: bool) -> None:
        if can_fork is not None:
            ucdcr.pipeline.write.can_run_beside = can_fork if on else (lambda: False)  # type: ignore[attr-defined]

    set_beside(not args.no_beside)

    from ucdcr.pipeline import build
    from ucdcr.pipeline.build import build_dataset
    from ucdcr.pipeline.nlp import load_nlp

    started = time.perf_counter()
    load_nlp()
    print(f"spaCy model load: {time.perf_counter() - started:.2f} s (not counted below)")
    print(f"cores: {os.cpu_count()}, jobs: {args.jobs}, tree: {Path(ucdcr.pipeline.write.__file__).parents[2]}")
    callbacks = hasattr(build, "ProgressCallback")  # this tree's progress is a callback (else a bool)
    times: dict[str, list[float]] = {}
    for run in range(args.repeat * (2 if args.beside_ab else 1)):
        mode = ("beside" if run % 2 == 0 else "no-beside") if args.beside_ab else "run"
        if args.beside_ab:
            set_beside(run % 2 == 0)
        writing: list[float] = []

        def progress(description: str, done: int, total: int | None, writing: list[float] = writing) -> None:
            if "writing" in description and not writing:
                writing.append(time.perf_counter())

        with tempfile.TemporaryDirectory() as data_dir:
            started = time.perf_counter()
            report = build_dataset(
                args.dataset,
                raw_dir=args.raw_dir,
                data_dir=data_dir,
                jobs=args.jobs,
                progress=progress if callbacks else False,  # a tree without callbacks would draw a rich bar
            )
            seconds = time.perf_counter() - started
            write = f", validating and writing {time.perf_counter() - writing[0]:.1f} s" if writing else ""
        times.setdefault(mode, []).append(seconds)
        counts = report.counts
        print(
            f"run {run + 1}: {args.dataset} built in {seconds:.1f} s wall: {counts['documents']} documents, "
            f"{counts['tokens']} tokens ({counts['tokens'] / seconds:,.0f} tokens/s), "
            f"{counts['mentions_written']} mentions ({counts['mentions_written'] / seconds:,.0f} mentions/s), "
            f"{counts['sentences_parsed']} sentences fully parsed{write} [{mode}] (load {os.getloadavg()[0]:.2f})"
        )
    for mode, values in times.items():
        print(f"{mode}: min {min(values):.2f} s, median {statistics.median(values):.2f} s over {len(values)} runs")


if __name__ == "__main__":
    main()
