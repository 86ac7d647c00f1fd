"""Clustering inside evaluation units and the tuning of a threshold on the validation split.

- :func:`average_linkage`: agglomerative clustering with average linkage (UPGMA, :func:`scipy.cluster.hierarchy.
  linkage`) of one group of mentions from their pairwise distances; the tree is cut at a distance threshold
  (:func:`cut`), so two clusters are merged while their mean pairwise distance is at most the threshold.
- :func:`linked_components`: the connected components of a graph of links (transitive closure), for rule-based
  linking.
- :func:`tune`: the candidate value with the best protocol score on the validation split (the mean CoNLL F1 of
  its units, :meth:`~ucdcr.systems.framework.base.SplitData.conll_f1`); a tie goes to the first candidate in the given
  order, so tuning is deterministic. :func:`tune_distance`: the same for a distance threshold in [0.05, 0.95],
  coarse to fine: the grid of step 0.1 (:data:`COARSE`), then steps of 0.025 within 0.075 of the best value
  (15 scorings instead of the 37 of a 0.025 grid; scoring a large val split is the expensive part).
- :func:`cut_by_kind` / :func:`tune_by_kind`: one threshold per kind (event, entity); :func:`tune_cut`: a setting
  the trees depend on (a weight) tuned with the thresholds, the best on val.

Labels are ``"<group>:<cluster>"`` strings, unique across the groups of a split.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

from ucdcr.systems.framework.base import SplitData


@dataclass(frozen=True)
class Dendrogram:
    """The average-linkage tree of one group of rows (None for a group of one row)."""

    rows: list[int]
    tree: np.ndarray | None


def condensed(matrix: np.ndarray) -> np.ndarray:
    """The upper triangle (i < j) of a square matrix, row by row: scipy's condensed distance vector."""
    upper = np.triu_indices(matrix.shape[0], 1)
    return np.asarray(matrix[upper], dtype=np.float64)


def average_linkage(rows: list[int], distances: np.ndarray) -> Dendrogram:
    """The average-linkage tree of ``rows`` from their condensed pairwise distances."""
    from scipy.cluster.hierarchy import linkage

    if len(rows) < 2:
        return Dendrogram(rows, None)
    return Dendrogram(rows, linkage(np.clip(distances, 0.0, None), method="average"))


def cut(dendrograms: Sequence[Dendrogram], threshold: float, size: int) -> list[str]:
    """Labels of ``size`` rows from cutting every tree at ``threshold`` (rows of no group get their own label)."""
    from scipy.cluster.hierarchy import fcluster

    labels = [f"row:{row}" for row in range(size)]
    for index, dendrogram in enumerate(dendrograms):
        if dendrogram.tree is None:
            clusters = np.ones(len(dendrogram.rows), dtype=int)
        else:
            clusters = fcluster(dendrogram.tree, t=threshold, criterion="distance")
        for row, cluster in zip(dendrogram.rows, clusters, strict=True):
            labels[row] = f"{index}:{cluster}"
    return labels


def cut_by_kind(
    data: SplitData, trees: Sequence[Dendrogram], thresholds: Mapping[str, float], default: float
) -> list[str]:
    """Labels of every row of ``data``: each tree (of one kind) cut at its kind's threshold, ``default`` for a kind
    without one."""
    kinds = data.column("type")
    labels = [f"row:{row}" for row in range(data.mentions.num_rows)]
    values = [thresholds.get(kinds[tree.rows[0]], default) for tree in trees]
    for value in sorted(set(values)):
        part = [index for index, tree_value in enumerate(values) if tree_value == value]
        cuts = cut([trees[index] for index in part], value, len(labels))
        for index in part:
            for row in trees[index].rows:
                labels[row] = f"{index}:{cuts[row]}"
    return labels


def tune_by_kind(
    val: SplitData, trees: Sequence[Dendrogram], thresholds: dict[str, float], default: float
) -> tuple[dict[str, float], float]:
    """Each kind's distance threshold in turn (sorted kinds), the others held at ``thresholds`` (``default`` where
    unset): the tuned thresholds and the last score."""
    kinds = val.column("type")
    tuned, score = dict(thresholds), 0.0
    for kind in sorted({kinds[tree.rows[0]] for tree in trees}):
        fixed = dict(tuned)

        def labels_at(value: float, kind: str = kind, fixed: dict[str, float] = fixed) -> list[str]:
            return cut_by_kind(val, trees, fixed | {kind: value}, default)

        tuned[kind], score = tune_distance(val, labels_at)
    return tuned, score


def linked_components(groups: Sequence[list[int]], links: Sequence[np.ndarray], size: int) -> list[str]:
    """Labels of ``size`` rows: inside each group, the connected components of its boolean link matrix."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    labels = [f"row:{row}" for row in range(size)]
    for index, (rows, matrix) in enumerate(zip(groups, links, strict=True)):
        _, components = connected_components(csr_matrix(matrix), directed=False)
        for row, component in zip(rows, components, strict=True):
            labels[row] = f"{index}:{component}"
    return labels


def tune(val: SplitData, candidates: Sequence[float], labels_at: Callable[[float], list[str]]) -> tuple[float, float]:
    """The candidate whose clustering of ``val`` scores best (first on ties), and its score."""
    best, best_score = candidates[0], -1.0
    for candidate in candidates:
        score = val.conll_f1(labels_at(candidate))
        if score > best_score:
            best, best_score = candidate, score
    return best, best_score


COARSE: tuple[float, ...] = (0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95)
FINE_STEP = 0.025


def tune_distance(val: SplitData, labels_at: Callable[[float], list[str]]) -> tuple[float, float]:
    """The distance threshold with the best score on ``val``, coarse to fine (module docstring)."""
    scores: dict[float, float] = {}

    def best(candidates: Sequence[float]) -> float:
        for candidate in candidates:
            if candidate not in scores:
                scores[candidate] = val.conll_f1(labels_at(candidate))
        return max(candidates, key=lambda candidate: (scores[candidate], -candidates.index(candidate)))

    coarse = best(COARSE)
    fine = [round(coarse + step * FINE_STEP, 4) for step in range(-3, 4)]
    chosen = best([value for value in fine if COARSE[0] <= value <= COARSE[-1]])
    return chosen, scores[chosen]


T = TypeVar("T")


@dataclass
class TunedCut(Generic[T]):
    """What :func:`tune_cut` chose: the option, the common threshold, each kind's threshold and the val score."""

    option: T
    threshold: float = COARSE[0]
    thresholds: dict[str, float] = field(default_factory=dict)
    score: float = -1.0


def tune_cut(val: SplitData, options: Sequence[T], trees_of: Callable[[T], list[Dendrogram]]) -> TunedCut[T]:
    """For each option (a setting the trees depend on), the trees of ``val`` cut at the common distance threshold
    with the best score, then at each kind's (:func:`tune_by_kind`); the option that scores best (a tie goes to the
    first)."""
    size = val.mentions.num_rows
    best = TunedCut(options[0])
    for option in options:
        trees = trees_of(option)

        def labels_at(value: float, trees: list[Dendrogram] = trees) -> list[str]:
            return cut(trees, value, size)

        threshold, score = tune_distance(val, labels_at)
        thresholds, by_kind = tune_by_kind(val, trees, {}, threshold)
        score = by_kind if trees else score
        if score > best.score:
            best = TunedCut(option, threshold, thresholds, score)
    return best


def grid(low: float, high: float, step: float) -> list[float]:
    """``low, low + step, ..., high`` rounded to 4 decimals (no float drift in printed thresholds)."""
    count = round((high - low) / step)
    return [round(low + index * step, 4) for index in range(count + 1)]
