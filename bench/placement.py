"""Placing a system among the shipped reference runs: `ucdcr evaluate PREDS --protocol standard --datasets ecbplus`
against the same evaluation without references and against `ucdcr --version`, fresh processes, interleaved.

Writes a hand-written system's predictions for the test split of a built ECB+ (inside each gold topic, mentions
with the same lower-cased head lemma corefer: the clustering of the shipped `lemma-baseline`) into a temporary
folder, then runs in turn, ``--repeat`` rounds (the order alternates from round to round), each with an empty
cache dir of its own (``UCDCR_CACHE_DIR``: nothing trained or stored before):

- ``ucdcr evaluate PREDS --protocol standard --datasets ecbplus`` (the default: the leaderboard beside the seven
  shipped reference systems, Δ best and exact p, 95% intervals): the figure the target is stated in (under 5 s);
- the same with ``--references none``: the evaluation alone, the floor under the placement;
- ``ucdcr --version``: the start-up floor.

It prints each command's wall times (min and median), the ratio of the placement's minimum to the evaluation's,
whether the user's row reproduces `lemma-baseline`'s shipped number, the machine and the load average before and
after.

    python bench/placement.py --data-dir DIR [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from score_startup import machine, ucdcr_command


def write_predictions(data_dir: Path, path: Path) -> None:
    import ucdcr

    test = ucdcr.load("ecbplus", split="test", data_dir=data_dir)
    columns = [test[name].to_pylist() for name in ("mention_id", "topic_id", "mention_head_lemma")]
    predictions = {mention: f"{topic}|{lemma.lower()}" for mention, topic, lemma in zip(*columns, strict=True)}
    path.write_text(json.dumps(predictions), encoding="utf-8")


def run_once(command: list[str], cache: Path) -> tuple[float, str]:
    environment = {**os.environ, "UCDCR_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=environment)
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True, help="A data dir with ecbplus built.")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        predictions = Path(folder) / "preds.json"
        write_predictions(args.data_dir, predictions)
        evaluate = [*ucdcr_command(), "evaluate", str(predictions), "--protocol", "standard", "--datasets", "ecbplus"]
        evaluate += ["--data-dir", str(args.data_dir)]
        commands = {
            "evaluate, placed among the shipped references": evaluate,
            "evaluate --references none": [*evaluate, "--references", "none"],
            "ucdcr --version": [*ucdcr_command(), "--version"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        output = ""
        for round_number in range(args.repeat + 1):  # round 0 warms the bytecode and the page cache
            order = list(commands) if round_number % 2 else list(reversed(commands))
            for name in order:
                seconds, stdout = run_once(commands[name], Path(tempfile.mkdtemp(dir=folder)))
                if round_number:
                    times[name].append(seconds)
                if name.startswith("evaluate, placed"):
                    output = stdout
    print(f"machine: {machine()}; load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    print(f"{args.repeat} rounds, fresh processes, an empty cache dir each")
    for name, found in times.items():
        print(f"{name:48} min {min(found):6.3f} s   median {statistics.median(found):6.3f} s")
    placed, alone = times["evaluate, placed among the shipped references"], times["evaluate --references none"]
    ratio_min, ratio_median = min(placed) / min(alone), statistics.median(placed) / statistics.median(alone)
    print(f"placement / evaluation alone: {ratio_min:.2f}x (min), {ratio_median:.2f}x (median)")
    row = next((line for line in output.splitlines() if line.startswith("| preds.json |")), "(no row)")
    reference = next((line for line in output.splitlines() if line.startswith("| lemma-baseline |")), "(no row)")
    print(f"user's row:      {row}")
    print(f"lemma-baseline:  {reference}")
    if not row.startswith("| preds.json | 69.46 [66.40, 72.01] |"):
        sys.exit("the user's row does not reproduce lemma-baseline's shipped 69.46 [66.40, 72.01]")


if __name__ == "__main__":
    main()
