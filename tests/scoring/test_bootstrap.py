"""The decomposed bootstrap against re-scoring every resample, and hand-computed intervals and paired tests."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from ucdcr.scoring import score_clusters, score_documents
from ucdcr.scoring.bootstrap import (
    UnitCounts,
    UnitValues,
    aligned,
    intervals,
    nan_percentiles,
    paired,
    part_labels,
    resample_weights,
    split_units,
    unit_counts,
    unit_data_from_json,
)
from ucdcr.scoring.metrics import METRIC_BY_NAME
from ucdcr.scoring.scores import resolve_metrics

DECOMPOSABLE = ("muc", "bcub", "ceafm", "ceafe", "lea")


def _random_documents(seed: int, n_units: int = 6) -> dict[str, tuple[list[list[str]], list[list[str]]]]:
    """Documents of 3-12 mentions with random key and response partitions (singletons and twinless mentions too)."""
    rng = random.Random(seed)
    documents = {}
    for unit in range(n_units):
        mentions = [f"u{unit}m{i}" for i in range(rng.randint(3, 12))]
        key = _partition(rng, mentions)
        response_mentions = [m for m in mentions if rng.random() < 0.85] + [f"u{unit}x{i}" for i in range(2)]
        documents[f"u{unit}"] = (key, _partition(rng, response_mentions))
    return documents


def _partition(rng: random.Random, mentions: list[str]) -> list[list[str]]:
    chains: dict[int, list[str]] = {}
    for mention in mentions:
        chains.setdefault(rng.randint(0, max(1, len(mentions) // 2)), []).append(mention)
    return list(chains.values())


def _naive(documents: dict, units: tuple[str, ...], weights: np.ndarray) -> dict[str, float]:
    """Re-score a resample from scratch: every drawn copy of a unit renamed apart, all in one meta-document."""
    key: list[list[tuple[int, str]]] = []
    response: list[list[tuple[int, str]]] = []
    copy = 0
    for unit, times in zip(units, weights.tolist(), strict=True):
        for _ in range(times):
            unit_key, unit_response = documents[unit]
            key += [[(copy, m) for m in chain] for chain in unit_key]
            response += [[(copy, m) for m in chain] for chain in unit_response]
            copy += 1
    scores = score_clusters(key, response, [*DECOMPOSABLE])
    result = {name: scores[name].f1 * 100 for name in DECOMPOSABLE}
    result["conll"] = scores.conll_f1 * 100
    for name in DECOMPOSABLE:  # recall and precision get intervals too
        result[f"{name}/R"], result[f"{name}/P"] = scores[name].recall * 100, scores[name].precision * 100
    return result


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_decomposed_bootstrap_equals_rescoring_each_resample(seed: int) -> None:
    documents = _random_documents(seed)
    scored = score_documents(documents, "all", per_document=True)
    data = unit_counts({name: scores.metrics for name, scores in scored.by_document.items()})
    assert data.metrics == DECOMPOSABLE  # BLANC does not decompose over units: left out
    weights = resample_weights(data.units, 25)
    fast = data.scores(weights)
    for row, draw in enumerate(weights):
        naive = _naive(documents, data.units, draw)
        for column, name in enumerate(data.columns):
            assert fast[row, column] == pytest.approx(naive[name], abs=1e-9), (row, name)


def test_all_units_once_gives_the_whole_score() -> None:
    documents = _random_documents(4)
    scored = score_documents(documents, "all", per_document=True)
    data = unit_counts({name: scores.metrics for name, scores in scored.by_document.items()})
    whole = data.scores(np.ones((1, len(data.units)), dtype=np.int64))[0]
    for column, name in enumerate(data.columns):
        metric, _, part = name.partition("/")
        found = {"": "f1", "R": "recall", "P": "precision"}[part]
        expected = scored.conll_f1 if name == "conll" else getattr(scored[metric], found)
        assert whole[column] == pytest.approx(expected * 100, abs=1e-9), name


def test_split_units_joins_what_a_chain_crosses() -> None:
    # topics t1, t2, t3; a response chain joins a t1 and a t2 mention; key chains stay in their topics
    base = {"a": "t1", "b": "t1", "c": "t2", "d": "t3", "e": "t3"}
    parts = split_units([["a", "b"], ["c"], ["d", "e"]], [["a"], ["b", "c"], ["d"], ["e"]], base)
    assert [(names, len(key), len(response)) for names, key, response in parts] == [
        (("t1", "t2"), 2, 2),
        (("t3",), 1, 2),
    ]
    # without base units, a single document splits into its connected parts
    parts = split_units([["a", "b"], ["c"]], [["a", "b", "c"], ["x"]])
    assert [sorted(m for chain in key for m in chain) for _, key, _ in parts] == [["a", "b", "c"], []]
    assert [response for _, _, response in parts][1] == [["x"]]


def _random_document(rng: random.Random) -> tuple[list[list[tuple[int, int]]], list[list[tuple[int, int]]]]:
    """One document of spans, small or up to 400 mentions: singletons, twinless mentions, a key mention in two
    chains, a response mention repeated (matching the key or not), empty chains; its parts are of every size."""
    n = rng.randint(0, 40) if rng.random() < 0.8 else rng.randint(100, 400)
    mentions = [(rng.randint(0, n), rng.randint(0, 3)) for _ in range(n)]

    def chains(spans: list[tuple[int, int]], repeat: float) -> list[list[tuple[int, int]]]:
        found: dict[int, list[tuple[int, int]]] = {}
        for span in spans:
            found.setdefault(rng.randint(0, max(1, len(spans) // rng.randint(1, 4))), []).append(span)
            if rng.random() < repeat:
                found.setdefault(rng.randint(0, max(1, len(spans) // 3)), []).append(span)
        listed = list(found.values())
        if rng.random() < 0.1:
            listed.insert(rng.randint(0, len(listed)), [])
        return listed

    twinless = [(rng.randint(n, n + 10), 0) for _ in range(rng.randint(0, 5))]
    return chains(mentions, 0.05), chains([m for m in mentions if rng.random() < 0.8] + twinless, 0.08)


def _parts_scored_alone(key: list, response: list | None, metrics: str | list[str], remove_singletons: bool):
    """The units of one document as they were first computed: every part of split_units scored on its own."""
    names = list(resolve_metrics(metrics))
    parts = split_units(key, response or ())
    named = {f"part {number}": (k, r) for number, (_, k, r) in enumerate(parts, 1)}
    summed = [name for name in names if METRIC_BY_NAME[name].by_part is not None]
    scored = score_documents(named, summed or names, remove_singletons=remove_singletons, per_document=True)
    return unit_counts({name: dict(scored.by_document[name].metrics) for name in named})


def test_the_parts_of_one_document_count_as_if_scored_alone() -> None:
    # the units of one document are taken from the document scored whole (Metric.by_part): the same counts, to
    # the last bit, as each part scored alone, for every metric choice and with singletons removed too
    rng = random.Random(41)
    for _ in range(300):
        key, response = _random_document(rng)
        metrics = rng.choice(["all", ["blanc"], ["muc"], ["ceafe", "lea"], ["conll"]])
        remove = rng.random() < 0.3
        given = None if rng.random() < 0.05 else response
        found = score_documents({"d": (key, given)}, metrics, remove_singletons=remove, with_units=True).units
        expected = _parts_scored_alone(key, given, metrics, remove)
        assert found is not None
        assert (found.units, found.metrics, found.members) == (expected.units, expected.metrics, expected.members)
        assert found.counts.dtype == expected.counts.dtype and found.counts.shape == expected.counts.shape
        assert found.counts.tobytes() == expected.counts.tobytes()
        assert found.counts.flags.c_contiguous


def test_part_labels_number_the_parts_of_split_units() -> None:
    rng = random.Random(7)
    for _ in range(200):
        key, response = _random_document(rng)
        labels, count = part_labels(key, response)
        parts = split_units(key, response)
        assert count == len(parts)
        expected = {m: number for number, (_, k, r) in enumerate(parts) for chain in (*k, *r) for m in chain}
        assert labels == expected


def test_part_labels_order_parts_whose_mentions_share_a_repr_as_split_units() -> None:
    class Mention:  # distinct mentions, one repr: the parts' names tie on their smallest repr
        def __repr__(self) -> str:
            return "m"

    mentions = [Mention() for _ in range(6)]
    rng = random.Random(3)
    for _ in range(100):
        key = [[rng.choice(mentions)] for _ in range(3)] + [[rng.choice(mentions), rng.choice(mentions)]]
        response = [[rng.choice(mentions)] for _ in range(3)]
        labels, count = part_labels(key, response)
        parts = split_units(key, response)
        assert count == len(parts)
        assert labels == {m: number for number, (_, k, r) in enumerate(parts) for chain in (*k, *r) for m in chain}


def test_paired_counts_merge_to_the_common_parts() -> None:
    metrics = ("muc",)
    first = UnitCounts(
        ("t1", "t2", "t3"),
        metrics,
        np.array([[[1, 2, 1, 2]], [[2, 2, 2, 2]], [[0, 1, 0, 1]]], float),
        (("t1",), ("t2",), ("t3",)),
    )
    second = UnitCounts(
        ("t1+t2", "t3"), metrics, np.array([[[3, 4, 3, 5]], [[1, 1, 1, 1]]], float), (("t1", "t2"), ("t3",))
    )
    a, b = aligned(first, second)
    assert a.units == b.units == ("t1+t2", "t3")
    assert a.counts[:, 0].tolist() == [[3, 4, 3, 4], [0, 1, 0, 1]]
    assert b.counts.tolist() == second.counts.tolist()


def test_interval_of_two_units_by_hand() -> None:
    # two units with values 0 and 100: a resample's mean is 0, 50 or 100 with probabilities 1/4, 1/2, 1/4, so the
    # 2.5th and 97.5th percentiles of 1,000 resamples are 0 and 100; the point (the mean) is 50
    data = UnitValues(("s1", "s2"), ("F1_CONLL",), np.array([[0.0], [100.0]]))
    found = intervals(data, 1000)["F1_CONLL"]
    assert (found.low, found.high, found.resamples, found.units) == (0.0, 100.0, 1000, 2)
    weights = resample_weights(data.units, 1000)
    means = data.scores(weights)[:, 0]
    assert set(means.tolist()) <= {0.0, 50.0, 100.0}
    assert abs((means == 50).mean() - 0.5) < 0.05  # about half the resamples draw both units


def test_interval_is_the_same_every_time_and_off_with_zero_resamples() -> None:
    rng = np.random.default_rng(0)
    data = UnitValues(tuple(f"s{i}" for i in range(12)), ("F1_CONLL",), rng.random((12, 1)) * 100)
    assert intervals(data, 500) == intervals(data, 500)
    assert intervals(data, 0) == {}


@pytest.mark.parametrize("method", ["bootstrap", "randomization"])
def test_identical_systems_differ_by_zero_with_p_one(method: str) -> None:
    documents = _random_documents(5, n_units=10)
    scored = score_documents(documents, "all", per_document=True)
    data = unit_counts({name: scores.metrics for name, scores in scored.by_document.items()})
    result = paired(data, data, 1000, method)  # type: ignore[arg-type]
    for comparison in result.values():
        assert comparison.difference == 0
        assert comparison.p_value == 1.0
        assert not comparison.significant()


@pytest.mark.parametrize("method", ["bootstrap", "randomization"])
def test_a_system_better_on_every_unit_is_significant(method: str) -> None:
    # ten subtopics, system A 5 to 10 points above B on each: every resampled mean difference is positive, so
    # P(d* <= 0) = 1 / 1001 and p = 2 / 1001; randomisation: only the 2 of 1,024 sign patterns that swap all or
    # none reach |d|, so p is about 2 / 1024
    rng = np.random.default_rng(3)
    base = rng.random((10, 1)) * 60
    better = UnitValues(tuple(f"s{i}" for i in range(10)), ("F1_CONLL",), base + 5 + rng.random((10, 1)) * 5)
    worse = UnitValues(better.units, ("F1_CONLL",), base)
    comparison = paired(better, worse, 1000, method)["F1_CONLL"]  # type: ignore[arg-type]
    assert comparison.difference > 5
    assert comparison.p_value < 0.05
    if method == "bootstrap":
        assert comparison.p_value == pytest.approx(2 / 1001)
        assert 5 < comparison.low < comparison.high < 10
    reverse = paired(worse, better, 1000, method)["F1_CONLL"]  # type: ignore[arg-type]
    assert reverse.difference == pytest.approx(-comparison.difference)
    assert reverse.p_value == pytest.approx(comparison.p_value)


def test_mean_over_datasets_resamples_each_alone() -> None:
    first = UnitValues(("a1", "a2"), ("F1_CONLL",), np.array([[10.0], [10.0]]))
    second = UnitValues(("b1", "b2", "b3"), ("F1_CONLL",), np.array([[0.0], [100.0], [50.0]]))
    both = intervals([first, second], 1000)["F1_CONLL"]
    alone = intervals(second, 1000)["F1_CONLL"]
    # the first dataset never varies, so the mean's bounds are (10 + the second's bounds) / 2
    assert both.low == pytest.approx((10 + alone.low) / 2)
    assert both.high == pytest.approx((10 + alone.high) / 2)


def test_unit_data_round_trips_through_json() -> None:
    counts = UnitCounts(("t1",), ("muc",), np.array([[[1.0, 2.0, 1.0, 3.0]]]), (("t1",),))
    values = UnitValues(("s1", "s2"), ("F1_CONLL",), np.array([[50.0], [np.nan]]))
    again = unit_data_from_json(counts.to_json())
    assert isinstance(again, UnitCounts) and again.counts.tolist() == counts.counts.tolist()
    back = unit_data_from_json(values.to_json())
    assert isinstance(back, UnitValues) and np.isnan(back.values[1, 0]) and back.values[0, 0] == 50
    with pytest.raises(ValueError, match="unit data"):
        unit_data_from_json({"kind": "counts", "units": ["a"]})


def test_the_command_line_defaults_are_the_bootstrap_module_s() -> None:
    from ucdcr.cli.common import DEFAULT_RESAMPLES, MAX_RESAMPLES, SIGNIFICANCE_TESTS
    from ucdcr.scoring import bootstrap

    written_out = (DEFAULT_RESAMPLES, MAX_RESAMPLES, SIGNIFICANCE_TESTS)
    assert written_out == (bootstrap.RESAMPLES, bootstrap.MAX_RESAMPLES, bootstrap.METHODS)


def test_one_unit_gives_no_interval_and_no_test() -> None:
    data = UnitValues(("s1",), ("F1_CONLL",), np.array([[50.0]]))
    assert intervals(data, 1000) == {} and paired(data, data, 1000) == {}


def test_a_dataset_of_one_unit_is_a_constant_in_a_mean() -> None:
    single = UnitValues(("s1",), ("F1_CONLL",), np.array([[40.0]]))
    several = UnitValues(("b1", "b2", "b3"), ("F1_CONLL",), np.array([[0.0], [100.0], [50.0]]))
    alone = intervals(several, 1000)["F1_CONLL"]
    both = intervals([single, several], 1000)["F1_CONLL"]
    assert both.low == pytest.approx((40 + alone.low) / 2) and both.high == pytest.approx((40 + alone.high) / 2)
    assert paired([single, several], [single, several], 1000)["F1_CONLL"].p_value == 1.0


@pytest.mark.parametrize("seed", range(40))
def test_nan_percentiles_are_numpys_nanpercentile_bit_for_bit(seed: int) -> None:
    """The hand-written percentile (it spares the scorer numpy.ma's import) against numpy's own, NaNs and ties too."""
    rng = np.random.default_rng(seed)
    rows, columns = int(rng.integers(1, 60)), int(rng.integers(1, 6))
    values = rng.normal(50, 20, size=(rows, columns))
    if seed % 3 == 0:
        values = np.round(values)  # ties
    values[rng.random((rows, columns)) < rng.uniform(0, 0.6)] = np.nan
    if seed % 5 == 0:
        values[:, 0] = np.nan  # a column without a value
    percents = np.array([(1 - 0.95) / 2 * 100, 100 - (1 - 0.95) / 2 * 100, 50.0, 0.0, 100.0, rng.uniform(0, 100)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.nanpercentile(values, percents, axis=0)
    assert np.array_equal(nan_percentiles(values, percents), expected, equal_nan=True)


def test_exact_randomisation_over_every_swap_by_hand() -> None:
    # three units, system A scores 1, 2, 3 where B scores 0: the mean difference is 2. Swapping a unit flips the
    # sign of its difference, so the 2^3 swaps give (±1 ±2 ±3) / 3, and |d*| >= 2 only with all signs alike (the
    # swap of none and of all): p = 2/8, exact, its floor 2/8.
    from ucdcr.scoring.bootstrap import UnitValues, paired

    a = UnitValues(("u1", "u2", "u3"), ("x",), np.array([[1.0], [2.0], [3.0]]))
    b = UnitValues(("u1", "u2", "u3"), ("x",), np.zeros((3, 1)))
    found = paired(a, b, 1000, "randomization")["x"]
    assert (found.difference, found.p_value, found.p_floor, found.exact) == (2.0, 0.25, 0.25, True)
    assert found.low <= 2.0 <= found.high  # the interval is the paired bootstrap's, around the difference
    approximate = paired(a, b, 1000, "bootstrap")["x"]
    assert not approximate.exact and approximate.p_floor == 2 / 1001
    assert (approximate.low, approximate.high) == (found.low, found.high)  # the same interval for both tests


def test_p_values_print_with_their_resolution() -> None:
    from ucdcr.scoring.bootstrap import PValue

    assert PValue(1 / 1001, floor=1 / 1001).text() == "<0.001"  # 1,000 random swaps, none as extreme
    assert PValue(2 / 1001, floor=2 / 1001).text() == "<0.002"  # the paired bootstrap's floor
    assert PValue(2 / 256, floor=2 / 256, exact=True).text() == "0.008"  # exact: the value itself
    assert PValue(0.0312).text() == "0.031"
