"""The benchmark in one process, on ``-j 2`` local workers and on a two-node Ray cluster of this machine: wall times,
their ratios, and whether the three results stores hold the same runs.

A documented subset of the reference benchmark that trains four cross-encoders: ``head-lemma``, ``lemma-pairs``,
``pairwise`` and a cheaper ``cross-encoder`` (``bench/cheap_systems.py``: one epoch of ``--pairs`` training pairs,
candidates of 3 neighbours and 6 lemma partners scored in one order; the other options the defaults) with seeds 0
and 1, on the datasets given (NP4E and MEANTIME by default), under the standard protocol. Each
mode starts from an empty cache dir of its own, so each trains and scores everything; the encodings are computed in
each too. The Ray cluster is started with `ray start` (a head and a second node, one CPU each) and stopped after.

Prints per mode the wall time, then the ratios against one process, and whether every stored run (scores, units,
keys, models but their training time) is the same in the three stores; the machine and the load average before and
after.

    python bench/parallel_benchmark.py --data-dir DIR [--datasets np4e,meantime] [--pairs 2000] [--no-ray] [--no-jobs]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import ucdcr
from score_startup import machine
from ucdcr.systems.framework.store import RESULTS_FILE

PORT = 6393
HERE = Path(__file__).resolve().parent


def stored(cache: Path) -> dict[str, dict[str, Any]]:
    """The stored runs by key (the order of the file is the order they finished in), without what depends on when
    and where they ran."""
    runs = json.loads((cache / RESULTS_FILE).read_text())["runs"]
    for run in runs:
        run["model"] = re.sub(r"trained in [\d.]+ min", "trained", run["model"])
        for name in ("stored", "timing", "machine"):
            run.pop(name)
    return {run["key"]: run for run in runs}


def differences(mine: dict[str, dict[str, Any]], reference: dict[str, dict[str, Any]]) -> list[str]:
    """What differs from the reference store: keys missing on either side, and per run the fields that differ."""
    found = [f"only in one store: {key}" for key in sorted(set(mine) ^ set(reference))]
    for key in sorted(set(mine) & set(reference)):
        fields = [name for name in reference[key] if mine[key].get(name) != reference[key][name]]
        if fields:
            found.append(
                f"{reference[key]['system']} on {reference[key]['dataset']} seed {reference[key]['seed']}: {fields}"
            )
    return found


def ray_cluster(start: bool) -> str:
    ray = shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray"
    path = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH", "")]))
    environment = {**os.environ, "RAY_AUTH_MODE": "disabled", "PYTHONPATH": path}  # the nodes import cheap_systems
    if not start:
        subprocess.run([ray, "stop", "--force"], capture_output=True, env=environment, check=False)
        return ""
    common = ["--num-cpus", "1", "--disable-usage-stats"]
    head = [ray, "start", "--head", "--port", str(PORT), "--include-dashboard", "false", *common]
    subprocess.run(head, capture_output=True, env=environment, check=True)
    node = [ray, "start", "--address", f"127.0.0.1:{PORT}", *common]
    subprocess.run(node, capture_output=True, env=environment, check=True)
    return f"127.0.0.1:{PORT}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--datasets", default="np4e,meantime")
    parser.add_argument("--pairs", type=int, default=2000, help="training pairs of the cheap cross-encoder")
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--no-jobs", action="store_true", help="leave out the -j 2 mode (one process and Ray only)")
    args = parser.parse_args()
    os.environ["UCDCR_BENCH_PAIRS"] = str(args.pairs)  # the workers make the system from the environment
    os.environ["RAY_AUTH_MODE"] = "disabled"
    systems = ["head-lemma", "lemma-pairs", "pairwise", "cheap_systems:CheapCrossEncoder"]
    datasets = args.datasets.split(",")
    load = os.getloadavg()[0]
    modes: dict[str, dict[str, Any]] = {"one process": {}} if args.no_jobs else {"one process": {}, "-j 2": {"jobs": 2}}
    if not args.no_ray:
        modes["two Ray nodes"] = {"executor": "ray", "jobs": 2}
    times: dict[str, float] = {}
    stores: dict[str, dict[str, dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for mode, given in modes.items():
            cache = Path(folder) / mode.replace(" ", "-")
            on_ray = given.get("executor") == "ray"
            options = {**given, "ray_address": ray_cluster(True)} if on_ray else given
            started = time.perf_counter()
            try:
                ucdcr.benchmark(
                    systems, datasets, args.data_dir, cache_dir=cache, protocol="standard", seeds=2, **options
                )
            finally:
                if on_ray:
                    ray_cluster(False)
            times[mode] = time.perf_counter() - started
            stores[mode] = stored(cache)
            print(f"{mode:15} {times[mode]:8.1f} s wall ({len(stores[mode])} runs)", flush=True)
    print(f"machine: {machine()}; load average before {load:.2f}, after {os.getloadavg()[0]:.2f}")
    failed = False
    for mode in list(modes)[1:]:
        print(f"{mode} / one process: {times[mode] / times['one process']:.2f}x")
        found = differences(stores[mode], stores["one process"])
        print(f"{mode}: the same stored runs as one process: {'yes' if not found else 'NO'}")
        for line in found:
            print(f"  {line}")
        failed = failed or bool(found)
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
