"""Wall time of the whole ``ucdcr benchmark`` (every reference system x every dataset + the transfer matrices), cold
and warm, where the time went (encoding, cross-encoder training, candidate scoring, the rest: clustering, tuning,
features, scoring), and the tables it prints.

Three passes, each in a fresh subprocess (so the encoder is loaded as a user's run loads it):

1. cold: an empty cache dir (nothing encoded, no stored results);
2. warm encodings: the same cache dir with the results file removed, so every system is fitted, tuned and tested
   again, but no sentence is encoded or lemmatised again;
3. warm: the same cache dir as it is after pass 2, so every run is answered from the results file.

``--repeat N`` repeats passes 2 and 3 (min and median printed). The load average is printed before each pass,
because the machine may be shared. The models table of the last pass (what each system learned, with its val
score) is printed in Markdown at the end; the test-score tables (scores, transfer matrices, leaderboard: those of
the README and docs/benchmark.md) only with ``--final``, a final run (development compares configurations on val
alone: bench/final_run.py). The timings are printed either way.

    python bench/benchmark.py [--data-dir /tmp/d10] [--datasets ecbplus,np4e,meantime,cd2cr,cerec]
        [--cache-dir DIR] [--repeat 1] [--skip-cold] [--protocol ucdcr|standard] [--level topic]
        [--topics predicted] [--final]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from final_run import add_final_flag, benchmark_output, notice
from ucdcr.systems.framework.store import RESULTS_FILE

TIMING = re.compile(r"(\d+) runs \((\d+) reused .*\) in ([\d.]+) s, ([\d.]+) s of it encoding")
EPOCH = re.compile(r"epoch \d+/\d+ done in (\d+):(\d\d):(\d\d)")
SCORED = re.compile(r"cross-encoder: scored ([\d,]+) pairs in ([\d.]+) s")


def run_pass(args: argparse.Namespace, cache_dir: Path, label: str) -> tuple[float, float, float, str]:
    """One ``ucdcr benchmark --transfer`` subprocess: (process wall time, runner seconds, encoding seconds, stdout)."""
    command = [sys.executable, "-m", "ucdcr", "benchmark", "--transfer", "--format", "md"]
    command += ["--cache-dir", str(cache_dir), "--data-dir", str(args.data_dir)]
    if args.datasets:
        command += ["--datasets", args.datasets]
    command += ["--protocol", args.protocol] + (["--level", args.level] if args.level else [])
    command += ["--topics", args.topics] if args.topics else []
    command += [] if args.final else ["--val-only"]  # test is predicted and scored in a final run only
    print(f"[{label}] load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    started, cpu_before = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    if done.returncode != 0:
        sys.exit(f"{label}: ucdcr benchmark failed:\n{done.stderr}")
    match = TIMING.search(done.stderr)
    if match is None:
        sys.exit(f"{label}: no timing line in:\n{done.stderr}")
    runs, reused, seconds, encoding = match.groups()
    training = sum(int(h) * 3600 + int(m) * 60 + int(s) for h, m, s in EPOCH.findall(done.stderr))
    scored = SCORED.findall(done.stderr)
    scoring = sum(float(spent) for _, spent in scored)
    pairs = sum(int(count.replace(",", "")) for count, _ in scored)
    print(
        f"[{label}] {wall:7.1f} s wall (process), {cpu:7.1f} s CPU, runner {float(seconds):7.1f} s, "
        f"encoding {float(encoding):6.1f} s ({float(encoding) / max(float(seconds), 1e-9):.0%}), "
        f"cross-encoder training {training:7.1f} s, candidate scoring {scoring:7.1f} s ({pairs:,} pairs), "
        f"the rest {float(seconds) - float(encoding) - training - scoring:7.1f} s; {runs} runs, {reused} reused",
        flush=True,
    )
    return wall, float(seconds), float(encoding), done.stdout


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes (the machine may be shared: CPU time is the
    figure that does not depend on the other workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path(os.environ.get("UCDCR_DATA_DIR", "/tmp/d10")))
    parser.add_argument("--datasets", default="", help="comma-separated (default: every dataset folder)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="default: a new temporary folder")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--protocol", default="ucdcr", help="ucdcr (default) or standard")
    parser.add_argument("--level", default="", help="ucdcr protocol: subtopic (default) or topic")
    parser.add_argument("--topics", default="", help="standard protocol: gold (default) or predicted")
    parser.add_argument("--skip-cold", action="store_true", help="start from the given --cache-dir as it is")
    add_final_flag(parser)
    args = parser.parse_args()
    cache_dir = args.cache_dir or Path(tempfile.mkdtemp(prefix="ucdcr-bench-"))
    print(notice(args.final), flush=True)
    print(f"cache dir {cache_dir}; {os.cpu_count()} CPUs", flush=True)
    if not args.skip_cold:
        shutil.rmtree(cache_dir, ignore_errors=True)
        cold = run_pass(args, cache_dir, "cold")
    warm_encodings, warm = [], []
    for index in range(args.repeat):
        (cache_dir / RESULTS_FILE).unlink(missing_ok=True)
        warm_encodings.append(run_pass(args, cache_dir, f"warm encodings {index + 1}"))
        warm.append(run_pass(args, cache_dir, f"warm {index + 1}"))
    print("\nsummary (process wall time in s; min / median over repeats)")
    if not args.skip_cold:
        print(f"  cold            {cold[0]:7.1f}   encoding share {cold[2] / max(cold[1], 1e-9):.0%}")
    for label, passes in (("warm encodings", warm_encodings), ("warm", warm)):
        walls = [item[0] for item in passes]
        share = statistics.median(item[2] / max(item[1], 1e-9) for item in passes)
        print(f"  {label:15} {min(walls):7.1f} / {statistics.median(walls):7.1f}   encoding share {share:.0%}")
    if not args.skip_cold:
        print(f"  ratio cold / warm encodings: {cold[0] / min(item[0] for item in warm_encodings):.1f}x")
    print(f"  load average now {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print(benchmark_output(warm[-1][3], args.final))


if __name__ == "__main__":
    main()
