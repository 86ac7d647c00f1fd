"""Confidence intervals and paired significance tests for coreference scores, from per-unit numbers.

A *unit* is what an evaluation treats as independent: a document of a CoNLL file, a gold topic of the standard
protocol's meta-document, a subtopic of the ucdcr protocol. Two kinds of unit data:

- :class:`UnitCounts` (micro): per unit and metric the four v8.01 counts (recall and precision numerator and
  denominator). MUC, B3, CEAFm, CEAFe and LEA are sums of such counts over parts of a document that no key or
  response chain crosses (:func:`split_units` finds those parts; :func:`document_units` takes the counts of one
  document's parts from the document scored whole), so the score of a resample of units is the F1 of weighted
  sums of counts computed once: no re-scoring. BLANC is not such a sum (its non-coreference links cross units)
  and gets no interval.
- :class:`UnitValues` (macro): per unit one value per column, averaged over the units (the ucdcr protocol's
  unweighted mean over settings). A unit without a value (a subtopic with no event setting) adds nothing.

Rules:

- A resample draws as many units as there are, with replacement (Efron's bootstrap); the interval is the 2.5th and
  97.5th percentile of the resampled scores (95% percentile bootstrap), in percent as the tables print.
- The random draws are seeded by :data:`SEED` and the unit ids, so the same units give the same interval in every
  run, and a dataset is resampled the same way alone, beside other systems (paired) or inside a mean over datasets.
- The interval of a difference of two systems is always the paired bootstrap's: both systems' scores on the same
  resamples, the percentile interval of the resampled differences. The p-value comes from the chosen test:
- Paired bootstrap (Koehn 2004): two-sided p = min(1, 2 min(P(d* <= 0), P(d* >= 0))), each proportion counted as
  (k + 1) / (B + 1), so p is never below 2 / (B + 1), its resolution.
- Paired randomisation (Noreen 1989), the default: each unit's numbers swapped between the two systems or not.
  With at most :data:`EXACT_UNITS` units (over all datasets of a mean) every one of the 2^n swaps is scored, and p
  = (number of swaps with |d*| >= |d|) / 2^n is exact (its resolution 2 / 2^n: the swap of none and of all give
  |d|); with more, R random swaps (each unit with probability 1/2) give p = (k + 1) / (R + 1), never below
  1 / (R + 1). :attr:`Comparison.p_floor` is the smallest p the test can give, so "p = floor" reads "p <= floor".
- A mean over datasets resamples each dataset on its own and averages the resampled scores.
- Runs of one system with several seeds (:class:`SeedMean`) are resampled on the same units; counts of seeds whose
  responses join units differently (predicted topics) are first merged to the units no seed's chain crosses.
- Each metric's recall and precision get an interval too (columns ``<metric>/R`` and ``<metric>/P`` of
  :class:`UnitCounts`); values (:class:`UnitValues`) get one for each column they hold.
- Fewer than two units give no interval and no test (:data:`MIN_UNITS`); in a mean over datasets, a dataset of
  one unit is a constant (its own uncertainty is not measured) while the others are resampled.
"""

from __future__ import annotations

import zlib
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ucdcr.scoring.metrics import CONLL, DocumentOverlap, Metric, Parts

SEED = 2026
"""The seed every resampling starts from (with the unit ids)."""
RESAMPLES = 1000
"""The default number of resamples (``--resamples``)."""
MAX_RESAMPLES = 100_000
"""The most resamples asked for (``--resamples`` refuses more when parsed; the functions here too): each resample is
a row of weights over the units, so a billion would need hundreds of GB before drawing one."""
LEVEL = 0.95
"""The coverage of every interval."""
MIN_UNITS = 2
"""Fewer units give no interval and no test: one unit resampled is always itself."""
COUNT_FIELDS = ("recall_num", "recall_den", "precision_num", "precision_den")
CONLL_COLUMN = CONLL.name
"""The column of the CoNLL F1 in :meth:`UnitCounts.scores` (the mean of its parts' F1)."""
Method = Literal["bootstrap", "randomization"]
METHODS: tuple[Method, ...] = ("bootstrap", "randomization")


