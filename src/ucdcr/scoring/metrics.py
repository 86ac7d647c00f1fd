"""MUC, B3, CEAFm, CEAFe, BLANC and LEA on one identified document, as the CoNLL-2012 reference scorer v8.01 does,
and :data:`METRIC_TABLE`, the one table of the metrics and their names.

Each metric is a pure function of an :class:`~ucdcr.scoring.mentions.IdentifiedDocument` (key and response chains
after v8.01's mention identification, singletons kept on both sides) returning a
:class:`~ucdcr.scoring.metric_score.MetricScore` of numerator/denominator counts. Formulas (K key chains, R response
chains, counted with duplicate occurrences, as v8.01 counts them):

- MUC (Vilain et al. 1995): correct = sum over response chains r of (key-matched mentions of r - key chains they
  fall in, each mention looked up in the *last* key chain holding it); recall = correct / sum(|k| - 1),
  precision = correct / sum(|r| - 1).
- B3 (Bagga & Baldwin 1998): for every response occurrence m (chain order) with key chain k (the last one holding
  m), c = occurrences of r whose mention is in k; precision += c / |r|, recall += c / |k|; denominators are the
  numbers of key and response occurrences. Twinless response mentions add 0 but count in |r| and the denominator.
- CEAF (Luo 2005): optimal one-to-one alignment of key and response chains maximising phi, solved exactly per
  connected component of the key/response overlap graph (chains that share no mention have phi = 0), with the
  result ``scipy.optimize.linear_sum_assignment`` gives. Most components need no solver: one edge; one chain on a
  side (its largest phi, the first on ties, as the solver picks); or few enough chains to try every alignment,
  when all the best ones give each key chain the same phi. Only the others need scipy's solver, loaded on its own
  (:func:`assignment_solver`: importing ``scipy.optimize`` would cost about half a second of start-up); overlap
  graphs too large for the components to be found in Python import ``scipy.sparse.csgraph``. CEAFm: phi3 = |k & r|
  (key occurrences found in r), denominators = mention counts; CEAFe: phi4 = 2 |k & r| / (|k| + |r|),
  denominators = chain counts. The numerator is summed over key chains in order as ``1 - (1 - phi)``, exactly
  v8.01's float arithmetic.
- BLANC (Luo et al. 2014, predicted mentions as in v8.01): coreference links (pairs in one chain) and
  non-coreference links (pairs across two chains of one side) as *sets* of mention pairs per side; counts
  |C_k & C_r|, |C_k|, |C_r|, |N_k & N_r|, |N_k|, |N_r|. Computed in closed form from the sparse contingency for
  mentions occurring once per side, and explicitly (per duplicated mention, O(chains it is in)) for the rest, so
  it never enumerates all pairs.
- LEA (Moosavi & Strube 2016; not in v8.01, defined as coval does): recall = sum_k |k| * resolved(k) / sum_k |k|
  with resolved(k) = sum_r C(|k & r|, 2) / C(|k|, 2), a singleton key chain resolved iff its mention is a response
  singleton; precision symmetric.

Floating-point sums are accumulated in v8.01's order (``np.cumsum``, sequential), so printed digits match.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import overload

import numpy as np

from ucdcr.scoring.mentions import IdentifiedDocument, Partition
from ucdcr.scoring.metric_score import BlancScore, MetricScore


def sequential_sum(values: np.ndarray) -> float:
    """Left-to-right float sum (as a Perl ``+=`` loop); ``np.sum`` would sum pairwise."""
    return float(np.cumsum(values)[-1]) if values.size else 0


@overload
def _pairs(n: int) -> int: ...
@overload
def _pairs(n: np.ndarray) -> np.ndarray: ...
def _pairs(n: np.ndarray | int) -> np.ndarray | int:
    """Number of unordered pairs of n items, C(n, 2)."""
    return n * (n - 1) // 2


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (``np.unique`` without options, which imports ``numpy.ma`` on first use)."""
    ordered = np.sort(values)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if ordered.size else ordered


def _last_chain(partition: Partition, n_mentions: int) -> np.ndarray:
    """For each mention id, the last chain holding it (v8.01's ``Indexa``), -1 if none."""
    last = np.full(n_mentions, -1, dtype=np.int64)
    np.maximum.at(last, partition.mention, partition.chain)
    return last


