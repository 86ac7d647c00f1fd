"""The same-head-lemma baseline (paper Tables 6, 7, 13): within an evaluation setting, mentions with the same
(case-sensitive) head lemma form one cluster, events and entities alike. Scored with :mod:`ucdcr.analysis.protocol`.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ucdcr.analysis.protocol import ProtocolResult, run_protocol


def head_lemma_labels(table: pa.Table) -> list[Any]:
    """The baseline's clustering: every mention's cluster is its head lemma (case-sensitive)."""
    return table["mention_head_lemma"].to_pylist()


def run_baseline(dataset: str, table: pa.Table, topic_level: bool) -> ProtocolResult:
    """The same-head-lemma baseline on a dataset's test mentions (``table``: the protocol's EVAL_FIELDS and type)."""
    return run_protocol(dataset, table, head_lemma_labels(table), topic_level)
