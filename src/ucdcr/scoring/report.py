"""Text output laid out like the CoNLL-2012 reference scorer v8.01 (``scorer.pl <metric> KEY RESPONSE none``).

Per metric a block::

    ====== TOTALS =======
    Identification of Mentions: Recall: (rn / rd) R%<TAB>Precision: (pn / pd) P%<TAB>F1: F%
    --------------------------------------------------------------------------
    Coreference: Recall: (rn / rd) R%<TAB>Precision: (pn / pd) P%<TAB>F1: F%
    --------------------------------------------------------------------------

preceded by ``METRIC name:`` when several metrics are printed. BLANC (``link_lines`` in the metric table) prints
``Coreference links``, ``Non-coreference links`` and ``BLANC`` lines instead (R and P over 1). Counts are printed as
Perl prints numbers (``%.15g``), percentages truncated (``int(x*10000)/100``). Names and order come from
:data:`~ucdcr.scoring.metrics.METRIC_TABLE` (v8.01's five metrics, then LEA in the same layout), followed by the
CoNLL F1 line. The first line names ucdcr instead of v8.01's ``version:`` line.
"""

from __future__ import annotations

from ucdcr.scoring.api import Scores
from ucdcr.scoring.metrics import CONLL, METRIC_BY_NAME
from ucdcr.scoring.results import BlancScore, MetricScore, truncate_percent

RULE = "-" * 74


def perl_number(value: float) -> str:
    """A number as Perl stringifies it (``%.15g``)."""
    return f"{value:.15g}"


def percent(fraction: float) -> str:
    """v8.01's printed percentage, without the ``%`` sign."""
    return perl_number(truncate_percent(fraction))


def rpf_line(score: MetricScore, f1: float | None = None) -> str:
    """``Recall: (n / d) r%<TAB>Precision: (n / d) p%<TAB>F1: f%`` and the rule line (v8.01 ``ShowRPF``)."""
    f1 = score.f1 if f1 is None else f1
    return (
        f"Recall: ({perl_number(score.recall_num)} / {perl_number(score.recall_den)}) {percent(score.recall)}%"
        f"\tPrecision: ({perl_number(score.precision_num)} / {perl_number(score.precision_den)}) "
        f"{percent(score.precision)}%\tF1: {percent(f1)}%\n{RULE}\n"
    )


def metric_block(name: str, scores: Scores, header: bool) -> str:
    """The TOTALS block of one metric."""
    text = f"\nMETRIC {name}:\n" if header else ""
    text += "\n====== TOTALS =======\nIdentification of Mentions: " + rpf_line(scores.mentions)
    score = scores[name]
    if METRIC_BY_NAME[name].link_lines:
        assert isinstance(score, BlancScore)
        text += "\nCoreference:\nCoreference links: " + rpf_line(score.coreference)
        text += "Non-coreference links: " + rpf_line(score.non_coreference)
        text += "BLANC: " + rpf_line(score, score.f1)
    else:
        text += "Coreference: " + rpf_line(score)
    return text


def conll_line(scores: Scores) -> str:
    """The CoNLL F1 (mean of the exact MUC, B3 and CEAFe F1), truncated like the other figures."""
    parts = ", ".join(metric.name for metric in CONLL.parts)
    return f"\n{CONLL.label}: {percent(scores.conll_f1)}%\t(mean of the {parts} F1)\n"


def format_report(scores: Scores, show_conll: bool, title: str) -> str:
    """The whole text report: title line, one block per computed metric, then the CoNLL line if asked."""
    header = len(scores) > 1
    text = title + "\n" + "".join(metric_block(name, scores, header) for name in scores)
    if show_conll:
        text += conll_line(scores)
    return text
