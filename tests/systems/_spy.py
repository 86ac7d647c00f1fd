"""A system that records what ``predict()`` receives, and the rule that finds chain-derived columns."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import fields
from typing import Any, ClassVar

from ucdcr.systems import SplitData, System

DOCUMENT_FIELDS = frozenset(
    ("topic", "topic_id", "subtopic", "subtopic_id", "doc", "doc_id", "conll_doc_key", "split", "predicted_topic")
)
"""Fields of the document a mention is in (what a system is given with any mention), plus the kind ``type``."""


class Spy(System):
    """Predicts singletons and keeps every test split it was given (class-level, since a new instance is made per
    fit)."""

    name = "spy"
    seen: ClassVar[list[SplitData]] = []

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        Spy.seen.append(test)
        return {mention_id: mention_id for mention_id in test.column("mention_id")}


def chain_derived(columns: Mapping[str, Sequence[Any]], chains: Sequence[str]) -> list[str]:
    """Columns constant inside every gold chain with 2+ mentions but varying across those chains (document-level
    fields and the kind excepted): what a system could read the chains from."""
    members: dict[str, list[int]] = {}
    for row, chain in enumerate(chains):
        members.setdefault(chain, []).append(row)
    linked = [rows for rows in members.values() if len(rows) > 1]
    found = []
    for name, values in columns.items():
        if name in DOCUMENT_FIELDS or name == "type" or not linked:
            continue
        keys = [repr(values[row]) for row in range(len(values))]
        constant = all(len({keys[row] for row in rows}) == 1 for rows in linked)
        if constant and len({keys[rows[0]] for rows in linked}) > 1:
            found.append(name)
    return found


def paths_in(data: SplitData) -> list[str]:
    """The fields of a SplitData that hold a path (none may point at the dataset)."""
    from pathlib import Path

    return [
        item.name for item in fields(data) if isinstance(getattr(data, item.name), Path) and item.name != "cache_dir"
    ]
