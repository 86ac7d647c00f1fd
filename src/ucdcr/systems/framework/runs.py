"""A run of the benchmark: which split a system is fitted on, which it is tuned on, and which dataset it is tested on
(:class:`Run`). The plan (:mod:`ucdcr.systems.framework.plan`) groups runs into fits, and the results file
(:mod:`ucdcr.systems.framework.store`) keys its runs by them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SplitRef:
    """A split of a dataset: ``dataset`` and ``split`` ("train" or "val")."""

    dataset: str
    split: str

    def __str__(self) -> str:
        return f"{self.dataset} {self.split}"


@dataclass(frozen=True)
class Run:
    """One fitted system tested on one dataset; ``setting`` is "in-domain", "fallback" or "transfer"; ``seed``: the
    seed the system was fitted with (:attr:`ucdcr.systems.framework.base.System.seed`)."""

    system: str
    fit_on: SplitRef | None
    tune_on: SplitRef | None
    dataset: str
    setting: str
    seed: int = 0
