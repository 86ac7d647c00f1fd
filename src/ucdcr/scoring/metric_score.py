"""One metric's counts with the arithmetic of the CoNLL-2012 reference scorer v8.01 (``ShowRPF`` in ``CorScorer.pm``).

A metric result is kept as four exact counts (recall numerator/denominator, precision numerator/denominator) so
results of several documents add up before recall, precision and F1 are derived (micro-average, as v8.01):

- recall = rn / rd (0 when rd = 0); precision = pn / pd (0 when pd = 0);
- F1 = 2 * P * R / (P + R), evaluated in that order, 0 when P + R = 0;
- printed percentages are truncated, not rounded: ``int(x * 10000) / 100`` in IEEE doubles (so 0.57 prints 56.99).

BLANC keeps the coreference-link and non-coreference-link counts and combines them as v8.01 ``ScoreBLANC`` does,
including its special cases on the summed key link counts (no key coreference links: non-coreference part only;
no key non-coreference links: coreference part only; neither: 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field


def truncate_percent(fraction: float) -> float:
    """The percentage v8.01 prints for ``fraction``: truncated to two decimals (``int(x*10000)/100``)."""
    return int(fraction * 10000) / 100


def safe_ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, or 0 when the denominator is 0 (as v8.01)."""
    return numerator / denominator if denominator else 0


def harmonic_f1(recall: float, precision: float) -> float:
    """v8.01's F1: ``2 * P * R / (P + R)`` in this evaluation order, 0 when ``P + R`` is 0."""
    if recall + precision:
        return 2 * precision * recall / (precision + recall)
    return 0


@dataclass(frozen=True)
class MetricScore:
    """Recall and precision as numerator/denominator pairs; add two scores to sum their counts.

    ``recall``, ``precision`` and ``f1`` are fractions in [0, 1] (as coval); the ``*_percent`` properties are the
    percentages every ucdcr table prints (57.91 for 0.5791...).
    """

    recall_num: float = 0
    recall_den: float = 0
    precision_num: float = 0
    precision_den: float = 0

    @property
    def recall(self) -> float:
        return safe_ratio(self.recall_num, self.recall_den)

    @property
    def precision(self) -> float:
        return safe_ratio(self.precision_num, self.precision_den)

    @property
    def f1(self) -> float:
        return harmonic_f1(self.recall, self.precision)

    @property
    def recall_percent(self) -> float:
        """Recall as the tables and v8.01 print it: a percentage truncated to two decimals."""
        return truncate_percent(self.recall)

    @property
    def precision_percent(self) -> float:
        """Precision as the tables and v8.01 print it: a percentage truncated to two decimals."""
        return truncate_percent(self.precision)

    @property
    def f1_percent(self) -> float:
        """F1 as the tables and v8.01 print it: a percentage truncated to two decimals."""
        return truncate_percent(self.f1)

    def __add__(self, other: MetricScore) -> MetricScore:
        return MetricScore(
            self.recall_num + other.recall_num,
            self.recall_den + other.recall_den,
            self.precision_num + other.precision_num,
            self.precision_den + other.precision_den,
        )

    def as_dict(self) -> dict[str, object]:
        """Exact counts and the derived fractions (for ``--json``)."""
        return {
            "recall": self.recall,
            "precision": self.precision,
            "f1": self.f1,
            "recall_num": self.recall_num,
            "recall_den": self.recall_den,
            "precision_num": self.precision_num,
            "precision_den": self.precision_den,
        }


@dataclass(frozen=True)
class BlancScore(MetricScore):
    """BLANC from its link counts; ``recall_num``/``precision_num`` hold R and P over 1 (as v8.01 prints them)."""

    coreference: MetricScore = field(default_factory=MetricScore)
    non_coreference: MetricScore = field(default_factory=MetricScore)

    @classmethod
    def from_links(cls, coreference: MetricScore, non_coreference: MetricScore) -> BlancScore:
        recall, precision, _ = _blanc_rpf(coreference, non_coreference)
        return cls(recall, 1, precision, 1, coreference, non_coreference)

    @property
    def f1(self) -> float:
        return _blanc_rpf(self.coreference, self.non_coreference)[2]

    def __add__(self, other: MetricScore) -> BlancScore:
        if not isinstance(other, BlancScore):
            return NotImplemented
        return BlancScore.from_links(self.coreference + other.coreference, self.non_coreference + other.non_coreference)

    def as_dict(self) -> dict[str, object]:
        result: dict[str, object] = dict(super().as_dict())
        result["coreference_links"] = self.coreference.as_dict()
        result["non_coreference_links"] = self.non_coreference.as_dict()
        return result


def _blanc_rpf(coref: MetricScore, non_coref: MetricScore) -> tuple[float, float, float]:
    """v8.01 ``ScoreBLANC``: a recall of -1 marks a link type absent from the key."""
    recall_c = coref.recall_num / coref.recall_den if coref.recall_den else -1
    recall_n = non_coref.recall_num / non_coref.recall_den if non_coref.recall_den else -1
    precision_c, precision_n = coref.precision, non_coref.precision
    if recall_c == -1 and recall_n == -1:
        return 0, 0, 0
    f1_c = 2 * precision_c * recall_c / (precision_c + recall_c) if precision_c + recall_c else 0
    f1_n = 2 * precision_n * recall_n / (precision_n + recall_n) if precision_n + recall_n else 0
    if recall_c == -1:
        return recall_n, precision_n, f1_n
    if recall_n == -1:
        return recall_c, precision_c, f1_c
    return (recall_c + recall_n) / 2, (precision_c + precision_n) / 2, (f1_c + f1_n) / 2