@dataclass(frozen=True, eq=False)
class UnitCounts:
    """Per unit and metric the v8.01 counts: ``counts[unit, metric] = (rn, rd, pn, pd)``.

    ``members``: the base units (gold topics, documents) each unit holds; a unit is several of them when a chain
    crosses them. Paired comparisons merge two systems' units to their common parts (:func:`aligned`).
    """

    units: tuple[str, ...]
    metrics: tuple[str, ...]
    counts: np.ndarray
    members: tuple[tuple[str, ...], ...]

    @property
    def has_conll(self) -> bool:
        return all(metric.name in self.metrics for metric in CONLL.parts)

    @property
    def columns(self) -> tuple[str, ...]:
        """Each metric's F1, then ``conll`` when its parts are there, then each metric's recall and precision
        (``<metric>/R``, ``<metric>/P``)."""
        f1s = (*self.metrics, CONLL_COLUMN) if self.has_conll else self.metrics
        return (*f1s, *(f"{metric}/{part}" for metric in self.metrics for part in ("R", "P")))

    def scores(self, weights: np.ndarray) -> np.ndarray:
        """Scores in percent of each resample (rows of ``weights``, one weight per unit) and column."""
        return self.scores_of_sums(np.einsum("bu,umc->bmc", weights.astype(np.float64), self.counts))

    def scores_of_sums(self, sums: np.ndarray) -> np.ndarray:
        """Scores in percent of each column from counts summed over units, ``sums[resample, metric, count]``."""
        recall = _ratio(sums[..., 0], sums[..., 1])
        precision = _ratio(sums[..., 2], sums[..., 3])
        total = recall + precision
        f1 = np.divide(2 * precision * recall, total, out=np.zeros_like(total), where=total > 0) * 100
        columns = [f1]
        if self.has_conll:
            parts = [self.metrics.index(metric.name) for metric in CONLL.parts]
            columns.append(f1[:, parts].mean(axis=1, keepdims=True))
        both = np.stack([recall, precision], axis=2).reshape(len(recall), -1) * 100  # metric-major: R, P
        return np.concatenate([*columns, both], axis=1)

    def merged(self, groups: Sequence[Sequence[int]], members: Sequence[tuple[str, ...]]) -> UnitCounts:
        """The counts summed over each group of unit indices."""
        counts = np.stack([self.counts[list(group)].sum(axis=0) for group in groups]) if groups else self.counts[:0]
        return UnitCounts(tuple("+".join(names) for names in members), self.metrics, counts, tuple(members))

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "counts",
            "units": list(self.units),
            "metrics": list(self.metrics),
            "counts": self.counts.tolist(),
            "members": [list(names) for names in self.members],
        }


@dataclass(frozen=True, eq=False)
class UnitValues:
    """Per unit one value per column (NaN: the unit has none); a resample's score is the mean over its units."""

    units: tuple[str, ...]
    columns: tuple[str, ...]
    values: np.ndarray

    def scores(self, weights: np.ndarray) -> np.ndarray:
        present = ~np.isnan(self.values)
        totals = weights.astype(np.float64) @ np.where(present, self.values, 0.0)
        counts = weights.astype(np.float64) @ present.astype(np.float64)
        return np.divide(totals, counts, out=np.full_like(totals, np.nan), where=counts > 0)

    def to_json(self) -> dict[str, Any]:
        values = [[None if np.isnan(value) else float(value) for value in row] for row in self.values]
        return {"kind": "values", "units": list(self.units), "columns": list(self.columns), "values": values}


