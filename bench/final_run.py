"""The ``--final`` flag of the bench scripts that run CDCR systems: test scores are printed in a final run only.

Development compares configurations on the val split alone; the test split is read once, for what ships. So a
script that runs systems (``benchmark.py``, ``cross_encoder.py``, ``cross_encoder_curve.py``) prints its timings and
each model's val score always, and its test scores only when ``--final`` marks the run as final. Its first line says
which: :data:`FINAL_NOTICE` or :data:`HIDDEN_NOTICE`.

Of the Markdown tables of ``ucdcr benchmark``, a run without ``--final`` keeps the models table alone (fitted on,
tuned on, what was learned and the val CoNLL F1 the tuning reached); the scores, transfer and leaderboard tables are
test scores. The tables kept are named (a table added to ``ucdcr benchmark`` later stays hidden until it is added
here).

The flag gates computing the test scores, not only printing them: without it the scripts run ``ucdcr benchmark
--val-only`` (``ucdcr.benchmark(..., test=False)``), which fits and tunes every system and predicts, scores and
stores nothing on the test split (``src/ucdcr/systems/framework/runner.py``); :func:`benchmark_output` still keeps
only the val tables of whatever a script prints.
"""

from __future__ import annotations

import argparse
import re

from ucdcr.report.benchmark_tables import models_table

FINAL_NOTICE = "FINAL run: test scores shown; use once, for what ships"
HIDDEN_NOTICE = (
    "test scores hidden: development compares configurations on val only (--final shows them: once, for what ships)"
)
VAL_TABLES = (models_table([], [], []).title,)
"""Titles of the ``ucdcr benchmark`` tables that hold no test score (the models table: val scores only)."""
HEADING = re.compile(r"(?m)^(?=### )")


def add_final_flag(parser: argparse.ArgumentParser) -> None:
    """``--final``: print the test scores (a final run; without it they are hidden)."""
    parser.add_argument(
        "--final",
        action="store_true",
        help="a final run: print the test scores too (use once, for what ships; without it only val scores)",
    )


def notice(final: bool) -> str:
    """The line a script prints first: test scores shown (a final run) or hidden."""
    return FINAL_NOTICE if final else HIDDEN_NOTICE


def benchmark_output(markdown: str, final: bool) -> str:
    """What to print of ``ucdcr benchmark --format md``'s stdout: all of it in a final run, else the tables of
    :data:`VAL_TABLES` alone, with a line naming the tables left out."""
    if final:
        return markdown
    sections = [section for section in HEADING.split(markdown) if section.strip()]
    kept = [section for section in sections if _title(section) in VAL_TABLES]
    hidden = [_title(section) or "text outside a table" for section in sections if _title(section) not in VAL_TABLES]
    lines = "".join(section.rstrip("\n") + "\n\n" for section in kept)
    if hidden:
        lines += f"(not shown, test scores: {'; '.join(hidden)})\n"
    return lines


def _title(section: str) -> str:
    first = section.splitlines()[0]
    return first[len("### ") :].strip() if first.startswith("### ") else ""
