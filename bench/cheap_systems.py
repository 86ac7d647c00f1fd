"""The cheaper cross-encoder of ``bench/parallel_benchmark.py``, in a module of its own so that worker processes and
Ray nodes import the same class (a class of a script's ``__main__`` is another module in a worker, and the benchmark
refuses a system that resolves to other code where it runs).

The reference cross-encoder trained on one epoch of ``UCDCR_BENCH_PAIRS`` pairs (default 2,000), its candidates 3
neighbours and 6 lemma partners per mention, scored in one order; the other options the defaults.
"""

from __future__ import annotations

import os

from ucdcr.systems.parts.pair_encoder import PairEncoderConfig
from ucdcr.systems.reference.cross_encoder import CrossEncoder, CrossEncoderOptions

PAIRS = int(os.environ.get("UCDCR_BENCH_PAIRS", "2000"))


class CheapCrossEncoder(CrossEncoder):
    """The reference cross-encoder, cheaper (module docstring)."""

    name = "cross-encoder-cheap"

    def __init__(self) -> None:
        encoder = PairEncoderConfig(epochs=1, pairs_per_epoch=PAIRS)
        super().__init__(CrossEncoderOptions(encoder, neighbours=3, limit=6, both_orders=False))