@dataclass(frozen=True, eq=False)
class SeedMean:
    """Runs of one system with several seeds on the same units: a resample's score is the mean of the runs' scores
    on that resample (the interval of the mean over seeds)."""

    parts: tuple[UnitCounts | UnitValues, ...]

    def __post_init__(self) -> None:
        if self.parts and all(isinstance(part, UnitCounts) for part in self.parts):
            object.__setattr__(self, "parts", aligned_all(self.parts))  # type: ignore[arg-type]
        if not self.parts or any(part.units != self.parts[0].units for part in self.parts):
            raise ValueError("the seeds of a system were scored on different units")

    @property
    def units(self) -> tuple[str, ...]:
        return self.parts[0].units

    @property
    def columns(self) -> tuple[str, ...]:
        return _common_columns(self.parts)

    def scores(self, weights: np.ndarray) -> np.ndarray:
        columns = self.columns
        stacked = [part.scores(weights)[:, [part.columns.index(column) for column in columns]] for part in self.parts]
        return np.mean(stacked, axis=0)


UnitData = UnitCounts | UnitValues | SeedMean
_SINGLE = (UnitCounts, UnitValues, SeedMean)


def unit_data_from_json(data: Mapping[str, Any]) -> UnitData:
    """The inverse of ``to_json`` (a ValueError naming what is wrong otherwise)."""
    try:
        units = tuple(str(unit) for unit in data["units"])
        if data["kind"] == "counts":
            metrics = tuple(str(metric) for metric in data["metrics"])
            counts = np.asarray(data["counts"], dtype=np.float64).reshape(len(units), len(metrics), 4)
            members = tuple(tuple(str(name) for name in names) for names in data["members"])
            if len(members) != len(units):
                raise ValueError("one list of members per unit expected")
            return UnitCounts(units, metrics, counts, members)
        if data["kind"] == "values":
            columns = tuple(str(column) for column in data["columns"])
            rows = [[np.nan if value is None else float(value) for value in row] for row in data["values"]]
            return UnitValues(units, columns, np.asarray(rows, dtype=np.float64).reshape(len(units), len(columns)))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"unit data: {exc}") from None
    raise ValueError(f"unit data of unknown kind {data.get('kind')!r}")


def unit_counts(
    by_unit: Mapping[str, Mapping[str, Any]], members: Mapping[str, tuple[str, ...]] | None = None
) -> UnitCounts:
    """UnitCounts from each unit's scores (metric name -> a MetricScore; BLANC left out), units in the given order."""
    units = tuple(by_unit)
    first = next(iter(by_unit.values()), {})
    metrics = tuple(name for name, score in first.items() if not hasattr(score, "coreference"))
    counts = np.array(
        [[[getattr(by_unit[unit][name], part) for part in COUNT_FIELDS] for name in metrics] for unit in units],
        dtype=np.float64,
    ).reshape(len(units), len(metrics), 4)
    return UnitCounts(units, metrics, counts, tuple(members[unit] if members else (unit,) for unit in units))


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    return np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator != 0)


def split_units(
    key: Iterable[Iterable[Hashable]],
    response: Iterable[Iterable[Hashable]],
    base_unit: Mapping[Hashable, str] | None = None,
) -> list[tuple[tuple[str, ...], list[list[Hashable]], list[list[Hashable]]]]:
    """The parts of one document that no key or response chain crosses: the connected parts of the graph whose
    edges join the mentions of a chain (key or response) and, with ``base_unit``, the mentions of one base unit.

    Each part: its base units (sorted; without ``base_unit`` the part is named by its first mention), its key
    chains and its response chains. Parts are ordered by their names. A mention without a base unit is its own.
    """
    key_chains = [list(chain) for chain in key]
    response_chains = [list(chain) for chain in response]
    parent: dict[Hashable, Hashable] = {}

    def root(node: Hashable) -> Hashable:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def join(a: Hashable, b: Hashable) -> None:
        root_a, root_b = root(a), root(b)
        if root_a != root_b:
            parent[root_a] = root_b

    for chain in (*key_chains, *response_chains):
        for mention in chain:
            root(("m", mention))
            if base_unit is not None and mention in base_unit:
                join(("m", mention), ("u", base_unit[mention]))
        for mention in chain[1:]:
            join(("m", chain[0]), ("m", mention))
    names: dict[Hashable, set[str]] = {}
    for node in list(parent):
        kind, value = node if isinstance(node, tuple) else ("", node)
        if kind == "u" or base_unit is None or value not in base_unit:  # named by its base unit, else by itself
            names.setdefault(root(node), set()).add(str(value) if kind == "u" else repr(value))
    parts: dict[Hashable, tuple[list[list[Hashable]], list[list[Hashable]]]] = {}
    for side, chains in ((0, key_chains), (1, response_chains)):
        for chain in chains:
            if chain:
                parts.setdefault(root(("m", chain[0])), ([], []))[side].append(chain)
    named_parts = [(tuple(sorted(names[part])), chains[0], chains[1]) for part, chains in parts.items()]
    return sorted(named_parts, key=lambda part: part[0])


