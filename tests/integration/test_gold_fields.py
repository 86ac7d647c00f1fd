"""Gold fields over every dataset built here from real data: no mention field a system sees at test time follows
the gold chains, except those the dataset declares gold-derived (ucdcr.registry.DatasetSpec.gold_fields).

A field is chain-derived when, in the test split (singletons included), it is constant inside every gold chain with
at least two mentions but varies across those chains. Left out of the check: the declared gold fields, the
document-level fields (a chain's mentions may all be in one document) and the kind (the output file).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from tests.conftest import require

from ucdcr.io.load import KIND_FILES, load_mentions
from ucdcr.registry import gold_fields_of
from ucdcr.schema import MENTION_FIELDS

DATASETS = ("ecbplus", "np4e", "meantime", "cd2cr", "cerec")
DOCUMENT_FIELDS = ("topic", "topic_id", "subtopic", "subtopic_id", "doc", "doc_id", "conll_doc_key", "split")


def hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def chain_derived(rows: list[dict[str, Any]]) -> list[str]:
    """The mention fields constant inside every chain of two or more mentions and varying across those chains."""
    members: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        members[row["coref_chain"]].append(row)
    chains = [chain for chain in members.values() if len(chain) >= 2]
    derived = []
    for name in MENTION_FIELDS:
        values = [{hashable(row[name]) for row in chain} for chain in chains]
        if all(len(inside) == 1 for inside in values) and len(set().union(*values)) > 1:
            derived.append(name)
    return derived


@pytest.mark.parametrize("dataset", DATASETS)
def test_only_declared_gold_fields_follow_the_chains(dataset: str, built: Any) -> None:
    folder = built(dataset)
    for name in KIND_FILES.values():
        require(folder / "test" / name)
    rows = load_mentions(folder, splits=("test",)).to_pylist()
    assert sum(row["is_singleton"] for row in rows) < len(rows)  # chains of two or more to check
    derived = chain_derived(rows)
    assert "coref_chain" in derived  # the check finds what is chain-derived by definition
    ignored = {*gold_fields_of(dataset), *DOCUMENT_FIELDS}
    assert [name for name in derived if name not in ignored] == []
