"""The API's two units: fractions (``f1``, ``conll_f1``, as coval) and the printed percentages (``*_percent``)."""

from ucdcr.scoring import score_clusters
from ucdcr.scoring.metric_score import MetricScore


def test_metric_percent_is_the_truncated_percentage() -> None:
    score = MetricScore(recall_num=2, recall_den=3, precision_num=1, precision_den=2)
    # hand: R = 2/3 -> 66.66 (truncated, not 66.67); P = 1/2 -> 50.0; F1 = 2*(1/2)*(2/3)/(7/6) = 4/7 -> 57.14
    assert (score.recall_percent, score.precision_percent, score.f1_percent) == (66.66, 50.0, 57.14)
    assert round(score.f1, 6) == round(4 / 7, 6)


def test_conll_percent_matches_the_fraction() -> None:
    # key {a b c}, response {a b} {c}: MUC R 1/2 P 1/1; both units appear in as_dict
    scores = score_clusters([["a", "b", "c"]], [["a", "b"], ["c"]])
    assert 0 < scores.conll_f1 < 1
    assert scores.conll_f1_percent == int(scores.conll_f1 * 10000) / 100
    assert scores.as_dict()["conll_f1_percent"] == scores.conll_f1_percent
    assert scores["muc"].recall_percent == 50.0  # MUC recall: (3 - 2 partitions) / (3 - 1) = 1/2
