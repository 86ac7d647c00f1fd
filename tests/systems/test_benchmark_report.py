"""``ucdcr report`` shows the stored benchmark results: leaderboard, tables and the transfer heatmap."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.bench_dataset import write_bench_dataset

from ucdcr.report.benchmark_tables import leaderboard_table
from ucdcr.report.build_report import BENCHMARK_TITLE, Report, _benchmark_section, build_report
from ucdcr.systems.framework.runner import benchmark


def test_report_has_the_leaderboard_and_the_transfer_heatmap(tmp_path: Path) -> None:
    folders = {"a": write_bench_dataset(tmp_path / "data" / "a"), "b": write_bench_dataset(tmp_path / "data" / "b")}
    cache = tmp_path / "cache"
    without = Report(tmp_path / "before", list(folders))
    assert _benchmark_section(without, folders, tmp_path / "before", cache) == [] and without.sections == []
    benchmark(["head-lemma", "lemma-pairs"], folders, transfer=True, cache_dir=cache)
    report = build_report(folders, tmp_path / "report", embed=False, cache_dir=cache)
    [section] = [section for section in report.sections if section.title.startswith(BENCHMARK_TITLE)]
    assert section.title == f"{BENCHMARK_TITLE}, ucdcr/subtopic protocol"
    leaderboard = section.tables[0]
    assert [row["System"] for row in leaderboard.rows] == ["head-lemma", "lemma-pairs"]
    assert leaderboard.rows[1]["a"] == 100.0  # lemma-pairs finds every toy chain (see test_benchmark.py)
    heatmaps = [
        figure
        for figure in report.figures
        if figure.title == "Transfer matrix of lemma-pairs (ucdcr/subtopic protocol)"
    ]
    assert heatmaps and (tmp_path / "report" / heatmaps[0].file).is_file()
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "Leaderboard, ucdcr/subtopic protocol: CoNLL F1 (joint)" in markdown
    assert "transfer_lemma-pairs_ucdcr_subtopic.png" in markdown
    # a rebuilt dataset (other content) no longer matches the stored runs
    write_bench_dataset(tmp_path / "data" / "a", splits=("train", "test"))
    changed = Report(tmp_path / "after", list(folders))
    _benchmark_section(changed, folders, tmp_path / "after", cache)
    [section] = changed.sections
    assert [name for name in section.tables[0].columns if name in folders] == ["b"]


def test_the_leaderboard_means_the_same_datasets_for_every_system(tmp_path: Path) -> None:
    folders = {"a": write_bench_dataset(tmp_path / "data" / "a"), "b": write_bench_dataset(tmp_path / "data" / "b")}
    both = benchmark(["head-lemma"], folders, cache_dir=tmp_path / "cache")
    one = benchmark(["lemma-pairs"], {"a": folders["a"]}, cache_dir=tmp_path / "cache")  # no number for b
    even = leaderboard_table(both.runs, ["head-lemma"], ["a", "b"], both.protocol)
    assert even.columns == ["System", "a", "b", "mean", "n"] and even.rows[0]["n"] == 2
    assert even.notes[-2] == "mean: unweighted over the n datasets, the same for every system."
    assert even.notes[-1].startswith("Signature: ucdcr:")  # every table ends with the signature of its numbers
    table = leaderboard_table([*both.runs, *one.runs], ["head-lemma", "lemma-pairs"], ["a", "b"], both.protocol)
    # one system in the mean: nothing to test it against
    assert table.columns == ["System", "a", "b", "mean", "n", "mean, own datasets", "own n"]
    head, pairs = table.rows
    # lemma-pairs has no number for b: left out of the mean and the test, instead of shrinking head-lemma's mean to a
    assert (head["n"], pairs["n"]) == (2, 0) and pairs["b"] is None
    assert head["mean"] == (head["a"] + head["b"]) / 2 and pairs["mean"] is None  # type: ignore[operator]
    assert head["own n"] == 2 and head["mean, own datasets"] == head["mean"]
    assert (pairs["own n"], pairs["mean, own datasets"], pairs["a"]) == (1, 100.0, 100.0)
    assert (
        "mean: unweighted over the n datasets (a, b), the same for every system with a number on each"
        in (table.notes[-2])
    )
    assert "left out of the means and the test: lemma-pairs (no number for b)" in table.notes[-2]
    # beside two systems in the mean, the one left out has no test either
    baseline = benchmark(["lemma-baseline"], folders, cache_dir=tmp_path / "cache")
    runs = [*both.runs, *one.runs, *baseline.runs]
    tested = leaderboard_table(runs, ["head-lemma", "lemma-pairs", "lemma-baseline"], ["a", "b"], both.protocol)
    assert [row["n"] for row in tested.rows] == [2, 0, 2] and "Δ best" in tested.columns
    assert [row["tied for first"] for row in tested.rows][1] is None and tested.rows[1]["Δ best"] is None
    assert {row["tied for first"] for row in tested.rows[::2]} & {"best"}


def test_without_a_system_on_every_dataset_the_mean_is_over_the_datasets_all_have(tmp_path: Path) -> None:
    folders = {name: write_bench_dataset(tmp_path / "data" / name) for name in ("a", "b", "c")}
    first = benchmark(["head-lemma"], {"a": folders["a"], "b": folders["b"]}, cache_dir=tmp_path / "cache")
    second = benchmark(["lemma-pairs"], {"a": folders["a"], "c": folders["c"]}, cache_dir=tmp_path / "cache")
    runs = [*first.runs, *second.runs]
    table = leaderboard_table(runs, ["head-lemma", "lemma-pairs"], ["a", "b", "c"], first.protocol)
    head, pairs = table.rows
    assert (head["n"], pairs["n"]) == (1, 1) and (head["mean"], pairs["mean"]) == (head["a"], 100.0)
    assert pairs["tied for first"] == "best" and head["Δ best"] == head["a"] - 100.0  # type: ignore[operator]
    assert "every system has a number for (a)" in table.notes[-2]
    assert "left out of every mean: b (no number for lemma-pairs); c (no number for head-lemma)" in table.notes[-2]


def test_runs_of_two_contents_of_one_dataset_are_never_side_by_side() -> None:
    # two systems' runs on dataset "a" of two fingerprints (two builds): no row, one note naming the difference
    from ucdcr.analysis.protocol import Protocol
    from ucdcr.report.benchmark_tables import leaderboard_table
    from ucdcr.systems.framework.store import StoredRun

    means = [{"type": "joint", "settings": 1, "scores": {"F1_CONLL": 50.0}, "units": None}]

    def run(system: str, fingerprint: str) -> StoredRun:
        return StoredRun(
            system, system, "1", "a", "subtopic", "in-domain", "a train", "a val", "", means, {"a": fingerprint}
        )

    table = leaderboard_table([run("x", "1" * 64), run("y", "2" * 64)], ["x", "y"], ["a"], Protocol())
    assert table.rows == []
    assert any("data: a@11111111 vs a@22222222" in note and "not like with like" in note for note in table.notes)
    assert not any(note.startswith("Signature: ") for note in table.notes)


def test_the_settings_table_gives_each_setting_its_column_and_signature() -> None:
    # one system in two settings: its event CoNLL F1 per column, the seeds it averages, one signature per column
    from ucdcr.analysis.protocol import Protocol
    from ucdcr.report.benchmark_tables import settings_table
    from ucdcr.systems.framework.store import StoredRun

    def run(label: str, seed: int, value: float) -> StoredRun:
        means = [{"type": "event", "settings": 1, "scores": {"F1_CONLL": value}, "units": None}]
        fingerprints = {"a": "1" * 64}
        return StoredRun(
            f"{label}{seed}",
            "x",
            "1",
            "a",
            "topic",
            "in-domain",
            "a train",
            "a val",
            "",
            means,
            fingerprints,
            label,
            seed,
        )

    gold, predicted = "standard/gold-topics", "standard/predicted-topics"
    runs = [run(gold, 0, 70.0), run(gold, 1, 72.0), run(predicted, 0, 75.0)]
    table = settings_table(runs, ["x"], "a", [Protocol.from_label(gold), Protocol.from_label(predicted)], "event")
    assert table.columns == ["System", gold, predicted, "Seeds"]
    assert table.rows == [{"System": "x", gold: 71.0, predicted: 75.0, "Seeds": "1-2"}]  # (70 + 72) / 2
    assert [note.split(": Signature: ")[0] for note in table.notes] == [gold, predicted]
    assert "topics:predicted" in table.notes[1] and "topics:gold" in table.notes[0]