class Contingency:
    """Sparse counts ``count[(row, col)]`` of occurrences, stored as sorted codes ``row * n_cols + col``."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray, n_cols: int) -> None:
        self.n_cols = max(n_cols, 1)
        codes, self.counts = np.unique(rows * self.n_cols + cols, return_counts=True)
        self.codes = codes
        self.rows, self.cols = np.divmod(codes, self.n_cols)

    def lookup(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Counts at the given cells (every cell must be present)."""
        return self.counts[np.searchsorted(self.codes, rows * self.n_cols + cols)]


class DocumentOverlap:
    """The key/response overlap counts of one identified document, computed once and shared by the metrics."""

    def __init__(self, doc: IdentifiedDocument) -> None:
        self.doc = doc
        self.key, self.response = doc.key, doc.response
        self.key_sizes = self.key.sizes
        self.response_sizes = self.response.sizes
        self.key_last = _last_chain(self.key, doc.n_mentions)
        self.response_last = _last_chain(self.response, doc.n_mentions)

    @cached_property
    def response_by_key(self) -> Contingency:
        """(response chain, key chain) -> response occurrences whose mention's last key chain is that chain."""
        key_chain = self.key_last[self.response.mention]
        found = key_chain >= 0
        return Contingency(self.response.chain[found], key_chain[found], self.key.n_chains)

    @cached_property
    def key_by_response(self) -> Contingency:
        """(key chain, response chain) -> key occurrences whose mention is in that response chain.

        A key mention occurs at most once in the response (identification removes repeats), so its last response
        chain is its only one.
        """
        response_chain = self.response_last[self.key.mention]
        found = response_chain >= 0
        return Contingency(self.key.chain[found], response_chain[found], self.response.n_chains)

    @cached_property
    def response_in_key(self) -> Contingency:
        """(response chain, key chain) -> response occurrences whose mention is anywhere in that key chain."""
        membership = _sorted_unique(self.key.mention * self.key.n_chains + self.key.chain)
        member_mention, member_chain = np.divmod(membership, self.key.n_chains)
        starts = np.searchsorted(member_mention, self.response.mention, side="left")
        counts = np.searchsorted(member_mention, self.response.mention, side="right") - starts
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        cols = member_chain[np.repeat(starts, counts) + offsets]
        return Contingency(np.repeat(self.response.chain, counts), cols, self.key.n_chains)

    @cached_property
    def bcub_terms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """B3's terms: recall terms (of the response occurrences whose mention is in the key), which occurrences
        those are, precision terms (of every response occurrence), in occurrence order."""
        response = self.response
        key_chain = self.key_last[response.mention]
        found = key_chain >= 0
        common = np.zeros(len(response.mention), dtype=np.float64)
        common[found] = self.response_in_key.lookup(response.chain[found], key_chain[found])
        precision_terms = common / self.response_sizes[response.chain]
        recall_terms = common[found] / self.key_sizes[key_chain[found]]
        return recall_terms, found, precision_terms

    @cached_property
    def ceaf_components(self) -> CeafComponents:
        """The connected components of the key/response overlap graph (CEAFm and CEAFe align the same ones)."""
        return CeafComponents(self)

    @cached_property
    def ceafm_values(self) -> np.ndarray:
        """CEAFm's aligned similarity of each key chain."""
        cells = self.key_by_response
        return _aligned_similarity(cells.counts.astype(np.float64), self)

    @cached_property
    def ceafe_values(self) -> np.ndarray:
        """CEAFe's aligned similarity of each key chain."""
        cells = self.key_by_response
        sizes = self.key_sizes[cells.rows] + self.response_sizes[cells.cols]
        return _aligned_similarity((2 * cells.counts) / sizes, self)

    @cached_property
    def lea_values(self) -> tuple[np.ndarray, np.ndarray]:
        """LEA's term of each key chain and of each response chain."""
        key = _lea_values(self.key, self.key_sizes, self.key_by_response, self.response_last, self.response_sizes)
        response = _lea_values(self.response, self.response_sizes, self.response_by_key, self.key_last, self.key_sizes)
        return key, response