def part_labels(
    key: Iterable[Sequence[Hashable]], response: Iterable[Sequence[Hashable]]
) -> tuple[dict[Hashable, int], int]:
    """Each mention's part in :func:`split_units` ``(key, response)`` (no base units): its index in that list, and
    the number of parts. The same parts in the same order, found faster, without listing their chains."""
    group: dict[Hashable, int] = {}  # mention -> its group: the mentions joined so far
    members: list[list[Hashable]] = []
    firsts: list[Hashable] = []  # the first mention of every chain, key chains first: the order parts are met in
    for chains in (key, response):
        for chain in chains:
            if not chain:
                continue
            firsts.append(chain[0])
            joined: set[int] = set()
            new: dict[Hashable, None] = {}
            for mention in chain:
                found = group.get(mention, -1)
                if found < 0:
                    new[mention] = None
                else:
                    joined.add(found)
            if not joined:
                joined.add(len(members))
                members.append([])
            target = max(joined, key=lambda number: len(members[number]))  # the others move into the largest
            for other in joined - {target}:
                for mention in members[other]:
                    group[mention] = target
                members[target] += members[other]
                members[other] = []
            for mention in new:
                group[mention] = target
            members[target] += new
    met = list(dict.fromkeys(group[mention] for mention in firsts))
    # split_units orders the parts by the sorted reprs of their mentions: by the smallest one unless two parts share
    # it (distinct mentions with one repr); sorted stably from the order they are met in, as there
    lowest = {number: min(map(repr, members[number])) for number in met}
    if len(set(lowest.values())) == len(met):
        ordered = sorted(met, key=lowest.__getitem__)
    else:
        ordered = sorted(met, key=lambda number: tuple(sorted(set(map(repr, members[number])))))
    position = {number: index for index, number in enumerate(ordered)}
    return {mention: position[number] for mention, number in group.items()}, len(ordered)


def document_units(
    overlap: DocumentOverlap,
    metrics: Sequence[Metric],
    key: Iterable[Sequence[Hashable]],
    response: Iterable[Sequence[Hashable]],
) -> UnitCounts:
    """The counts of every part of one document that no key or response chain crosses (:func:`split_units` of its
    chains as given, ``key`` and ``response``; units ``part 1``, ``part 2``... in that order), of the metrics
    that are sums over parts (BLANC is not): the counts each part scored alone gets, bit for bit, taken from
    ``overlap``, the document scored whole (:attr:`~ucdcr.scoring.metrics.Metric.by_part`)."""
    labels, count = part_labels(key, response)
    if not count:
        return unit_counts({})
    summed = {metric.name: metric.by_part for metric in metrics if metric.by_part is not None}
    mention_part = np.fromiter((labels[mention] for mention in overlap.doc.mention_ids), dtype=np.int64)
    parts = Parts(overlap, mention_part, count)
    counts = np.zeros((count, 0, 4))
    if summed:
        counts = np.ascontiguousarray(np.stack([by_part(overlap, parts) for by_part in summed.values()], axis=1))
    units = tuple(f"part {number}" for number in range(1, count + 1))
    return UnitCounts(units, tuple(summed), counts, tuple((unit,) for unit in units))


def check_resamples(resamples: int) -> None:
    """A number of resamples must be 0 (no interval) to :data:`MAX_RESAMPLES`: one ValueError saying so."""
    if not 0 <= resamples <= MAX_RESAMPLES:
        raise ValueError(f"resamples must be 0 to {MAX_RESAMPLES:,}, not {resamples:,}")


