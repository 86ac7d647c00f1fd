"""The benchmark's plan before the work (issue 54): what is reused and what is computed, the estimated time on this
machine from the time earlier runs took here, and a log that never goes quiet for long."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console
from tests.fixtures.bench_dataset import write_bench_dataset

from ucdcr.systems.framework.plan import FitStep, Schedule, estimate_seconds
from ucdcr.systems.framework.runs import Run, SplitRef
from ucdcr.systems.framework.store import StoredRun, machine, machine_label


def _run(system: str, timing: dict[str, float] | None, machine_fields: dict | None = None) -> StoredRun:
    return StoredRun(
        system,
        system,
        "1",
        "a",
        "subtopic",
        "in-domain",
        "a train",
        "a val",
        "",
        [],
        machine=machine_fields or machine(),
        timing=timing,
    )


def test_the_estimate_is_the_median_pace_of_earlier_runs_here() -> None:
    # two earlier runs of x here: fit 10 s on 1,000 mentions and 30 s on 2,000 (0.01 and 0.015 s per mention: median
    # 0.0125), predict 2 s on 500 and 1 s on 500 test mentions (0.004, 0.002: median 0.003); a run of x on another
    # machine and one of y are not counted. Fit on 4,000 and test 1,000 + 1,000: 0.0125 * 4000 + 0.003 * 2000 = 56 s
    here = machine_label(machine())
    history = [
        _run("x", {"fit": 10.0, "fit_mentions": 1000, "predict": 2.0, "test_mentions": 500}),
        _run("x", {"fit": 30.0, "fit_mentions": 2000, "predict": 1.0, "test_mentions": 500}),
        _run("x", {"fit": 999.0, "fit_mentions": 1, "predict": 999.0, "test_mentions": 1}, {"cpu": "another"}),
        _run("y", {"fit": 999.0, "fit_mentions": 1, "predict": 999.0, "test_mentions": 1}),
        _run("x", None),  # stored before ucdcr kept timings
    ]
    assert estimate_seconds(history, "x", here, 4000, [1000, 1000]) == pytest.approx(56.0)
    assert estimate_seconds(history, "z", here, 4000, [1000]) is None  # never run here


def test_the_plan_says_what_is_reused_computed_and_how_long() -> None:
    def step(system: str, seed: int, stored: bool, estimate: float | None) -> FitStep:
        run = Run(system, SplitRef("a", "train"), SplitRef("a", "val"), "a", "in-domain", seed)
        return FitStep(system, [run], ["k"], [_run(system, None) if stored else None], estimate)

    schedule = Schedule([step("x", 0, True, 0.0), step("x", 1, False, 600.0), step("x", 2, False, 3000.0)])
    assert schedule.lines() == [
        "plan: 2 of 3 runs to compute (1 stored, reused) in 2 fits; estimated 1h00m on this machine",
        "  x: 2 fits, seeds 1-2, 2 runs; estimated 1h00m",
    ]
    unknown = Schedule([step("x", 0, False, 60.0), step("y", 0, False, None)])
    assert unknown.lines()[0].endswith("no estimate for y (no earlier run on this machine to measure from)")
    assert unknown.lines()[1:] == ["  x: 1 fit, 1 run; estimated 1m00s", "  y: 1 fit, 1 run; no estimate"]


def test_a_log_gets_a_line_after_a_quiet_while(monkeypatch: pytest.MonkeyPatch) -> None:
    from ucdcr.cli import benchmark as command
    from ucdcr.cli import common

    log = io.StringIO()
    monkeypatch.setattr(common, "err_console", Console(file=log, width=300))
    monkeypatch.setattr(command, "HEARTBEAT", 1.0)
    with command.progress_display() as display:
        display.show("x: fit on a train, tune on a val", 0, 2)
        time.sleep(2.5)  # a long fit: the log hears from it after HEARTBEAT seconds of quiet
    lines = log.getvalue().splitlines()
    assert lines[0].endswith("x: fit on a train, tune on a val (0/2 runs done)")
    beats = [line for line in lines if "x: fit on a train, tune on a val (0/2 runs done): still running (" in line]
    assert beats, lines


def test_a_benchmark_logged_to_a_file_plans_first_then_says_its_progress(tmp_path: Path) -> None:
    folder = write_bench_dataset(tmp_path / "data" / "toy")
    command = [sys.executable, "-m", "ucdcr", "benchmark", "--systems", "head-lemma,lemma-baseline"]
    command += ["--data-dir", str(folder.parent), "--cache-dir", str(tmp_path / "cache"), "--format", "md"]
    logs = []
    for number in range(2):
        log = tmp_path / f"err{number}.log"
        with log.open("w") as handle:
            done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=handle, check=False)
        assert done.returncode == 0, log.read_text()
        logs.append(log.read_text().splitlines())
    first, again = logs
    assert first[0].startswith("plan: 2 of 2 runs to compute (0 stored, reused) in 2 fits; no estimate for")
    steps = [line for line in first if line.startswith("[")]
    assert steps and all(" runs done" in line for line in steps)
    assert any(line.endswith("(1/2 runs done, ETA 0s)") or "(1/2 runs done, ETA" in line for line in steps)
    # the second run: both stored, and the first run's time here measured for each system
    assert again[0] == "plan: 0 of 2 runs to compute (2 stored, reused) in 0 fits; estimated 0s on this machine"
