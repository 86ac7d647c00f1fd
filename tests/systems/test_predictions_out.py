"""A benchmark's predictions out and its development mode: ``ucdcr benchmark --save-predictions DIR`` writes every
run's test predictions in a file `ucdcr evaluate` reads back to the run's scores, and ``--val-only``
(``ucdcr.benchmark(..., test=False)``) fits and tunes, predicts nothing on the test split and stores nothing."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from tests.fixtures.bench_dataset import write_bench_dataset
from typer.testing import CliRunner

import ucdcr
from ucdcr.cli.app import app
from ucdcr.systems import SplitData, System
from ucdcr.systems.framework.runner import save_predictions
from ucdcr.systems.framework.store import RESULTS_FILE


class SameHeadInDocument(System):
    """A user's system: the same head word in one document corefers."""

    name = "same-head-in-doc"

    def predict(self, test: SplitData) -> Mapping[str, str]:
        columns = (test.column(name) for name in ("mention_id", "conll_doc_key", "mention_head"))
        return {mention: f"{doc}|{head.lower()}" for mention, doc, head in zip(*columns, strict=True)}


class NeverOnTest(System):
    """Fails if it is ever asked to predict: a development run must not reach the test split."""

    name = "never-on-test"
    trainable = True

    def fit(self, train: list[SplitData], val: SplitData) -> None:
        self.val_f1 = val.conll_f1([str(index) for index in range(val.mentions.num_rows)])

    def predict(self, test: SplitData) -> Mapping[str, str]:
        raise AssertionError("predict() called in a --val-only run")

    def describe(self) -> str:
        return f"all singletons (val CoNLL F1 {self.val_f1:.2f})"


@pytest.mark.parametrize("protocol", ["ucdcr", "standard"])
def test_saved_predictions_evaluate_to_the_runs_scores(tmp_path: Path, protocol: str) -> None:
    folder = write_bench_dataset(tmp_path / "data" / "toy")
    cache = tmp_path / "cache"
    result = ucdcr.benchmark([SameHeadInDocument, "head-lemma"], [folder], cache_dir=cache, protocol=protocol, seeds=2)
    written = save_predictions(result, tmp_path / "out")
    assert len(written) == len(result.runs) == 2  # head-lemma is untrained: one seed
    for run, path in zip(result.runs, written, strict=True):
        label = run.protocol.replace("/", "_")
        assert path == tmp_path / "out" / label / run.system / f"toy.seed{run.seed}.json"
        [table13] = ucdcr.evaluate(path, "toy", tmp_path / "data", protocol=protocol, references="none")
        joint = next(row for row in table13.rows if row["Type"] == "joint" and row["Level"] == run.level)
        assert float(joint["CoNLL"]) == run.score("joint"), run.system


def test_the_cli_saves_predictions_and_a_stored_run_without_them_runs_again(tmp_path: Path) -> None:
    folder = write_bench_dataset(tmp_path / "data" / "toy")
    cache, out = tmp_path / "cache", tmp_path / "out"
    first = ucdcr.benchmark(["head-lemma"], [folder], cache_dir=cache)
    for path in (cache / "predictions").glob("*.json"):
        path.unlink()  # as a run stored before ucdcr kept predictions
    args = ["benchmark", "--systems", "head-lemma", "--data-dir", str(tmp_path / "data"), "--cache-dir", str(cache)]
    result = CliRunner().invoke(app, [*args, "--save-predictions", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote the test predictions of 1 runs into" in result.output
    [path] = out.glob("*/*/*.json")
    assert json.loads(path.read_text()).keys() == set(ucdcr.load(folder, split="test")["mention_id"].to_pylist())
    assert first.runs[0].key == json.loads((cache / RESULTS_FILE).read_text())["runs"][0]["key"]


def test_val_only_predicts_nothing_on_test_and_stores_nothing(tmp_path: Path) -> None:
    folder = write_bench_dataset(tmp_path / "data" / "toy")
    cache = tmp_path / "cache"
    result = ucdcr.benchmark([NeverOnTest], [folder], cache_dir=cache, test=False)
    [run] = result.runs
    assert run.means == [] and run.model.startswith("all singletons (val CoNLL F1 ")
    assert not (cache / RESULTS_FILE).exists() and not (cache / "predictions").exists()
    args = ["benchmark", "--systems", "tests.systems.test_predictions_out:NeverOnTest", "--val-only"]
    done = CliRunner().invoke(app, [*args, "--data-dir", str(tmp_path / "data"), "--cache-dir", str(cache)])
    assert done.exit_code == 0, done.output
    assert "Benchmark: models" in done.output and "Leaderboard" not in done.output
    assert "nothing was predicted or scored on the test split" in done.output


def test_a_benchmarked_system_beside_local_references_with_each(tmp_path: Path) -> None:
    # head-lemma computed here first; then the user's system placed beside it (--references local), with --each its
    # paired comparison with head-lemma, and the leaderboard's Source column saying where each row came from
    folder = write_bench_dataset(tmp_path / "data" / "toy")
    cache = tmp_path / "cache"
    ucdcr.benchmark(["head-lemma"], [folder], cache_dir=cache, protocol="standard")
    result = ucdcr.benchmark([SameHeadInDocument], [folder], cache_dir=cache, protocol="standard")
    *_, each, leaderboard = ucdcr.benchmark_tables(result, references="local", cache_dir=cache, each=True)
    assert [row["System"] for row in each.rows] == ["head-lemma"]
    assert each.title == "same-head-in-doc against each reference system: mean CoNLL F1 (joint) over toy"
    assert {row["System"]: row["Source"] for row in leaderboard.rows} == {
        "head-lemma": "computed here",
        "same-head-in-doc": "this benchmark",
    }
