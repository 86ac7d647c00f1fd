"""The executor interface (ucdcr.pipeline.executor): the shared bounded submit loop, the local executor's order, the
typed options made once at the edge, and the build's progress callback (a total known before parsing starts; the
CLI's bar on stderr only)."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.pipeline.build import build_dataset, executor_for
from ucdcr.pipeline.executor import (
    BATCHES_PER_WORKER,
    ExecutorKind,
    ExecutorOptions,
    LocalExecutor,
    bounded_map,
)

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "ucdcr" / "data" / "sample"


def test_bounded_map_keeps_at_most_in_flight_items_out() -> None:
    submitted: list[int] = []
    taken = 0
    out_at_take: list[int] = []

    def take() -> int:
        nonlocal taken
        out_at_take.append(len(submitted) - taken)
        taken += 1
        return submitted[taken - 1] * 10

    results = list(bounded_map(range(7), submitted.append, take, 3))
    assert results == [n * 10 for n in range(7)]
    assert max(out_at_take) == 3 and out_at_take[-1] == 1


def test_the_local_pool_keeps_the_input_order_and_bounds_what_it_takes() -> None:
    taken: list[int] = []

    def items() -> Iterator[int]:
        for number in range(30):
            taken.append(number)
            yield number

    results = LocalExecutor(2).map(partial(operator.mul, 3), items())
    first = next(results)
    assert first == 0 and len(taken) == 2 * BATCHES_PER_WORKER
    assert [first, *results] == [3 * n for n in range(30)]
    assert list(LocalExecutor(1).map(str, [1, 2])) == ["1", "2"]


def test_executor_for_makes_the_local_executor() -> None:
    assert executor_for(ExecutorOptions(ExecutorKind.LOCAL, 3)) == LocalExecutor(3)


def test_progress_has_a_total_before_parsing_and_the_bar_goes_to_stderr(tmp_path: Path) -> None:
    calls: list[tuple[str, int, int | None]] = []
    report = build_dataset("ecbplus", SAMPLE, tmp_path / "api", progress=lambda *call: calls.append(call))
    documents = report.counts["documents"]
    assert calls[0] == ("ecbplus: reading and parsing", 0, documents)  # the total before the first document
    assert calls[-1] == ("ecbplus: validating and writing", documents, documents)
    assert all(total == documents for _, _, total in calls)

    result = CliRunner().invoke(app, ["build", "ecbplus", "--raw-dir", str(SAMPLE), "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"{documents}/{documents}" in result.stderr and "━" not in result.stdout
