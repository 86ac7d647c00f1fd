"""The acceptance of the release source on the shared copy of the authors' release (../shared/reference: ECBplus and
NP4E, lacking files exactly as a partial download would): installed with `ucdcr download --release --release-dir`,
the commands reproduce the paper's Table 5 row and Table 6 CoNLL F1 for ECB+ (docs/release.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ucdcr.cli.app import app


@pytest.fixture(scope="module")
def data(reference_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("release-data")
    args = ["download", "--release", "ecbplus", "np4e", "--release-dir", str(reference_dir), "--data-dir", str(folder)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    # the shared copy lacks the card, ECB+'s token table and train files, NP4E's train and val files
    assert "the copy lacks README.md, all_documents.parquet, train/" in result.output
    record = json.loads((folder / "release" / "ecbplus" / "release.json").read_text(encoding="utf-8"))
    assert (
        record["files"]["ECBplus/all_mentions.parquet"]["size"]
        == (reference_dir / "ECBplus" / "all_mentions.parquet").stat().st_size
    )
    return folder


def test_diversity_reproduces_table5(data: Path) -> None:
    result = CliRunner().invoke(app, ["diversity", "--data-dir", str(data), "-f", "json"])
    assert result.exit_code == 0, result.output
    rows = {row["Dataset"]: row for row in json.loads(result.output)[0]["rows"]}
    row = rows["ecbplus"]
    assert (round(row["AL"], 2), round(row["UL-a"], 2), row["UL-o"], round(row["PD"], 2), round(row["MTLD"], 2)) == (
        2.22,
        2.61,
        605,
        1.50,
        4.52,
    )


def test_head_lemma_benchmark_reproduces_table6(data: Path, tmp_path: Path) -> None:
    args = ["benchmark", "--systems", "head-lemma", "--data-dir", str(data), "--datasets", "ecbplus"]
    result = CliRunner().invoke(app, [*args, "--cache-dir", str(tmp_path), "-f", "json"])
    assert result.exit_code == 0, result.output
    tables = json.loads(result.stdout)  # progress and the summary line go to stderr
    rows = tables[0]["rows"]
    joint = next(row for row in rows if row["Dataset"] == "ecbplus" and row["Type"] == "joint")
    assert round(joint["CoNLL"], 2) == 60.94  # paper Table 6
