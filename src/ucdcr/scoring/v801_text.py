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
CoNLL F1 line, then (:func:`interval_lines`) each F1's 95% bootstrap interval. The first line names ucdcr instead
of v8.01's ``version:`` line. With singleton removal, a line says how many chains were removed from the key and the
response (as coval prints it).

:func:`per_document_rows`: every document's recall, precision and F1 per metric (percentages truncated as above;
columns named by the metric table's paper labels), then its CoNLL F1, as plain column names and rows (scoring sits
below the tables of :mod:`ucdcr.report`; ``ucdcr score --per-document`` puts them in a table).
"""

from __future__ import annotations

from ucdcr.scoring.metric_score import BlancScore, MetricScore, truncate_percent
from ucdcr.scoring.metrics import CONLL, METRIC_BY_NAME
from ucdcr.scoring.scores import Scores

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
    text = title + "\n" + removed_singletons_line(scores)
    text += "".join(metric_block(name, scores, header) for name in scores)
    if show_conll:
        text += conll_line(scores)
    return text


def removed_singletons_line(scores: Scores) -> str:
    """How many singleton chains were removed (empty when singletons were kept)."""
    if scores.removed_singletons is None:
        return ""
    key, response = scores.removed_singletons
    return f"{key} and {response} singletons are removed from the key and the response, respectively\n"


PARTS = (("R", "recall"), ("P", "precision"), ("F1", "f1"))


def per_document_rows(scores: Scores, show_conll: bool) -> tuple[list[str], list[dict[str, object]]]:
    """The columns and one row per document of ``scores.by_document``: R, P and F1 (truncated percentages) of every
    computed metric, and the CoNLL F1 when asked."""
    labels = {name: METRIC_BY_NAME[name].paper_label for name in scores}
    columns = ["document", *(f"{labels[name]} {part}" for name in scores for part, _ in PARTS)]
    if show_conll:
        columns.append(CONLL.label)
    rows = []
    for document, doc_scores in scores.by_document.items():
        row: dict[str, object] = {"document": document}
        for name, score in doc_scores.items():
            for part, attribute in PARTS:
                row[f"{labels[name]} {part}"] = truncate_percent(getattr(score, attribute))
        if show_conll:
            row[CONLL.label] = truncate_percent(doc_scores.conll_f1)
        rows.append(row)
    return columns, rows


def interval_lines(scores: Scores, resamples: int) -> str:
    """The 95% bootstrap interval over ``scores.units`` of each metric's recall, precision and F1 (and the CoNLL F1),
    one line per metric; BLANC has none."""
    if scores.units is None or resamples <= 0:
        return ""
    found = scores.intervals(resamples)
    if not found:
        return ""
    units = len(scores.units.units)
    text = (
        f"\n95% confidence intervals (percentile bootstrap over {units} {scores.unit_kind}, {resamples} resamples):\n"
    )
    for name in scores.units.metrics:
        parts = [(part, found.get(f"{name}/{part}")) for part in ("R", "P")] + [("F1", found.get(name))]
        shown = ", ".join(f"{part} [{i.low:.2f}, {i.high:.2f}]" for part, i in parts if i is not None)
        text += f"{METRIC_BY_NAME[name].paper_label}: {shown}\n"
    if CONLL.name in found:
        text += f"{CONLL.label}: [{found[CONLL.name].low:.2f}, {found[CONLL.name].high:.2f}]\n"
    return text
