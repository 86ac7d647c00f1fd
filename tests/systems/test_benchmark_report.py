"""``ucdcr report`` shows the stored benchmark results: leaderboard, tables and the transfer heatmap."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.bench_dataset import write_bench_dataset

from ucdcr.report.build_report import BENCHMARK_TITLE, Report, _benchmark_section, build_report
from ucdcr.systems.runner import benchmark


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
