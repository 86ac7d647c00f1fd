"""The bench scripts that run CDCR systems print no test score without ``--final`` (bench/final_run.py).

No model is trained: the ``ucdcr benchmark`` output is the real runner's on tiny datasets with the two lemma systems
(one of them trainable, so a transfer matrix is printed too), and the scripts' subprocesses and API calls are
replaced by that output. The scripts are imported from bench/ as they import each other (bench/ on sys.path).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
from tests.fixtures.bench_dataset import write_bench_dataset

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def benchmark_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[str], list[str]]:
    """``ucdcr benchmark --transfer --format md`` of head-lemma and lemma-pairs on two tiny datasets: (stdout, the
    test CoNLL F1 values of head-lemma as printed, the titles of the test-score tables)."""
    import ucdcr
    from ucdcr.report.tables import render

    root = tmp_path_factory.mktemp("final-flag")
    folders = [write_bench_dataset(root / name) for name in ("toya", "toyb")]
    result = ucdcr.benchmark(["head-lemma", "lemma-pairs"], folders, transfer=True, cache_dir=root / "cache")
    tables = ucdcr.benchmark_tables(result)
    # head-lemma learns nothing: its printed scores are test scores and no val score can equal them by design
    scores = [f"{run.score():.2f}" for run in result.runs if run.system == "head-lemma"]
    test_titles = [table.title for table in tables if table.title != "Benchmark: models"]
    assert any(title.startswith("Transfer") for title in test_titles) and scores
    return render(tables, "md"), scores, test_titles


def assert_no_test_score(text: str, scores: list[str], test_titles: list[str]) -> None:
    for title in test_titles:
        assert f"### {title}" not in text
    for score in scores:
        assert f"| {score} |" not in text and f"| {score}" not in text


def test_benchmark_output_keeps_the_models_table_alone(benchmark_run, monkeypatch: pytest.MonkeyPatch) -> None:
    final_run = bench_module("final_run", monkeypatch)
    markdown, scores, test_titles = benchmark_run
    shown = final_run.benchmark_output(markdown, final=False)
    assert_no_test_score(shown, scores, test_titles)
    assert "### Benchmark: models" in shown and "val CoNLL F1" in shown
    assert final_run.benchmark_output(markdown, final=True) == markdown
    assert final_run.notice(True).startswith("FINAL run: test scores shown")
    assert "hidden" in final_run.notice(False)


def test_a_table_not_known_to_hold_val_scores_only_is_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    final_run = bench_module("final_run", monkeypatch)
    shown = final_run.benchmark_output("### Some new table\n\n| a |\n| --- |\n| 12.34 |\n", final=False)
    assert "12.34" not in shown and "Some new table" in shown  # named among the tables not shown


COMMANDS: list[list[str]] = []
"""The commands the fake processes were given, latest last."""


def fake_process(stdout: str, stderr: str):
    def run(command, **_kwargs):
        COMMANDS.append(list(command))
        return subprocess.CompletedProcess(command, 0, stdout=stdout, stderr=stderr)

    return run


@pytest.mark.parametrize("final", [False, True])
def test_cross_encoder_script(final: bool, benchmark_run, monkeypatch, capsys, tmp_path: Path) -> None:
    script = bench_module("cross_encoder", monkeypatch)
    markdown, scores, test_titles = benchmark_run
    stderr = "epoch 1/1 done in 0:11:00, mean loss 0.4917\n"
    monkeypatch.setattr(script.subprocess, "run", fake_process(markdown, stderr))
    argv = ["cross_encoder.py", "--cache-dir", str(tmp_path), "--protocols", "standard"]
    monkeypatch.setattr(sys, "argv", argv + (["--final"] if final else []))
    script.main()
    out = capsys.readouterr().out
    assert "epoch 1/1: 11.0 min, mean training loss 0.4917" in out
    assert ("--val-only" in COMMANDS[-1]) is not final  # without --final the test split is not even scored
    if final:
        assert out.startswith("FINAL run: test scores shown") and markdown in out
    else:
        assert out.startswith("test scores hidden")
        assert_no_test_score(out, scores, test_titles)


@pytest.mark.parametrize("final", [False, True])
def test_benchmark_script(final: bool, benchmark_run, monkeypatch, capsys, tmp_path: Path) -> None:
    script = bench_module("benchmark", monkeypatch)
    markdown, scores, test_titles = benchmark_run
    stderr = "6 runs (0 reused from x) in 3.0 s, 1.0 s of it encoding\n"
    monkeypatch.setattr(script.subprocess, "run", fake_process(markdown, stderr))
    argv = ["benchmark.py", "--cache-dir", str(tmp_path / "cache"), "--skip-cold"]
    monkeypatch.setattr(sys, "argv", argv + (["--final"] if final else []))
    script.main()
    out = capsys.readouterr().out
    assert "encoding share" in out  # the timings, either way
    assert ("--val-only" in COMMANDS[-1]) is not final  # without --final the test split is not even scored
    if final:
        assert out.startswith("FINAL run: test scores shown") and markdown in out
    else:
        assert out.startswith("test scores hidden")
        assert_no_test_score(out, scores, test_titles)


@pytest.mark.parametrize("final", [False, True])
def test_cross_encoder_curve_script(final: bool, monkeypatch, capsys, tmp_path: Path) -> None:
    script = bench_module("cross_encoder_curve", monkeypatch)
    model = "all-MiniLM-L6-v2 fine-tuned ..., trained in 11.0 min; ... thresholds entity 0.725 (val CoNLL F1 74.46)"
    means = [{"type": "joint", "scores": {"F1_CONLL": 73.1}}, {"type": "event", "scores": {"F1_CONLL": 75.09}}]
    run = SimpleNamespace(dataset="ecbplus", system="cross-encoder", model=model, means=means)
    calls = []

    def benchmark(**kwargs):
        calls.append(kwargs)
        return SimpleNamespace(runs=[run])

    monkeypatch.setattr(script.ucdcr, "benchmark", benchmark)
    argv = ["cross_encoder_curve.py", "--cache-dir", str(tmp_path), "--points", "1x20000@1e-4,2x20000"]
    monkeypatch.setattr(sys, "argv", argv + ["--candidates", "20,30"] + (["--final"] if final else []))
    script.main()
    out = capsys.readouterr().out
    assert len(calls) == 2 and "1 x 20,000 pairs, cross-encoder: trained in 11.0 min; val CoNLL F1 74.46" in out
    assert all(call["test"] is final for call in calls)  # without --final the test split is not even scored
    system = calls[0]["systems"][0]()
    assert (system.options.neighbours, system.options.limit) == (20, 30)
    assert system.options.encoder.learning_rate == 1e-4
    if final:
        assert out.startswith("FINAL run: test scores shown")
        assert "test CoNLL F1 joint 73.10, event 75.09" in out
    else:
        assert out.startswith("test scores hidden")
        assert "73.10" not in out and "75.09" not in out and "test CoNLL" not in out
