"""Several datasets built at once against one after another, with the same ``-j``: wall times, their ratio, and
whether the output files are byte-identical.

"One after another" is each dataset built in turn with a local pool of ``--jobs`` per-document workers (what ``ucdcr
build A B -j N`` did before 0.3); "at once" is ``ucdcr.build([A, B, ...], jobs=N)``, which builds up to N datasets at
the same time (``ucdcr.pipeline.several``). Each mode writes to a fresh folder; repeated ``--repeat`` times, min and
median printed, with the machine and the load average.

    python bench/build_datasets.py --raw-dir ../shared/raw [--datasets np4e,meantime,cd2cr,cerec,ecbplus] [-j 2]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import ucdcr
from score_startup import machine
from ucdcr.pipeline.build import build_dataset
from ucdcr.pipeline.executor import LocalExecutor


def digests(folder: Path) -> dict[str, str]:
    """Every output file's sha256 (the build report's wall time is not in the file), by path under ``folder``."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def one_after_another(datasets: list[str], raw: Path, out: Path, jobs: int) -> None:
    executor = LocalExecutor(jobs)
    for dataset in datasets:
        build_dataset(dataset, raw, out, executor=executor)


def at_once(datasets: list[str], raw: Path, out: Path, jobs: int) -> None:
    ucdcr.build(datasets, raw_dir=raw, data_dir=out, jobs=jobs, progress=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raw-dir", type=Path, required=True)
    parser.add_argument("--datasets", default="np4e,meantime,cd2cr,cerec,ecbplus")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    datasets = args.datasets.split(",")
    load = os.getloadavg()[0]
    times: dict[str, list[float]] = {"one after another": [], "at once": []}
    outputs: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for repeat in range(args.repeat):
            for mode, run in (("one after another", one_after_another), ("at once", at_once)):
                out = Path(scratch) / f"{mode.replace(' ', '-')}-{repeat}"
                started = time.perf_counter()
                run(datasets, args.raw_dir, out, args.jobs)
                times[mode].append(time.perf_counter() - started)
                outputs[mode] = digests(out)
                print(f"{mode:18} run {repeat + 1}: {times[mode][-1]:6.1f} s", flush=True)
    print(f"machine: {machine()}; load average before {load:.2f}, after {os.getloadavg()[0]:.2f}")
    print(f"datasets: {', '.join(datasets)}; -j {args.jobs}")
    for mode, values in times.items():
        print(f"{mode:18} min {min(values):6.1f} s, median {statistics.median(values):6.1f} s")
    one, several = times["one after another"], times["at once"]
    print(
        f"at once / one after another: {min(several) / min(one):.2f}x (minima), "
        f"{statistics.median(several) / statistics.median(one):.2f}x (medians)"
    )
    same = outputs["one after another"] == outputs["at once"]
    print(f"output files byte-identical: {'yes' if same else 'NO'} ({len(outputs['at once'])} files)")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