class Parts:
    """The part (0 ... ``count`` - 1) of every key and response chain of one document, and per part its chains and
    occurrences: what the ``by_part`` functions of :data:`METRIC_TABLE` sum over (the parts are those that no key
    or response chain crosses, :func:`ucdcr.scoring.bootstrap.document_units`)."""

    def __init__(self, overlap: DocumentOverlap, mention_part: np.ndarray, count: int) -> None:
        self.count = count
        self.key = mention_part[overlap.key.mention[_first_occurrences(overlap.key)]]
        self.response = mention_part[overlap.response.mention[_first_occurrences(overlap.response)]]
        self.key_chains = self.sum(self.key)
        self.response_chains = self.sum(self.response)
        self.key_occurrences = self.sum(self.key[overlap.key.chain])
        self.response_occurrences = self.sum(self.response[overlap.response.chain])

    def sum(self, parts: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
        """Per part, the number of ``parts`` entries, or the sum of their ``values`` added in order (as a
        left-to-right sum over the part alone adds them: ``np.bincount`` adds its weights one by one)."""
        return np.bincount(parts, weights=values, minlength=self.count)


def _first_occurrences(partition: Partition) -> np.ndarray:
    """The index of each chain's first occurrence (the chains are numbered in order and none is empty)."""
    return np.searchsorted(partition.chain, np.arange(partition.n_chains))


def _part_counts(rn: np.ndarray, rd: np.ndarray, pn: np.ndarray, pd: np.ndarray) -> np.ndarray:
    """(parts, 4): the four counts of each part as floats."""
    return np.stack([rn, rd, pn, pd], axis=1).astype(np.float64)


def muc(overlap: DocumentOverlap) -> MetricScore:
    """MUC link counts (singletons add nothing)."""
    cells = overlap.response_by_key
    correct = int(cells.counts.sum()) - len(cells.counts)
    key_links = len(overlap.key.mention) - overlap.key.n_chains
    response_links = len(overlap.response.mention) - overlap.response.n_chains
    return MetricScore(correct, key_links, correct, response_links)


def muc_by_part(overlap: DocumentOverlap, parts: Parts) -> np.ndarray:
    """MUC's counts of each part."""
    cells = overlap.response_by_key
    correct = parts.sum(parts.response[cells.rows], cells.counts - 1)
    key_links = parts.key_occurrences - parts.key_chains
    return _part_counts(correct, key_links, correct, parts.response_occurrences - parts.response_chains)


def bcub(overlap: DocumentOverlap) -> MetricScore:
    """B3 over all occurrences, summed per response occurrence in chain order (as v8.01)."""
    recall_terms, _, precision_terms = overlap.bcub_terms
    return MetricScore(
        sequential_sum(recall_terms),
        len(overlap.key.mention),
        sequential_sum(precision_terms),
        len(overlap.response.mention),
    )


def bcub_by_part(overlap: DocumentOverlap, parts: Parts) -> np.ndarray:
    """B3's counts of each part."""
    recall_terms, found, precision_terms = overlap.bcub_terms
    occurrence_part = parts.response[overlap.response.chain]
    recall = parts.sum(occurrence_part[found], recall_terms)
    precision = parts.sum(occurrence_part, precision_terms)
    return _part_counts(recall, parts.key_occurrences, precision, parts.response_occurrences)


def ceafm(overlap: DocumentOverlap) -> MetricScore:
    """CEAF with the mention-based similarity phi3 = |k & r|."""
    numerator = sequential_sum(overlap.ceafm_values)
    return MetricScore(numerator, len(overlap.key.mention), numerator, len(overlap.response.mention))


def ceafm_by_part(overlap: DocumentOverlap, parts: Parts) -> np.ndarray:
    """CEAFm's counts of each part."""
    numerator = parts.sum(parts.key, overlap.ceafm_values)
    return _part_counts(numerator, parts.key_occurrences, numerator, parts.response_occurrences)


def ceafe(overlap: DocumentOverlap) -> MetricScore:
    """CEAF with the entity-based similarity phi4 = 2 |k & r| / (|k| + |r|)."""
    numerator = sequential_sum(overlap.ceafe_values)
    return MetricScore(numerator, overlap.key.n_chains, numerator, overlap.response.n_chains)


def ceafe_by_part(overlap: DocumentOverlap, parts: Parts) -> np.ndarray:
    """CEAFe's counts of each part."""
    numerator = parts.sum(parts.key, overlap.ceafe_values)
    return _part_counts(numerator, parts.key_chains, numerator, parts.response_chains)


class CeafComponents:
    """The overlap graph's components, for the alignment (:func:`_aligned_similarity`): the cells (edges) alone in
    theirs, and for each other component (in the order of its label) its edges, its key and response chains, and
    each edge's row and column in the component's matrix (chains in the order of their number)."""

    def __init__(self, overlap: DocumentOverlap) -> None:
        cells = overlap.key_by_response
        n_key, n_response = overlap.key.n_chains, overlap.response.n_chains
        self.alone = np.zeros(0, dtype=bool)
        self.shared: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]] = []
        if not len(cells.counts):
            return
        component = connected_components(cells.rows, n_key + cells.cols, n_key + n_response)
        edge_component = component[cells.rows]
        edges_in_component = np.bincount(edge_component)
        self.alone = edges_in_component[edge_component] == 1
        shared = np.flatnonzero(~self.alone)
        if not shared.size:
            return
        shared = shared[np.argsort(edge_component[shared], kind="stable")]
        label = edge_component[shared]
        # each component's chains, numbered within it in order: one sort for all components
        rows, local_rows, row_starts = _local_numbers(label, cells.rows[shared], n_key)
        cols, local_cols, col_starts = _local_numbers(label, cells.cols[shared], n_response)
        edge_starts = np.flatnonzero(np.diff(label)) + 1
        edge_bounds = zip([0, *edge_starts.tolist()], [*edge_starts.tolist(), len(shared)], strict=True)
        row_bounds = [*row_starts.tolist(), len(rows)]
        col_bounds = [*col_starts.tolist(), len(cols)]
        for number, (first, last) in enumerate(edge_bounds):
            component_rows = rows[row_bounds[number] : row_bounds[number + 1]]
            n_cols = col_bounds[number + 1] - col_bounds[number]
            self.shared.append(
                (shared[first:last], component_rows, local_rows[first:last], local_cols[first:last], n_cols)
            )


