"""Candidate mention pairs: which pairs a pair scorer reads, pruned before the expensive scoring.

Scoring every pair of mentions of a unit with a transformer costs n² forward passes; the candidates keep the pairs
that can plausibly corefer, as the CDCR literature prunes them (Ahmed et al. 2023, "2*n is better than n²", prune
with a lemma heuristic; Held et al. 2021 with nearest neighbours in an embedding space). Inside one group of
mentions (a unit and a kind: the protocol's unit at test time, the gold topic on train), the pair ``(i, j)`` is a
candidate when

- (lemma rule) the lower-cased head lemmas are equal or form a pair that is coreferent somewhere in the training
  split (``lemma_pairs``, as sorted tuples: :func:`coreferent_lemma_pairs`, whatever the protocol's units), and
  ``j`` is one of the ``limit`` partners of ``i`` by the lemma rule nearest to ``i`` (or ``i`` of ``j``'s), or
- (neighbour rule) ``j`` is one of the ``neighbours`` nearest mentions of ``i``, or ``i`` of ``j``'s.

Nearest is by the cosine of the MiniLM mention-in-context vectors (:mod:`ucdcr.systems.parts.vectors`), ties broken by
the lower row. The ``limit`` bounds the pairs of a unit to ``n * (limit + neighbours)``, where frequent lemmas
(pronouns, "say") would otherwise link almost every pair of a large unit.

Only the spans, their words and ucdcr's own predicted head lemmas are read, so the rule applies to a test split as
it is given to a system.

Ranked candidates (:func:`ranked_candidates`) add a pair score (a pair scorer's P(coreferent), or
:func:`blended_scores`) to given pairs (a rule's, or :func:`same_document_candidates`): every mention's ``top``
partners of highest score inside its group (what joins each mention to something), then the pairs of highest score
over all groups of the split until the split holds ``per_row`` pairs per mention, the given ones included (what keeps
the dense pairs of a large chain). Ties are taken in group order, then row-major order, so the count is exact and the
pairs a function of the given pairs and the scores.

:func:`link_recall` measures how many gold links a pruning keeps (on val, with gold), and
how many it still reaches through a path of kept gold links (a long chain needs few of its links to be connected).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from ucdcr.systems.framework.base import SplitData
from ucdcr.systems.parts.features import head_lemmas
from ucdcr.systems.parts.vectors import encodings


@dataclass(frozen=True)
class Candidates:
    """The candidate pairs of one group of rows: ``rows`` (split rows, ascending) and the pairs as positions into
    ``rows``, ``first[k] < second[k]``, in row-major order."""

    rows: list[int]
    first: np.ndarray
    second: np.ndarray

    def __len__(self) -> int:
        return len(self.first)

    def row_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The pairs as split rows."""
        rows = np.asarray(self.rows, dtype=np.int64)
        return rows[self.first], rows[self.second]


