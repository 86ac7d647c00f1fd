"""The chain table of the uCDCR analysis (docs/analysis.md#chain-table): which mentions form each chain, per scope.

A scope is the whole dataset ("") or one split. The table has one entry per chain for the whole dataset and one
per (chain, split) for each split the chain occurs in; each entry lists the chain's mention rows in load order
(see :mod:`ucdcr.io.load`). As in the authors' analysis, "/" in a chain id is read as "-" (their loader rewrites
it), and chain ids are global: a chain with mentions in several topics or splits is one chain.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

FULL_SCOPE = ""


def chain_ids(table: pa.Table) -> list[str]:
    """The analysis chain id of every row: ``coref_chain`` with "/" replaced by "-"."""
    return [chain.replace("/", "-") for chain in table["coref_chain"].to_pylist()]


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