def _local_numbers(label: np.ndarray, chain: np.ndarray, n_chains: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per component (``label``, sorted), its distinct chains in order; each edge's chain numbered within its
    component (as ``np.unique(chains of the component, return_inverse=True)`` numbers them); where each
    component's chains start."""
    codes, inverse = np.unique(label * n_chains + chain, return_inverse=True)
    component, chains = np.divmod(codes, n_chains)
    starts = np.flatnonzero(np.concatenate(([True], component[1:] != component[:-1])))
    first_of_component = np.repeat(starts, np.diff(np.append(starts, len(codes))))
    return chains, inverse.reshape(-1) - first_of_component[inverse.reshape(-1)], starts


def _aligned_similarity(phi: np.ndarray, overlap: DocumentOverlap) -> np.ndarray:
    """Per key chain, ``1 - (1 - phi)`` of its chain in an optimal alignment (0 when unaligned); ``phi`` per
    cell of ``overlap.key_by_response``."""
    cells = overlap.key_by_response
    best = np.zeros(overlap.key.n_chains, dtype=np.float64)
    if not len(phi):
        return best
    components = overlap.ceaf_components
    alone = components.alone
    best[cells.rows[alone]] = phi[alone]
    for edges, rows, local_rows, local_cols, n_cols in components.shared:
        matrix = np.zeros((len(rows), n_cols))
        matrix[local_rows, local_cols] = phi[edges]
        best[rows] = aligned_values(matrix)
    return 1 - (1 - best)


BRUTE_FORCE_LIMIT = 5040
"""Most alignments of a component tried without scipy (7! = every alignment of a 7 x 7 component)."""
_TIE = 1e-9  # alignment totals closer than this to the best one are treated as equally good


def aligned_values(matrix: np.ndarray) -> np.ndarray:
    """Each row's entry in a maximum-weight one-to-one assignment of rows to columns (0 for a row left out).

    The values ``linear_sum_assignment(matrix, maximize=True)`` gives: a single row or column takes its largest
    entry (``argmax``, the first on ties, as the solver does); a small matrix tries every assignment and keeps the
    result when every (near-)best assignment gives each row the same value, so that it cannot differ from the
    solver's; anything else goes to scipy's solver (:func:`assignment_solver`), loaded only then (and used for
    every matrix once it is loaded).
    """
    n_rows, n_cols = matrix.shape
    values = np.zeros(n_rows)
    if n_rows == 1 or n_cols == 1:
        row, col = divmod(int(np.argmax(matrix)), n_cols)
        values[row] = matrix[row, col]
        return values
    solver_loaded = assignment_solver.cache_info().currsize or "scipy.optimize" in sys.modules  # then it is faster
    if not solver_loaded and math.perm(max(n_rows, n_cols), min(n_rows, n_cols)) <= BRUTE_FORCE_LIMIT:
        unique = _unique_best_values(matrix)
        if unique is not None:
            return unique
    chosen_rows, chosen_cols = assignment_solver()(matrix, maximize=True)
    values[chosen_rows] = matrix[chosen_rows, chosen_cols]
    return values


@cache
def assignment_solver() -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    """scipy's ``linear_sum_assignment``, loaded on first use.

    It is the compiled module ``scipy.optimize._lsap``; importing it the usual way runs ``scipy.optimize``'s
    ``__init__`` first, which imports all of scipy's optimisers (and linalg, sparse, spatial...: about 0.4 s, far
    more than scoring 5,000 mentions takes). So the compiled file is loaded on its own from scipy's folder (the same
    code, hence the same assignments); through the package if ``scipy.optimize`` is imported already or the file
    is not where scipy keeps it.
    """
    return _standalone_lsap() or _package_lsap()


def _package_lsap() -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    from scipy.optimize import linear_sum_assignment

    return linear_sum_assignment


def _standalone_lsap() -> Callable[..., tuple[np.ndarray, np.ndarray]] | None:
    """``linear_sum_assignment`` of scipy's compiled ``optimize/_lsap`` module, loaded without its package (None
    when ``scipy.optimize`` is loaded anyway or the module is not found). Leaves ``sys.modules`` as it was."""
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    name = "scipy.optimize._lsap"
    if "scipy.optimize" in sys.modules or name in sys.modules:
        return None
    scipy = importlib.util.find_spec("scipy")  # finds the folder; imports nothing
    folders = scipy.submodule_search_locations if scipy is not None else None
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    paths = [Path(folder, "optimize", f"_lsap{suffix}") for folder in folders or () for suffix in suffixes]
    path = next((path for path in paths if path.is_file()), None)
    spec = importlib.util.spec_from_file_location(name, path) if path is not None else None
    if spec is None or spec.loader is None:
        return None
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ImportError:
        return None
    finally:
        sys.modules.pop(name, None)  # a later ``import scipy.optimize`` loads it as its own
    solver = getattr(module, "linear_sum_assignment", None)
    return solver if callable(solver) else None


def _unique_best_values(matrix: np.ndarray) -> np.ndarray | None:
    """The per-row values shared by every best assignment (tried exhaustively), or None if two best ones differ."""
    transposed = matrix.shape[0] > matrix.shape[1]
    wide = matrix.T if transposed else matrix  # rows <= columns: every row of ``wide`` gets a column
    orders = np.array(list(itertools.permutations(range(wide.shape[1]), wide.shape[0])), dtype=np.int64)
    picked = wide[np.arange(wide.shape[0]), orders]  # (assignments, rows of wide)
    totals = picked.sum(axis=1)
    best = totals >= totals.max() - _TIE
    if transposed:  # back to the rows of ``matrix``: row orders[a, j] takes column j's value
        per_row = np.zeros((int(best.sum()), matrix.shape[0]))
        np.put_along_axis(per_row, orders[best], picked[best], axis=1)
    else:
        per_row = picked[best]
    return per_row[0] if (per_row == per_row[0]).all() else None


UNION_FIND_LIMIT = 5_000
"""Overlap graphs with at most this many edges get their components in Python; larger ones from scipy's csgraph."""


def connected_components(left: np.ndarray, right: np.ndarray, n_nodes: int) -> np.ndarray:
    """The component label of each of ``n_nodes`` nodes of the undirected graph with edges ``left[i] - right[i]``.

    Up to UNION_FIND_LIMIT edges a union-find in Python (labels: a root node of each component), above it (or once
    scipy is loaded anyway) ``scipy.sparse.csgraph.connected_components``, imported then: it costs about half a
    second of start-up, which a large graph makes up for.
    """
    if len(left) > UNION_FIND_LIMIT or "scipy.sparse.csgraph" in sys.modules:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components as scipy_components

        graph = coo_matrix((np.ones(len(left)), (left, right)), shape=(n_nodes, n_nodes))
        return scipy_components(graph, directed=False)[1]
    parent = list(range(n_nodes))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]  # path halving
            node = parent[node]
        return node

    for a, b in zip(left.tolist(), right.tolist(), strict=True):
        root_a, root_b = root(a), root(b)
        if root_a != root_b:
            parent[root_a] = root_b
    return np.array([root(node) for node in range(n_nodes)], dtype=np.int64)


