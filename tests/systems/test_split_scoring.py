"""``SplitData.conll_f1``, the score a system's tuning maximises: the run's protocol on one clustering of the split,
computed by hand here; the split's plan (settings, gold clusters) is made once and serves every clustering."""

from __future__ import annotations

import pyarrow as pa

from ucdcr.analysis.protocol import STANDARD, UCDCR, Protocol
from ucdcr.systems.framework.base import SplitData


def _split(protocol: Protocol = UCDCR) -> SplitData:
    """Five events of one subtopic: chain A = rows 0-2, chain B = rows 3-4."""
    table = pa.table(
        {
            "mention_id": [f"m{index}" for index in range(5)],
            "mention_head_lemma": ["attack", "strike", "attack", "meeting", "talks"],
            "type": ["event"] * 5,
            "topic_id": ["1"] * 5,
            "subtopic_id": ["1a"] * 5,
            "coref_chain": ["A", "A", "A", "B", "B"],
            "is_singleton": [False] * 5,
            "split": ["val"] * 5,
        }
    )
    return SplitData("toy", "val", protocol, table)


def test_conll_f1_of_several_clusterings_of_one_split() -> None:
    for protocol in (UCDCR, STANDARD):
        data = _split(protocol)
        assert data.conll_f1(["a", "a", "a", "b", "b"]) == 100.0
        # one cluster of all five, by hand: MUC R = 3/3, P = (5 - 2) / (5 - 1) = 3/4, F1 85.71; B3 R = 1,
        # P = (3 * 3/5 + 2 * 2/5) / 5 = 13/25, F1 68.42; CEAFe: phi4(A, all) = 6/8 is the best alignment, R = 0.75/2,
        # P = 0.75/1, F1 50.00; CoNLL (85.71 + 68.42 + 50.00) / 3 = 68.043
        assert data.conll_f1(["x"] * 5) == 68.043
        assert data.conll_f1(["a", "a", "a", "b", "b"]) == 100.0  # the first clustering again: nothing kept of it