def resample_weights(units: Sequence[str], resamples: int) -> np.ndarray:
    """``resamples`` rows of how often each unit is drawn (module docstring: seeded by SEED and the unit ids)."""
    check_resamples(resamples)
    n_units = len(units)
    if not n_units or resamples <= 0:
        return np.zeros((0, n_units), dtype=np.int64)
    rng = np.random.default_rng([SEED, zlib.crc32("\x1f".join(units).encode())])
    cells = rng.integers(0, n_units, size=(resamples, n_units))  # the draws, then each (resample, unit) as one index
    cells += np.arange(0, resamples * n_units, n_units)[:, None]
    counts = np.bincount(cells.ravel(), minlength=resamples * n_units)
    return counts.reshape(resamples, n_units).astype(np.int64, copy=False)


@dataclass(frozen=True)
class Interval:
    """A 95% percentile-bootstrap interval of a score in percent, and how it was computed."""

    low: float
    high: float
    resamples: int
    units: int

    def as_dict(self) -> dict[str, float | int]:
        return {"low": self.low, "high": self.high, "resamples": self.resamples, "units": self.units}


def intervals(data: UnitData | Sequence[UnitData], resamples: int = RESAMPLES) -> dict[str, Interval]:
    """Each column's interval; several unit data (one per dataset): the interval of their unweighted mean."""
    parts = [data] if isinstance(data, _SINGLE) else list(data)
    if resamples <= 0 or not _resamplable(parts):
        return {}
    columns = _common_columns(parts)
    if not columns:  # only metrics that do not decompose over units (BLANC): nothing to resample
        return {}
    resampled = _mean_scores(parts, columns, [resample_weights(part.units, resamples) for part in parts])
    low, high = _percentiles(resampled)
    units = sum(len(part.units) for part in parts)
    return {
        column: Interval(float(low[index]), float(high[index]), resamples, units)
        for index, column in enumerate(columns)
        if not np.isnan(low[index])
    }


@dataclass(frozen=True)
class Comparison:
    """System A minus system B on one column: the difference (in points), its paired bootstrap interval and the
    two-sided p of ``method``. ``p_floor``: the smallest p the test can give (its resolution; a p at the floor
    reads "p <= floor"); ``exact``: the randomisation test enumerated every swap; ``resamples``: the bootstrap's
    resamples (and the random swaps of an inexact randomisation test); ``units``: the units resampled or swapped."""

    difference: float
    low: float
    high: float
    p_value: float
    method: Method
    resamples: int
    units: int
    p_floor: float = 0.0
    exact: bool = False

    def significant(self, alpha: float = 1 - LEVEL) -> bool:
        return self.p_value < alpha

    @property
    def at_floor(self) -> bool:
        """Whether p is the smallest value the test can give (the true p may be smaller)."""
        return not self.exact and self.p_value <= self.p_floor * (1 + 1e-9)

    def as_dict(self) -> dict[str, float | int | str | bool]:
        return {
            "difference": self.difference,
            "low": self.low,
            "high": self.high,
            "p_value": self.p_value,
            "p_floor": self.p_floor,
            "exact": self.exact,
            "method": self.method,
            "resamples": self.resamples,
            "units": self.units,
        }


class Estimate(float):
    """A score with its confidence interval, as tables and the Python API give it: it *is* the float of the score
    (arithmetic and comparisons use the score), and carries ``low`` and ``high`` (the 95% interval's bounds, in the
    score's unit) and ``units`` (how many units were resampled; 0: not recorded). Text formats print
    ``79.94 [77.80, 82.01]``; CSV and JSON give the bounds in the columns ``<column> low`` and ``<column> high``.
    ``mark``: a sign printed after it (and in the column ``<column> mark`` of CSV and JSON), explained in a note."""

    low: float
    high: float
    mark: str
    units: int

    def __new__(cls, value: float, low: float, high: float, mark: str = "", units: int = 0) -> Estimate:
        estimate = super().__new__(cls, value)
        estimate.low, estimate.high, estimate.mark, estimate.units = low, high, mark, units
        return estimate

    @classmethod
    def of(cls, value: float, interval: Interval | None) -> float:
        """The value with its interval, or the plain value without one."""
        if interval is None:
            return value
        return cls(value, interval.low, interval.high, units=interval.units)