def blanc(overlap: DocumentOverlap) -> BlancScore:
    """BLANC link counts of one document (summed over documents before combining, as v8.01)."""
    n = overlap.doc.n_mentions
    repeated = (np.bincount(overlap.key.mention, minlength=n) > 1) | (
        np.bincount(overlap.response.mention, minlength=n) > 1
    )
    counts = _LinkCounts(overlap, clean=~repeated)
    if repeated.any():
        counts.add_duplicated(overlap, np.flatnonzero(repeated))
    coreference = MetricScore(counts.both_coref, counts.key_coref, counts.both_coref, counts.response_coref)
    non_coreference = MetricScore(counts.both_non, counts.key_non, counts.both_non, counts.response_non)
    return BlancScore.from_links(coreference, non_coreference)


class _LinkCounts:
    """BLANC's six link-set sizes: closed form over the *clean* mentions (at most one occurrence per side), then
    the links touching a repeated mention added one by one."""

    def __init__(self, overlap: DocumentOverlap, clean: np.ndarray) -> None:
        key_chain = overlap.key_last[clean]
        response_chain = overlap.response_last[clean]
        in_key, in_response = key_chain >= 0, response_chain >= 0
        both = in_key & in_response
        self.clean_key = np.bincount(key_chain[in_key], minlength=overlap.key.n_chains)
        self.clean_response = np.bincount(response_chain[in_response], minlength=overlap.response.n_chains)
        self.clean_key_both = np.bincount(key_chain[both], minlength=overlap.key.n_chains)
        self.clean_response_both = np.bincount(response_chain[both], minlength=overlap.response.n_chains)
        self.clean_cells = Contingency(key_chain[both], response_chain[both], overlap.response.n_chains)
        self.clean_both = int(both.sum())
        self.key_coref = int(_pairs(self.clean_key).sum())
        self.key_non = _pairs(int(self.clean_key.sum())) - self.key_coref
        self.response_coref = int(_pairs(self.clean_response).sum())
        self.response_non = _pairs(int(self.clean_response.sum())) - self.response_coref
        self.both_coref = int(_pairs(self.clean_cells.counts).sum())
        # pairs on both sides, minus those sharing a key chain or a response chain, plus those sharing both
        self.both_non = (
            _pairs(self.clean_both)
            - int(_pairs(self.clean_key_both).sum())
            - int(_pairs(self.clean_response_both).sum())
            + self.both_coref
        )

    def add_duplicated(self, overlap: DocumentOverlap, duplicated: np.ndarray) -> None:
        """Add every link touching a mention that occurs more than once on a side (t12, t13 cases)."""
        key_chains = _chains_holding(overlap.key, duplicated)
        response_chains = _chains_holding(overlap.response, duplicated)
        cell_keys = zip(self.clean_cells.rows.tolist(), self.clean_cells.cols.tolist(), strict=True)
        cells = dict(zip(cell_keys, self.clean_cells.counts.tolist(), strict=True))
        for mention in duplicated.tolist():
            key_set, response_set = key_chains[mention], response_chains[mention]
            self._add_links_to_clean(key_set, response_set, cells)
            self._add_link(key_set, key_set, response_set, response_set, self_link=True)
        for index, first in enumerate(duplicated.tolist()):
            for second in duplicated[index + 1 :].tolist():
                self._add_link(key_chains[first], key_chains[second], response_chains[first], response_chains[second])

    def _add_links_to_clean(self, key_set: dict[int, int], response_set: dict[int, int], cells: dict) -> None:
        """Links from one duplicated mention to every clean mention, from per-chain counts."""
        self.key_coref += int(sum(self.clean_key[c] for c in key_set))
        self.key_non += _non_links_to_clean(key_set, self.clean_key)
        self.response_coref += int(sum(self.clean_response[c] for c in response_set))
        self.response_non += _non_links_to_clean(response_set, self.clean_response)
        self.both_coref += sum(cells.get((k, r), 0) for k in key_set for r in response_set)
        if key_set and response_set:
            both_non = self.clean_both
            if len(key_set) == 1:
                both_non -= int(self.clean_key_both[next(iter(key_set))])
            if len(response_set) == 1:
                both_non -= int(self.clean_response_both[next(iter(response_set))])
            if len(key_set) == 1 and len(response_set) == 1:
                both_non += cells.get((next(iter(key_set)), next(iter(response_set))), 0)
            self.both_non += both_non

    def _add_link(
        self,
        key_a: dict[int, int],
        key_b: dict[int, int],
        response_a: dict[int, int],
        response_b: dict[int, int],
        self_link: bool = False,
    ) -> None:
        """One pair of mentions (or a mention with itself), given the chains holding each with occurrence counts."""
        link = _self_link if self_link else _pair_link
        key_coref, key_non = link(key_a, key_b)
        response_coref, response_non = link(response_a, response_b)
        self.key_coref += key_coref
        self.key_non += key_non
        self.response_coref += response_coref
        self.response_non += response_non
        self.both_coref += key_coref and response_coref
        self.both_non += key_non and response_non


