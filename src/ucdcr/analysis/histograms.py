"""Histograms of chain PD and MTLD (paper Figures 5-6; the authors' ``summary/histogram_*.csv``):
docs/analysis.md#histograms.

Values: one per chain of the whole dataset (scope ""), singletons included, as in
:func:`ucdcr.analysis.diversity.chain_diversity`. Bins are right-open ``[a..b)`` on fixed edges (MTLD 0, 3, ..., 90;
PD 0, 1, ..., 30) plus the overflow bin ``[last..``, so the counts of a dataset sum to its number of chains.

The authors derive the edges from the data of all twelve datasets (``linspace(floor(min), floor(max) // 2, 31)``),
which gave exactly these edges for their release; fixed edges keep a dataset's histogram independent of which other
datasets are analysed with it. Their ``np.digitize`` puts a value equal to an edge into the bin that starts there,
as here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise

import numpy as np
import pyarrow as pa

from ucdcr.analysis.chains import FULL_SCOPE, chain_entries
from ucdcr.analysis.diversity import chain_diversity

MTLD_EDGES: tuple[float, ...] = tuple(float(x) for x in range(0, 91, 3))
PD_EDGES: tuple[float, ...] = tuple(float(x) for x in range(31))
METRIC_EDGES: dict[str, tuple[float, ...]] = {"MTLD": MTLD_EDGES, "PD": PD_EDGES}
# The authors' file names: histogram_MLTD.csv (sic) and histogram_phrasing_diversity.csv.
AUTHORS_CSV_NAMES = {"MTLD": "histogram_MLTD.csv", "PD": "histogram_phrasing_diversity.csv"}


def histogram(values: Sequence[float], edges: Sequence[float]) -> list[int]:
    """Counts in right-open bins ``[edges[i], edges[i+1])`` plus the overflow bin ``[edges[-1], ∞)``.

    ``len(result) == len(edges)``; values below ``edges[0]`` count in the first bin, so no value is dropped.
    """
    positions = np.digitize(np.asarray(values, dtype=float), np.asarray(edges, dtype=float)) - 1
    positions = np.clip(positions, 0, len(edges) - 1)
    return np.bincount(positions, minlength=len(edges)).tolist()


def bin_labels(edges: Sequence[float]) -> list[str]:
    """The authors' bin labels: ``[0.0..3.0)``, ..., ``[90.0..`` (the overflow bin)."""
    return [f"[{a:.1f}..{b:.1f})" for a, b in pairwise(edges)] + [f"[{edges[-1]:.1f}.."]


def chain_histograms(mentions: pa.Table) -> dict[str, list[int]]:
    """PD and MTLD histograms (keys "PD", "MTLD") of the whole-dataset chains of a mention table.

    Needs the columns coref_chain, split, tokens_text, mention_head, mention_head_lemma.
    """
    entries = [entry for entry in chain_entries(mentions) if entry.scope == FULL_SCOPE]
    chains = chain_diversity(mentions, entries)
    return {
        "MTLD": histogram([chain.mtld for chain in chains], MTLD_EDGES),
        "PD": histogram([chain.phrasing_diversity for chain in chains], PD_EDGES),
    }


def histogram_rows(counts: Mapping[str, Sequence[int]], edges: Sequence[float]) -> list[dict[str, str | int]]:
    """The authors' CSV layout: one row per bin (key "" = bin label), one column per dataset."""
    return [
        {"": label, **{name: int(values[index]) for name, values in counts.items()}}
        for index, label in enumerate(bin_labels(edges))
    ]