class PValue(float):
    """A p-value as tables and the Python API give it: the float, with ``floor`` (the smallest p its test can give;
    0: not recorded) and ``exact`` (every swap of an exact randomisation test was scored). Printed with three
    decimals; a p at its floor prints as ``<`` the floor (the true p may be smaller), e.g. ``<0.001`` for 1,000 random
    swaps."""

    floor: float
    exact: bool

    def __new__(cls, value: float, floor: float = 0.0, exact: bool = False) -> PValue:
        found = super().__new__(cls, value)
        found.floor, found.exact = floor, exact
        return found

    @classmethod
    def of(cls, comparison: Comparison) -> PValue:
        return cls(comparison.p_value, comparison.p_floor, comparison.exact)

    def text(self) -> str:
        if not self.exact and self.floor and self <= self.floor * (1 + 1e-9):
            return f"<{_ceil3(self.floor)}"
        return "<0.001" if self < 0.0005 else f"{self:.3f}"


def _ceil3(value: float) -> str:
    """``value`` rounded up to the third decimal (a bound printed never below the value), at least 0.001."""
    return f"{max(np.ceil(value * 1000 - 1e-9), 1) / 1000:.3f}"


EXACT_UNITS = 16
"""Up to this many units (over all datasets of a comparison), the randomisation test scores every one of the 2^n
swaps: an exact p."""


def paired(
    first: UnitData | Sequence[UnitData],
    second: UnitData | Sequence[UnitData],
    resamples: int = RESAMPLES,
    method: Method = "randomization",
) -> dict[str, Comparison]:
    """first - second on every column both have, paired on the same units (several data: a mean over datasets,
    matched in order), with the interval of the paired bootstrap and the p of ``method`` (module docstring).
    Counts of two systems whose units differ are first merged to their common parts."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; valid: {', '.join(METHODS)}")
    a_parts = [first] if isinstance(first, _SINGLE) else list(first)
    b_parts = [second] if isinstance(second, _SINGLE) else list(second)
    if len(a_parts) != len(b_parts):
        raise ValueError("a paired comparison needs the same datasets on both sides")
    pairs = [aligned(a, b) for a, b in zip(a_parts, b_parts, strict=True)]
    if resamples <= 0 or not _resamplable([a for a, _ in pairs]):
        return {}
    a_parts, b_parts = [a for a, _ in pairs], [b for _, b in pairs]
    columns = tuple(column for column in _common_columns(a_parts) if column in _common_columns(b_parts))
    if not columns:
        return {}
    full = [np.ones((1, len(a.units)), dtype=np.int64) for a in a_parts]
    observed = _mean_scores(a_parts, columns, full)[0] - _mean_scores(b_parts, columns, full)[0]
    units = sum(len(a.units) for a in a_parts)
    weights = [resample_weights(a.units, resamples) for a in a_parts]
    deltas = _mean_scores(a_parts, columns, weights) - _mean_scores(b_parts, columns, weights)
    low, high = _percentiles(deltas)
    exact = False
    if method == "bootstrap":
        below = (np.sum(deltas <= 0, axis=0) + 1) / (resamples + 1)
        above = (np.sum(deltas >= 0, axis=0) + 1) / (resamples + 1)
        p_values, floor = np.minimum(1.0, 2 * np.minimum(below, above)), 2 / (resamples + 1)
    else:
        exact = units <= EXACT_UNITS
        swaps = _all_swaps(a_parts) if exact else _random_swaps(a_parts, resamples)
        swapped = _swapped_deltas(a_parts, b_parts, columns, swaps)
        extreme = np.sum(np.abs(swapped) >= np.abs(observed) - 1e-9, axis=0)
        if exact:
            p_values, floor = extreme / len(swapped), 2 / len(swapped)
        else:
            p_values, floor = (extreme + 1) / (resamples + 1), 1 / (resamples + 1)
    return {
        column: Comparison(
            float(observed[i]),
            float(low[i]),
            float(high[i]),
            float(p_values[i]),
            method,
            resamples,
            units,
            floor,
            exact,
        )
        for i, column in enumerate(columns)
        if not np.isnan(observed[i])
    }


def aligned(first: UnitData, second: UnitData) -> tuple[UnitData, UnitData]:
    """Two systems' unit data over the same units: counts merged to the finest parts that neither system's units
    cross (both hold every base unit); values must have the same units."""
    if not (isinstance(first, UnitCounts) and isinstance(second, UnitCounts)):
        if first.units != second.units:
            raise ValueError("the two systems were scored on different units")
        return first, second
    if first.members == second.members:
        return first, second
    bases = sorted({name for names in (*first.members, *second.members) for name in names})
    index = {name: position for position, name in enumerate(bases)}
    parent = list(range(len(bases)))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for names in (*first.members, *second.members):
        for name in names[1:]:
            parent[root(index[name])] = root(index[names[0]])
    component: dict[int, list[str]] = {}
    for name in bases:
        component.setdefault(root(index[name]), []).append(name)
    merged_members = sorted(tuple(names) for names in component.values())
    position = {name: number for number, names in enumerate(merged_members) for name in names}

    def regroup(data: UnitCounts) -> UnitCounts:
        groups: list[list[int]] = [[] for _ in merged_members]
        for unit, names in enumerate(data.members):
            groups[position[names[0]]].append(unit)
        return data.merged(groups, merged_members)

    return regroup(first), regroup(second)


def aligned_all(parts: Sequence[UnitCounts]) -> tuple[UnitCounts, ...]:
    """Counts of several runs merged to the finest units that no run's units cross (as :func:`aligned` for two)."""
    if all(part.members == parts[0].members for part in parts):
        return tuple(parts)
    merged: UnitData = parts[0]
    for part in parts[1:]:
        merged, _ = aligned(merged, part)
    return tuple(_counts(aligned(part, merged)[0]) for part in parts)


