"""Start-up of `ucdcr score` against the bare `ucdcr --version`: fresh processes, interleaved, one run.

Writes the 5,000-mention CoNLL key/response pair of ``bench_scorer.py`` (one meta document, 1,000 chains) to a
temporary folder, then runs in turn, ``--repeat`` rounds (the order alternates from round to round):

- ``ucdcr --version``
- ``ucdcr score KEY RESPONSE`` (the default: all metrics and the 95% bootstrap intervals)
- ``ucdcr score KEY RESPONSE --resamples 0`` (no intervals)
- ``python -c pass`` and ``python -c "import numpy"``: the interpreter's own start-up and numpy's import, the
  floors under any `ucdcr` command and under the scorer (its metrics are computed with numpy)
- ``ucdcr --version`` after importing what ``ucdcr score`` cannot do without (numpy with one BLAS thread, as the
  command imports it, and numpy.random for the bootstrap): the floor under the score's ratio

and prints each command's wall times (min and median), the ratio of each score command's minimum to the minimum
of ``--version`` (the figure the target is stated in; the ratio of medians beside it), the machine, and the load
average before and after. The commands run as the console script installed next to this interpreter (not through
a pyenv shim), else as ``python -m ucdcr``; the environment is passed on, so ``PYTHONPATH=OTHER_CHECKOUT/src``
measures another checkout (the header says where each ``ucdcr`` was imported from). ``--baseline-src DIR`` runs the
three `ucdcr` commands a second time in every round with ``PYTHONPATH=DIR`` (another checkout's ``src``, e.g. a
``git worktree`` of an earlier commit): before and after in one interleaved run, on a busy machine too.

Bytecode: an installed package has its modules compiled, and so has a checkout once it has run, unless
``PYTHONDONTWRITEBYTECODE`` is set: then every run compiles every module without a ``.pyc`` (ucdcr's own, from a
checkout, about 0.03 s of a score's start-up). So when it is set, the commands run without it and with
``PYTHONPYCACHEPREFIX`` set to a temporary folder (the bytecode is written there, not into the checkouts; the warm-up
round writes it); ``--as-env`` keeps the environment as it is. The header says which.

    python bench/score_startup.py [--repeat 15] [--mentions 5000] [--chains 1000] [--baseline-src DIR] [--as-env]
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

from bench_scorer import meta_document, write_meta_files

FLOOR = """
import numpy, numpy.random
import sys
from ucdcr.cli.app import main
sys.argv = ["ucdcr", "--version"]
main()
"""
"""``ucdcr --version`` in a process that imported first the modules ``ucdcr score`` needs whatever it scores."""
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
"""As ``ucdcr score`` imports numpy (ucdcr.cli.score.lean_runtime)."""


def ucdcr_command() -> list[str]:
    """The `ucdcr` console script beside this interpreter, else ``python -m ucdcr``."""
    script = Path(sys.executable).with_name("ucdcr")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "ucdcr"]


def where_ucdcr(env: dict[str, str] | None = None) -> str:
    code = "import ucdcr, ucdcr.version; print(ucdcr.__file__, ucdcr.version.__version__)"
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return completed.stdout.strip()


def run_once(command: list[str], env: dict[str, str] | None) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if "model name" in line]
        model = names[0] if names else ""
    return (
        f"{platform.node()}: {model or cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="Rounds (each runs every command once).")
    parser.add_argument("--mentions", type=int, default=5000, help="Mentions of the meta document.")
    parser.add_argument("--chains", type=int, default=1000, help="Key chains of the meta document.")
    parser.add_argument(
        "--baseline-src", type=Path, metavar="DIR", help="Also run the ucdcr commands with PYTHONPATH=DIR."
    )
    parser.add_argument(
        "--as-env",
        action="store_true",
        help="Keep PYTHONDONTWRITEBYTECODE as the environment has it (by default bytecode is cached, see above).",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        base = dict(os.environ)
        if os.environ.get("PYTHONDONTWRITEBYTECODE") and not args.as_env:
            del base["PYTHONDONTWRITEBYTECODE"]
            base["PYTHONPYCACHEPREFIX"] = str(Path(folder, "bytecode"))
            bytecode = f"cached in {base['PYTHONPYCACHEPREFIX']} (PYTHONDONTWRITEBYTECODE unset for the runs)"
        elif os.environ.get("PYTHONDONTWRITEBYTECODE"):
            bytecode = "none (PYTHONDONTWRITEBYTECODE set: every run compiles the modules that have no .pyc)"
        else:
            bytecode = "cached as Python caches it"
        measure(args, base, bytecode, Path(folder))


def measure(args: argparse.Namespace, base: dict[str, str], bytecode: str, folder: Path) -> None:
    ucdcr = ucdcr_command()
    groups: dict[str, dict[str, str]] = {"": base}
    if args.baseline_src:
        paths = [str(args.baseline_src.resolve()), *filter(None, base.get("PYTHONPATH", "").split(os.pathsep))]
        groups[" [baseline]"] = {**base, "PYTHONPATH": os.pathsep.join(paths)}
    print(f"ucdcr: {' '.join(ucdcr)}")
    for suffix, env in groups.items():
        print(f"  {suffix.strip(' []') or 'measured'}: {where_ucdcr(env)}")
    print(f"bytecode: {bytecode}")
    print(f"machine: {machine()}")
    print(f"load average before: {load()}")
    key, response = write_meta_files(folder, *meta_document(args.mentions, args.chains))
    commands: dict[str, tuple[list[str], dict[str, str]]] = {}
    for suffix, env in groups.items():
        commands[f"ucdcr --version{suffix}"] = ([*ucdcr, "--version"], env)
        commands[f"ucdcr score{suffix}"] = ([*ucdcr, "score", str(key), str(response)], env)
        commands[f"ucdcr score --resamples 0{suffix}"] = (
            [*ucdcr, "score", str(key), str(response), "--resamples", "0"],
            env,
        )
    commands["ucdcr --version after numpy (floor)"] = ([sys.executable, "-c", FLOOR], {**base, **ONE_BLAS_THREAD})
    commands["python -c pass"] = ([sys.executable, "-c", "pass"], base)
    commands["python -c 'import numpy'"] = ([sys.executable, "-c", "import numpy"], base)
    for command, env in commands.values():  # warm the file cache and the bytecode
        run_once(command, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(args.repeat):
        order = list(commands) if round_ % 2 == 0 else list(reversed(commands))
        for name in order:
            times[name].append(run_once(*commands[name]))
    print(f"load average after:  {load()}")
    print(f"{args.mentions:,} mentions, {args.chains:,} key chains; {args.repeat} rounds, interleaved")
    print("ratios: to `ucdcr --version` of the same checkout\n")
    print(f"{'command':39s} {'min s':>7s} {'median s':>9s} {'ratio of min':>13s} {'ratio of median':>16s}")
    for name, values in times.items():
        suffix = next((suffix for suffix in groups if suffix and name.endswith(suffix)), "")
        reference = times[f"ucdcr --version{suffix}"]
        low, middle = min(values), statistics.median(values)
        low_ratio, median_ratio = low / min(reference), middle / statistics.median(reference)
        print(f"{name:39s} {low:7.3f} {middle:9.3f} {low_ratio:13.2f} {median_ratio:16.2f}")


if __name__ == "__main__":
    main()