def _chains_holding(partition: Partition, mentions: np.ndarray) -> dict[int, dict[int, int]]:
    """For each given mention, {chain: occurrences in that chain}."""
    holding: dict[int, dict[int, int]] = {int(m): {} for m in mentions}
    selected = np.isin(partition.mention, mentions)
    for mention, chain in zip(partition.mention[selected].tolist(), partition.chain[selected].tolist(), strict=True):
        holding[mention][chain] = holding[mention].get(chain, 0) + 1
    return holding


def _non_links_to_clean(chains: dict[int, int], clean_per_chain: np.ndarray) -> int:
    """Clean mentions of this side in a chain other than one holding the duplicated mention."""
    if not chains:
        return 0
    total = int(clean_per_chain.sum())
    if len(chains) == 1:
        return total - int(clean_per_chain[next(iter(chains))])
    return total


def _pair_link(a: dict[int, int], b: dict[int, int]) -> tuple[int, int]:
    """(coreference link?, non-coreference link?) for two distinct mentions on one side."""
    coref = int(any(chain in b for chain in a))
    non = int(bool(a) and bool(b) and len(a.keys() | b.keys()) >= 2)
    return coref, non


def _self_link(a: dict[int, int], _: dict[int, int]) -> tuple[int, int]:
    """A mention paired with itself: in one chain twice (coreference) or in two chains (non-coreference)."""
    return int(any(count >= 2 for count in a.values())), int(len(a) >= 2)


