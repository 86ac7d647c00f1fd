"""Two systems that say which GPUs and OpenMP threads their fit saw (``CUDA_VISIBLE_DEVICES``,
``OMP_NUM_THREADS``), one asking for a GPU (``uses_gpu``)
and one not, for the test of the benchmark's resources on Ray (tests/systems/test_parallel_benchmark.py). Not a
product module: tests only."""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping, Sequence

from ucdcr.systems import System
from ucdcr.systems.framework.base import SplitData


class _Probe(System):
    trainable = True
    deterministic = True

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        self.seen = os.environ.get("CUDA_VISIBLE_DEVICES")
        self.threads = os.environ.get("OMP_NUM_THREADS")

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        return dict.fromkeys(test.column("mention_id"), 0)

    def describe(self) -> str:
        return f"CUDA_VISIBLE_DEVICES={self.seen!r} OMP_NUM_THREADS={self.threads!r}"


class GpuProbe(_Probe):
    name = "gpu-probe"
    uses_gpu = True


class CpuProbe(_Probe):
    name = "cpu-probe"
