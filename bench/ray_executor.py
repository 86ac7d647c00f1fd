"""Benchmark: ``--executor ray`` against the local process pool — same bytes, and the overhead as a ratio.

Usage: python bench/ray_executor.py [--raw-dir ../shared/raw] [--dataset ecbplus] [--jobs 2] [--repeat 2]
       python bench/ray_executor.py --hypercoref 2000 [--outlets 2]

Each build runs in a fresh process (``python -m ucdcr build DATASET -j N [--executor ray]``, a local Ray started
and stopped by the build), alternating local and Ray, ``--repeat`` times each, into its own data dir. Prints every
wall time, min and median per executor, the ratio Ray / local (of the minima and of the medians), whether every
output file has the same sha256 under both executors, and the load average. With ``--hypercoref N`` the input is
``bench/synthetic_hypercoref.py``'s output (N hyperlinks, every outlet, every hyperlink).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def build(dataset: str, raw: Path, data: Path, jobs: int, executor: str, extra: list[str]) -> float:
    shutil.rmtree(data, ignore_errors=True)
    command = [sys.executable, "-m", "ucdcr", "build", dataset, "-j", str(jobs), "--executor", executor, "-q"]
    command += ["--raw-dir", str(raw), "--data-dir", str(data), *extra]
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def hashes(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def synthetic(work: Path, mentions: int, outlets: int) -> Path:
    raw = work / "raw"
    script = REPO / "bench" / "synthetic_hypercoref.py"
    command = [sys.executable, str(script), str(raw), "--mentions", str(mentions), "--outlets", str(outlets)]
    subprocess.run(command, check=True, env=dict(os.environ, PYTHONPATH=str(REPO / "src")))
    return raw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--raw-dir", type=Path, default=REPO.parent / "shared" / "raw")
    parser.add_argument("--dataset", default="ecbplus")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--hypercoref", type=int, default=0, help="synthetic HyperCoref with this many hyperlinks")
    parser.add_argument("--outlets", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ucdcr-ray-bench-") as scratch:
        work = Path(scratch)
        dataset, raw, extra = args.dataset, args.raw_dir, []
        if args.hypercoref:
            dataset, raw = "hypercoref", synthetic(work, args.hypercoref, args.outlets)
            extra = ["--outlets", "all", "-o", "sample=false"]
        times: dict[str, list[float]] = {"local": [], "ray": []}
        for run in range(args.repeat):
            for executor in ("local", "ray"):
                seconds = build(dataset, raw, work / executor, args.jobs, executor, extra)
                times[executor].append(seconds)
                print(f"run {run + 1} {executor:5s} -j {args.jobs}: {seconds:7.1f} s", flush=True)
        same = hashes(work / "local" / dataset) == hashes(work / "ray" / dataset)
        files = len(hashes(work / "local" / dataset))
    print(f"\n{dataset} (-j {args.jobs}, {args.repeat} runs each, load average {os.getloadavg()[0]:.1f})")
    for executor, values in times.items():
        print(f"  {executor:5s} min {min(values):7.1f} s  median {statistics.median(values):7.1f} s")
    print(
        f"  ray / local: min {min(times['ray']) / min(times['local']):.2f}x, "
        f"median {statistics.median(times['ray']) / statistics.median(times['local']):.2f}x"
    )
    print(f"  outputs byte-identical: {'yes' if same else 'NO'} ({files} files compared by sha256)")


if __name__ == "__main__":
    main()