def lea(overlap: DocumentOverlap) -> MetricScore:
    """LEA (link-based entity-aware), as in coval."""
    key_values, response_values = overlap.lea_values
    recall_num, precision_num = sequential_sum(key_values), sequential_sum(response_values)
    return MetricScore(recall_num, len(overlap.key.mention), precision_num, len(overlap.response.mention))


def lea_by_part(overlap: DocumentOverlap, parts: Parts) -> np.ndarray:
    """LEA's counts of each part."""
    key_values, response_values = overlap.lea_values
    recall, precision = parts.sum(parts.key, key_values), parts.sum(parts.response, response_values)
    return _part_counts(recall, parts.key_occurrences, precision, parts.response_occurrences)


def _lea_values(
    side: Partition,
    sizes: np.ndarray,
    cells: Contingency,
    other_last: np.ndarray,
    other_sizes: np.ndarray,
) -> np.ndarray:
    """Per chain |c| * (resolved links / links) (LEA sums them); a singleton chain's self-link is resolved by a
    singleton."""
    common = np.bincount(cells.rows, weights=_pairs(cells.counts), minlength=side.n_chains)
    singleton_chains = np.flatnonzero(sizes == 1)
    if singleton_chains.size:
        first_occurrence = np.searchsorted(side.chain, singleton_chains)
        other_chain = other_last[side.mention[first_occurrence]]
        # index -1 (mention absent from the other side) reads the appended size 0
        resolved = np.append(other_sizes, 0)[other_chain] == 1
        common[singleton_chains] = resolved
    links = np.where(sizes == 1, 1.0, sizes * (sizes - 1) / 2.0)
    return sizes * common / links


