"""What one call of ``SplitData.conll_f1`` costs (the score a system's tuning maximises, some thousand calls a fit):
the whole protocol per clustering (``run_protocol``) against the split's plan made once (``plan_protocol``) and
one clustering scored with it (``score_plan``, without the standard protocol's per-topic counts, as tuning scores).

For each dataset and protocol, on its val split clustered by head lemma within topics, the two are timed in turn,
``--repeat`` times after one unmeasured call of each; prints min and median milliseconds of each and the ratio of
the minima, and checks that both give the same scores.

    python bench/tuning_score.py --data-dir DIR [--datasets ecbplus,cd2cr] [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from ucdcr.analysis.protocol import (
    STANDARD,
    UCDCR,
    load_for_protocol,
    plan_protocol,
    run_protocol,
    score_plan,
    unit_scoped,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--datasets", default="ecbplus,cd2cr")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"
    )
    print(f"{'dataset':10} {'protocol':9} {'run_protocol ms':>16} {'score_plan ms':>14} {'ratio':>6}")
    for dataset in args.datasets.split(","):
        table, topic_level = load_for_protocol(args.data_dir / dataset, "val")
        labels = unit_scoped(table["mention_head_lemma"].to_pylist(), table["topic_id"].to_pylist())
        for protocol in (UCDCR, STANDARD):
            level = True if protocol.standard else topic_level
            plan = plan_protocol(dataset, table, level, "val", protocol)
            whole = partial(run_protocol, dataset, table, labels, level, "val", protocol)
            planned = partial(score_plan, plan, labels, by_topic=False)
            if [m.scores for m in whole().means] != [m.scores for m in planned().means]:
                raise SystemExit(f"{dataset} {protocol.name}: the two give different scores")
            times = _alternated({"whole": whole, "planned": planned}, args.repeat)
            cells = [f"{min(t):.1f} / {statistics.median(t):.1f}" for t in times.values()]
            ratio = min(times["whole"]) / min(times["planned"])
            print(f"{dataset:10} {protocol.name:9} {cells[0]:>16} {cells[1]:>14} {ratio:5.2f}x")


def _alternated(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[float]]:
    """Milliseconds of each call, the calls in turn ``repeat`` times."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            started = time.perf_counter()
            call()
            times[name].append(1000 * (time.perf_counter() - started))
    return times


if __name__ == "__main__":
    main()
