"""The benchmark's plan: the runs (:class:`~ucdcr.systems.framework.runs.Run`) grouped into fits; the runner
(:mod:`ucdcr.systems.framework.runner`) makes the plan. Before it starts, the runner says what it will do
(:class:`Schedule`: every fit, the runs stored and reused, the runs to compute) and how long that should take on
this machine (:func:`estimate_seconds`: from the time earlier runs of each system took here, per mention).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from statistics import median

from ucdcr.systems.framework.runs import Run
from ucdcr.systems.framework.store import StoredRun
from ucdcr.systems.framework.store import machine_label as label_of


@dataclass
class FitStep:
    """One fit of a benchmark and the test runs it serves: ``keys`` their keys in the results file, ``stored`` the
    stored run of each (reused) or None (to compute), ``estimate`` the seconds the runs to compute should take on
    this machine (None: no earlier run of the system here to measure from)."""

    system: str
    runs: list[Run]
    keys: list[str]
    stored: list[StoredRun | None]
    estimate: float | None = None

    @property
    def to_compute(self) -> int:
        return sum(1 for item in self.stored if item is None)


@dataclass
class Schedule:
    """What a benchmark will do, before it starts (:func:`ucdcr.systems.framework.runner.benchmark`): every fit with
    its runs, which are reused and which computed, and the estimated time on this machine."""

    steps: list[FitStep]

    @property
    def runs(self) -> int:
        return sum(len(step.runs) for step in self.steps)

    @property
    def to_compute(self) -> int:
        return sum(step.to_compute for step in self.steps)

    def estimate(self, steps: list[FitStep] | None = None) -> float | None:
        """The estimated seconds of the fits to compute (of ``steps``; None when one has no estimate)."""
        chosen = [step for step in (self.steps if steps is None else steps) if step.to_compute]
        if any(step.estimate is None for step in chosen):
            return None
        return sum(step.estimate or 0.0 for step in chosen)

    def lines(self) -> list[str]:
        """The plan as lines: one in all, then one per system with work to do."""
        fits = [step for step in self.steps if step.to_compute]
        total = self.estimate()
        known = f"estimated {_duration(total)} on this machine" if total is not None else _unknown(fits)
        head = (
            f"plan: {self.to_compute} of {self.runs} runs to compute ({self.runs - self.to_compute} stored, reused) "
            f"in {len(fits)} fits; {known}"
        )
        lines = [head]
        for system in dict.fromkeys(step.system for step in fits):
            mine = [step for step in fits if step.system == system]
            runs = sum(step.to_compute for step in mine)
            seeds = sorted({step.runs[0].seed for step in mine})
            estimate = self.estimate(mine)
            when = f"estimated {_duration(estimate)}" if estimate is not None else "no estimate"
            seeded = f", seeds {seeds[0]}-{seeds[-1]}" if len(seeds) > 1 else ""
            fits_text = f"{len(mine)} fit{'s' if len(mine) > 1 else ''}{seeded}, {runs} run{'s' if runs > 1 else ''}"
            lines.append(f"  {system}: {fits_text}; {when}")
        return lines


def _unknown(fits: list[FitStep]) -> str:
    systems = sorted({step.system for step in fits if step.estimate is None})
    if not systems:
        return "no estimate"
    return f"no estimate for {', '.join(systems)} (no earlier run on this machine to measure from)"


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


def estimate_seconds(
    history: Iterable[StoredRun], system: str, machine_label: str, fit_mentions: int, test_mentions: Iterable[int]
) -> float | None:
    """The seconds a fit on ``fit_mentions`` mentions and its predictions on test splits of ``test_mentions`` should
    take: the median seconds per mention of the system's earlier runs on this machine (``timing`` of the stored runs
    whose machine has this label), fit and predict apart; None without such a run."""

    fits, predicts = [], []
    for run in history:
        timing = run.timing
        if run.system != system or not timing or not run.machine or label_of(run.machine) != machine_label:
            continue
        if timing.get("fit_mentions"):
            fits.append(timing.get("fit", 0.0) / timing["fit_mentions"])
        if timing.get("test_mentions"):
            predicts.append(timing.get("predict", 0.0) / timing["test_mentions"])
    if not fits or not predicts:
        return None
    return median(fits) * fit_mentions + median(predicts) * sum(test_mentions)
