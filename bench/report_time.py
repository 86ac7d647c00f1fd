"""Benchmark: wall time of ``ucdcr report`` on built datasets (by default the five of issue 39).

Usage: python bench/report_time.py --data-dir DIR [--datasets ecbplus,np4e,meantime,cd2cr,cerec] [--repeat 3]
       [--no-embed] [--cache-dir DIR] [--busy N] [--hide-opentsne]

Each run is a fresh process (``python -m ucdcr report --data-dir DIR --datasets ... --out TMP``, stderr not a
terminal: one progress line per step), into its own output folder. Prints the machine (CPU model, cores, load
average), the tree that runs (the one on PYTHONPATH: ``PYTHONPATH=/tmp/report_before/src`` measures another
checkout), every wall time with the run's CPU time (user + system) and the load average after it, the min and
median wall time, the slowest steps of the median run (from its progress lines, 1 s resolution) and whether every
run wrote the same bytes. Wall times are only comparable on an otherwise idle machine: check the load averages.
``--cache-dir``: where the report looks for stored ``ucdcr benchmark`` results; by default an empty folder, so that
the timing does not depend on what benchmarks happened to store (pass the benchmark's cache dir to time the report
with its benchmark section). ``--busy N``: N processes spinning on a core each during the runs (at the script's
own priority), as a training beside the report (issue 39 measured the report while a model was training).
``--hide-opentsne``: the report as without openTSNE installed (scikit-learn's t-SNE): an ``openTSNE`` package that
fails to import first on the report's PYTHONPATH.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIVE = "ecbplus,np4e,meantime,cd2cr,cerec"
STEP = re.compile(r"^\[\s*(?:(\d+)m)?(\d+)s\] report: (.*)$")  # `[  1m05s] report: <step>` (also `[  65s] ...`)


def machine() -> str:
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if "model name" in line]
        model = names[0] if names else model
    return f"{platform.node()}: {model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def tree(env: dict[str, str]) -> str:
    """Where ucdcr is imported from and its t-SNE engine, in the report's environment."""
    code = (
        "import pathlib, ucdcr; from ucdcr.report.figures import tsne_engine; "
        "print(f'{pathlib.Path(ucdcr.__file__).parents[1]}, t-SNE: {tsne_engine()}')"
    )
    command = [sys.executable, "-c", code]
    return subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout.strip()


def environment(args: argparse.Namespace, work: Path) -> dict[str, str]:
    env = dict(os.environ)
    if args.hide_opentsne:
        shim = work / "hide-opentsne" / "openTSNE"
        shim.mkdir(parents=True)
        (shim / "__init__.py").write_text('raise ImportError("hidden by bench/report_time.py --hide-opentsne")\n')
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(shim.parent), env.get("PYTHONPATH")]))
    return env


def spin(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report(args: argparse.Namespace, out: Path, env: dict[str, str]) -> tuple[float, float, str]:
    command = [sys.executable, "-m", "ucdcr", "report", "--data-dir", str(args.data_dir), "--datasets"]
    command += [args.datasets, "--out", str(out), "--cache-dir", str(args.cache_dir)]
    command += ["--no-embed"] if args.no_embed else []
    started, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(command, check=False, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"ucdcr report failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return seconds, children_cpu() - cpu, done.stderr


def steps(stderr: str, total: float) -> list[tuple[float, str]]:
    """(seconds, step) of each progress line: the time to the next line of the same thread (the report computes its
    mention map in a background thread, whose lines say "(in the background)"); for the last line of the main
    thread, to the end of the process."""
    threads: dict[bool, list[tuple[int, str]]] = {False: [], True: []}
    for line in stderr.splitlines():
        found = STEP.match(line)
        if found:
            threads["(in the background)" in found[3]].append((int(found[1] or 0) * 60 + int(found[2]), found[3]))
    result = []
    for background, marks in threads.items():
        ends = [at for at, _ in marks[1:]] + [marks[-1][0] if background and marks else total]
        result += [(end - at, step) for (at, step), end in zip(marks, ends, strict=True)]
    return result


def digest(folder: Path) -> str:
    sha = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            sha.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return sha.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True, help="where the datasets are built")
    parser.add_argument("--datasets", default=FIVE)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-embed", action="store_true", help="pass --no-embed (no mention map)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="default: an empty folder")
    parser.add_argument("--busy", type=int, default=0, help="processes spinning beside the report (default 0)")
    parser.add_argument("--hide-opentsne", action="store_true", help="as without openTSNE (scikit-learn's t-SNE)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ucdcr-report-time-") as scratch:
        work = Path(scratch)
        env = environment(args, work)
        print(f"machine: {machine()}")
        print(f"tree: {tree(env)}; python {platform.python_version()}; load average at start {load()}", flush=True)
        options = (" --no-embed" if args.no_embed else "") + (" (openTSNE hidden)" if args.hide_opentsne else "")
        busy = f", {args.busy} busy process(es) beside it" if args.busy else ""
        print(f"ucdcr report --datasets {args.datasets}{options} on {args.data_dir}{busy}", flush=True)
        if args.cache_dir is None:
            args.cache_dir = work / "cache"
            args.cache_dir.mkdir()
        spinning = spin(args.busy)
        try:
            runs = []
            for run in range(args.repeat):
                out = work / f"report-{run + 1}"
                seconds, cpu, stderr = report(args, out, env)
                runs.append((seconds, stderr, digest(out)))
                print(f"run {run + 1}: {seconds:6.1f} s wall, {cpu:6.1f} s CPU (load {load()})", flush=True)
        finally:
            for process in spinning:
                process.kill()
                process.wait()
    times = [seconds for seconds, _, _ in runs]
    median = statistics.median(times)
    print(f"wall: min {min(times):.1f} s, median {median:.1f} s over {len(times)} runs")
    seconds, stderr, _ = min(runs, key=lambda run: abs(run[0] - median))
    print("slowest steps of the median run:")
    for took, step in sorted(steps(stderr, seconds), key=lambda item: -item[0])[:6]:
        print(f"  {took:5.0f} s  {step}")
    same = len({sha for _, _, sha in runs}) == 1
    print(f"outputs byte-identical across runs: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