def candidate_union(groups: Sequence[Candidates]) -> Candidates:
    """The pairs of several candidate sets of one group of rows (their ``rows`` equal), in row-major order."""
    size = len(groups[0].rows)
    codes = np.unique(np.concatenate([group.first.astype(np.int64) * size + group.second for group in groups]))
    return Candidates(groups[0].rows, codes // size, codes % size)


def coreferent_lemma_pairs(train: Sequence[SplitData]) -> frozenset[tuple[str, str]]:
    """The sorted pairs of two different lower-cased head lemmas found in one gold chain of a training split."""
    pairs: set[tuple[str, str]] = set()
    for data in train:
        chains: dict[object, set[str]] = {}
        for chain, lemma in zip(data.column("coref_chain"), head_lemmas(data), strict=True):
            chains.setdefault(chain, set()).add(lemma)
        for lemmas in chains.values():
            ordered = sorted(lemmas)
            pairs.update((a, b) for index, a in enumerate(ordered) for b in ordered[index + 1 :])
    return frozenset(pairs)


def groups(data: SplitData, column: str | None = None) -> list[list[int]]:
    """The rows of each (unit, kind) of a split, in sorted order; ``column``: the unit field (None: the run's
    unit, :attr:`SplitData.unit_column`)."""
    if column is None:
        return data.units(by_type=True)
    keyed: dict[tuple[str, str], list[int]] = {}
    for row, key in enumerate(zip(data.column(column), data.column("type"), strict=True)):
        keyed.setdefault((str(key[0]), str(key[1])), []).append(row)
    return [keyed[key] for key in sorted(keyed)]


def candidate_pairs(
    data: SplitData,
    lemma_pairs: Collection[tuple[str, str]],
    neighbours: int,
    limit: int,
    column: str | None = None,
    vectors: np.ndarray | None = None,
) -> list[Candidates]:
    """The candidates (module docstring) of every group of ``data`` with at least two rows; ``vectors``: the rows'
    unit-length vectors that nearest is measured in (default: the MiniLM mention vectors)."""
    lemmas = head_lemmas(data)
    vectors = encodings(data).mentions if vectors is None else vectors
    vocabulary = {lemma: index for index, lemma in enumerate(sorted(set(lemmas)))}
    codes = np.array([vocabulary[lemma] for lemma in lemmas], dtype=np.int64)
    size = max(len(vocabulary), 1)
    known = np.array(
        sorted(
            min(vocabulary[a], vocabulary[b]) * size + max(vocabulary[a], vocabulary[b])
            for a, b in lemma_pairs
            if a in vocabulary and b in vocabulary
        ),
        dtype=np.int64,
    )
    result = []
    for rows in groups(data, column):
        if len(rows) < 2:
            continue
        own = codes[rows]
        low, high = np.minimum.outer(own, own), np.maximum.outer(own, own)
        lemma_rule = low == high
        if len(known):
            lemma_rule |= np.isin(low * size + high, known)
        similarity = _similarity(vectors[rows])
        keep = _nearest(similarity, neighbours, None) | _nearest(similarity, limit, lemma_rule)
        first, second = np.triu_indices(len(rows), 1)
        chosen = keep[first, second]
        result.append(Candidates(list(rows), first[chosen], second[chosen]))
    return result


def ranked_candidates(
    probabilities: Sequence[tuple[list[int], np.ndarray | None]],
    top: int,
    per_row: float,
    given: Sequence[Candidates] = (),
) -> list[Candidates]:
    """Ranked candidates (module docstring) from each group's rows and the scores (P(coreferent), or any score where
    higher is likelier) of its pairs in condensed order (None: a group of one row, no pairs); ``given``: pairs kept
    first (another rule's candidates of the same groups), counted in the budget."""
    scored = [(rows, probability) for rows, probability in probabilities if probability is not None and len(rows) > 1]
    by_rows = {tuple(group.rows): group for group in given}
    condensed = []
    for rows, probability in scored:
        keep = _nearest(_square(len(rows), probability), top, None)
        if (kept := by_rows.get(tuple(rows))) is not None:
            keep[kept.first, kept.second] = True
        condensed.append(keep[np.triu_indices(len(rows), 1)])
    rest = int(per_row * sum(len(rows) for rows, _ in scored)) - sum(int(keep.sum()) for keep in condensed)
    if rest > 0 and scored:
        others = np.concatenate([np.where(keep, -np.inf, p) for keep, (_, p) in zip(condensed, scored, strict=True)])
        best = np.argsort(-others, kind="stable")[:rest]
        flat = np.concatenate(condensed)
        flat[best[np.isfinite(others[best])]] = True
        condensed = np.split(flat, np.cumsum([len(keep) for keep in condensed])[:-1])
    result = []
    for (rows, _), keep in zip(scored, condensed, strict=True):
        first, second = np.triu_indices(len(rows), 1)
        result.append(Candidates(list(rows), first[keep], second[keep]))
    return result


def blended_scores(
    probabilities: Sequence[tuple[list[int], np.ndarray | None]], vectors: np.ndarray, weight: float
) -> list[tuple[list[int], np.ndarray | None]]:
    """Per group, ``(1 - weight) * P + weight * cosine`` of each pair in condensed order: a pair scorer's P blended
    with the cosine of the rows' unit-length ``vectors`` (a group of one row stays None)."""
    result: list[tuple[list[int], np.ndarray | None]] = []
    for rows, probability in probabilities:
        if probability is None:
            result.append((rows, None))
            continue
        own = vectors[rows].astype(np.float64)
        first, second = np.triu_indices(len(rows), 1)
        cosine = np.einsum("ij,ij->i", own[first], own[second])
        result.append((rows, (1.0 - weight) * probability + weight * cosine))
    return result


def same_document_candidates(
    scores: Sequence[tuple[list[int], np.ndarray | None]], documents: Sequence[Hashable], count: int
) -> list[Candidates]:
    """Per group with pairs, each row's ``count`` partners of highest score among the rows of its own document (or
    the row among theirs); ``documents``: every split row's document. Within-document pairs are few and hold the
    links that join a chain's mentions across a dialogue or a thread (CEREC's pronouns to the names in the headers)."""
    own_documents = np.asarray([str(document) for document in documents], dtype=object)
    result = []
    for rows, score in scores:
        if score is None or len(rows) < 2:
            continue
        first, second = np.triu_indices(len(rows), 1)
        kin = own_documents[rows]
        same = kin[first] == kin[second]
        near = _nearest(_square(len(rows), np.where(same, score, np.nan)), count, None)
        chosen = near[first, second]
        result.append(Candidates(list(rows), first[chosen], second[chosen]))
    return result


def _square(size: int, condensed: np.ndarray) -> np.ndarray:
    """A symmetric matrix of a condensed pair vector, -inf on the diagonal (a row is not its own partner)."""
    square = np.full((size, size), -np.inf)
    first, second = np.triu_indices(size, 1)
    square[first, second] = square[second, first] = np.nan_to_num(condensed, nan=-np.inf)
    return square


def _similarity(vectors: np.ndarray) -> np.ndarray:
    similarity = vectors.astype(np.float64) @ vectors.astype(np.float64).T
    np.fill_diagonal(similarity, -np.inf)
    return similarity


def _nearest(similarity: np.ndarray, count: int, allowed: np.ndarray | None) -> np.ndarray:
    """Boolean matrix: ``j`` among the ``count`` most similar rows of ``i`` (among the ``allowed`` ones) or ``i``
    among ``j``'s; ties go to the lower row."""
    size = len(similarity)
    scores = similarity if allowed is None else np.where(allowed, similarity, -np.inf)
    take = min(count, size - 1)
    order = np.lexsort((np.broadcast_to(np.arange(size), (size, size)), -scores), axis=1)[:, :take]
    rows = np.repeat(np.arange(size), take)
    near = np.zeros((size, size), dtype=bool)
    near[rows, order.ravel()] = True
    near &= np.isfinite(scores)
    return near | near.T


@dataclass(frozen=True)
class LinkRecall:
    """What a pruning keeps of the gold links inside its groups: ``kept`` (the candidates among them), ``reachable``
    (joined by a path of kept gold links: what clustering by transitive closure could recover) and ``total``."""

    kept: int
    reachable: int
    total: int

    def share(self, count: int) -> float:
        return count / self.total if self.total else 0.0


def link_recall(data: SplitData, candidates: Sequence[Candidates]) -> LinkRecall:
    """The gold links (coreferent pairs inside the groups of a gold split) that the candidates keep or reach."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    chains = np.array(data.column("coref_chain"), dtype=object)
    kept = reachable = total = 0
    for group in candidates:
        own = chains[group.rows]
        size = len(group.rows)
        first, second = np.triu_indices(size, 1)
        total += int((own[first] == own[second]).sum())
        gold = own[group.first] == own[group.second]
        kept += int(gold.sum())
        links = coo_matrix((np.ones(int(gold.sum())), (group.first[gold], group.second[gold])), shape=(size, size))
        _, components = connected_components(links, directed=False)
        _, sizes = np.unique(components, return_counts=True)  # a component of gold links lies inside one chain
        reachable += int((sizes * (sizes - 1) // 2).sum())
    return LinkRecall(kept, reachable, total)
