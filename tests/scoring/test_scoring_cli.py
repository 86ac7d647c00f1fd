"""`ucdcr score` on the README example files: v8.01 layout, --metric, --json, and clear errors."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.cli.score import BLAS_THREADS, METRIC_HELP
from ucdcr.scoring.metrics import METRIC_CHOICES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEY, RESPONSE = str(EXAMPLES / "key.conll"), str(EXAMPLES / "response.conll")
runner = CliRunner()

# Printed by `perl scorer.pl <metric> examples/key.conll examples/response.conll none`, v8.01 commit f49f3f8
V801_LINES = [
    "Identification of Mentions: Recall: (9 / 10) 90%\tPrecision: (9 / 11) 81.81%\tF1: 85.71%",
    "Coreference: Recall: (1 / 3) 33.33%\tPrecision: (1 / 2) 50%\tF1: 40%",
    "Coreference: Recall: (6.66666666666667 / 10) 66.66%\tPrecision: (8 / 11) 72.72%\tF1: 69.56%",
    "Coreference: Recall: (7 / 10) 70%\tPrecision: (7 / 11) 63.63%\tF1: 66.66%",
    "Coreference: Recall: (5.13333333333333 / 7) 73.33%\tPrecision: (5.13333333333333 / 9) 57.03%\tF1: 64.16%",
    "Non-coreference links: Recall: (11 / 17) 64.7%\tPrecision: (11 / 23) 47.82%\tF1: 55%",
    "BLANC: Recall: (0.448529411764706 / 1) 44.85%\tPrecision: (0.489130434782609 / 1) 48.91%\tF1: 44.16%",
]


def test_text_output_has_v801_lines_lea_and_conll() -> None:
    result = runner.invoke(app, ["score", KEY, RESPONSE])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for line in V801_LINES:
        assert line in lines
    assert [line for line in lines if line.startswith("METRIC")] == [
        f"METRIC {name}:" for name in ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")
    ]
    # CoNLL F1 = (0.4 + 0.695652... + 0.641666...) / 3 = 0.57910628 -> 57.91 (F1s from the lines above, exact)
    assert any(line.startswith("CoNLL F1: 57.91%") for line in lines)
    assert "95% confidence intervals (percentile bootstrap over 2 documents, 1000 resamples):" in lines
    assert any(line.startswith("MUC: R [") and ", P [" in line and ", F1 [" in line for line in lines)
    assert not any(line.startswith("BLANC: R [") for line in lines)  # BLANC does not decompose over documents


def test_intervals_by_hand_over_two_documents() -> None:
    # Two documents: a resample holds document 1 twice, both, or document 2 twice (p = 1/4, 1/2, 1/4), so over
    # 1,000 resamples the 2.5th and 97.5th percentiles are the smallest and largest of: document 1's F1, the whole
    # file's F1 and document 2's F1 (a document twice scores as once).
    result = runner.invoke(app, ["score", KEY, RESPONSE, "--json", "--per-document"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for name in ("muc", "bcub", "ceafm", "ceafe", "lea"):
        f1s = [doc["metrics"][name]["f1"] * 100 for doc in data["per_document"].values()]
        f1s.append(data["metrics"][name]["f1"] * 100)
        interval = data["intervals"][name]
        assert (round(interval["low"], 9), round(interval["high"], 9)) == (round(min(f1s), 9), round(max(f1s), 9))
        assert (interval["resamples"], interval["units"]) == (1000, 2)
    assert "blanc" not in data["intervals"]
    off = runner.invoke(app, ["score", KEY, RESPONSE, "--json", "--resamples", "0"])
    assert json.loads(off.stdout)["intervals"] == {}


def test_single_metric_has_no_metric_header() -> None:
    result = runner.invoke(app, ["score", KEY, RESPONSE, "--metric", "muc"])
    assert result.exit_code == 0
    assert "METRIC" not in result.stdout
    assert V801_LINES[1] in result.stdout.splitlines()


def test_json_gives_exact_counts() -> None:
    result = runner.invoke(app, ["score", KEY, RESPONSE, "--metric", "conll", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert sorted(data["metrics"]) == ["bcub", "ceafe", "muc"]
    # MUC counts printed by v8.01 above: (1 / 3), (1 / 2)
    muc = data["metrics"]["muc"]
    assert (muc["recall_num"], muc["recall_den"], muc["precision_num"], muc["precision_den"]) == (1, 3, 1, 2)
    assert data["conll_f1"] == (muc["f1"] + data["metrics"]["bcub"]["f1"] + data["metrics"]["ceafe"]["f1"]) / 3


def test_malformed_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.conll"
    bad.write_text("#begin document d\nw\t(1\n#end document\n")
    result = runner.invoke(app, ["score", str(bad), RESPONSE])
    assert result.exit_code == 2
    assert "bad.conll:3:" in result.output and "never closed" in result.output
    assert "Traceback" not in result.output


def test_unknown_metric_is_refused() -> None:
    result = runner.invoke(app, ["score", KEY, RESPONSE, "--metric", "f1"])
    assert result.exit_code != 0
    assert "unknown metric 'f1'" in result.output


def test_metric_help_lists_the_metric_table() -> None:
    # written out in the CLI module so that start-up does not import the scorer
    assert f"{', '.join(METRIC_CHOICES[:-1])} or {METRIC_CHOICES[-1]} (comma-separated for several)." == METRIC_HELP


def test_blanc_alone_scores_without_intervals() -> None:
    """BLANC does not decompose over units, so `-m blanc` has nothing to resample: v8.01's lines, no interval, no
    crash (it once ended in exit 70 while computing an empty interval)."""
    result = runner.invoke(app, ["score", "-m", "blanc", KEY, RESPONSE])
    assert result.exit_code == 0, result.output
    assert V801_LINES[-1] in result.stdout.splitlines()
    assert "[" not in result.stdout.split("BLANC:", 1)[1].split("\n", 1)[0].replace("(", "")  # no interval on BLANC
    as_json = json.loads(runner.invoke(app, ["score", "-m", "blanc", "--json", KEY, RESPONSE]).stdout)
    assert as_json.get("intervals", {}) == {}


def test_the_collector_and_the_environment_are_back_as_they_were_after_a_score(tmp_path: Path) -> None:
    # the command pauses Python's cyclic garbage collector and sets one BLAS thread while it runs
    # (ucdcr.cli.score.lean_runtime)
    assert gc.isenabled() and BLAS_THREADS not in os.environ
    assert runner.invoke(app, ["score", KEY, RESPONSE]).exit_code == 0
    assert gc.isenabled() and BLAS_THREADS not in os.environ
    (tmp_path / "empty.conll").write_text("")
    assert runner.invoke(app, ["score", KEY, str(tmp_path / "empty.conll")]).exit_code == 2  # failed inside
    assert gc.isenabled() and BLAS_THREADS not in os.environ
    gc.disable()
    try:
        assert runner.invoke(app, ["score", KEY, RESPONSE]).exit_code == 0
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_blas_thread_count_the_user_set_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BLAS_THREADS, "3")
    assert runner.invoke(app, ["score", KEY, RESPONSE]).exit_code == 0
    assert os.environ[BLAS_THREADS] == "3"