@dataclass(frozen=True)
class Metric:
    """One metric of :data:`METRIC_TABLE`: its function and how each output names it."""

    name: str
    """Its id in the API, ``ucdcr score --metric`` and JSON, and the name v8.01 prints (``METRIC muc:``)."""
    paper_label: str
    """Its name in the paper's tables."""
    csv_stem: str | None
    """Its column stem in the authors' result CSVs (``R_<stem>``, ``P_<stem>``, ``F1_<stem>``); None if absent."""
    function: Callable[[DocumentOverlap], MetricScore]
    """Its counts on one identified document."""
    in_conll: bool = False
    """Whether its F1 is one of the three the CoNLL F1 averages."""
    in_v801: bool = True
    """Whether the reference scorer v8.01 computes it (LEA is coval's)."""
    link_lines: bool = False
    """Printed as v8.01 prints BLANC: coreference-link, non-coreference-link and overall lines (a BlancScore)."""
    by_part: Callable[[DocumentOverlap, Parts], np.ndarray] | None = None
    """Its counts on each part of the document that no chain crosses, ``(parts, 4)``: the counts each part scored
    alone gets, bit for bit (what the confidence intervals resample); None when it is no sum over parts (BLANC)."""

    def column(self, part: str) -> str:
        """The authors' CSV column of one part, ``R``, ``P`` or ``F1`` (``F1_CEAF_E``)."""
        if self.csv_stem is None:
            raise KeyError(f"{self.name} has no column in the authors' CSVs")
        return f"{part}_{self.csv_stem}"


METRIC_TABLE: tuple[Metric, ...] = (
    Metric("muc", "MUC", "MUC", muc, in_conll=True, by_part=muc_by_part),
    Metric("bcub", "B3", "B3", bcub, in_conll=True, by_part=bcub_by_part),
    Metric("ceafm", "CEAFm", None, ceafm, by_part=ceafm_by_part),
    Metric("ceafe", "CEAFe", "CEAF_E", ceafe, in_conll=True, by_part=ceafe_by_part),
    Metric("blanc", "BLANC", None, blanc, link_lines=True),
    Metric("lea", "LEA", None, lea, in_v801=False, by_part=lea_by_part),
)
"""Every metric ucdcr computes, in the order v8.01 prints them (LEA, not in v8.01, last). Every other list of
metrics (names, print order, the CoNLL F1, the protocol's score columns, the paper tables' columns) derives from
this table."""


@dataclass(frozen=True)
class F1Mean:
    """An F1 averaged over metrics, with the names the outputs give it."""

    name: str
    """Its id in the API and ``ucdcr score --metric`` (it selects its parts)."""
    label: str
    """The name ``ucdcr score`` prints (v8.01 does not print it)."""
    paper_label: str
    """Its column in the paper's tables."""
    column: str
    """Its column in the authors' result CSVs."""
    parts: tuple[Metric, ...]

    def f1(self, scores: Mapping[str, MetricScore]) -> float:
        """The unweighted mean of the parts' exact F1 (not of their truncated printed values)."""
        missing = [metric.name for metric in self.parts if metric.name not in scores]
        if missing:
            raise KeyError(f"{self.label} needs the metrics {', '.join(missing)}, which were not computed")
        return sum(scores[metric.name].f1 for metric in self.parts) / len(self.parts)


CONLL = F1Mean("conll", "CoNLL F1", "CoNLL", "F1_CONLL", tuple(metric for metric in METRIC_TABLE if metric.in_conll))
"""The CoNLL F1: the mean of the MUC, B3 and CEAFe F1."""

METRICS: tuple[str, ...] = tuple(metric.name for metric in METRIC_TABLE)
"""Metric names, in the order v8.01 prints them."""
CONLL_METRICS: tuple[str, ...] = tuple(metric.name for metric in CONLL.parts)
"""The metrics whose F1 mean is the CoNLL F1."""
METRIC_BY_NAME: dict[str, Metric] = {metric.name: metric for metric in METRIC_TABLE}
ALL = "all"
"""The name that selects every metric."""
METRIC_CHOICES: tuple[str, ...] = (ALL, *METRICS, CONLL.name)
"""Every name ``ucdcr score --metric`` and :func:`~ucdcr.scoring.resolve_metrics` accept."""
