"""A tiny cross-encoder that SIGKILLs its own process once, for the resumability test (tests/systems/test_resume.py):
with ``UCDCR_TEST_KILL`` set to ``training`` or ``scoring`` and ``UCDCR_TEST_KILL_MARKER`` naming a file that does
not exist yet, the process kills itself at the third batch of a training, or at the first batch of the second
scoring of candidate pairs (the first, val's pairs in one order, finished and kept), after writing the marker (so the
next run goes through); with ``UCDCR_TEST_KILL_ALWAYS`` set too, without writing it (every run is killed). Not a
product module: tests only."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from ucdcr.systems.parts import pair_encoder
from ucdcr.systems.parts.mention_encoder import MentionEncoderConfig
from ucdcr.systems.parts.pair_encoder import PairEncoderConfig
from ucdcr.systems.reference.cross_encoder import CrossEncoder, CrossEncoderOptions

TINY = PairEncoderConfig(window=12, side_tokens=16, epochs=2, pairs_per_epoch=24, batch_size=8, threads=1)
TINY_SPACE = MentionEncoderConfig(steps=3, chains=2, per_chain=2, others=2, batch_size=8)
_state = {"batches": 0, "scoring": False, "scored_splits": 0}
_batch_of, _score_pairs = pair_encoder.batch_of, pair_encoder.score_pairs


def _kill_now(stage: str) -> bool:
    marker = os.environ.get("UCDCR_TEST_KILL_MARKER")
    return os.environ.get("UCDCR_TEST_KILL") == stage and marker is not None and not Path(marker).exists()


def _batch(*args: Any, **kwargs: Any) -> Any:
    _state["batches"] += 1
    stage = "scoring" if _state["scoring"] else "training"
    at = 1 if stage == "scoring" else 3
    late_enough = _state["scored_splits"] >= 1 if stage == "scoring" else True  # one scoring finished first
    if _state["batches"] == at and late_enough and _kill_now(stage):
        if not os.environ.get("UCDCR_TEST_KILL_ALWAYS"):
            Path(os.environ["UCDCR_TEST_KILL_MARKER"]).write_text(stage)
        os.kill(os.getpid(), signal.SIGKILL)
    return _batch_of(*args, **kwargs)


def _score(*args: Any, **kwargs: Any) -> Any:
    _state["scoring"], _state["batches"] = True, 0
    try:
        return _score_pairs(*args, **kwargs)
    finally:
        _state["scoring"], _state["batches"] = False, 0
        _state["scored_splits"] += 1


pair_encoder.batch_of = _batch
pair_encoder.score_pairs = _score


class KilledOnce(CrossEncoder):
    """The tiny cross-encoder of the tests, under its own name."""

    name = "killed-once"

    def __init__(self) -> None:
        super().__init__(CrossEncoderOptions(TINY, mention_encoder=TINY_SPACE, neighbours=2, limit=4))
