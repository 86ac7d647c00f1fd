"""The metrics API on clusters of ids: hand-computed values, duplicate rules, aggregation, and a randomized
comparison with a literal port of v8.01 (``naive_v801.py``)."""

from __future__ import annotations

import random

import pytest
from tests.scoring import naive_v801

from ucdcr.scoring import (
    CONLL,
    CONLL_METRICS,
    METRIC_TABLE,
    METRICS,
    BlancScore,
    MetricScore,
    resolve_metrics,
    score_clusters,
    score_documents,
    truncate_percent,
)

KEY = [["a"], ["b", "c"], ["d", "e", "f"]]


def counts(score: MetricScore) -> tuple[float, float, float, float]:
    return score.recall_num, score.recall_den, score.precision_num, score.precision_den


def test_tc_a2_by_hand() -> None:
    # TestCases.README TC-A-2: key {a}{bc}{def}, response {a}{de}
    scores = score_clusters(KEY, [["a"], ["d", "e"]])
    assert counts(scores["muc"]) == (1, 3, 1, 1)
    assert counts(scores["ceafe"]) == pytest.approx((1.8, 3, 1.8, 2))  # 1 + 2*2/(3+2) = 1.8
    assert counts(scores.mentions) == (3, 6, 3, 3)
    blanc = scores["blanc"]
    assert counts(blanc.coreference) == (1, 4, 1, 1)
    assert counts(blanc.non_coreference) == (2, 11, 2, 2)


def test_lea_example_of_moosavi_and_strube_2016() -> None:
    # Paper section 5 example: key {a,b,c} {d,e,f,g}; response {a,b} {c,d} {f,g,h,i}
    # recall = (3 * 1/3 + 4 * 1/6) / 7, precision = (2 * 1 + 2 * 0 + 4 * 1/6) / 8
    scores = score_clusters([list("abc"), list("defg")], [list("ab"), list("cd"), list("fghi")], "lea")
    assert scores["lea"].recall == pytest.approx((3 / 3 + 4 / 6) / 7)
    assert scores["lea"].precision == pytest.approx((2 + 4 / 6) / 8)


def test_lea_singletons() -> None:
    # a key singleton is resolved iff its mention is a response singleton: recall (1 + 0) / 2
    scores = score_clusters([["a"], ["b"]], [["a"], ["b", "x"]], "lea")
    assert counts(scores["lea"]) == (1, 2, 1, 3)  # precision: {a} resolved (1), {b,x}: 0 of 1 link


def test_conll_f1_is_the_mean_of_three_f1() -> None:
    scores = score_clusters(KEY, [["a"], ["d", "e"]])
    expected = (scores["muc"].f1 + scores["bcub"].f1 + scores["ceafe"].f1) / 3
    assert scores.conll_f1 == expected
    # TC-A-2: MUC 0.5, B3 14/25, CEAFe 0.72 (TestCases.README) -> 0.5933..., printed 59.33
    assert truncate_percent(scores.conll_f1) == 59.33


def test_truncation_is_not_rounding() -> None:
    # docs/scorer.md#printed-output-and-truncation: 57/100 prints as 56.99 in IEEE doubles; 2/3 prints 66.66
    assert truncate_percent(0.57) == 56.99
    assert truncate_percent(2 / 3) == 66.66


