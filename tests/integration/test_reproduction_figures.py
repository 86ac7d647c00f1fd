"""docs/reproducing.md's "From the original files" table holds what our builds give: every value of ours in it is
recomputed here from the real raw data (the paper's values in parentheses come from its Tables 2, 6 and 8)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.conftest import REPO_ROOT

from ucdcr.report.paper_tables import baseline_results, stats_tables

TABLE_IDS = {"ECB+": "ecbplus", "NP4E_cd": "np4e", "MEANTIME_eng": "meantime", "CD2CR": "cd2cr", "CEREC_exp": "cerec"}
_ROW = re.compile(r"^\| (?P<name>[^|]+?)(?: val\+test)? \| (?P<cells>.+) \|$")


def table_rows() -> dict[str, list[str]]:
    """Dataset id -> our values (parenthesised paper values removed) of the reproduction table."""
    text = (REPO_ROOT / "docs" / "reproducing.md").read_text(encoding="utf-8")
    table = text.split("| dataset | mentions (paper) |", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        match = _ROW.match(line)
        assert match, line
        cells = [re.sub(r" \(.*\)$", "", cell.strip()) for cell in match["cells"].split("|")]
        rows[TABLE_IDS[match["name"]]] = cells
    return rows


@pytest.mark.parametrize("dataset", list(TABLE_IDS.values()))
def test_reproduction_row(dataset: str, built) -> None:  # type: ignore[no-untyped-def]
    folder: Path = built(dataset)
    report = built.report(dataset)
    [table2] = stats_tables({dataset: folder}, ("2",))
    [result] = baseline_results({dataset: folder})
    [subtopic] = [mean for mean in result.means if mean.level == "subtopic" and mean.type == ""]
    ours = [
        f"{report.counts['mentions_written']:,}",
        f"{table2.rows[0]['Chains']:,}",
        f"{report.counts['documents']:,}",
        f"{report.parse_rate:g}%",
        f"{subtopic.scores['F1_CONLL']:.2f}",
    ]
    assert table_rows()[dataset] == ours
