"""The chain table of the uCDCR analysis (docs/analysis.md#chain-table): which mentions form each chain, per scope.

A scope is the whole dataset ("") or one split. The table has one entry per chain for the whole dataset and one
per (chain, split) for each split the chain occurs in; each entry lists the chain's mention rows in load order
(see :mod:`ucdcr.io.load`). As in the authors' analysis, "/" in a chain id is read as "-" (their loader rewrites
it), and chain ids are global: a chain with mentions in several topics or splits is one chain.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from ucdcr.io.load import KIND_COLUMN

FULL_SCOPE = ""


KIND_SEPARATOR = "/"
"""Joins a mention's kind and its chain id in :func:`chain_ids` ``by_kind``: never in an analysis chain id."""


def chain_ids(table: pa.Table, by_kind: bool = False) -> list[str]:
    """The analysis chain id of every row: ``coref_chain`` with "/" replaced by "-".

    by_kind: the id of the gold chain per (kind, chain) instead, ``"{kind}/{chain}"`` (the table needs the
    ``type`` column, :data:`ucdcr.io.load.KIND_COLUMN`), so that an event and an entity never share a gold chain
    even where a chain id holds both (ECB+'s ``UNK_`` chains of unknown instances, e.g. "UNK_41_9ecb_14" in test).
    The standard protocol's joint key uses it. The uCDCR analysis and protocol key by chain id alone, as the
    authors' code does (their numbers are reproduced with it).
    """
    chains = [chain.replace("/", "-") for chain in table["coref_chain"].to_pylist()]
    if not by_kind:
        return chains
    kinds = table[KIND_COLUMN].to_pylist()
    return [f"{kind}{KIND_SEPARATOR}{chain}" for kind, chain in zip(kinds, chains, strict=True)]


@dataclass(frozen=True, slots=True)
class ChainEntry:
    """One chain in one scope: its id, the scope ("" or a split) and its mention rows in load order."""

    chain: str
    scope: str
    rows: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.rows)


def chain_entries(table: pa.Table) -> list[ChainEntry]:
    """Every (chain, scope) entry: first all whole-dataset entries, then the per-split ones."""
    chains = chain_ids(table)
    splits = table["split"].to_pylist()
    members: dict[tuple[str, str], list[int]] = {}
    for row, chain in enumerate(chains):
        members.setdefault((FULL_SCOPE, chain), []).append(row)
    for row, (chain, split) in enumerate(zip(chains, splits, strict=True)):
        members.setdefault((split, chain), []).append(row)
    return [ChainEntry(chain, scope, tuple(rows)) for (scope, chain), rows in members.items()]


def scopes(table: pa.Table) -> list[str]:
    """The scopes of a table: "" (whole dataset) and each split present, in train/val/test order."""
    present = set(table["split"].to_pylist())
    return [FULL_SCOPE] + [split for split in ("train", "val", "test") if split in present]