def test_repeated_response_mention_matching_the_key_is_removed() -> None:
    # t10: the second "b" is dropped, so the response is {a} {b c}: perfect
    scores = score_clusters(KEY, [["a"], ["b", "c", "b"], ["d", "e", "f"]])
    assert scores.repeated_response_mentions == 1
    assert all(scores[name].f1 == 1 for name in ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea"))


def test_repeated_twinless_response_mention_is_kept() -> None:
    # t12: "x" twice stays twice: B3 precision denominator 6 + 2 = 8
    scores = score_clusters(KEY, [["a"], ["b", "c"], ["d", "e", "f", "x", "x"]])
    assert (scores.repeated_response_mentions, scores.repeated_twinless_mentions) == (0, 1)
    assert scores["bcub"].precision_den == 8
    assert scores.mentions.precision_den == 7  # distinct response mentions


def test_repeated_key_mention_counts_per_occurrence() -> None:
    # t13: "b" in two key chains: 7 occurrences in the B3 recall denominator, 6 distinct key mentions
    scores = score_clusters([["a", "b"], ["b", "c"]], [["a", "b", "c"]])
    assert scores["bcub"].recall_den == 4
    assert scores.mentions.recall_den == 3
    assert scores.repeated_key_mentions == 1


def test_documents_are_summed_before_ratios() -> None:
    one = score_clusters([["a", "b"]], [["a", "b"]])
    two = score_clusters([["c", "d", "e"]], [["c"], ["d", "e"]])
    both = score_documents({"1": ([["a", "b"]], [["a", "b"]]), "2": ([["c", "d", "e"]], [["c"], ["d", "e"]])})
    for name in METRICS:
        if name != "blanc":
            assert counts(both[name]) == pytest.approx(counts(one[name] + two[name]))
    # BLANC sums link counts: coreference links 1 + 3 in the key
    assert both["blanc"].coreference.recall_den == 4


def test_missing_response_document_scores_as_empty() -> None:
    scores = score_documents({"1": ([["a", "b"]], None)})
    assert scores.missing_documents == ("1",)
    assert counts(scores["muc"]) == (0, 1, 0, 0)


def test_the_metric_table_names_every_output() -> None:
    # v8.01's print order, then LEA (not in v8.01); the CoNLL F1 averages MUC, B3 and CEAFe
    assert METRICS == ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")
    assert CONLL_METRICS == ("muc", "bcub", "ceafe")
    assert [metric.name for metric in METRIC_TABLE if metric.in_v801] == ["muc", "bcub", "ceafm", "ceafe", "blanc"]
    # the F1 columns of the authors' ../shared/reference/summary/2026-02-28_08-12-07_conll_baseline.csv header
    assert [metric.column("F1") for metric in CONLL.parts] + [CONLL.column] == [
        "F1_MUC",
        "F1_B3",
        "F1_CEAF_E",
        "F1_CONLL",
    ]
    with pytest.raises(KeyError, match="lea has no column"):
        METRIC_TABLE[-1].column("F1")


def test_no_documents_give_each_metric_its_empty_score() -> None:
    scores = score_documents({})
    assert (tuple(scores), scores.documents) == (METRICS, 0)
    for name in METRICS:
        assert counts(scores[name]) == ((0, 1, 0, 1) if name == "blanc" else (0, 0, 0, 0))  # BLANC: R, P over 1
        assert scores[name].f1 == 0
    assert isinstance(scores["blanc"], BlancScore)
    assert counts(scores["blanc"].coreference) == counts(scores["blanc"].non_coreference) == (0, 0, 0, 0)
    assert scores.conll_f1 == 0


def test_resolve_metrics() -> None:
    assert resolve_metrics("conll") == ("muc", "bcub", "ceafe")
    assert resolve_metrics(["lea", "muc"]) == ("muc", "lea")
    with pytest.raises(ValueError, match="unknown metric 'f1'"):
        resolve_metrics("f1")


def random_clusters(rng: random.Random, n: int, duplicates: bool) -> tuple[list[list[str]], list[list[str]]]:
    mentions = [f"m{i}" for i in range(n)]
    key: list[list[str]] = [[] for _ in range(rng.randint(1, n))]
    for mention in mentions:
        rng.choice(key).append(mention)
    key = [chain for chain in key if chain]
    pool = rng.sample(mentions, k=rng.randint(0, n)) + [f"x{i}" for i in range(rng.randint(0, 4))]
    response: list[list[str]] = [[] for _ in range(rng.randint(1, max(1, len(pool))))]
    for mention in pool:
        rng.choice(response).append(mention)
    if duplicates and pool:
        for _ in range(rng.randint(1, 3)):
            rng.choice(response).append(rng.choice(pool))  # t10/t11/t12
            rng.choice(key).append(rng.choice(mentions))  # t13
    return key, [chain for chain in response if chain]


@pytest.mark.parametrize("duplicates", [False, True])
def test_random_cases_equal_a_literal_port_of_v801(duplicates: bool) -> None:
    rng = random.Random(7 + duplicates)
    for _ in range(150):
        key, response = random_clusters(rng, rng.randint(1, 14), duplicates)
        scores = score_clusters(key, response)
        key_ids, response_ids, mention_counts, repeats = naive_v801.identify(key, response)
        assert counts(scores.mentions) == mention_counts
        assert scores.repeated_response_mentions == repeats
        expected = {
            "muc": naive_v801.muc(key_ids, response_ids),
            "bcub": naive_v801.bcub(key_ids, response_ids),
            "ceafm": naive_v801.ceaf(key_ids, response_ids, entity=False),
            "ceafe": naive_v801.ceaf(key_ids, response_ids, entity=True),
            "lea": naive_v801.lea(key_ids, response_ids),
        }
        for name, values in expected.items():
            assert counts(scores[name]) == pytest.approx(values, abs=1e-9), (name, key, response)
        both, k_coref, r_coref, both_non, k_non, r_non = naive_v801.blanc(key_ids, response_ids)
        blanc = scores["blanc"]
        assert counts(blanc.coreference) == (both, k_coref, both, r_coref), (key, response)
        assert counts(blanc.non_coreference) == (both_non, k_non, both_non, r_non), (key, response)


def test_meta_document_with_many_components() -> None:
    # 200 key chains of 3, response splits each into 2 + 1 and merges pairs of chains' singletons:
    # CEAFm per pair of key chains (i, i+1): response {k_i[0], k_i[1]}, {k_{i+1}[0], k_{i+1}[1]}, {k_i[2], k_{i+1}[2]}
    key = [[f"{i}-{j}" for j in range(3)] for i in range(200)]
    response = []
    for i in range(0, 200, 2):
        response += [key[i][:2], key[i + 1][:2], [key[i][2], key[i + 1][2]]]
    scores = score_clusters(key, response, ["ceafm", "ceafe"])
    # each key chain aligns with its 2-mention part: phi3 = 2, phi4 = 2*2/(3+2) = 0.8
    assert counts(scores["ceafm"]) == (400, 600, 400, 600)
    assert scores["ceafe"].recall_num == pytest.approx(200 * 0.8)


def test_alignment_without_scipy_gives_the_solvers_values() -> None:
    # aligned_values avoids importing scipy for stars and small components; it must give each row the value
    # scipy's linear_sum_assignment gives, ties included (phi values drawn from a few fractions, zeros common)
    np = pytest.importorskip("numpy")
    from scipy.optimize import linear_sum_assignment

    from ucdcr.scoring.metrics import _unique_best_values, aligned_values

    rng = np.random.default_rng(7)
    tried_without_scipy = 0
    for _ in range(4000):
        n_rows, n_cols = rng.integers(1, 8, size=2)
        matrix = rng.choice([0, 0, 1 / 3, 0.4, 0.5, 2 / 3, 1.0], size=(n_rows, n_cols))
        rows, cols = linear_sum_assignment(matrix, maximize=True)
        expected = np.zeros(n_rows)
        expected[rows] = matrix[rows, cols]
        if min(n_rows, n_cols) > 1 and max(n_rows, n_cols) <= 5:
            unique = _unique_best_values(matrix)  # the exhaustive path, whether or not scipy is loaded
            if unique is not None:
                tried_without_scipy += 1
                assert unique.tolist() == expected.tolist(), matrix
        assert aligned_values(matrix).tolist() == expected.tolist(), matrix
    assert tried_without_scipy > 500  # the exhaustive path was exercised, not only scipy


def test_connected_components_partition_like_scipy() -> None:
    np = pytest.importorskip("numpy")
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components as scipy_components

    from ucdcr.scoring.metrics import connected_components

    rng = np.random.default_rng(3)
    for _ in range(500):
        n_nodes, n_edges = int(rng.integers(2, 40)), int(rng.integers(1, 40))
        left, right = rng.integers(0, n_nodes, n_edges), rng.integers(0, n_nodes, n_edges)
        ours = connected_components(left, right, n_nodes).tolist()
        graph = coo_matrix((np.ones(n_edges), (left, right)), shape=(n_nodes, n_nodes))
        theirs = scipy_components(graph, directed=False)[1].tolist()
        # the same partition: labels correspond one to one
        assert len(set(zip(ours, theirs, strict=True))) == len(set(ours)) == len(set(theirs))
