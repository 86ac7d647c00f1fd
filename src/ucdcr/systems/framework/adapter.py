"""The benchmark's one door into the evaluation protocols, the loader and the atomic writer.

Every call that :mod:`ucdcr.systems` makes into code it does not own goes through this module, so that a change
of home of the protocols (:mod:`ucdcr.analysis.protocol`, with the checks of :mod:`ucdcr.analysis.evaluate`), of
the loader (:mod:`ucdcr.io.load`) or of the atomic writer is re-pointed here and nowhere else. It imports only
layers below the systems (analysis, io, registry): never the public API or the report.

What the benchmark takes from them:

- the protocols: which mentions are scored (:func:`evaluated_rows`), the scoring of a clustering (:func:`score`),
  the paper baseline's clustering (:func:`head_lemma_labels`), labels made unique per unit (:func:`unit_scoped`),
  the levels;
- the check of ``ucdcr evaluate`` that cluster ids are strings or numbers (:func:`cluster_label`, same messages;
  the runner scores through :func:`ucdcr.analysis.evaluate.evaluate` itself);
- the loader: a dataset split with every mention field (:func:`load_split`), its token table (:func:`load_tokens`),
  reads of one build (:func:`consistent`, :func:`generation`);
- the dataset declarations: which mention fields are gold-derived (:func:`gold_fields`);
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
    PREDICTED_TOPIC,
    Level,
    Protocol,
    ProtocolPlan,
    ProtocolResult,
    evaluation_rows,
    load_for_protocol,
    plan_protocol,
    score_plan,
    unit_scoped,
)
from ucdcr.io.atomic import write_json
from ucdcr.io.load import dataset_id
from ucdcr.io.load import load_tokens as load_token_table
from ucdcr.io.one_build import consistent, generation
from ucdcr.registry import gold_fields_of
from ucdcr.schema import DOCUMENTS_PARQUET, MENTION_FIELDS

__all__ = [
    "LEVELS",
    "PREDICTED_TOPIC",
    "Level",
    "Protocol",
    "ProtocolPlan",
    "ProtocolResult",
    "cluster_label",
    "consistent",
    "evaluated_rows",
    "generation",
    "gold_fields",
    "head_lemma_labels",
    "load_split",
    "load_tokens",
    "plan",
    "score",
    "unit_scoped",
    "write_json",
]


def load_split(folder: Path, split: str) -> tuple[pa.Table, bool]:
    """Every mention field (and ``type``) of one split of a dataset folder, and whether the ucdcr protocol also
    evaluates the dataset per topic (it has chains that cross subtopics)."""
    return load_for_protocol(folder, split, [name for name in MENTION_FIELDS if name not in EVAL_FIELDS])


def load_tokens(folder: Path, split: str) -> pa.Table | None:
    """The token table rows (all_documents.parquet) of one split, or None where texts are not shared."""
    if not (folder / DOCUMENTS_PARQUET).is_file():
        return None
    return load_token_table(folder, split)


def gold_fields(folder: Path) -> tuple[str, ...]:
    """The mention fields of a dataset folder that come from the gold chains or from annotation beyond the spans,
    as its dataset declares them (the default set for a folder of no registered dataset)."""
    return gold_fields_of(dataset_id(folder) or "")


def evaluated_rows(table: pa.Table, split: str, protocol: Protocol) -> list[int]:
    """The rows of ``table`` the protocol scores."""
    return evaluation_rows(table, split, protocol)


def plan(dataset: str, table: pa.Table, protocol: Protocol, split: str) -> ProtocolPlan:
    """What the protocol takes from the gold of ``table``'s ``split``, made once for any number of clusterings
    (:func:`score`). With the ucdcr protocol, topic-level settings are scored only at level topic."""
    return plan_protocol(dataset, table, protocol.level == "topic", split, protocol)


def score(planned: ProtocolPlan, labels: Sequence[Hashable]) -> ProtocolResult:
    """The protocol's scores of a clustering of the planned table's rows (``labels[i]``: cluster of row i; rows
    that are not scored are not read), without the standard protocol's per-topic counts: the scores a tuning reads."""
    return score_plan(planned, labels, by_topic=False)


def head_lemma_labels(table: pa.Table) -> list[Hashable]:
    """The paper baseline's clustering of ``table``'s rows: a mention's cluster is its head lemma."""
    return list(baseline_labels(table))
