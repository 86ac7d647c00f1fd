"""The benchmark's one door into the evaluation protocol, the loader and the atomic writer.

Every call that :mod:`ucdcr.systems` makes into code it does not own goes through this module, so that a change
of home of the protocol (:mod:`ucdcr.analysis.protocol`, with the checks of :mod:`ucdcr.analysis.evaluate`), of
the loader (:mod:`ucdcr.io.load`, :mod:`ucdcr.api`) or of the atomic writer is re-pointed here and nowhere else.

What the benchmark takes from them:

- the protocol: which mentions are evaluated (:func:`evaluated_rows`), the scoring of a clustering
  (:func:`score`), the paper baseline's clustering (:func:`head_lemma_labels`), the levels;
- the check of ``ucdcr evaluate`` that cluster ids are strings or numbers (:func:`cluster_label`, same messages;
  the runner scores through :func:`ucdcr.analysis.evaluate.evaluate` itself);
- the loader: a dataset split with every mention field (:func:`load_split`), its token table (:func:`load_tokens`);
- the atomic writer (:func:`write_json`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path

import pyarrow as pa

from ucdcr.analysis.baseline import head_lemma_labels as baseline_labels
from ucdcr.analysis.evaluate import cluster_label
from ucdcr.analysis.protocol import (
    EVAL_FIELDS,
    LEVELS,
    Level,
    ProtocolResult,
    evaluation_rows,
    run_protocol,
)
from ucdcr.io.atomic import write_json
from ucdcr.report.paper_tables import load_for_protocol
from ucdcr.schema import MENTION_FIELDS

__all__ = [
    "LEVELS",
    "Level",
    "ProtocolResult",
    "cluster_label",
    "evaluated_rows",
    "head_lemma_labels",
    "load_split",
    "load_tokens",
    "score",
    "write_json",
]


def load_split(folder: Path, split: str) -> tuple[pa.Table, bool]:
    """Every mention field (and ``type``) of one split of a dataset folder, and whether the protocol also
    evaluates the dataset per topic (it has chains that cross subtopics)."""
    return load_for_protocol(folder, split, [name for name in MENTION_FIELDS if name not in EVAL_FIELDS])


def load_tokens(folder: Path, split: str) -> pa.Table | None:
    """The token table rows (all_documents.parquet) of one split, or None where texts are not shared."""
    from ucdcr.api import load
    from ucdcr.schema import DOCUMENTS_PARQUET

    if not (folder / DOCUMENTS_PARQUET).is_file():
        return None
    return load(folder, split=split, kind="documents")


def evaluated_rows(table: pa.Table, split: str) -> list[int]:
    """The rows of ``table`` the protocol evaluates (non-singleton mentions of chains it keeps)."""
    return evaluation_rows(table, split)


def score(dataset: str, table: pa.Table, labels: Sequence[Hashable], level: Level, split: str) -> ProtocolResult:
    """The protocol's scores of a clustering of ``table``'s rows (``labels[i]``: cluster of row i; rows that are
    not evaluated are not read). Topic-level settings are scored only for ``level="topic"``."""
    return run_protocol(dataset, table, labels, level == "topic", split)


def head_lemma_labels(table: pa.Table) -> list[Hashable]:
    """The paper baseline's clustering of ``table``'s rows: a mention's cluster is its head lemma."""
    return list(baseline_labels(table))
