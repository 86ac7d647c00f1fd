"""The acceptance command of the intervals, on our real ECB+ build: ``ucdcr benchmark --protocol standard --systems
head-lemma,lemma-baseline --datasets ecbplus --format json`` as a user runs it, twice (the second from the results
file): every score carries its bounds, the leaderboard its paired comparison, and both runs print the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

F1 = ("MUC", "B3", "CEAFe", "CoNLL")


def _run(data_dir: Path, cache: Path) -> tuple[list[dict], str]:
    command = [sys.executable, "-m", "ucdcr", "benchmark", "--protocol", "standard"]
    command += ["--systems", "head-lemma,lemma-baseline", "--datasets", "ecbplus", "--format", "json"]
    command += ["--data-dir", str(data_dir), "--cache-dir", str(cache)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def test_benchmark_json_has_bounds_and_paired_results_and_repeats(built, tmp_path: Path) -> None:
    data_dir = built("ecbplus").parent
    first, _ = _run(data_dir, tmp_path / "cache")
    again, said = _run(data_dir, tmp_path / "cache")
    assert "2 reused" in said  # the second run read the results file ...
    assert first == again  # ... and printed the same numbers and intervals
    scores, _, leaderboard = first
    assert scores["title"] == "Benchmark, standard/gold-topics protocol (F1)"
    for row in scores["rows"]:
        for column in F1:
            assert row[f"{column} low"] <= row[column] <= row[f"{column} high"], (row, column)
            assert row[f"{column} high"] - row[f"{column} low"] > 0.5  # 8 test units (10 topics): several points wide
    rows = {row["System"]: row for row in leaderboard["rows"]}
    assert {row["tied for first"] for row in rows.values()} <= {"best", "yes", "no"}
    best = next(name for name, row in rows.items() if row["tied for first"] == "best")
    other = next(name for name in rows if name != best)
    # the difference is the two means' difference (from the exact F1; the printed means are v8.01's truncated
    # percentages, 0.01 apart at most per metric); its interval holds it; p is a probability
    # (one dataset: its column is the mean)
    assert abs(rows[other]["Δ best"] - (rows[other]["ecbplus"] - rows[best]["ecbplus"])) < 0.01
    assert rows[other]["Δ best low"] <= rows[other]["Δ best"] <= rows[other]["Δ best high"]
    assert 0 < rows[other]["p"] <= 1
    assert rows[other]["tied for first"] == ("no" if rows[other]["p"] < 0.05 else "yes")