def _counts(data: UnitData) -> UnitCounts:
    assert isinstance(data, UnitCounts)  # aligned() keeps counts as counts
    return data


def _resamplable(parts: Sequence[UnitData]) -> bool:
    """Whether resampling says anything: every part has a unit and some part has :data:`MIN_UNITS` (a part of one
    unit enters a mean as a constant)."""
    return bool(parts) and all(part.units for part in parts) and any(len(part.units) >= MIN_UNITS for part in parts)


def _common_columns(parts: Sequence[UnitData]) -> tuple[str, ...]:
    first = parts[0].columns
    return tuple(column for column in first if all(column in part.columns for part in parts))


def _mean_scores(parts: Sequence[UnitData], columns: Sequence[str], weights: Sequence[np.ndarray]) -> np.ndarray:
    """(resamples, columns): the mean over the parts of each part's resampled scores."""
    stacked = []
    for part, part_weights in zip(parts, weights, strict=True):
        scores = part.scores(part_weights)
        stacked.append(scores[:, [part.columns.index(column) for column in columns]])
    with np.errstate(invalid="ignore"):
        return np.mean(stacked, axis=0)


def _percentiles(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column's 2.5th and 97.5th percentile without its NaNs (NaN for a column without a value)."""
    tail = (1 - LEVEL) / 2 * 100
    low, high = nan_percentiles(values, np.array([tail, 100 - tail]))
    return low, high


def nan_percentiles(values: np.ndarray, percents: np.ndarray) -> np.ndarray:
    """``np.nanpercentile(values, percents, axis=0)`` (its default "linear" method, bit for bit) for a 2-D float
    array: numpy's own quantile code imports ``numpy.ma`` (0.01 s of ``ucdcr score``'s start-up)."""
    ordered = np.sort(values, axis=0)  # NaNs sort last: each column's first ``counts`` rows are its values
    counts = np.count_nonzero(~np.isnan(values), axis=0)
    quantiles = np.true_divide(percents, 100)[:, None]
    virtual = (counts - 1) * quantiles  # (percents, columns), as numpy's linear method
    below = np.floor(virtual)
    at_end = virtual >= counts - 1
    below_index = np.where(at_end, counts - 1, below).astype(np.intp)
    above_index = np.where(at_end, counts - 1, below + 1).astype(np.intp)
    gamma = virtual - np.where(at_end, -1, below)  # numpy's weight at the end (the two neighbours are one value)
    safe = np.maximum(counts, 1) - 1  # a column without values reads row 0 and is NaN below
    lower = np.take_along_axis(ordered, np.minimum(below_index, safe), axis=0)
    upper = np.take_along_axis(ordered, np.minimum(above_index, safe), axis=0)
    difference = upper - lower
    result = np.where(gamma >= 0.5, upper - difference * (1 - gamma), lower + difference * gamma)
    return np.where(counts > 0, result, np.nan)


def _all_swaps(parts: Sequence[UnitData]) -> list[np.ndarray]:
    """Every one of the 2^n swap patterns of the units of all parts (n units in all), split per part."""
    count = sum(len(part.units) for part in parts)
    patterns = (np.arange(2**count)[:, None] >> np.arange(count)[None, :]) & 1
    bounds = np.cumsum([0, *(len(part.units) for part in parts)])
    return [patterns[:, bounds[i] : bounds[i + 1]].astype(bool) for i in range(len(parts))]


def _random_swaps(parts: Sequence[UnitData], rounds: int) -> list[np.ndarray]:
    """Per part, ``rounds`` random swap patterns: each unit swapped with probability 1/2 (seeded by its units)."""
    found = []
    for part in parts:
        rng = np.random.default_rng([SEED, zlib.crc32("\x1f".join(part.units).encode()), 1])
        found.append(rng.random((rounds, len(part.units))) < 0.5)
    return found


def _swapped_deltas(
    a_parts: Sequence[UnitData], b_parts: Sequence[UnitData], columns: Sequence[str], swaps: Sequence[np.ndarray]
) -> np.ndarray:
    """Randomisation: per swap pattern (rows of ``swaps``, one array per part), each unit's numbers swapped between
    the two systems where the pattern says so; the mean over the parts of the differences."""
    deltas = np.zeros((len(swaps[0]), len(columns)))
    for a, b, swap in zip(a_parts, b_parts, swaps, strict=True):
        keep = (~swap).astype(np.int64)
        taken = swap.astype(np.int64)
        delta = _combined(a, b, keep, taken) - _combined(b, a, keep, taken)
        deltas += delta[:, [a.columns.index(column) for column in columns]]
    return deltas / len(a_parts)


def _combined(own: UnitData, other: UnitData, keep: np.ndarray, swap: np.ndarray) -> np.ndarray:
    """Scores of the system that takes ``own``'s units where ``keep`` and ``other``'s where ``swap`` (a mean over
    seeds: each seed paired with the other side's seed of the same rank, or its mean where it has one run)."""
    if isinstance(own, SeedMean) or isinstance(other, SeedMean):
        mine = own.parts if isinstance(own, SeedMean) else (own,)
        theirs = other.parts if isinstance(other, SeedMean) else (other,)
        count = max(len(mine), len(theirs))
        runs = [_combined(mine[i % len(mine)], theirs[i % len(theirs)], keep, swap) for i in range(count)]
        return np.mean(runs, axis=0)
    if isinstance(own, UnitCounts) and isinstance(other, UnitCounts):
        sums = np.einsum("ru,umc->rmc", keep.astype(np.float64), own.counts)
        sums += np.einsum("ru,umc->rmc", swap.astype(np.float64), other.counts)
        return own.scores_of_sums(sums)
    assert isinstance(own, UnitValues) and isinstance(other, UnitValues)
    values = np.where(keep[..., None].astype(bool), own.values[None], other.values[None])
    present = ~np.isnan(values)
    totals = np.where(present, values, 0.0).sum(axis=1)
    counts = present.sum(axis=1)
    return np.divide(totals, counts, out=np.full_like(totals, np.nan), where=counts > 0)
