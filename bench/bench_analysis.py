"""Wall time of `ucdcr stats` + `diversity` + `baseline` over every dataset folder of a data dir.

Usage: python bench/bench_analysis.py [--data-dir DIR] [--repeat N]
(default: $UCDCR_DATA_DIR or the user data dir; ../shared/reference also works: the authors' release).
Prints one line per dataset and command (best of N runs, loading included) and the total. Never run as a test.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from ucdcr.paths import resolve_data_dir
from ucdcr.report import paper_tables
from ucdcr.sources.discover import discover_datasets


def _best_of(repeat: int, action: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folders = discover_datasets(resolve_data_dir(args.data_dir))
    commands: dict[str, Callable[[Path], object]] = {
        "stats": lambda folder: paper_tables.stats_tables({folder.name: folder}),
        "diversity": lambda folder: paper_tables.diversity_tables({folder.name: folder}),
        "baseline": lambda folder: paper_tables.baseline_results({folder.name: folder}),
    }
    total = 0.0
    print(f"{'dataset':<16}{'command':<11}{'seconds':>9}")
    for name, folder in folders.items():
        for command, run in commands.items():
            seconds = _best_of(args.repeat, lambda run=run, folder=folder: run(folder))
            total += seconds
            print(f"{name:<16}{command:<11}{seconds:>9.2f}")
    print(f"{'all':<16}{'all three':<11}{total:>9.2f}   ({len(folders)} datasets, best of {args.repeat})")


if __name__ == "__main__":
    main()
